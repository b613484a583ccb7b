// berth against kube-scheduler 1.32 on random clusters: each node's filter
// status (the first failing plugin in kube's default order, its reasons and
// code), the "0/N nodes are available" message, and every score plugin's
// normalised score, checked against a plain reference written here from
// kube's formulas (integer division where kube divides). berth is driven
// through real Frameworks built from the in-tree registry.
//
// The reference reads the generator's own description of each cluster, never
// berth's NodeInfo or PodView, so a wrong sum in either shows up here.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fake_cluster.h"
#include "scheduler/framework/fit_error.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;
using testing::FakeHandle;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;
constexpr const char* kGpu = "example.com/gpu";

// ---- A cluster as the generator writes it and the reference reads it ----

struct PortModel {
  int32_t port = 0;
  std::string protocol;  // "" is TCP
  std::string host_ip;   // "" is 0.0.0.0
};

struct ContainerModel {
  std::optional<int64_t> cpu;        // millicores; nullopt: no cpu request at all
  std::optional<int64_t> memory;     // bytes
  std::optional<int64_t> ephemeral;  // bytes of ephemeral-storage
  int64_t gpu = 0;
  // cpu and memory written as limits only (the API then requests the limits)
  bool limits_only = false;
  bool sidecar = false;  // an init container with restartPolicy Always
  std::vector<PortModel> ports;
  std::string image = "pause:3";
};

struct TolerationModel {
  std::string key;
  bool exists = false;  // operator Exists, else Equal
  std::string value;
  std::string effect;  // "": every effect
};

struct RequirementModel {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

struct TermModel {
  std::vector<RequirementModel> expressions;
  std::vector<RequirementModel> fields;  // metadata.name only
};

struct PodModel {
  std::string name;
  std::vector<ContainerModel> containers, init_containers;
  std::optional<std::pair<int64_t, int64_t>> overhead;  // cpu millicores, memory bytes
  std::vector<TolerationModel> tolerations;
  std::map<std::string, std::string> node_selector;
  std::optional<std::vector<TermModel>> required;
  std::vector<std::pair<int32_t, TermModel>> preferred;
  std::string node_name;
};

struct TaintModel {
  std::string key, value, effect;
};

struct ImageModel {
  std::vector<std::string> names;
  int64_t size = 0;
};

struct NodeModel {
  std::string name;
  int64_t cpu = 0, memory = 0, pods = 0;
  std::optional<int64_t> gpu;  // nullopt: the node has no such resource
  std::optional<int64_t> ephemeral;
  std::map<std::string, std::string> labels;
  std::vector<TaintModel> taints;
  bool unschedulable = false;
  std::vector<ImageModel> images;
  std::vector<PodModel> pods_on;
};

// ---- JSON for berth ----

json::object RequirementJson(const RequirementModel& r) {
  json::array values;
  for (const auto& v : r.values) values.emplace_back(v);
  json::object o{{"key", r.key}, {"operator", r.op}};
  if (!values.empty()) o["values"] = std::move(values);
  return o;
}

json::object TermJson(const TermModel& t) {
  json::object o;
  if (!t.expressions.empty()) {
    json::array a;
    for (const auto& r : t.expressions) a.emplace_back(RequirementJson(r));
    o["matchExpressions"] = std::move(a);
  }
  if (!t.fields.empty()) {
    json::array a;
    for (const auto& r : t.fields) a.emplace_back(RequirementJson(r));
    o["matchFields"] = std::move(a);
  }
  return o;
}

json::object ContainerJson(const ContainerModel& c, const std::string& name) {
  json::object o{{"name", name}, {"image", c.image}};
  json::object requests, limits;
  json::object& cpu_and_memory = c.limits_only ? limits : requests;
  if (c.cpu) cpu_and_memory["cpu"] = std::to_string(*c.cpu) + "m";
  if (c.memory) cpu_and_memory["memory"] = std::to_string(*c.memory);
  if (c.ephemeral) requests["ephemeral-storage"] = std::to_string(*c.ephemeral);
  if (c.gpu > 0) {
    requests[kGpu] = std::to_string(c.gpu);
    limits[kGpu] = std::to_string(c.gpu);
  }
  if (!requests.empty() || !limits.empty()) {
    json::object resources;
    if (!requests.empty()) resources["requests"] = std::move(requests);
    if (!limits.empty()) resources["limits"] = std::move(limits);
    o["resources"] = std::move(resources);
  }
  if (c.sidecar) o["restartPolicy"] = "Always";
  if (!c.ports.empty()) {
    json::array ports;
    for (const auto& p : c.ports) {
      json::object port{{"containerPort", 80}, {"hostPort", p.port}};
      if (!p.protocol.empty()) port["protocol"] = p.protocol;
      if (!p.host_ip.empty()) port["hostIP"] = p.host_ip;
      ports.emplace_back(std::move(port));
    }
    o["ports"] = std::move(ports);
  }
  return o;
}

json::object PodJson(const PodModel& p) {
  json::object spec;
  json::array containers, inits;
  for (size_t i = 0; i < p.containers.size(); ++i) {
    containers.emplace_back(ContainerJson(p.containers[i], "c" + std::to_string(i)));
  }
  for (size_t i = 0; i < p.init_containers.size(); ++i) {
    inits.emplace_back(ContainerJson(p.init_containers[i], "i" + std::to_string(i)));
  }
  spec["containers"] = std::move(containers);
  if (!inits.empty()) spec["initContainers"] = std::move(inits);
  if (p.overhead) {
    spec["overhead"] = json::object{{"cpu", std::to_string(p.overhead->first) + "m"},
                                    {"memory", std::to_string(p.overhead->second)}};
  }
  if (!p.tolerations.empty()) {
    json::array tolerations;
    for (const auto& t : p.tolerations) {
      json::object o{{"operator", t.exists ? "Exists" : "Equal"}};
      if (!t.key.empty()) o["key"] = t.key;
      if (!t.exists) o["value"] = t.value;
      if (!t.effect.empty()) o["effect"] = t.effect;
      tolerations.emplace_back(std::move(o));
    }
    spec["tolerations"] = std::move(tolerations);
  }
  if (!p.node_selector.empty()) {
    json::object selector;
    for (const auto& [k, v] : p.node_selector) selector[k] = v;
    spec["nodeSelector"] = std::move(selector);
  }
  json::object node_affinity;
  if (p.required) {
    json::array terms;
    for (const auto& t : *p.required) terms.emplace_back(TermJson(t));
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] =
        json::object{{"nodeSelectorTerms", terms}};
  }
  if (!p.preferred.empty()) {
    json::array preferred;
    for (const auto& [weight, term] : p.preferred) {
      preferred.emplace_back(json::object{{"weight", weight}, {"preference", TermJson(term)}});
    }
    node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(preferred);
  }
  if (!node_affinity.empty())
    spec["affinity"] = json::object{{"nodeAffinity", std::move(node_affinity)}};
  if (!p.node_name.empty()) spec["nodeName"] = p.node_name;
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       json::object{{"name", p.name}, {"namespace", "default"}, {"uid", "uid-" + p.name}}},
      {"spec", std::move(spec)}};
}

json::object NodeJson(const NodeModel& n) {
  json::object labels;
  for (const auto& [k, v] : n.labels) labels[k] = v;
  json::object allocatable{{"cpu", std::to_string(n.cpu) + "m"},
                           {"memory", std::to_string(n.memory)},
                           {"pods", std::to_string(n.pods)}};
  if (n.gpu) allocatable[kGpu] = std::to_string(*n.gpu);
  if (n.ephemeral) allocatable["ephemeral-storage"] = std::to_string(*n.ephemeral);
  json::object spec;
  if (n.unschedulable) spec["unschedulable"] = true;
  if (!n.taints.empty()) {
    json::array taints;
    for (const auto& t : n.taints) {
      json::object o{{"key", t.key}, {"effect", t.effect}};
      if (!t.value.empty()) o["value"] = t.value;
      taints.emplace_back(std::move(o));
    }
    spec["taints"] = std::move(taints);
  }
  json::array images;
  for (const auto& image : n.images) {
    json::array names;
    for (const auto& name : image.names) names.emplace_back(name);
    images.emplace_back(json::object{{"names", std::move(names)}, {"sizeBytes", image.size}});
  }
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Node"},
                      {"metadata", json::object{{"name", n.name}, {"labels", std::move(labels)}}},
                      {"spec", std::move(spec)},
                      {"status", json::object{{"capacity", allocatable},
                                              {"allocatable", allocatable},
                                              {"images", std::move(images)}}}};
}

