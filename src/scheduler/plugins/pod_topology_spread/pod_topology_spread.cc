#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <boost/json/serialize.hpp>

#include "api/object.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"

namespace berth::scheduler {

namespace json = boost::json;

namespace {

// One constraint as applied to this pod: which pods count, and the counts.
struct Constraint {
  const api::TopologySpreadConstraint* spec;
  api::LabelSelector selector;  // with matchLabelKeys folded in
  std::string owner_uid;        // system default constraints: pods of the same controller
  bool self_match = false;
  TopologyIndexPtr topology;    // the nodes' domains for spec->topology_key
  std::vector<int64_t> counts;  // by domain: matching pods on eligible nodes
  std::vector<char> present;    // by domain: has an eligible node (filter) / a feasible node (score)
  int64_t min_count = 0;
  double weight = 1;  // scoring: log(domains + 2)

  // What Counts depends on besides the other pod, as a cache key.
  std::string MatcherKey(const PodInfo& pod) const {
    return pod.namespace_name() + '\x1f' + (owner_uid.empty() ? "s:" + selector.ToString() : "o:" + owner_uid);
  }

  bool Counts(const PodInfo& other, const PodInfo& pod) const {
    if (other.namespace_name() != pod.namespace_name() || other.view->terminating) return false;
    if (!owner_uid.empty()) {
      const api::OwnerReference* ref = other.view->ControllerRef();
      return ref && ref->uid == owner_uid;
    }
    return selector.Matches(other.labels());
  }
};

struct SpreadState : StateData {
  std::vector<Constraint> constraints;
  std::vector<char> ignored;  // scoring, by node slot: nodes missing a key

  // The filter state changes in preemption's dry runs (AddPod/RemovePod).
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<SpreadState>(*this); }

  bool Ignored(const NodeInfo& node) const {
    auto slot = static_cast<size_t>(static_cast<uint32_t>(node.slot()));
    return slot < ignored.size() && ignored[slot];
  }
};

constexpr std::string_view kPreFilterKey = "PodTopologySpread/filter";
constexpr std::string_view kPreScoreKey = "PodTopologySpread/score";

api::TopologySpreadConstraint Default(int32_t max_skew, const char* key) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.do_not_schedule = false;
  return c;
}

const std::vector<api::TopologySpreadConstraint>& SystemDefaults() {
  static const std::vector<api::TopologySpreadConstraint> defaults = {
      Default(3, "kubernetes.io/hostname"), Default(5, "topology.kubernetes.io/zone")};
  return defaults;
}

bool Eligible(const api::TopologySpreadConstraint& c, const PodInfo& pod, const NodeInfo& node) {
  if (c.node_affinity_honor && !NodeAffinity::RequiredMatches(pod, node)) return false;
  if (c.node_taints_honor && node.has_taints()) {
    for (const auto& taint : node.view()->taints) {
      if (taint.effect != api::TaintEffect::kNoSchedule && taint.effect != api::TaintEffect::kNoExecute) continue;
      if (!api::Tolerated(pod.view->tolerations, taint)) return false;
    }
  }
  return true;
}

