#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include <algorithm>
#include <map>

#include <boost/json/serialize.hpp>

namespace berth::scheduler {

namespace json = boost::json;

namespace {

using TopologyPair = std::pair<std::string, std::string>;  // (topology key, value)

struct FilterState : StateData {
  std::map<TopologyPair, int64_t> existing_anti_affinity;  // existing pods' anti terms matching the pod
  std::map<TopologyPair, int64_t> affinity;                // pods matching the pod's affinity terms
  std::map<TopologyPair, int64_t> anti_affinity;           // pods matching the pod's anti terms
};

struct ScoreState : StateData {
  std::map<std::string, std::map<std::string, int64_t>> topology_score;  // key → value → score
};

std::optional<std::string_view> TopologyValue(const NodeInfo& node, const std::string& key) {
  return node.labels().Get(key);
}

}  // namespace

bool InterPodAffinity::TermMatches(const api::PodAffinityTerm& term, const PodInfo& owner,
                                   const PodInfo& candidate) const {
  const std::string& ns = candidate.namespace_name();
  bool ns_match = false;
  if (term.namespaces.empty() && !term.namespace_selector) {
    ns_match = ns == owner.namespace_name();
  } else {
    ns_match = std::find(term.namespaces.begin(), term.namespaces.end(), ns) != term.namespaces.end();
    if (!ns_match && term.namespace_selector) {
      if (term.namespace_selector->Empty()) {
        ns_match = true;
      } else if (auto labels = handle_.NamespaceLabels(ns)) {
        ns_match = term.namespace_selector->Matches(*labels);
      }
    }
  }
  if (!ns_match) return false;
  if (!term.label_selector.Matches(candidate.labels())) return false;
  for (const auto& key : term.match_label_keys) {
    auto want = owner.labels().Get(key);
    if (!want) continue;
    auto have = candidate.labels().Get(key);
    if (!have || *have != *want) return false;
  }
  for (const auto& key : term.mismatch_label_keys) {
    auto want = owner.labels().Get(key);
    if (!want) continue;
    auto have = candidate.labels().Get(key);
    if (have && *have == *want) return false;
  }
  return true;
}

PluginStatus InterPodAffinity::PreFilter(CycleState& state, const PodInfo& pod) const {
  const api::PodView& v = *pod.view;
  const Snapshot& snapshot = state.snapshot();
  auto data = std::make_unique<FilterState>();
  for (const NodeInfo* node : snapshot.have_pods_with_required_anti_affinity()) {
    for (const auto& existing : node->pods_with_required_anti_affinity()) {
      for (const auto& term : existing->view->pod_anti_affinity.required) {
        auto value = TopologyValue(*node, term.topology_key);
        if (value && TermMatches(term, *existing, pod)) data->existing_anti_affinity[{term.topology_key, std::string(*value)}]++;
      }
    }
  }
  bool has_terms = !v.pod_affinity.required.empty() || !v.pod_anti_affinity.required.empty();
  if (!has_terms && data->existing_anti_affinity.empty()) return PluginStatus::Skip();
  if (has_terms) {
    for (const auto& node : snapshot.nodes()) {
      for (const auto& existing : node->pods()) {
        if (existing->key == pod.key) continue;
        for (const auto& term : v.pod_affinity.required) {
          auto value = TopologyValue(*node, term.topology_key);
          if (value && TermMatches(term, pod, *existing)) data->affinity[{term.topology_key, std::string(*value)}]++;
        }
        for (const auto& term : v.pod_anti_affinity.required) {
          auto value = TopologyValue(*node, term.topology_key);
          if (value && TermMatches(term, pod, *existing)) data->anti_affinity[{term.topology_key, std::string(*value)}]++;
        }
      }
    }
  }
  state.Write(kName, std::move(data));
  return {};
}

PluginStatus InterPodAffinity::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<FilterState>(kName);
  if (!data) return {};
  // kube's order: the pod's affinity, its anti-affinity, then existing pods' anti-affinity.
  bool pods_exist = true;
  for (const auto& term : pod.view->pod_affinity.required) {
    auto value = node.labels().Get(term.topology_key);
    if (!value) return PluginStatus::Unresolvable(std::string(kAffinityReason));
    auto it = data->affinity.find({term.topology_key, std::string(*value)});
    if (it == data->affinity.end() || it->second <= 0) pods_exist = false;
  }
  if (!pods_exist) {
    // The first pod of a group with affinity to itself may go anywhere its
    // terms' keys exist, as long as no pod anywhere matches them yet.
    bool self_match = std::all_of(pod.view->pod_affinity.required.begin(), pod.view->pod_affinity.required.end(),
                                  [&](const api::PodAffinityTerm& t) { return TermMatches(t, pod, pod); });
    if (!(data->affinity.empty() && self_match)) return PluginStatus::Unresolvable(std::string(kAffinityReason));
  }
  for (const auto& term : pod.view->pod_anti_affinity.required) {
    auto value = node.labels().Get(term.topology_key);
    if (!value) continue;
    auto it = data->anti_affinity.find({term.topology_key, std::string(*value)});
    if (it != data->anti_affinity.end() && it->second > 0) {
      return PluginStatus::Unschedulable(std::string(kAntiAffinityReason));
    }
  }
  for (const auto& [pair, count] : data->existing_anti_affinity) {
    if (count <= 0) continue;
    auto value = node.labels().Get(pair.first);
    if (value && *value == pair.second) return PluginStatus::Unschedulable(std::string(kExistingAntiAffinityReason));
  }
  return {};
}