api::ObjectPtr Decode(json::object o) {
  auto object = api::Object::FromJson(json::value(std::move(o)));
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.value();
}

std::shared_ptr<NodeInfo> NodeInfoOf(const NodeModel& n) {
  auto info = std::make_shared<NodeInfo>(Decode(NodeJson(n)));
  for (const auto& p : n.pods_on) {
    json::object o = PodJson(p);
    o["spec"].as_object()["nodeName"] = n.name;
    info->AddPod(MakePodInfo(Decode(std::move(o))));
  }
  return info;
}

// ---- The reference: kube-scheduler 1.32's rules, written plainly ----

struct Amounts {
  int64_t cpu = 0, memory = 0, gpu = 0, ephemeral = 0;
  void Add(const Amounts& o) {
    cpu += o.cpu;
    memory += o.memory;
    gpu += o.gpu;
    ephemeral += o.ephemeral;
  }
  void Max(const Amounts& o) {
    cpu = std::max(cpu, o.cpu);
    memory = std::max(memory, o.memory);
    gpu = std::max(gpu, o.gpu);
    ephemeral = std::max(ephemeral, o.ephemeral);
  }
};

// resourcehelper.PodRequests: containers and sidecars summed, each init
// container's step (itself plus the sidecars started before it) as a floor,
// plus the overhead. `non_zero`: a container without a cpu / memory request
// counts 100m / 200Mi (an explicit "0" stays 0).
Amounts PodRequests(const PodModel& p, bool non_zero) {
  auto of = [&](const ContainerModel& c) {
    Amounts a;
    a.cpu = c.cpu.value_or(non_zero ? 100 : 0);
    a.memory = c.memory.value_or(non_zero ? 200 * kMi : 0);
    a.gpu = c.gpu;
    a.ephemeral = c.ephemeral.value_or(0);
    return a;
  };
  Amounts sum, sidecars, init_floor;
  for (const auto& c : p.containers) sum.Add(of(c));
  for (const auto& c : p.init_containers) {
    Amounts step = of(c);
    if (c.sidecar) {
      sum.Add(step);
      sidecars.Add(step);
      step = sidecars;
    } else {
      step.Add(sidecars);
    }
    init_floor.Max(step);
  }
  sum.Max(init_floor);
  if (p.overhead) sum.Add({p.overhead->first, p.overhead->second, 0, 0});
  return sum;
}

Amounts NodeRequested(const NodeModel& n, bool non_zero) {
  Amounts sum;
  for (const auto& p : n.pods_on) sum.Add(PodRequests(p, non_zero));
  return sum;
}

bool Tolerates(const TolerationModel& t, const TaintModel& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  return t.exists || t.value == taint.value;
}