// The pod's constraints with do_not_schedule == `hard`; system defaults when it has none.
std::vector<Constraint> Build(const PodTopologySpread& plugin, const PodInfo& pod, bool hard) {
  std::vector<Constraint> out;
  const auto& own = pod.view->topology_spread_constraints;
  const std::vector<api::TopologySpreadConstraint>* specs = &own;
  std::string owner_uid;
  if (own.empty()) {
    if (hard) return out;
    if (plugin.system_defaulting) {
      const api::OwnerReference* ref = pod.view->ControllerRef();
      if (!ref) return out;
      owner_uid = ref->uid;
      specs = &SystemDefaults();
    } else {
      specs = &plugin.default_constraints;
    }
  }
  for (const auto& spec : *specs) {
    if (spec.do_not_schedule != hard) continue;
    Constraint c;
    c.spec = &spec;
    c.owner_uid = owner_uid;
    if (own.empty() && owner_uid.empty()) {
      c.selector = api::LabelSelector::Everything();  // List defaults: the pod's own labels
      std::string text;
      for (const auto& [k, v] : pod.labels()) text += (text.empty() ? "" : ",") + k + "=" + v;
      auto parsed = api::LabelSelector::Parse(text);
      if (parsed.ok()) c.selector = parsed.value();
    } else {
      c.selector = spec.label_selector;
      if (!spec.match_label_keys.empty()) {
        std::string text = c.selector.ToString();
        for (const auto& key : spec.match_label_keys) {
          auto value = pod.labels().Get(key);
          if (value) text += (text.empty() ? "" : ",") + key + "=" + std::string(*value);
        }
        auto merged = api::LabelSelector::Parse(text);
        if (merged.ok()) c.selector = merged.value();
      }
    }
    c.self_match = owner_uid.empty() ? c.selector.Matches(pod.labels()) : true;
    out.push_back(std::move(c));
  }
  return out;
}

bool HasAllKeys(const std::vector<Constraint>& constraints, const NodeInfo& node) {
  for (const auto& c : constraints) {
    if (c.topology->DomainOf(node) == TopologyIndex::kMissing) return false;
  }
  return true;
}

// Adds the matching pods of every eligible node that has all the constraints'
// keys (and, when `only_present`, whose domain is marked present) to its
// domain's count; without `only_present`, marks those domains present.
void Accumulate(const PodTopologySpread& plugin, const Snapshot& snapshot, const PodInfo& pod,
                const std::vector<Constraint>& all, Constraint& c, bool only_present) {
  // Every node eligible (nothing of the pod's to honour): sums followed across snapshots.
  bool unrestricted = !c.spec->node_taints_honor &&
                      (!c.spec->node_affinity_honor ||
                       (pod.view->node_selector.empty() && !pod.view->required_node_affinity));
  if (unrestricted) {
    std::string key = c.MatcherKey(pod);
    for (const auto& other : all) key += '\x1f' + other.spec->topology_key;
    auto sums = plugin.domain_sums.Sum(
        key, snapshot, *c.topology, [&](const NodeInfo& node) { return HasAllKeys(all, node); },
        [&](const NodeInfo& node) {
          int64_t n = 0;
          for (const auto& other : node.pods()) n += c.Counts(*other, pod) ? 1 : 0;
          return n;
        });
    for (size_t d = 0; d < c.counts.size(); ++d) {
      if (only_present && !c.present[d]) continue;
      c.counts[d] = sums.counts[d];
      if (!only_present) c.present[d] = sums.nodes[d] > 0;
    }
    return;
  }
  auto counts = plugin.node_counts.Open(c.MatcherKey(pod), snapshot.slot_count());
  for (const auto& node : snapshot.nodes()) {
    int32_t domain = c.topology->DomainOf(*node);
    if (domain == TopologyIndex::kMissing || !HasAllKeys(all, *node)) continue;
    if (only_present && !c.present[static_cast<size_t>(domain)]) continue;
    if (!Eligible(*c.spec, pod, *node)) continue;
    if (!only_present) c.present[static_cast<size_t>(domain)] = 1;
    c.counts[static_cast<size_t>(domain)] += counts.Get(*node, [&](bool&) {
      int64_t n = 0;
      for (const auto& other : node->pods()) n += c.Counts(*other, pod) ? 1 : 0;
      return n;
    });
  }
}

// The smallest count among the domains with an eligible node (0 when fewer
// domains than minDomains asks for).
void UpdateMinCount(Constraint& c) {
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t domains = 0;
  for (size_t d = 0; d < c.counts.size(); ++d) {
    if (!c.present[d]) continue;
    ++domains;
    min = std::min(min, c.counts[d]);
  }
  c.min_count = domains == 0 ? 0 : min;
  if (c.spec->min_domains && domains < *c.spec->min_domains) c.min_count = 0;
}

