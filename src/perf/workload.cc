#include "perf/workload.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "api/codec/yaml_json.h"

namespace berth::perf {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string At(const std::string& source, const YAML::Node& n) {
  return source + ":" + std::to_string(n.Mark().line + 1) + ": ";
}

}  // namespace

Result<std::vector<Workload>> ParseWorkloads(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::BadRequest(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsSequence()) return Status::BadRequest(source + ": expected a list of test cases");
  std::vector<Workload> out;
  try {
    for (const auto& tc : root) {
      if (!tc.IsMap() || !tc["name"] || !tc["workloadTemplate"] || !tc["workloads"]) {
        return Status::BadRequest(At(source, tc) +
                                  "a test case needs name, workloadTemplate and workloads");
      }
      std::vector<Op> ops;
      int index = 0;
      for (const auto& op : tc["workloadTemplate"]) {
        if (!op.IsMap() || !op["opcode"])
          return Status::BadRequest(At(source, op) + "an op needs an opcode");
        ops.push_back({op["opcode"].as<std::string>(), op, index++});
      }
      std::map<std::string, bool> gates;
      if (const auto g = tc["featureGates"]) {
        for (const auto& kv : g) gates[kv.first.as<std::string>()] = kv.second.as<bool>();
      }
      for (const auto& w : tc["workloads"]) {
        if (!w["name"]) return Status::BadRequest(At(source, w) + "a workload needs a name");
        Workload workload;
        workload.test_case = tc["name"].as<std::string>();
        workload.size = w["name"].as<std::string>();
        if (tc["defaultPodTemplatePath"])
          workload.default_pod_template = tc["defaultPodTemplatePath"].as<std::string>();
        workload.feature_gates = gates;
        workload.ops = ops;
        if (w["params"]) {
          for (const auto& p : w["params"])
            workload.params[p.first.as<std::string>()] = p.second.as<int64_t>();
        }
        out.push_back(std::move(workload));
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::BadRequest(source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

Result<std::vector<Workload>> LoadWorkloads(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return ParseWorkloads(text.str(), path);
}

bool Selects(const std::string& selector, const Workload& w) {
  const auto slash = selector.find('/');
  if (selector.substr(0, slash) != w.test_case) return false;
  return slash == std::string::npos || w.size.rfind(selector.substr(slash + 1), 0) == 0;
}

Result<json::value> Templates::Load(const std::string& path) {
  if (path.empty()) return Status::BadRequest("an empty template path");
  if (auto cached = cache_.find(path); cached != cache_.end()) return cached->second;
  const fs::path base = fs::path(config_path_).parent_path();
  fs::path found;
  for (const fs::path& p : {base / path, base / fs::path(path).filename()}) {
    std::error_code ec;
    if (fs::exists(p, ec)) {
      found = p;
      break;
    }
  }
  if (found.empty()) return Status::NotFound(config_path_ + ": template " + path + " not found");
  try {
    json::value v = api::YamlToJson(YAML::LoadFile(found.string()));
    if (!v.is_object()) return Status::BadRequest(found.string() + ": not a map");
    cache_[path] = v;
    return v;
  } catch (const YAML::Exception& e) {
    return Status::BadRequest(found.string() + ":" + std::to_string(e.mark.line + 1) + ": " +
                              e.msg);
  }
}

std::string PodTemplatePath(const Workload& w, const Op& op) {
  if (op.node["podTemplatePath"]) return op.node["podTemplatePath"].as<std::string>();
  return w.default_pod_template.empty() ? "config/pod-default.yaml" : w.default_pod_template;
}

const std::map<std::string, bool>& HonouredFeatureGates() {
  // GA in kube; berth always behaves as with them on.
  static const std::map<std::string, bool> kGates = {
      {"PodAffinityNamespaceSelector", true}, {"NodeInclusionPolicyInPodTopologySpread", true},
      // GA and locked on since 1.25: in-tree EBS volumes count as ebs.csi.aws.com ones.
      {"CSIMigration", true}, {"CSIMigrationAWS", true}};
  return kGates;
}

std::string Unsupported(const Workload& w, Templates& templates) {
  for (const auto& [gate, value] : w.feature_gates) {
    auto it = HonouredFeatureGates().find(gate);
    if (it == HonouredFeatureGates().end()) {
      return "featureGates " + gate + "=" + (value ? "true" : "false") +
             " (berth has no such gate)";
    }
    if (it->second != value) {
      return "featureGates " + gate + "=" + (value ? "true" : "false") +
             " (berth's behaviour is always " + (it->second ? "on" : "off") + ")";
    }
  }
  static const std::set<std::string> kOps = {"createNodes", "createNamespaces", "createPods",
                                             "barrier", "sleep"};
  static const std::set<std::string> kFields = {"opcode",
                                                "count",
                                                "countParam",
                                                "nodeTemplatePath",
                                                "uniqueNodeLabelStrategy",
                                                "labelNodePrepareStrategy",
                                                "prefix",
                                                "namespaceTemplatePath",
                                                "nodeAllocatableStrategy",
                                                "persistentVolumeTemplatePath",
                                                "persistentVolumeClaimTemplatePath",
                                                "podTemplatePath",
                                                "namespace",
                                                "collectMetrics",
                                                "skipWaitToCompletion",
                                                "duration"};
  for (const auto& op : w.ops) {
    if (!kOps.count(op.opcode)) return "op " + op.opcode;
    for (const auto& kv : op.node) {
      const std::string key = kv.first.as<std::string>();
      if (!kFields.count(key)) return op.opcode + "." + key;
    }
  }
  return "";
}

}  // namespace berth::perf