bool ToleratedBy(const std::vector<TolerationModel>& tolerations, const TaintModel& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const auto& t) { return Tolerates(t, taint); });
}

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t used = 0;
  try {
    int64_t v = std::stoll(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

bool RequirementMatches(const RequirementModel& r,
                        const std::map<std::string, std::string>& labels) {
  auto it = labels.find(r.key);
  bool has = it != labels.end();
  auto in = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") return in();
  if (r.op == "NotIn") return !in();
  if (r.op == "Exists") return has;
  if (r.op == "DoesNotExist") return !has;
  if (r.op == "Gt" || r.op == "Lt") {
    if (!has || r.values.size() != 1) return false;
    auto have = ParseInt(it->second), want = ParseInt(r.values[0]);
    if (!have || !want) return false;
    return r.op == "Gt" ? *have > *want : *have < *want;
  }
  return false;
}

// nodeaffinity's nodeSelectorTerm.match; an empty term matches nothing.
bool TermMatches(const TermModel& t, const NodeModel& n) {
  if (t.expressions.empty() && t.fields.empty()) return false;
  for (const auto& r : t.expressions) {
    if (!RequirementMatches(r, n.labels)) return false;
  }
  for (const auto& r : t.fields) {
    if (!RequirementMatches(r, {{"metadata.name", n.name}})) return false;
  }
  return true;
}

struct Verdict {
  std::string plugin;  // "": the node passes
  Code code = Code::kSuccess;
  std::vector<std::string> reasons;
};

std::string Describe(const Verdict& v) {
  if (v.plugin.empty()) return "passes";
  std::string out = v.plugin + " code " + std::to_string(static_cast<int>(v.code)) + " [";
  for (const auto& r : v.reasons) out += r + "; ";
  return out + "]";
}

std::string Describe(const PluginStatus& s) {
  if (s.ok()) return "passes";
  return Describe(Verdict{s.plugin(), s.code(), s.reasons()});
}

std::vector<PortModel> HostPorts(const PodModel& p) {
  std::vector<PortModel> out;
  for (const auto& c : p.containers) {
    for (const auto& port : c.ports) {
      PortModel sane = port;
      if (sane.protocol.empty()) sane.protocol = "TCP";
      if (sane.host_ip.empty()) sane.host_ip = "0.0.0.0";
      out.push_back(sane);
    }
  }
  return out;
}

// HostPortInfo.CheckConflict.
bool PortConflicts(const PortModel& want, const std::vector<PortModel>& used) {
  for (const auto& u : used) {
    if (u.port != want.port || u.protocol != want.protocol) continue;
    if (want.host_ip == "0.0.0.0" || u.host_ip == "0.0.0.0" || u.host_ip == want.host_ip)
      return true;
  }
  return false;
}

// The filters of kube's default profile in their order (the volume plugins
// berth lacks, and PodTopologySpread / InterPodAffinity, which pass pods
// without such constraints, left out). The first that fails decides.
// `added`: NodeAffinity's addedAffinity (required terms), checked before the pod's own.
Verdict ReferenceFilter(const PodModel& pod, const NodeModel& node,
                        const std::vector<TermModel>* added = nullptr) {
  if (node.unschedulable &&
      !ToleratedBy(pod.tolerations, {"node.kubernetes.io/unschedulable", "", "NoSchedule"})) {
    return {
        "NodeUnschedulable", Code::kUnschedulableAndUnresolvable, {"node(s) were unschedulable"}};
  }
  if (!pod.node_name.empty() && pod.node_name != node.name) {
    return {"NodeName",
            Code::kUnschedulableAndUnresolvable,
            {"node(s) didn't match the requested node name"}};
  }
  for (const auto& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (ToleratedBy(pod.tolerations, taint)) continue;
    return {"TaintToleration",
            Code::kUnschedulableAndUnresolvable,
            {"node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}"}};
  }
  if (added && std::none_of(added->begin(), added->end(),
                            [&](const TermModel& t) { return TermMatches(t, node); })) {
    return {"NodeAffinity",
            Code::kUnschedulableAndUnresolvable,
            {"node(s) didn't match scheduler-enforced node affinity"}};
  }
  bool selected =
      std::all_of(pod.node_selector.begin(), pod.node_selector.end(), [&](const auto& kv) {
        auto it = node.labels.find(kv.first);
        return it != node.labels.end() && it->second == kv.second;
      });
  if (selected && pod.required) {
    selected = std::any_of(pod.required->begin(), pod.required->end(),
                           [&](const TermModel& t) { return TermMatches(t, node); });
  }
  if (!selected) {
    return {"NodeAffinity",
            Code::kUnschedulableAndUnresolvable,
            {"node(s) didn't match Pod's node affinity/selector"}};
  }
  std::vector<PortModel> used;
  for (const auto& p : node.pods_on) {
    for (const auto& port : HostPorts(p)) used.push_back(port);
  }
  for (const auto& want : HostPorts(pod)) {
    if (PortConflicts(want, used)) {
      return {"NodePorts",
              Code::kUnschedulable,
              {"node(s) didn't have free ports for the requested pod ports"}};
    }
  }
  std::vector<std::string> reasons;
  if (static_cast<int64_t>(node.pods_on.size()) + 1 > node.pods)
    reasons.emplace_back("Too many pods");
  Amounts want = PodRequests(pod, false), used_amounts = NodeRequested(node, false);
  if (want.cpu > 0 || want.memory > 0 || want.gpu > 0 || want.ephemeral > 0) {
    if (want.cpu > 0 && want.cpu > node.cpu - used_amounts.cpu)
      reasons.emplace_back("Insufficient cpu");
    if (want.memory > 0 && want.memory > node.memory - used_amounts.memory) {
      reasons.emplace_back("Insufficient memory");
    }
    if (want.ephemeral > 0 &&
        want.ephemeral > node.ephemeral.value_or(0) - used_amounts.ephemeral) {
      reasons.emplace_back("Insufficient ephemeral-storage");
    }
    if (want.gpu > 0 && want.gpu > node.gpu.value_or(0) - used_amounts.gpu) {
      reasons.emplace_back(std::string("Insufficient ") + kGpu);
    }
  }
  if (!reasons.empty()) return {"NodeResourcesFit", Code::kUnschedulable, reasons};
  return {};
}

// FitError.Error() without a PostFilter: each reason counted over the nodes,
// "<count> <reason>" sorted as strings.
std::string ReferenceFitError(size_t nodes, const std::vector<Verdict>& verdicts) {
  std::map<std::string, int> counts;
  for (const auto& v : verdicts) {
    for (const auto& r : v.reasons) counts[r]++;
  }
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(nodes) + " nodes are available:";
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  if (!joined.empty()) out += " " + joined + ".";
  return out;
}

// helper.DefaultNormalizeScore.
void Normalize(std::vector<int64_t>& scores, bool reverse) {
  int64_t max = 0;
  for (int64_t s : scores) max = std::max(max, s);
  for (int64_t& s : scores) {
    if (max == 0) {
      s = reverse ? 100 : 0;
      continue;
    }
    s = 100 * s / max;
    if (reverse) s = 100 - s;
  }
}

struct ScoredResource {
  std::string name;  // "cpu", "memory", "ephemeral-storage" or kGpu
  int64_t weight;
};

enum class Strategy { kLeast, kMost, kRatio, kBalanced };

struct ShapePoint {
  int64_t utilization, score;  // score 0–10 as configured
};

// resourceAllocationScorer.score with each strategy's scorer.
int64_t ReferenceResourceScore(Strategy strategy, const std::vector<ScoredResource>& resources,
                               const std::vector<ShapePoint>& shape, const PodModel& pod,
                               const NodeModel& node) {
  const bool non_zero = strategy != Strategy::kBalanced;
  Amounts want = PodRequests(pod, non_zero), used = NodeRequested(node, non_zero);
  // Extended resources are counted from real requests either way.
  Amounts real_want = PodRequests(pod, false), real_used = NodeRequested(node, false);
  std::vector<int64_t> requested, allocatable;
  for (const auto& r : resources) {
    int64_t alloc = 0, req = 0;
    if (r.name == "cpu") {
      alloc = node.cpu;
      req = used.cpu + want.cpu;
    } else if (r.name == "memory") {
      alloc = node.memory;
      req = used.memory + want.memory;
    } else if (r.name == "ephemeral-storage") {
      alloc = node.ephemeral.value_or(0);
      req = real_used.ephemeral + real_want.ephemeral;
    } else if (real_want.gpu > 0 && node.gpu) {
      alloc = *node.gpu;
      req = real_used.gpu + real_want.gpu;
    }
    requested.push_back(req);
    allocatable.push_back(alloc);
  }
  if (strategy == Strategy::kBalanced) {
    std::vector<double> fractions;
    double total = 0;
    for (size_t i = 0; i < resources.size(); ++i) {
      if (allocatable[i] == 0) continue;
      double f =
          std::min(1.0, static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]));
      total += f;
      fractions.push_back(f);
    }
    double std_dev = 0;
    if (fractions.size() == 2) {
      std_dev = std::abs((fractions[0] - fractions[1]) / 2);
    } else if (fractions.size() > 2) {
      double mean = total / static_cast<double>(fractions.size());
      double sum = 0;
      for (double f : fractions) sum += (f - mean) * (f - mean);
      std_dev = std::sqrt(sum / static_cast<double>(fractions.size()));
    }
    return static_cast<int64_t>((1 - std_dev) * 100.0);
  }
  auto broken_linear = [&](int64_t p) {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (p <= shape[i].utilization) {
        if (i == 0) return shape[0].score * 10;
        int64_t a = shape[i - 1].score * 10, b = shape[i].score * 10;
        return a + (b - a) * (p - shape[i - 1].utilization) /
                       (shape[i].utilization - shape[i - 1].utilization);
      }
    }
    return shape.back().score * 10;
  };
  int64_t total = 0, weights = 0;
  for (size_t i = 0; i < resources.size(); ++i) {
    int64_t alloc = allocatable[i], req = requested[i];
    if (alloc == 0) continue;
    int64_t s = 0;
    if (strategy == Strategy::kLeast) {
      s = req > alloc ? 0 : (alloc - req) * 100 / alloc;
    } else if (strategy == Strategy::kMost) {
      s = std::min(req, alloc) * 100 / alloc;
    } else {
      s = broken_linear(req > alloc ? 100 : req * 100 / alloc);
      if (s <= 0) continue;
    }
    total += s * resources[i].weight;
    weights += resources[i].weight;
  }
  if (weights == 0) return 0;
  if (strategy == Strategy::kRatio) {
    return static_cast<int64_t>(
        std::round(static_cast<double>(total) / static_cast<double>(weights)));
  }
  return total / weights;
}

int64_t ReferenceTaintScore(const PodModel& pod, const NodeModel& node) {
  std::vector<TolerationModel> soft;
  for (const auto& t : pod.tolerations) {
    if (t.effect.empty() || t.effect == "PreferNoSchedule") soft.push_back(t);
  }
  int64_t count = 0;
  for (const auto& taint : node.taints) {
    if (taint.effect == "PreferNoSchedule" && !ToleratedBy(soft, taint)) ++count;
  }
  return count;
}

// `added`: NodeAffinity's addedAffinity (preferred terms), scored with the pod's.
int64_t ReferenceAffinityScore(const PodModel& pod, const NodeModel& node,
                               const std::vector<std::pair<int32_t, TermModel>>* added = nullptr) {
  int64_t sum = 0;
  for (const auto* terms : {&pod.preferred, added}) {
    if (!terms) continue;
    for (const auto& [weight, term] : *terms) {
      if (weight != 0 && TermMatches(term, node)) sum += weight;
    }
  }
  return sum;
}

std::string NormalizedImage(const std::string& name) {
  size_t colon = name.rfind(':'), slash = name.rfind('/');
  bool tagged = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  return tagged ? name : name + ":latest";
}