void Prepare(const Snapshot& snapshot, std::vector<Constraint>& constraints) {
  for (auto& c : constraints) {
    c.topology = snapshot.Topology(c.spec->topology_key);
    c.counts.assign(c.topology->domain_count(), 0);
    c.present.assign(c.topology->domain_count(), 0);
  }
}

}  // namespace

bool PodTopologySpread::HasHardConstraints(const PodInfo& pod) {
  for (const auto& c : pod.view->topology_spread_constraints) {
    if (c.do_not_schedule) return true;
  }
  return false;
}

PluginStatus PodTopologySpread::PreFilter(CycleState& state, const PodInfo& pod) const {
  auto data = std::make_unique<SpreadState>();
  data->constraints = Build(*this, pod, /*hard=*/true);
  if (data->constraints.empty()) return PluginStatus::Skip();
  const Snapshot& snapshot = state.snapshot();
  Prepare(snapshot, data->constraints);
  for (auto& c : data->constraints) {
    Accumulate(*this, snapshot, pod, data->constraints, c, /*only_present=*/false);
    UpdateMinCount(c);
  }
  state.Write(kPreFilterKey, std::move(data));
  return {};
}

namespace {

// kube's updateWithPod: `other` on `node` counts (delta +1 or -1) in its
// domain for each constraint whose matcher takes it, if the node is one the
// constraint counts (all keys present, eligible for the pod).
void UpdateWithPod(CycleState& state, const PodInfo& pod, const PodInfo& other, const NodeInfo& node, int delta) {
  auto* data = state.GetMutable<SpreadState>(kPreFilterKey);
  if (!data || !HasAllKeys(data->constraints, node)) return;
  for (auto& c : data->constraints) {
    if (!c.Counts(other, pod) || !Eligible(*c.spec, pod, node)) continue;
    const auto domain = static_cast<size_t>(c.topology->DomainOf(node));
    if (!c.present[domain]) continue;
    c.counts[domain] += delta;
    UpdateMinCount(c);
  }
}

}  // namespace

PluginStatus PodTopologySpread::AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                       const NodeInfo& node) const {
  UpdateWithPod(state, pod, other, node, +1);
  return {};
}

PluginStatus PodTopologySpread::RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                          const NodeInfo& node) const {
  UpdateWithPod(state, pod, other, node, -1);
  return {};
}

PluginStatus PodTopologySpread::Filter(const CycleState& state, const PodInfo& pod,
                                       const NodeInfo& node) const {
  const auto* data = state.Get<SpreadState>(kPreFilterKey);
  if (!data) return {};
  for (const auto& c : data->constraints) {
    int32_t domain = c.topology->DomainOf(node);
    if (domain == TopologyIndex::kMissing)
      return PluginStatus::Unresolvable(std::string(kMissingLabelReason));
    int64_t skew = c.counts[static_cast<size_t>(domain)] + (c.self_match ? 1 : 0) - c.min_count;
    if (skew > c.spec->max_skew) return PluginStatus::Unschedulable(std::string(kReason));
  }
  return {};
}

PluginStatus PodTopologySpread::PreScore(CycleState& state, const PodInfo& pod,
                                         std::span<const NodeInfo* const> nodes) const {
  auto data = std::make_unique<SpreadState>();
  data->constraints = Build(*this, pod, /*hard=*/false);
  if (data->constraints.empty()) return PluginStatus::Skip();
  const Snapshot& snapshot = state.snapshot();
  Prepare(snapshot, data->constraints);
  // The domains of the feasible nodes are the ones scored; feasible nodes
  // missing a key are ignored (score 0).
  data->ignored.assign(snapshot.slot_count(), 0);
  for (const NodeInfo* node : nodes) {
    if (!HasAllKeys(data->constraints, *node)) {
      auto slot = static_cast<size_t>(static_cast<uint32_t>(node->slot()));
      if (slot < data->ignored.size()) data->ignored[slot] = 1;
      continue;
    }
    for (auto& c : data->constraints)
      c.present[static_cast<size_t>(c.topology->DomainOf(*node))] = 1;
  }
  for (auto& c : data->constraints) {
    size_t domains = 0;
    for (char p : c.present) domains += p ? 1 : 0;
    c.weight = std::log(static_cast<double>(domains) + 2);
    Accumulate(*this, snapshot, pod, data->constraints, c, /*only_present=*/true);
  }
  state.Write(kPreScoreKey, std::move(data));
  return {};
}

