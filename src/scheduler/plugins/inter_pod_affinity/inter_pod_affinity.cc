#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include <algorithm>

#include <boost/json/serialize.hpp>

namespace berth::scheduler {

namespace json = boost::json;

namespace {

// Pods counted per topology domain of one key.
struct DomainCounts {
  TopologyIndexPtr topology;
  std::vector<int64_t> counts;  // by domain

  void Add(const NodeInfo& node, int64_t n) {
    int32_t domain = topology->DomainOf(node);
    if (domain != TopologyIndex::kMissing) counts[static_cast<size_t>(domain)] += n;
  }
  int64_t At(const NodeInfo& node) const {
    int32_t domain = topology->DomainOf(node);
    return domain == TopologyIndex::kMissing ? 0 : counts[static_cast<size_t>(domain)];
  }
};

DomainCounts For(const Snapshot& snapshot, const std::string& key) {
  DomainCounts d;
  d.topology = snapshot.Topology(key);
  d.counts.assign(d.topology->domain_count(), 0);
  return d;
}

// The counts for `key` in `list`, added on first use (a pod's terms use few keys).
DomainCounts& Find(std::vector<DomainCounts>& list, const Snapshot& snapshot, const std::string& key) {
  for (auto& d : list) {
    if (d.topology->key() == key) return d;
  }
  return list.emplace_back(For(snapshot, key));
}

struct FilterState : StateData {
  std::vector<DomainCounts> existing_anti_affinity;  // by key: existing pods' anti terms matching the pod
  std::vector<DomainCounts> affinity;                // by term of the pod: pods matching it
  std::vector<DomainCounts> anti_affinity;           // by term of the pod: pods matching it
  bool any_affinity_match = false;                   // some pod on a node with the key matches a term