// ImageLocality: each container's image present on the node under that exact
// (normalised) name adds its size scaled by the share of nodes that have it.
int64_t ReferenceImageScore(const PodModel& pod, const NodeModel& node,
                            const std::vector<NodeModel>& cluster) {
  auto nodes_with = [&](const std::string& name) {
    int64_t count = 0;
    for (const auto& n : cluster) {
      bool has = std::any_of(n.images.begin(), n.images.end(), [&](const ImageModel& i) {
        return std::find(i.names.begin(), i.names.end(), name) != i.names.end();
      });
      count += has;
    }
    return count;
  };
  int64_t sum = 0;
  auto add = [&](const ContainerModel& c) {
    std::string wanted = NormalizedImage(c.image);
    for (const auto& image : node.images) {
      if (std::find(image.names.begin(), image.names.end(), wanted) == image.names.end()) continue;
      double spread = static_cast<double>(nodes_with(wanted)) / static_cast<double>(cluster.size());
      sum += static_cast<int64_t>(static_cast<double>(image.size) * spread);
      return;
    }
  };
  for (const auto& c : pod.init_containers) add(c);
  for (const auto& c : pod.containers) add(c);
  const int64_t min_threshold = 23 * kMi;
  const int64_t max_threshold =
      1000 * kMi * static_cast<int64_t>(pod.containers.size() + pod.init_containers.size());
  sum = std::clamp(sum, min_threshold, max_threshold);
  return 100 * (sum - min_threshold) / (max_threshold - min_threshold);
}

// The default profile's weighted sum over `nodes` (each plugin normalised
// over them): TaintToleration ×3, NodeAffinity ×2, NodeResourcesFit
// (LeastAllocated) ×1, NodeResourcesBalancedAllocation ×1, ImageLocality ×1.
// PodTopologySpread and InterPodAffinity add nothing for pods without such
// terms on nodes whose pods have none.
std::vector<int64_t> ReferenceDefaultTotals(const PodModel& pod,
                                            const std::vector<const NodeModel*>& nodes,
                                            const std::vector<NodeModel>& cluster) {
  const std::vector<ScoredResource> resources = {{"cpu", 1}, {"memory", 1}};
  std::vector<int64_t> taints, affinity;
  for (const auto* n : nodes) {
    taints.push_back(ReferenceTaintScore(pod, *n));
    affinity.push_back(ReferenceAffinityScore(pod, *n));
  }
  Normalize(taints, /*reverse=*/true);
  Normalize(affinity, /*reverse=*/false);
  std::vector<int64_t> totals;
  for (size_t i = 0; i < nodes.size(); ++i) {
    totals.push_back(3 * taints[i] + 2 * affinity[i] +
                     ReferenceResourceScore(Strategy::kLeast, resources, {}, pod, *nodes[i]) +
                     ReferenceResourceScore(Strategy::kBalanced, resources, {}, pod, *nodes[i]) +
                     ReferenceImageScore(pod, *nodes[i], cluster));
  }
  return totals;
}

// ---- Random clusters and pods ----

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& Pick(const std::vector<T>& from) {
    return from[static_cast<size_t>(Int(0, static_cast<int>(from.size()) - 1))];
  }

  std::vector<NodeModel> Cluster(int size) {
    std::vector<NodeModel> nodes;
    for (int i = 0; i < size; ++i) nodes.push_back(Node("n" + std::to_string(i)));
    return nodes;
  }

  PodModel Pod(const std::string& name, bool pending) {
    PodModel p;
    p.name = name;
    int containers = Int(1, 2);
    for (int i = 0; i < containers; ++i) p.containers.push_back(Container(pending));
    if (Chance(0.2)) {
      ContainerModel init = Container(pending);
      init.ports.clear();
      init.sidecar = Chance(0.4);
      if (init.cpu) *init.cpu *= 2;
      p.init_containers.push_back(init);
    }
    if (Chance(0.1))
      p.overhead = {{Pick<int64_t>({50, 250}), Pick<int64_t>({64 * kMi, 128 * kMi})}};
    if (!pending) return p;
    int tolerations = Int(0, 3);
    for (int i = 0; i < tolerations; ++i) {
      TolerationModel t;
      t.exists = Chance(0.5);
      t.key = t.exists && Chance(0.15) ? "" : Pick(kTaintKeys);
      if (!t.exists) t.value = Pick(kTaintValues);
      if (Chance(0.6)) t.effect = Pick(kEffects);
      p.tolerations.push_back(t);
    }
    if (Chance(0.2)) p.node_selector["disk"] = Pick<std::string>({"ssd", "hdd"});
    if (Chance(0.1)) p.node_selector["topology.kubernetes.io/zone"] = Pick(kZones);
    if (Chance(0.25)) {
      std::vector<TermModel> terms;
      int n = Int(1, 2);
      for (int i = 0; i < n; ++i) terms.push_back(Term(/*required=*/true));
      p.required = terms;
    }
    int preferred = Chance(0.35) ? Int(1, 3) : 0;
    for (int i = 0; i < preferred; ++i)
      p.preferred.emplace_back(Chance(0.05) ? 0 : Int(1, 100), Term(false));
    if (Chance(0.03)) p.node_name = "n" + std::to_string(Int(0, 40));
    return p;
  }

 private:
  const std::vector<std::string> kTaintKeys = {"dedicated", "spot", "gpu", "maintenance",
                                               "node.kubernetes.io/unschedulable"};
  const std::vector<std::string> kTaintValues = {"", "a", "b"};
  const std::vector<std::string> kEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
  const std::vector<std::string> kZones = {"z0", "z1", "z2"};
  // Images with one size each (as every kubelet reports them); some nodes
  // also list a digest name that others lack, so the names' spreads differ.
  const std::vector<ImageModel> kImages = {
      {{"app:1", "app@sha256:1"}, 300 * kMi},  {{"app:2", "app@sha256:2"}, 800 * kMi},
      {{"db:5", "db@sha256:5"}, 500 * kMi},    {{"big:1", "big@sha256:1"}, 2000 * kMi},
      {{"tiny:1", "tiny@sha256:1"}, 10 * kMi}, {{"lib/web:latest", "lib/web@sha256:7"}, 600 * kMi}};
  const std::vector<std::string> kPodImages = {"app:1",        "app:2",       "db:5",
                                               "big:1",        "tiny:1",      "lib/web",
                                               "app@sha256:1", "db@sha256:5", "pause:3"};

  NodeModel Node(const std::string& name) {
    NodeModel n;
    n.name = name;
    n.cpu = Pick<int64_t>({500, 1000, 2000, 3500, 4000, 8000, 16000});
    n.memory = Pick<int64_t>({512 * kMi, 1 * kGi, 2 * kGi, 4 * kGi, 6 * kGi, 8 * kGi, 16 * kGi});
    n.pods = Pick<int64_t>({1, 2, 4, 8, 110});
    if (Chance(0.3)) n.gpu = Pick<int64_t>({0, 1, 2, 4});
    if (Chance(0.7)) n.ephemeral = Pick<int64_t>({1 * kGi, 10 * kGi, 50 * kGi});
    n.labels["kubernetes.io/hostname"] = name;
    if (Chance(0.9)) n.labels["topology.kubernetes.io/zone"] = Pick(kZones);
    if (Chance(0.6)) n.labels["disk"] = Pick<std::string>({"ssd", "hdd"});
    if (Chance(0.6)) n.labels["tier"] = std::to_string(Int(1, 9));
    if (Chance(0.5)) n.labels["pool"] = Pick<std::string>({"a", "b"});
    int taints = Chance(0.5) ? Int(1, 3) : 0;
    for (int i = 0; i < taints; ++i) {
      TaintModel t{Pick(kTaintKeys), Pick(kTaintValues), Pick(kEffects)};
      bool repeated = std::any_of(n.taints.begin(), n.taints.end(), [&](const TaintModel& o) {
        return o.key == t.key && o.effect == t.effect;
      });
      if (!repeated) n.taints.push_back(t);
    }
    n.unschedulable = Chance(0.1);
    for (const auto& image : kImages) {
      if (!Chance(0.35)) continue;
      ImageModel i = image;
      if (Chance(0.5)) i.names.pop_back();
      n.images.push_back(i);
    }
    int pods = Int(0, static_cast<int>(std::min<int64_t>(n.pods + 1, 6)));
    for (int i = 0; i < pods; ++i) {
      PodModel p = Pod(name + "-p" + std::to_string(i), /*pending=*/false);
      if (!n.gpu || *n.gpu == 0) {
        for (auto& c : p.containers) c.gpu = 0;
        for (auto& c : p.init_containers) c.gpu = 0;
      }
      n.pods_on.push_back(p);
    }
    return n;
  }

  ContainerModel Container(bool pending) {
    ContainerModel c;
    // no requests, cpu only, memory only, both, or an explicit zero
    switch (Int(0, 4)) {
      case 0:
        break;
      case 1:
        c.cpu = Pick<int64_t>({100, 250, 500, 1000, 2000, 3000});
        break;
      case 2:
        c.memory = Pick<int64_t>({64 * kMi, 256 * kMi, 512 * kMi, 1 * kGi, 3 * kGi});
        break;
      case 3:
        c.cpu = Pick<int64_t>({100, 250, 500, 1000, 2000, 3000});
        c.memory = Pick<int64_t>({64 * kMi, 256 * kMi, 512 * kMi, 1 * kGi, 3 * kGi});
        break;
      default:
        c.cpu = 0;
        if (Chance(0.5)) c.memory = 128 * kMi;
        break;
    }
    if (Chance(0.1)) c.limits_only = c.cpu || c.memory;
    if (Chance(0.15)) c.ephemeral = Pick<int64_t>({512 * kMi, 2 * kGi, 20 * kGi});
    if (Chance(pending ? 0.15 : 0.1)) c.gpu = Int(1, 3);
    if (Chance(0.12)) {
      c.ports.push_back({Pick<int32_t>({8080, 9090}), Pick<std::string>({"", "TCP", "UDP"}),
                         Pick<std::string>({"", "", "10.0.0.1", "10.0.0.2"})});
    }
    c.image = Pick(kPodImages);
    return c;
  }

  RequirementModel Requirement() {
    switch (Int(0, 6)) {
      case 0:
        return {"topology.kubernetes.io/zone", "In", {Pick(kZones), Pick(kZones)}};
      case 1:
        return {"disk", "NotIn", {"hdd"}};
      case 2:
        return {"tier", "Gt", {std::to_string(Int(1, 8))}};
      case 3:
        return {"tier", "Lt", {std::to_string(Int(2, 9))}};
      case 4:
        return {"pool", "Exists", {}};
      case 5:
        return {"pool", "DoesNotExist", {}};
      default:
        return {"pool", "In", {"a"}};
    }
  }

  TermModel Term(bool required) {
    TermModel t;
    if (Chance(0.04)) return t;  // matches nothing
    int n = Int(1, 2);
    for (int i = 0; i < n; ++i) t.expressions.push_back(Requirement());
    if (Chance(0.15)) {
      // One value: kube's validation allows no more for a field selector.
      std::vector<std::string> names{"n" + std::to_string(Int(0, 29))};
      // Required terms name nodes only with NotIn here. With In, kube's
      // NodeAffinity PreFilter returns those names and only they are
      // filtered, every other node counting as "node(s) didn't satisfy
      // plugin(s) [NodeAffinity]": berth does the same (PreFilter's node
      // restriction, tested in prefilter_nodes_test.cc), but the reference
      // below does not model it.
      t.fields.push_back({"metadata.name", required || Chance(0.5) ? "NotIn" : "In", names});
    }
    return t;
  }

  std::mt19937_64 rng_;
};