PluginStatus PodTopologySpread::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                                      int64_t* score) const {
  *score = 0;
  const auto* data = state.Get<SpreadState>(kPreScoreKey);
  if (!data || data->Ignored(node)) return {};
  double sum = 0;
  for (const auto& c : data->constraints) {
    int32_t domain = c.topology->DomainOf(node);
    if (domain == TopologyIndex::kMissing) return {};
    sum += static_cast<double>(c.counts[static_cast<size_t>(domain)]) * c.weight +
           static_cast<double>(c.spec->max_skew - 1);
  }
  *score = static_cast<int64_t>(std::round(sum));
  return {};
}

PluginStatus PodTopologySpread::NormalizeScore(const CycleState& state, const PodInfo&,
                                               std::span<NodeScore> scores) const {
  const auto* data = state.Get<SpreadState>(kPreScoreKey);
  if (!data) return {};
  int64_t min = std::numeric_limits<int64_t>::max(), max = 0;
  for (const auto& s : scores) {
    if (data->Ignored(*s.node)) continue;
    min = std::min(min, s.score);
    max = std::max(max, s.score);
  }
  for (auto& s : scores) {
    if (data->Ignored(*s.node)) {
      s.score = 0;
    } else if (max == 0) {
      s.score = kMaxNodeScore;
    } else {
      s.score = kMaxNodeScore * (max + min - s.score) / max;
    }
  }
  return {};
}

Result<std::shared_ptr<Plugin>> NewPodTopologySpread(const json::object& args, const Handle&) {
  auto plugin = std::make_shared<PodTopologySpread>();
  for (const auto& entry : args) {
    std::string_view key(entry.key().data(), entry.key().size());
    if (key == "defaultingType") {
      std::string type = entry.value().is_string() ? std::string(entry.value().get_string()) : "";
      if (type != "System" && type != "List") {
        return Status::BadRequest("defaultingType: Unsupported value: \"" + type +
                                  "\": supported values: \"System\", \"List\"");
      }
      plugin->system_defaulting = type == "System";
    } else if (key == "defaultConstraints") {
      // Read through the pod view so the constraints parse exactly as a pod's do.
      json::object pod{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"metadata", json::object{{"name", "args"}}},
                       {"spec", json::object{{"topologySpreadConstraints", entry.value()}}}};
      auto object = api::Object::FromJson(json::value(std::move(pod)));
      if (!object.ok()) {
        std::string message = object.status().message();
        const std::string prefix = "spec.topologySpreadConstraints";
        if (message.rfind(prefix, 0) == 0) message = "defaultConstraints" + message.substr(prefix.size());
        return Status::BadRequest(message);
      }
      plugin->default_constraints = object.value()->As<api::PodView>()->topology_spread_constraints;
      for (size_t i = 0; i < plugin->default_constraints.size(); ++i) {
        const auto& c = plugin->default_constraints[i];
        std::string field = "defaultConstraints[" + std::to_string(i) + "]";
        if (c.max_skew <= 0) return Status::BadRequest(field + ".maxSkew: Invalid value: must be greater than zero");
        if (c.topology_key.empty()) return Status::BadRequest(field + ".topologyKey: Required value");
      }
    } else {
      return Status::BadRequest(std::string(key) + ": unknown field");
    }
  }
  if (plugin->system_defaulting && !plugin->default_constraints.empty()) {
    return Status::BadRequest("defaultConstraints: Invalid value: when using defaultingType System, "
                              "defaultConstraints must be empty");
  }
  return std::shared_ptr<Plugin>(std::move(plugin));
}

}  // namespace berth::scheduler