  // Changed by preemption's dry runs (AddPod/RemovePod).
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<FilterState>(*this); }
};

struct ScoreState : StateData {
  std::vector<DomainCounts> scores;  // by key
};

// Adds `n` to `key`'s entry (a node's per-topology-key tallies: a few keys at most).
void AddByKey(std::vector<std::pair<std::string, int64_t>>& tallies, const std::string& key, int64_t n) {
  for (auto& [k, v] : tallies) {
    if (k == key) {
      v += n;
      return;
    }
  }
  tallies.emplace_back(key, n);
}

// What TermMatches(term, owner, candidate) depends on besides the candidate;
// "" when it also depends on namespaces' labels (a namespaceSelector), which
// node versions do not track.
std::string TermKey(const api::PodAffinityTerm& term, const PodInfo& owner) {
  if (term.namespace_selector) return "";
  std::string key = owner.namespace_name();
  key += '\x1f';
  key += term.label_selector.SelectsNothing() ? "\x01" : term.label_selector.ToString();
  for (const auto& ns : term.namespaces) key += "\x1e" + ns;
  for (const auto* keys : {&term.match_label_keys, &term.mismatch_label_keys}) {
    key += '\x1f';
    for (const auto& k : *keys) {
      auto value = owner.labels().Get(k);
      key += k + (value ? "=" + std::string(*value) : "") + '\x1e';
    }
  }
  return key;
}

// What an existing pod's term sees of a candidate pod: its namespace and labels.
std::string CandidateKey(const PodInfo& pod) {
  std::string key = pod.namespace_name();
  for (const auto& [k, v] : pod.labels()) key += '\x1f' + k + '=' + v;
  return key;
}

// Adds `weight` times the number of pods `term` (written by `pod`) matches on
// each node to the node's domain in `d`; returns the number of matches. The
// pod itself is never counted: a pod being scheduled is on no node.
int64_t CountTermMatches(const InterPodAffinity& plugin, const Snapshot& snapshot, const PodInfo& pod,
                         const api::PodAffinityTerm& term, DomainCounts& d, int64_t weight) {
  std::string key = TermKey(term, pod);
  if (!key.empty()) {
    // Followed across snapshots: only the nodes changed since are recounted.
    auto sums = plugin.term_sums().Sum(
        key + '\x1f' + term.topology_key, snapshot, *d.topology, [](const NodeInfo&) { return true; },
        [&](const NodeInfo& node) {
          int64_t matching = 0;
          for (const auto& existing : node.pods()) {
            if (existing->key != pod.key && plugin.TermMatches(term, pod, *existing)) ++matching;
          }
          return matching;
        });
    int64_t total = 0;
    for (size_t i = 0; i < sums.counts.size(); ++i) {
      d.counts[i] += weight * sums.counts[i];
      total += sums.counts[i];
    }
    return total;
  }
  // A namespaceSelector: the answer depends on namespaces' labels too, which
  // node versions do not track; counted afresh.
  int64_t total = 0;
  for (const auto& node : snapshot.nodes()) {
    if (node->pods().empty() || d.topology->DomainOf(*node) == TopologyIndex::kMissing) continue;
    int64_t n = 0;
    for (const auto& existing : node->pods()) {
      if (existing->key != pod.key && plugin.TermMatches(term, pod, *existing)) ++n;
    }
    d.Add(*node, weight * n);
    total += n;
  }
  return total;
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
  bool existing_match = false;
  {
    auto cached = existing_anti_counts_.Open(CandidateKey(pod), snapshot.slot_count());
    for (const NodeInfo* node : snapshot.have_pods_with_required_anti_affinity()) {
      const auto& by_key = cached.Get(*node, [&](bool& cacheable) {
        std::vector<std::pair<std::string, int64_t>> out;
        for (const auto& existing : node->pods_with_required_anti_affinity()) {
          for (const auto& term : existing->view->pod_anti_affinity.required) {
            if (term.namespace_selector) cacheable = false;
            if (!TermMatches(term, *existing, pod)) continue;
            AddByKey(out, term.topology_key, 1);
          }
        }
        return out;
      });
      for (const auto& [key, n] : by_key) {
        DomainCounts& d = Find(data->existing_anti_affinity, snapshot, key);
        if (d.topology->DomainOf(*node) == TopologyIndex::kMissing) continue;
        d.Add(*node, n);
        existing_match = true;
      }
    }
  }
  bool has_terms = !v.pod_affinity.required.empty() || !v.pod_anti_affinity.required.empty();
  if (!has_terms && !existing_match) return PluginStatus::Skip();
  for (const auto& term : v.pod_affinity.required) {
    data->affinity.push_back(For(snapshot, term.topology_key));
    if (CountTermMatches(*this, snapshot, pod, term, data->affinity.back(), 1) > 0) {
      data->any_affinity_match = true;
    }
  }
  for (const auto& term : v.pod_anti_affinity.required) {
    data->anti_affinity.push_back(For(snapshot, term.topology_key));
    CountTermMatches(*this, snapshot, pod, term, data->anti_affinity.back(), 1);
  }
  state.Write(kName, std::move(data));
  return {};
}

void InterPodAffinity::UpdateWithPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                     const NodeInfo& node, int64_t delta) const {
  auto* data = state.GetMutable<FilterState>(kName);
  if (!data || other.key == pod.key) return;
  // The other pod's required anti-affinity terms that select the incoming pod.
  for (const auto& term : other.view->pod_anti_affinity.required) {
    if (!TermMatches(term, other, pod)) continue;
    DomainCounts& d = Find(data->existing_anti_affinity, state.snapshot(), term.topology_key);
    d.Add(node, delta);
  }
  // The incoming pod's required terms that select the other pod.
  const auto& affinity = pod.view->pod_affinity.required;
  for (size_t i = 0; i < affinity.size() && i < data->affinity.size(); ++i) {
    if (TermMatches(affinity[i], pod, other)) data->affinity[i].Add(node, delta);
  }
  const auto& anti = pod.view->pod_anti_affinity.required;
  for (size_t i = 0; i < anti.size() && i < data->anti_affinity.size(); ++i) {
    if (TermMatches(anti[i], pod, other)) data->anti_affinity[i].Add(node, delta);
  }
}

PluginStatus InterPodAffinity::AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                      const NodeInfo& node) const {
  UpdateWithPod(state, pod, other, node, +1);
  return {};
}