PluginStatus InterPodAffinity::PreScore(CycleState& state, const PodInfo& pod,
                                        std::span<const NodeInfo* const> nodes) const {
  const api::PodView& v = *pod.view;
  const Snapshot& snapshot = state.snapshot();
  bool has_preferred = !v.pod_affinity.preferred.empty() || !v.pod_anti_affinity.preferred.empty();
  if (!has_preferred && snapshot.have_pods_with_affinity().empty()) return PluginStatus::Skip();
  auto data = std::make_unique<ScoreState>();
  auto add = [&](const NodeInfo& node, const std::string& key, int64_t weight) {
    auto value = node.labels().Get(key);
    if (value && weight != 0) data->topology_score[key][std::string(*value)] += weight;
  };
  auto process = [&](const NodeInfo& node, const PodInfo& existing) {
    const api::PodView& e = *existing.view;
    for (const auto& w : v.pod_affinity.preferred) {
      if (TermMatches(w.term, pod, existing)) add(node, w.term.topology_key, w.weight);
    }
    for (const auto& w : v.pod_anti_affinity.preferred) {
      if (TermMatches(w.term, pod, existing)) add(node, w.term.topology_key, -w.weight);
    }
    if (hard_pod_affinity_weight > 0) {
      for (const auto& t : e.pod_affinity.required) {
        if (TermMatches(t, existing, pod)) add(node, t.topology_key, hard_pod_affinity_weight);
      }
    }
    if (!ignore_preferred_terms_of_existing_pods) {
      for (const auto& w : e.pod_affinity.preferred) {
        if (TermMatches(w.term, existing, pod)) add(node, w.term.topology_key, w.weight);
      }
      for (const auto& w : e.pod_anti_affinity.preferred) {
        if (TermMatches(w.term, existing, pod)) add(node, w.term.topology_key, -w.weight);
      }
    }
  };
  if (has_preferred) {
    for (const auto& node : snapshot.nodes()) {
      for (const auto& existing : node->pods()) process(*node, *existing);
    }
  } else {
    for (const NodeInfo* node : snapshot.have_pods_with_affinity()) {
      for (const auto& existing : node->pods_with_affinity()) process(*node, *existing);
    }
  }
  if (data->topology_score.empty()) return PluginStatus::Skip();
  state.Write(kName, std::move(data));
  return {};
}

PluginStatus InterPodAffinity::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                                     int64_t* score) const {
  *score = 0;
  const auto* data = state.Get<ScoreState>(kName);
  if (!data) return {};
  for (const auto& [key, values] : data->topology_score) {
    auto value = node.labels().Get(key);
    if (!value) continue;
    auto it = values.find(std::string(*value));
    if (it != values.end()) *score += it->second;
  }
  return {};
}

PluginStatus InterPodAffinity::NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const {
  if (scores.empty()) return {};
  int64_t min = scores[0].score, max = scores[0].score;
  for (const auto& s : scores) {
    min = std::min(min, s.score);
    max = std::max(max, s.score);
  }
  int64_t diff = max - min;
  for (auto& s : scores) {
    s.score = diff > 0 ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                              (static_cast<double>(s.score - min) / static_cast<double>(diff)))
                       : 0;
  }
  return {};
}

Result<std::shared_ptr<Plugin>> NewInterPodAffinity(const json::object& args, const Handle& handle) {
  auto plugin = std::make_shared<InterPodAffinity>(handle);
  for (const auto& entry : args) {
    std::string_view key(entry.key().data(), entry.key().size());
    if (key == "hardPodAffinityWeight") {
      if (!entry.value().is_int64() || entry.value().get_int64() < 0 || entry.value().get_int64() > 100) {
        return Status::BadRequest("hardPodAffinityWeight: Invalid value: " + json::serialize(entry.value()) +
                                  ": not in valid range [0-100]");
      }
      plugin->hard_pod_affinity_weight = entry.value().get_int64();
    } else if (key == "ignorePreferredTermsOfExistingPods") {
      if (!entry.value().is_bool()) return Status::BadRequest("ignorePreferredTermsOfExistingPods: expected a boolean");
      plugin->ignore_preferred_terms_of_existing_pods = entry.value().get_bool();
    } else {
      return Status::BadRequest(std::string(key) + ": unknown field");
    }
  }
  return std::shared_ptr<Plugin>(std::move(plugin));
}

}  // namespace berth::scheduler