// ---- Driving berth ----

std::unique_ptr<Framework> Build(const ProfileConfig& config, const Handle& handle) {
  auto built = Framework::Build(config, InTreeRegistry(), handle);
  EXPECT_TRUE(built.ok()) << built.status().message();
  return built.ok() ? std::move(built).value() : nullptr;
}

// A profile whose only score plugin is `plugin` (weight 1), with `args`.
std::unique_ptr<Framework> ScoringOnly(const std::string& plugin, const Handle& handle,
                                       const std::string& args = "") {
  ProfileConfig config;
  config.plugins.score.disabled = {{"*", 0}};
  config.plugins.score.enabled = {{plugin, 1}};
  if (!args.empty()) config.plugin_config.emplace_back(plugin, json::parse(args).as_object());
  return Build(config, handle);
}

struct ScoringCase {
  std::string plugin;
  std::unique_ptr<Framework> framework;
  // The reference: raw scores for the feasible nodes, then normalised.
  std::function<std::vector<int64_t>(const PodModel&, const std::vector<const NodeModel*>&)>
      reference;
};

std::vector<int64_t> Totals(const Framework& fw, const Snapshot& snapshot, const PodInfo& pod,
                            const std::vector<const NodeInfo*>& feasible) {
  CycleState state(&snapshot);
  EXPECT_TRUE(fw.RunPreFilter(state, pod).ok());
  EXPECT_TRUE(fw.RunPreScore(state, pod, feasible).ok());
  std::vector<int64_t> totals(feasible.size(), 0);
  std::vector<NodeScore> scratch;
  PluginStatus s = fw.RunScore(state, pod, feasible, totals, scratch);
  EXPECT_TRUE(s.ok()) << s.Message();
  return totals;
}

std::string PodText(const PodModel& p) { return json::serialize(PodJson(p)); }

// Stops a property run after this many reported differences.
constexpr int kMaxReports = 15;

