#pragma once
// scheduler_perf's workload files (performance-config.yaml): a list of test
// cases, each a template of ops (createNodes, createNamespaces, createPods,
// barrier, sleep, ...) over `$param` counts, run in one or more sizes
// ("500Nodes", "5000Nodes/2000InitPods"). A Workload is one test case in one
// size. Templates named by the ops ("config/pod-default.yaml", relative to
// kube's test directory) are found beside the config file.
//
// What berth cannot run is refused by name (Unsupported) rather than run
// differently: ops berth does not have, fields it would ignore (volumes),
// pod priority (no preemption yet), and feature gates it cannot honour.

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/status.h"

namespace berth::perf {

struct Op {
  std::string opcode;
  YAML::Node node;  // the op as written
  int index =
      0;  // its position in the template (createPods' default namespace is "namespace-<index>")
};

struct Workload {
  std::string test_case;  // "SchedulingBasic"
  std::string size;       // "500Nodes"
  std::string default_pod_template;
  std::map<std::string, bool> feature_gates;
  std::vector<Op> ops;
  std::map<std::string, int64_t> params;
  std::string Name() const { return test_case + "/" + size; }
};

// Parses a workload file's text; `source` names it in errors ("FILE:LINE: ...").
Result<std::vector<Workload>> ParseWorkloads(const std::string& text, const std::string& source);
// Reads and parses the file at `path`; NotFound when it cannot be read.
Result<std::vector<Workload>> LoadWorkloads(const std::string& path);

// Whether `selector` (TESTCASE, or TESTCASE/SIZE where SIZE may be a prefix
// such as 500Nodes for 500Nodes/200InitPods) names `w`.
bool Selects(const std::string& selector, const Workload& w);

// Object templates (nodes, pods, namespaces) read once each.
class Templates {
 public:
  // `config_path`: the workload file; templates are looked for beside it, by
  // the path as written and then by its base name.
  explicit Templates(std::string config_path) : config_path_(std::move(config_path)) {}
  // The template as JSON; NotFound or BadRequest naming the file.
  Result<boost::json::value> Load(const std::string& path);

 private:
  std::string config_path_;
  std::map<std::string, boost::json::value> cache_;
};

// The pod template an op uses: its podTemplatePath, else the test case's
// defaultPodTemplatePath, else kube's default pod (config/pod-default.yaml).
std::string PodTemplatePath(const Workload& w, const Op& op);

// "" when berth can run `w`; otherwise what it cannot ("op churn",
// "featureGates CSIMigration=true (...)", "createPods.persistentVolumeTemplatePath ...").
std::string Unsupported(const Workload& w, Templates& templates);

// The feature gates berth honours, each with the only value it can: the
// behaviour is always on.
const std::map<std::string, bool>& HonouredFeatureGates();

}  // namespace berth::perf
