#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

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
  std::unordered_map<std::string, int64_t> counts;  // domain value → matching pods
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
  std::unordered_set<std::string> ignored_nodes;  // scoring: nodes missing a key
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
  if (c.node_taints_honor && node.view()) {
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
    if (!node.labels().Has(c.spec->topology_key)) return false;
  }
  return true;
}

}  // namespace

bool PodTopologySpread::HasHardConstraints(const PodInfo& pod) {
  for (const auto& c : pod.view->topology_spread_constraints) {
    if (c.do_not_schedule) return true;
  }
  return false;
}

int64_t PodTopologySpread::CountMatching(const NodeInfo& node, const std::string& matcher_key,
                                         const std::function<bool(const PodInfo&)>& counts) const {
  std::string key = node.name();
  key += '\0';
  key += matcher_key;
  {
    std::lock_guard lock(count_mu_);
    auto it = count_cache_.find(key);
    if (it != count_cache_.end() && it->second.generation == node.generation()) return it->second.count;
  }
  int64_t count = 0;
  for (const auto& other : node.pods()) {
    if (counts(*other)) ++count;
  }
  std::lock_guard lock(count_mu_);
  // Bounded: entries of finished workloads are dropped wholesale now and then.
  if (count_cache_.size() > 200'000) count_cache_.clear();
  count_cache_[key] = {node.generation(), count};
  return count;
}

PluginStatus PodTopologySpread::PreFilter(CycleState& state, const PodInfo& pod) const {
  auto data = std::make_unique<SpreadState>();
  data->constraints = Build(*this, pod, /*hard=*/true);
  if (data->constraints.empty()) return PluginStatus::Skip();
  const PodTopologySpread& plugin = *this;
  for (auto& c : data->constraints) {
    std::string matcher = c.MatcherKey(pod);
    for (const auto& node : state.snapshot().nodes()) {
      if (!Eligible(*c.spec, pod, *node) || !HasAllKeys(data->constraints, *node)) continue;
      std::string value(*node->labels().Get(c.spec->topology_key));
      c.counts[value] += plugin.CountMatching(*node, matcher, [&](const PodInfo& other) { return c.Counts(other, pod); });
    }
    int64_t min = std::numeric_limits<int64_t>::max();
    for (const auto& [value, count] : c.counts) min = std::min(min, count);
    c.min_count = c.counts.empty() ? 0 : min;
    if (c.spec->min_domains && static_cast<int64_t>(c.counts.size()) < *c.spec->min_domains) c.min_count = 0;
  }
  state.Write(kPreFilterKey, std::move(data));
  return {};
}

PluginStatus PodTopologySpread::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<SpreadState>(kPreFilterKey);
  if (!data) return {};
  for (const auto& c : data->constraints) {
    auto value = node.labels().Get(c.spec->topology_key);
    if (!value) return PluginStatus::Unresolvable(std::string(kMissingLabelReason));
    auto it = c.counts.find(std::string(*value));
    int64_t count = it == c.counts.end() ? 0 : it->second;
    int64_t skew = count + (c.self_match ? 1 : 0) - c.min_count;
    if (skew > c.spec->max_skew) return PluginStatus::Unschedulable(std::string(kReason));
  }
  return {};
}

PluginStatus PodTopologySpread::PreScore(CycleState& state, const PodInfo& pod,
                                         std::span<const NodeInfo* const> nodes) const {
  auto data = std::make_unique<SpreadState>();
  data->constraints = Build(*this, pod, /*hard=*/false);
  if (data->constraints.empty()) return PluginStatus::Skip();
  // Each node's topology values, read once: the loops below run for every
  // node of the cluster for every pod, so label lookups dominate otherwise.
  const size_t n = data->constraints.size();
  auto values_of = [&](const NodeInfo& node, std::vector<std::string_view>& values) {
    values.clear();
    for (const auto& c : data->constraints) {
      auto v = node.labels().Get(c.spec->topology_key);
      if (!v) return false;
      values.push_back(*v);
    }
    return true;
  };
  std::vector<std::string_view> values;
  std::vector<std::unordered_set<std::string_view>> domains(n);
  for (const NodeInfo* node : nodes) {
    if (!values_of(*node, values)) {
      data->ignored_nodes.insert(node->name());
      continue;
    }
    for (size_t i = 0; i < n; ++i) domains[i].insert(values[i]);
  }
  std::vector<std::string> matchers;
  for (auto& c : data->constraints) {
    c.weight = std::log(static_cast<double>(domains[&c - data->constraints.data()].size()) + 2);
    matchers.push_back(c.MatcherKey(pod));
  }
  for (const auto& node : state.snapshot().nodes()) {
    if (!values_of(*node, values)) continue;
    for (size_t i = 0; i < n; ++i) {
      Constraint& c = data->constraints[i];
      if (!domains[i].count(values[i]) || !Eligible(*c.spec, pod, *node)) continue;
      c.counts[std::string(values[i])] +=
          CountMatching(*node, matchers[i], [&](const PodInfo& other) { return c.Counts(other, pod); });
    }
  }
  state.Write(kPreScoreKey, std::move(data));
  return {};
}

PluginStatus PodTopologySpread::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                                      int64_t* score) const {
  *score = 0;
  const auto* data = state.Get<SpreadState>(kPreScoreKey);
  if (!data || data->ignored_nodes.count(node.name())) return {};
  double sum = 0;
  for (const auto& c : data->constraints) {
    auto value = node.labels().Get(c.spec->topology_key);
    auto it = c.counts.find(std::string(*value));
    double count = it == c.counts.end() ? 0 : static_cast<double>(it->second);
    sum += count * c.weight + static_cast<double>(c.spec->max_skew - 1);
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
    if (data->ignored_nodes.count(s.node->name())) continue;
    min = std::min(min, s.score);
    max = std::max(max, s.score);
  }
  for (auto& s : scores) {
    if (data->ignored_nodes.count(s.node->name())) {
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