TEST(FidelityProperty, FiltersScoresAndMessagesMatchKube) {
  FakeHandle handle;
  const std::vector<ScoredResource> kDefaultResources = {{"cpu", 1}, {"memory", 1}};
  const std::vector<ScoredResource> kWeighted = {
      {"cpu", 3}, {"memory", 1}, {kGpu, 2}, {"ephemeral-storage", 1}};
  const std::string weighted_args =
      R"("resources":[{"name":"cpu","weight":3},{"name":"memory","weight":1},)"
      R"({"name":"example.com/gpu","weight":2},{"name":"ephemeral-storage","weight":1}])";
  const std::vector<ShapePoint> kShape = {{0, 0}, {30, 2}, {70, 9}, {100, 4}};

  std::unique_ptr<Framework> default_profile = Build(ProfileConfig{}, handle);
  ASSERT_TRUE(default_profile);
  std::vector<ScoringCase> scoring;
  auto resource_case = [&](const std::string& plugin, const std::string& args, Strategy strategy,
                           std::vector<ScoredResource> resources) {
    ScoringCase c{plugin + " " + args, ScoringOnly(plugin, handle, args), nullptr};
    c.reference = [=](const PodModel& pod, const std::vector<const NodeModel*>& nodes) {
      std::vector<int64_t> out;
      for (const auto* n : nodes)
        out.push_back(ReferenceResourceScore(strategy, resources, kShape, pod, *n));
      return out;
    };
    scoring.push_back(std::move(c));
  };
  resource_case("NodeResourcesFit", "", Strategy::kLeast, kDefaultResources);
  resource_case("NodeResourcesFit",
                R"({"scoringStrategy":{"type":"LeastAllocated",)" + weighted_args + "}}",
                Strategy::kLeast, kWeighted);
  resource_case("NodeResourcesFit", R"({"scoringStrategy":{"type":"MostAllocated"}})",
                Strategy::kMost, kDefaultResources);
  resource_case("NodeResourcesFit",
                R"({"scoringStrategy":{"type":"MostAllocated",)" + weighted_args + "}}",
                Strategy::kMost, kWeighted);
  resource_case(
      "NodeResourcesFit",
      R"({"scoringStrategy":{"type":"RequestedToCapacityRatio",)" + weighted_args +
          R"(,"requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":30,"score":2},)"
          R"({"utilization":70,"score":9},{"utilization":100,"score":4}]}}})",
      Strategy::kRatio, kWeighted);
  resource_case("NodeResourcesBalancedAllocation", "", Strategy::kBalanced, kDefaultResources);
  resource_case("NodeResourcesBalancedAllocation",
                R"({"resources":[{"name":"cpu","weight":1},)"
                R"({"name":"memory","weight":1},{"name":"example.com/gpu","weight":1}]})",
                Strategy::kBalanced, {{"cpu", 1}, {"memory", 1}, {kGpu, 1}});
  scoring.push_back({"TaintToleration", ScoringOnly("TaintToleration", handle),
                     [](const PodModel& pod, const std::vector<const NodeModel*>& nodes) {
                       std::vector<int64_t> out;
                       for (const auto* n : nodes) out.push_back(ReferenceTaintScore(pod, *n));
                       Normalize(out, /*reverse=*/true);
                       return out;
                     }});
  scoring.push_back({"NodeAffinity", ScoringOnly("NodeAffinity", handle),
                     [](const PodModel& pod, const std::vector<const NodeModel*>& nodes) {
                       std::vector<int64_t> out;
                       for (const auto* n : nodes) out.push_back(ReferenceAffinityScore(pod, *n));
                       Normalize(out, /*reverse=*/false);
                       return out;
                     }});
  ScoringCase image_locality{"ImageLocality", ScoringOnly("ImageLocality", handle), nullptr};
  std::vector<const ScoringCase*> all_scoring;
  for (const auto& c : scoring) all_scoring.push_back(&c);
  all_scoring.push_back(&image_locality);
  for (const auto* c : all_scoring) ASSERT_TRUE(c->framework) << c->plugin;

  constexpr int kClusters = 300;
  constexpr int kPodsPerCluster = 25;
  constexpr int kNodes = 30;
  int reports = 0;
  int unschedulable = 0, scheduled = 0;
  auto report = [&](const std::string& what) {
    ADD_FAILURE() << what;
    return ++reports >= kMaxReports;
  };

  for (uint64_t seed = 1; seed <= kClusters; ++seed) {
    Generator gen(seed);
    std::vector<NodeModel> cluster = gen.Cluster(kNodes);
    // ImageLocality's reference reads the whole cluster (the images' spread).
    image_locality.reference = [&cluster](const PodModel& pod,
                                          const std::vector<const NodeModel*>& nodes) {
      std::vector<int64_t> out;
      for (const auto* n : nodes) out.push_back(ReferenceImageScore(pod, *n, cluster));
      return out;
    };
    std::vector<NodeInfoPtr> infos;
    for (const auto& n : cluster) infos.push_back(NodeInfoOf(n));
    for (int k = 0; k < kPodsPerCluster; ++k) {
      PodModel pod = gen.Pod("p" + std::to_string(k), /*pending=*/true);
      std::string where = "seed " + std::to_string(seed) + " pod " + PodText(pod);

      Snapshot snapshot = Snapshot::FromNodes(infos);
      PodInfoPtr info = MakePodInfo(Decode(PodJson(pod)));

      // Filters, node by node, and the rejections in the framework's own loop.
      CycleState state(&snapshot);
      PluginStatus pre = default_profile->RunPreFilter(state, *info);
      ASSERT_TRUE(pre.ok()) << where << ": " << pre.Message();
      std::vector<Verdict> verdicts;
      std::vector<const NodeModel*> feasible_models;
      for (size_t i = 0; i < cluster.size(); ++i) {
        Verdict want = ReferenceFilter(pod, cluster[i]);
        PluginStatus got = default_profile->RunFilter(state, *info, *snapshot.nodes()[i]);
        bool same = got.ok() ? want.plugin.empty()
                             : got.plugin() == want.plugin && got.code() == want.code &&
                                   got.reasons() == want.reasons;
        if (!same &&
            report(where + "\nnode " + cluster[i].name + ": berth " + Describe(got) + ", kube " +
                   Describe(want) + "\nnode " + json::serialize(NodeJson(cluster[i])))) {
          return;
        }
        if (want.plugin.empty()) {
          feasible_models.push_back(&cluster[i]);
        } else {
          verdicts.push_back(want);
        }
      }
      std::vector<const NodeInfo*> feasible;
      std::vector<NodeStatus> rejected;
      default_profile->RunFilterOverNodes(state, *info, snapshot.nodes(), 0, snapshot.size(),
                                          nullptr, feasible, rejected);
      std::vector<std::string> feasible_names, want_names;
      for (const auto* n : feasible) feasible_names.push_back(n->name());
      for (const auto* n : feasible_models) want_names.push_back(n->name);
      std::sort(feasible_names.begin(), feasible_names.end());
      std::sort(want_names.begin(), want_names.end());
      if (feasible_names != want_names) continue;  // the differing nodes were reported above
      if (feasible.empty()) {
        ++unschedulable;
        std::string got = FitErrorMessage(snapshot.size(), nullptr, rejected);
        std::string want = ReferenceFitError(snapshot.size(), verdicts);
        if (got != want && report(where + "\nberth: " + got + "\nkube:  " + want)) return;
        continue;
      }
      ++scheduled;
      // The feasible nodes in the reference's order (by name), for berth too.
      std::sort(feasible.begin(), feasible.end(), [&](const NodeInfo* a, const NodeInfo* b) {
        return std::stoi(a->name().substr(1)) < std::stoi(b->name().substr(1));
      });

      // Each score plugin alone, normalised, against the reference.
      for (const auto* c : all_scoring) {
        std::vector<int64_t> got = Totals(*c->framework, snapshot, *info, feasible);
        std::vector<int64_t> want = c->reference(pod, feasible_models);
        if (got != want) {
          std::ostringstream out;
          out << where << "\n" << c->plugin << ":";
          for (size_t i = 0; i < feasible.size(); ++i) {
            if (got[i] != want[i])
              out << "\n  " << feasible[i]->name() << " berth " << got[i] << " kube " << want[i];
          }
          if (report(out.str())) return;
        }
      }

      // The default profile's weighted sum (PodTopologySpread and
      // InterPodAffinity add nothing for these pods), and so the placement.
      std::vector<int64_t> got = Totals(*default_profile, snapshot, *info, feasible);
      std::vector<int64_t> want = ReferenceDefaultTotals(pod, feasible_models, cluster);
      if (got != want) {
        std::ostringstream out;
        out << where << "\ndefault profile totals:";
        for (size_t i = 0; i < feasible.size(); ++i)
          out << " " << feasible[i]->name() << " " << got[i] << "/" << want[i];
        if (report(out.str())) return;
      }

      // Place the pod on the reference's best node (lowest name among ties),
      // so the cluster fills up as pods arrive.
      size_t best = static_cast<size_t>(std::max_element(want.begin(), want.end()) - want.begin());
      for (size_t i = 0; i < cluster.size(); ++i) {
        if (&cluster[i] != feasible_models[best]) continue;
        cluster[i].pods_on.push_back(pod);
        infos[i] = NodeInfoOf(cluster[i]);
      }
    }
  }
  // The generator must exercise both outcomes, or the checks above say little.
  EXPECT_GT(unschedulable, kClusters);
  EXPECT_GT(scheduled, kClusters * 5);
}

// DefaultPreemption's answer when every pod has the same priority (no node
// has a victim): nodes rejected as UnschedulableAndUnresolvable are "not
// helpful", the others have no victims; FitError's wording and order.
std::string ReferencePreemptionMessage(size_t nodes, const std::vector<Verdict>& verdicts) {
  std::vector<Verdict> preemption;
  for (const auto& v : verdicts) {
    preemption.push_back({"DefaultPreemption",
                          Code::kUnschedulableAndUnresolvable,
                          {v.code == Code::kUnschedulableAndUnresolvable
                               ? "Preemption is not helpful for scheduling"
                               : "No preemption victims found for incoming pod"}});
  }
  return "preemption: " + ReferenceFitError(nodes, preemption);
}