PluginStatus InterPodAffinity::RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                         const NodeInfo& node) const {
  UpdateWithPod(state, pod, other, node, -1);
  return {};
}

PluginStatus InterPodAffinity::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<FilterState>(kName);
  if (!data) return {};
  // kube's order: the pod's affinity, its anti-affinity, then existing pods' anti-affinity.
  bool pods_exist = true;
  for (const auto& d : data->affinity) {
    int32_t domain = d.topology->DomainOf(node);
    if (domain == TopologyIndex::kMissing) return PluginStatus::Unresolvable(std::string(kAffinityReason));
    if (d.counts[static_cast<size_t>(domain)] <= 0) pods_exist = false;
  }
  if (!pods_exist) {
    // The first pod of a group with affinity to itself may go anywhere its
    // terms' keys exist, as long as no pod anywhere matches them yet.
    bool self_match = std::all_of(pod.view->pod_affinity.required.begin(), pod.view->pod_affinity.required.end(),
                                  [&](const api::PodAffinityTerm& t) { return TermMatches(t, pod, pod); });
    if (data->any_affinity_match || !self_match) return PluginStatus::Unresolvable(std::string(kAffinityReason));
  }
  for (const auto& d : data->anti_affinity) {
    if (d.At(node) > 0) return PluginStatus::Unschedulable(std::string(kAntiAffinityReason));
  }
  for (const auto& d : data->existing_anti_affinity) {
    if (d.At(node) > 0) return PluginStatus::Unschedulable(std::string(kExistingAntiAffinityReason));
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
  bool any = false;
  // The pod's preferred terms: their weight for every pod they match.
  auto own = [&](const api::PodAffinityTerm& term, int64_t weight) {
    if (weight == 0) return;
    DomainCounts& d = Find(data->scores, snapshot, term.topology_key);
    if (CountTermMatches(*this, snapshot, pod, term, d, weight) > 0) any = true;
  };
  for (const auto& w : v.pod_affinity.preferred) own(w.term, w.weight);
  for (const auto& w : v.pod_anti_affinity.preferred) own(w.term, -w.weight);
  // Existing pods' terms that match the pod (their required affinity weighted
  // by hardPodAffinityWeight), summed per node and topology key.
  auto cached = existing_score_.Open(CandidateKey(pod), snapshot.slot_count());
  for (const NodeInfo* node : snapshot.have_pods_with_affinity()) {
    const auto& by_key = cached.Get(*node, [&](bool& cacheable) {
      std::vector<std::pair<std::string, int64_t>> out;
      auto add = [&](const api::PodAffinityTerm& term, int64_t weight) {
        if (term.namespace_selector) cacheable = false;
        if (weight == 0) return;
        AddByKey(out, term.topology_key, weight);
      };
      for (const auto& existing : node->pods_with_affinity()) {
        const api::PodView& e = *existing->view;
        if (hard_pod_affinity_weight > 0) {
          for (const auto& t : e.pod_affinity.required) {
            if (TermMatches(t, *existing, pod)) add(t, hard_pod_affinity_weight);
          }
        }
        if (!ignore_preferred_terms_of_existing_pods) {
          for (const auto& w : e.pod_affinity.preferred) {
            if (TermMatches(w.term, *existing, pod)) add(w.term, w.weight);
          }
          for (const auto& w : e.pod_anti_affinity.preferred) {
            if (TermMatches(w.term, *existing, pod)) add(w.term, -w.weight);
          }
        }
      }
      return out;
    });
    for (const auto& [key, weight] : by_key) {
      DomainCounts& d = Find(data->scores, snapshot, key);
      if (d.topology->DomainOf(*node) == TopologyIndex::kMissing) continue;
      d.Add(*node, weight);
      any = true;
    }
  }
  if (!any) return PluginStatus::Skip();
  state.Write(kName, std::move(data));
  return {};
}

PluginStatus InterPodAffinity::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                                     int64_t* score) const {
  *score = 0;
  const auto* data = state.Get<ScoreState>(kName);
  if (!data) return {};
  for (const auto& d : data->scores) *score += d.At(node);
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