// The whole scheduler (queue, cache, Framework, selection, FailedScheduling
// message) on random clusters, pod after pod: a pod that fits nowhere gets
// kube's message word for word, with preemption's answer; a pod that fits
// lands on one of the nodes the reference scores highest (kube breaks ties
// at random).
TEST(FidelityProperty, SchedulerPlacesAndExplainsLikeKube) {
  constexpr int kClusters = 40;
  constexpr int kPodsPerCluster = 15;
  int reports = 0, placed = 0, failed = 0;
  for (uint64_t seed = 1001; seed < 1001 + kClusters && reports < kMaxReports; ++seed) {
    Generator gen(seed);
    std::vector<NodeModel> cluster = gen.Cluster(30);
    testing::FakeCluster c;
    for (const auto& n : cluster) {
      c.scheduler->OnNodeAdd(Decode(NodeJson(n)));
      for (const auto& p : n.pods_on) {
        json::object o = PodJson(p);
        o["spec"].as_object()["nodeName"] = n.name;
        c.scheduler->OnPodAdd(Decode(std::move(o)));
      }
    }
    c.scheduler->Start();
    for (int k = 0; k < kPodsPerCluster && reports < kMaxReports; ++k) {
      PodModel pod = gen.Pod("p" + std::to_string(k), /*pending=*/true);
      pod.node_name.clear();  // a pod with spec.nodeName is not the scheduler's
      std::string where = "seed " + std::to_string(seed) + " pod " + PodText(pod);
      std::vector<Verdict> verdicts;
      std::vector<const NodeModel*> feasible;
      for (const auto& n : cluster) {
        Verdict v = ReferenceFilter(pod, n);
        if (v.plugin.empty()) {
          feasible.push_back(&n);
        } else {
          verdicts.push_back(v);
        }
      }
      api::ObjectPtr object = Decode(PodJson(pod));
      c.scheduler->OnPodAdd(object);
      ASSERT_TRUE(c.WaitIdle()) << where;
      std::string key = "default/" + pod.name;
      std::string node = c.Placements()[key];
      if (feasible.empty()) {
        ++failed;
        std::string want = "Unschedulable: " + ReferenceFitError(cluster.size(), verdicts) + " " +
                           ReferencePreemptionMessage(cluster.size(), verdicts) + ".";
        if (!node.empty() || c.FailureOf(key) != want) {
          ADD_FAILURE() << where << "\nplaced on \"" << node << "\"\nberth: " << c.FailureOf(key)
                        << "\nkube:  " << want;
          ++reports;
        }
        c.scheduler->OnPodDelete(object);  // out of the queue before the next pod
        continue;
      }
      std::vector<int64_t> totals = ReferenceDefaultTotals(pod, feasible, cluster);
      const int64_t best = *std::max_element(totals.begin(), totals.end());
      std::string best_nodes;
      NodeModel* chosen = nullptr;
      for (size_t i = 0; i < feasible.size(); ++i) {
        if (totals[i] != best) continue;
        best_nodes += feasible[i]->name + " ";
        if (feasible[i]->name == node) chosen = const_cast<NodeModel*>(feasible[i]);
      }
      if (!chosen) {
        ADD_FAILURE() << where << "\nplaced on \"" << node << "\" (" << c.FailureOf(key)
                      << "); kube's best: " << best_nodes;
        ++reports;
        break;  // the cluster no longer matches the model
      }
      ++placed;
      chosen->pods_on.push_back(pod);
    }
  }
  EXPECT_GT(placed, kClusters * 5);
  EXPECT_GT(failed, kClusters / 2);
}

// NodeAffinity's addedAffinity (a profile's node affinity for every pod):
// its required terms reject a node before the pod's own, in their own
// words; its preferred terms score with the pod's.
TEST(FidelityProperty, AddedNodeAffinityFiltersAndScoresLikeKube) {
  FakeHandle handle;
  const std::vector<TermModel> required = {{{{"tier", "Lt", {"8"}}}, {}},
                                           {{{"pool", "In", {"b"}}}, {}}};
  const std::vector<std::pair<int32_t, TermModel>> preferred = {
      {40, {{{"disk", "In", {"ssd"}}}, {}}}, {7, {{{"tier", "Gt", {"3"}}}, {}}}};
  json::object added;
  json::array terms;
  for (const auto& t : required) terms.emplace_back(TermJson(t));
  added["requiredDuringSchedulingIgnoredDuringExecution"] =
      json::object{{"nodeSelectorTerms", terms}};
  json::array weighted;
  for (const auto& [w, t] : preferred)
    weighted.emplace_back(json::object{{"weight", w}, {"preference", TermJson(t)}});
  added["preferredDuringSchedulingIgnoredDuringExecution"] = weighted;
  ProfileConfig config;
  config.plugin_config.emplace_back("NodeAffinity", json::object{{"addedAffinity", added}});
  std::unique_ptr<Framework> profile = Build(config, handle);
  config.plugins.score.disabled = {{"*", 0}};
  config.plugins.score.enabled = {{"NodeAffinity", 1}};
  std::unique_ptr<Framework> scoring = Build(config, handle);
  ASSERT_TRUE(profile && scoring);

  int reports = 0, enforced = 0;
  for (uint64_t seed = 2001; seed <= 2040 && reports < kMaxReports; ++seed) {
    Generator gen(seed);
    std::vector<NodeModel> cluster = gen.Cluster(30);
    std::vector<NodeInfoPtr> infos;
    for (const auto& n : cluster) infos.push_back(NodeInfoOf(n));
    Snapshot snapshot = Snapshot::FromNodes(infos);
    for (int k = 0; k < 20 && reports < kMaxReports; ++k) {
      PodModel pod = gen.Pod("p" + std::to_string(k), /*pending=*/true);
      std::string where = "seed " + std::to_string(seed) + " pod " + PodText(pod);
      PodInfoPtr info = MakePodInfo(Decode(PodJson(pod)));
      CycleState state(&snapshot);
      ASSERT_TRUE(profile->RunPreFilter(state, *info).ok()) << where;
      std::vector<const NodeInfo*> feasible;
      std::vector<const NodeModel*> feasible_models;
      for (size_t i = 0; i < cluster.size(); ++i) {
        Verdict want = ReferenceFilter(pod, cluster[i], &required);
        enforced += want.reasons == std::vector<std::string>{
                                        "node(s) didn't match scheduler-enforced node affinity"};
        PluginStatus got = profile->RunFilter(state, *info, *snapshot.nodes()[i]);
        bool same = got.ok() ? want.plugin.empty()
                             : got.plugin() == want.plugin && got.code() == want.code &&
                                   got.reasons() == want.reasons;
        if (!same) {
          ADD_FAILURE() << where << "\nnode " << cluster[i].name << ": berth " << Describe(got)
                        << ", kube " << Describe(want);
          ++reports;
        }
        if (got.ok() && want.plugin.empty()) {
          feasible.push_back(snapshot.nodes()[i].get());
          feasible_models.push_back(&cluster[i]);
        }
      }
      if (feasible.empty()) continue;
      std::vector<int64_t> want;
      for (const auto* n : feasible_models)
        want.push_back(ReferenceAffinityScore(pod, *n, &preferred));
      Normalize(want, /*reverse=*/false);
      std::vector<int64_t> got = Totals(*scoring, snapshot, *info, feasible);
      if (got != want) {
        std::ostringstream out;
        out << where << "\nNodeAffinity with addedAffinity:";
        for (size_t i = 0; i < got.size(); ++i)
          out << " " << feasible[i]->name() << " " << got[i] << "/" << want[i];
        ADD_FAILURE() << out.str();
        ++reports;
      }
    }
  }
  EXPECT_GT(enforced, 100);
}

// Two nodes that differ only in memory, and a pod that requests only cpu:
// kube's LeastAllocated and MostAllocated count the pod's missing memory
// request as 200Mi, so the nodes score differently; BalancedAllocation reads
// the real requests (memory 0), so both nodes score the same.
TEST(FidelityProperty, CpuOnlyPodSeesMemoryThroughNonZeroRequests) {
  FakeHandle handle;
  auto small = std::make_shared<NodeInfo>(testing::NodeObject("small", "4", "1Gi"));
  auto large = std::make_shared<NodeInfo>(testing::NodeObject("large", "4", "2Gi"));
  Snapshot snapshot = Snapshot::FromNodes({small, large});
  std::vector<const NodeInfo*> nodes{snapshot.nodes()[0].get(), snapshot.nodes()[1].get()};
  auto pod = testing::PodRequesting("p", "1", "");

  auto least = ScoringOnly("NodeResourcesFit", handle);
  // cpu (4000-1000)*100/4000 = 75; memory (1024-200)*100/1024 = 80 and
  // (2048-200)*100/2048 = 90 → (75+80)/2 = 77 and (75+90)/2 = 82.
  EXPECT_EQ(Totals(*least, snapshot, *pod, nodes), (std::vector<int64_t>{77, 82}));
  auto most =
      ScoringOnly("NodeResourcesFit", handle, R"({"scoringStrategy":{"type":"MostAllocated"}})");
  // cpu 25; memory 200*100/1024 = 19 and 200*100/2048 = 9 → 22 and 17.
  EXPECT_EQ(Totals(*most, snapshot, *pod, nodes), (std::vector<int64_t>{22, 17}));
  auto balanced = ScoringOnly("NodeResourcesBalancedAllocation", handle);
  // cpu .25, memory 0 on both → std .125 → 87 on both.
  EXPECT_EQ(Totals(*balanced, snapshot, *pod, nodes), (std::vector<int64_t>{87, 87}));

  // The same holds for pods already on the node: one without requests makes
  // LeastAllocated see 100m / 200Mi more, BalancedAllocation nothing.
  auto busy = std::make_shared<NodeInfo>(testing::NodeObject("busy", "4", "1Gi"));
  busy->AddPod(testing::Pod("idle"));
  Snapshot with_idle = Snapshot::FromNodes({small, busy});
  std::vector<const NodeInfo*> pair{with_idle.nodes()[0].get(), with_idle.nodes()[1].get()};
  // busy: cpu (4000-1100)*100/4000 = 72, memory (1024-400)*100/1024 = 60 → 66.
  EXPECT_EQ(Totals(*least, with_idle, *pod, pair), (std::vector<int64_t>{77, 66}));
  EXPECT_EQ(Totals(*balanced, with_idle, *pod, pair), (std::vector<int64_t>{87, 87}));
}

// RequestedToCapacityRatio averages only resources scoring above zero and
// rounds: cpu at 50% scores 50 and memory at 25% scores 25 → 37.5 → 38; with
// memory at 0% (score 0) cpu alone decides → 50.
TEST(FidelityProperty, RequestedToCapacityRatioRoundsOverScoringResources) {
  FakeHandle handle;
  auto ratio = ScoringOnly(
      "NodeResourcesFit", handle,
      R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":)"
      R"({"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}})");
  auto node = std::make_shared<NodeInfo>(testing::NodeObject("n", "4", "8Gi"));
  Snapshot snapshot = Snapshot::FromNodes({node});
  std::vector<const NodeInfo*> nodes{snapshot.nodes()[0].get()};
  EXPECT_EQ(Totals(*ratio, snapshot, *testing::PodRequesting("p", "2", "2Gi"), nodes),
            std::vector<int64_t>{38});
  EXPECT_EQ(Totals(*ratio, snapshot, *testing::PodRequesting("q", "2", "0"), nodes),
            std::vector<int64_t>{50});
}

// "pods" in a scorer's resources counts for nothing (kube scores cpu,
// memory, ephemeral-storage and extended resources only): the score is the
// cpu-only one.
TEST(FidelityProperty, PodsIsNoScoredResource) {
  FakeHandle handle;
  auto cpu_only = ScoringOnly("NodeResourcesFit", handle,
                              R"({"scoringStrategy":{"type":"MostAllocated","resources":[)"
                              R"({"name":"cpu","weight":1}]}})");
  auto with_pods = ScoringOnly("NodeResourcesFit", handle,
                               R"({"scoringStrategy":{"type":"MostAllocated","resources":[)"
                               R"({"name":"cpu","weight":1},{"name":"pods","weight":5}]}})");
  auto node = std::make_shared<NodeInfo>(testing::NodeObject("n", "4", "8Gi", "{}", "{}", "4"));
  node->AddPod(testing::PodRequesting("a", "1", ""));
  Snapshot snapshot = Snapshot::FromNodes({node});
  std::vector<const NodeInfo*> nodes{snapshot.nodes()[0].get()};
  auto pod = testing::PodRequesting("p", "1", "");
  // cpu (1000+1000)*100/4000 = 50.
  EXPECT_EQ(Totals(*cpu_only, snapshot, *pod, nodes), std::vector<int64_t>{50});
  EXPECT_EQ(Totals(*with_pods, snapshot, *pod, nodes), std::vector<int64_t>{50});
}

// kube's defaulting of the scorers' resources: a weight of 0 is 1, and an
// empty list is the default cpu and memory.
TEST(FidelityProperty, ResourceWeightsAreDefaultedLikeKube) {
  FakeHandle handle;
  auto node = std::make_shared<NodeInfo>(testing::NodeObject("n", "4", "8Gi"));
  Snapshot snapshot = Snapshot::FromNodes({node});
  std::vector<const NodeInfo*> nodes{snapshot.nodes()[0].get()};
  auto pod = testing::PodRequesting("p", "2", "2Gi");
  // Most allocated: cpu 50, memory 25.
  auto zero_weight = ScoringOnly("NodeResourcesFit", handle,
                                 R"({"scoringStrategy":{"type":"MostAllocated","resources":[)"
                                 R"({"name":"cpu","weight":0},{"name":"memory","weight":3}]}})");
  ASSERT_TRUE(zero_weight);
  EXPECT_EQ(Totals(*zero_weight, snapshot, *pod, nodes), std::vector<int64_t>{(50 + 25 * 3) / 4});
  auto empty = ScoringOnly("NodeResourcesFit", handle,
                           R"({"scoringStrategy":{"type":"MostAllocated","resources":[]}})");
  ASSERT_TRUE(empty);
  EXPECT_EQ(Totals(*empty, snapshot, *pod, nodes), std::vector<int64_t>{(50 + 25) / 2});
  auto balanced = ScoringOnly("NodeResourcesBalancedAllocation", handle, R"({"resources":[]})");
  ASSERT_TRUE(balanced);
  // cpu .5, memory .25 → std .125 → 87.
  EXPECT_EQ(Totals(*balanced, snapshot, *pod, nodes), std::vector<int64_t>{87});
}

// ignoredResources and ignoredResourceGroups name extended resources: kube
// still checks a native resource (hugepages-*) listed there.
TEST(FidelityProperty, OnlyExtendedResourcesAreIgnored) {
  FakeHandle handle;
  ProfileConfig config;
  config.plugin_config.emplace_back(
      "NodeResourcesFit",
      json::parse(
          R"({"ignoredResources":["hugepages-2Mi","example.com/gpu"],"ignoredResourceGroups":["vendor.io"]})")
          .as_object());
  std::unique_ptr<Framework> profile = Build(config, handle);
  ASSERT_TRUE(profile);
  auto node = std::make_shared<NodeInfo>(testing::NodeObject("n"));
  Snapshot snapshot = Snapshot::FromNodes({node});
  auto requesting = [](const std::string& resource) {
    return testing::Pod(
        "p", R"({"containers":[{"name":"c","image":"i","resources":{"requests":{")" + resource +
                 R"(":"2Mi"},"limits":{")" + resource + R"(":"2Mi"}}}]})");
  };
  struct Case {
    std::string resource;
    std::vector<std::string> reasons;
  } cases[] = {{"hugepages-2Mi", {"Insufficient hugepages-2Mi"}},
               {"example.com/gpu", {}},
               {"vendor.io/fpga", {}},
               {"other.io/fpga", {"Insufficient other.io/fpga"}}};
  for (const auto& c : cases) {
    PodInfoPtr pod = requesting(c.resource);
    CycleState state(&snapshot);
    ASSERT_TRUE(profile->RunPreFilter(state, *pod).ok());
    PluginStatus s = profile->RunFilter(state, *pod, *snapshot.nodes()[0]);
    EXPECT_EQ(s.reasons(), c.reasons) << c.resource;
  }
}

}  // namespace
}  // namespace berth::scheduler
