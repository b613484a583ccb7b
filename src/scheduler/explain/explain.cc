#include <algorithm>
#include <numeric>

#include "scheduler/explain/explanation.h"
#include "scheduler/explain/what_would_fit.h"
#include "scheduler/framework/fit_error.h"
#include "scheduler/plugins/default_preemption/default_preemption.h"

namespace berth::scheduler {

namespace {

// Every Filter plugin on one node (a cycle stops at the first rejection).
// Returns an error status when a plugin failed with one.
PluginStatus FilterEach(const Framework& fw, const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node, const Handle& handle, NodeExplanation& out) {
  const auto plugins = fw.filter_plugins();
  for (size_t i = 0; i < plugins.size(); ++i) {
    FilterVerdict v{std::string(plugins[i]->Name())};
    if (state.FilterSkippedAt(i)) {
      v.code = Code::kSkip;
    } else {
      PluginStatus s = plugins[i]->Filter(state, pod, node);
      if (s.code() == Code::kError) return s.WithPlugin(plugins[i]->Name());
      v.code = s.code();
      v.reasons = s.reasons();
      if (s.IsRejected()) {
        if (++out.failing_plugins == 1) out.status = std::move(s.WithPlugin(plugins[i]->Name()));
      }
    }
    out.filters.push_back(std::move(v));
  }
  if (out.failing_plugins == 0 && handle.HasNominatedPods()) {
    // Room held for pods nominated to the node (equal or higher priority).
    PluginStatus s = fw.RunFilterWithNominatedPods(state, pod, node);
    if (s.code() == Code::kError) return s;
    if (s.IsRejected()) {
      out.failing_plugins = 1;
      out.status = std::move(s);
    }
  }
  return {};
}

// Fills `would_fit` (and the shortfall) of a rejected node.
void AddHints(const Framework& fw, const PodInfo& pod, const NodeInfo& node,
              const Snapshot& snapshot, NodeExplanation& ne, bool resources_only) {
  ne.would_fit.clear();
  ne.shortfall = 0;
  const auto plugins = fw.filter_plugins();
  bool any = false;
  for (size_t i = 0; i < ne.filters.size() && i < plugins.size(); ++i) {
    const FilterVerdict& v = ne.filters[i];
    if (v.code != Code::kUnschedulable && v.code != Code::kUnschedulableAndUnresolvable) continue;
    any = true;
    const bool resources = plugins[i]->Name() == "NodeResourcesFit";
    if (resources_only && !resources) continue;
    FitHint hint = WhatWouldFit(*plugins[i], v.reasons, pod, node, snapshot);
    ne.shortfall += hint.shortfall;
    if (!resources_only)
      ne.would_fit.insert(ne.would_fit.end(), hint.changes.begin(), hint.changes.end());
  }
  if (!any && !resources_only && !ne.status.ok()) {
    // Rejected with every plugin passing: the nominated pods' room, or the
    // PreFilter's node restriction.
    for (const auto& r : ne.status.reasons()) ne.would_fit.push_back(r);
  }
}

void ScoreFeasible(const Framework& fw, CycleState& state, const PodInfo& pod,
                   const std::vector<const NodeInfo*>& feasible, Explanation& e,
                   PluginStatus& error) {
  e.scores.resize(feasible.size());
  for (size_t i = 0; i < feasible.size(); ++i) e.scores[i].node = feasible[i]->name();
  if (!fw.HasScorePlugins()) {
    // kube scores every node 1 when no plugin scores.
    for (auto& row : e.scores) row.total = 1;
    return;
  }
  if (PluginStatus s = fw.RunPreScore(state, pod, feasible); !s.ok()) {
    error = std::move(s);
    return;
  }
  const auto plugins = fw.score_plugins();
  std::vector<NodeScore> scores(feasible.size());
  for (size_t p = 0; p < plugins.size(); ++p) {
    if (state.ScoreSkippedAt(p)) continue;
    const auto& [plugin, weight] = plugins[p];
    for (size_t i = 0; i < feasible.size(); ++i) {
      scores[i].node = feasible[i];
      if (PluginStatus s = plugin->Score(state, pod, *feasible[i], &scores[i].score); !s.ok()) {
        error = std::move(s.WithPlugin(plugin->Name()));
        return;
      }
    }
    std::vector<int64_t> raw(feasible.size());
    for (size_t i = 0; i < feasible.size(); ++i) raw[i] = scores[i].score;
    if (plugin->HasNormalizeScore()) {
      if (PluginStatus s = plugin->NormalizeScore(state, pod, scores); !s.ok()) {
        error = std::move(s.WithPlugin(plugin->Name()));
        return;
      }
    }
    for (size_t i = 0; i < feasible.size(); ++i) {
      const int64_t normalized = scores[i].score;
      e.scores[i].cells.push_back(
          {std::string(plugin->Name()), raw[i], normalized, weight, normalized * weight});
      e.scores[i].total += normalized * weight;
    }
  }
}

void Select(const Framework& fw, Explanation& e) {
  std::stable_sort(e.scores.begin(), e.scores.end(),
                   [](const ScoreRow& a, const ScoreRow& b) { return a.total > b.total; });
  if (e.scores.empty()) return;
  const int64_t top = e.scores.front().total;
  e.tied = static_cast<size_t>(std::count_if(e.scores.begin(), e.scores.end(),
                                             [&](const ScoreRow& r) { return r.total == top; }));
  e.chosen = e.scores.front().node;
  if (e.scores.size() > 1) {
    e.runner_up = e.scores[1].node;
    e.margin = top - e.scores[1].total;
  }
  if (fw.node_selection() == NodeSelectionStrategy::kWeightedRandom) {
    const int64_t sum = std::accumulate(
        e.scores.begin(), e.scores.end(), int64_t{0},
        [](int64_t acc, const ScoreRow& r) { return acc + std::max<int64_t>(0, r.total); });
    e.random_decides = e.scores.size() > 1;
    e.chosen_probability =
        sum > 0 ? static_cast<double>(top) / static_cast<double>(sum) : 1.0 / e.scores.size();
  } else {
    e.random_decides = e.tied > 1;
    e.chosen_probability = 1.0 / static_cast<double>(e.tied);
  }
}

void DryRunPreemption(const Framework& fw, const CycleState& state, const PodInfo& pod,
                      const Snapshot& snapshot, const Handle& handle, const ExplainOptions& options,
                      Explanation& e) {
  PreemptionDryRun& d = e.preemption;
  const auto post = fw.PluginNames("postFilter");
  if (std::find(post.begin(), post.end(), DefaultPreemption::kName) == post.end()) return;
  d.considered = true;
  const PluginStatus* nominated_status = nullptr;
  for (const auto& n : e.nodes) {
    if (!e.nominated_node.empty() && n.node == e.nominated_node) nominated_status = &n.status;
  }
  if (std::string why =
          DefaultPreemption::EligibleToPreempt(pod, snapshot, nominated_status, &handle);
      !why.empty()) {
    d.reason = why;
    return;
  }
  auto budgets = handle.DisruptionBudgets();
  static const std::vector<DisruptionBudget> kNone;
  std::vector<std::pair<std::string, PreemptionVictims>> candidates;
  for (size_t i = 0; i < e.nodes.size() && candidates.size() < options.max_preemption_candidates;
       ++i) {
    if (e.nodes[i].status.code() != Code::kUnschedulable)
      continue;  // Unresolvable: eviction cannot help
    NodeInfo copy = *snapshot.nodes()[i];
    std::unique_ptr<CycleState> cloned = state.Clone();
    PreemptionVictims victims;
    PluginStatus s = DefaultPreemption::SelectVictimsOnNode(
        *cloned, pod, copy, budgets ? *budgets : kNone, fw, &victims, &handle);
    if (s.ok() && !victims.pods.empty()) candidates.emplace_back(copy.name(), std::move(victims));
  }
  d.candidates = candidates.size();
  if (candidates.empty()) {
    d.reason = "no node where evicting pods of lower priority would make room";
    return;
  }
  auto& [node, victims] = candidates[DefaultPreemption::PickOneNode(candidates)];
  d.helps = true;
  d.node = node;
  d.pdb_violations = victims.pdb_violations;
  for (const auto& p : victims.pods) d.victims.push_back(p->key);
}

std::string Joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(separator) : "") + parts[i];
  return out;
}

// What Explain knows before any plugin runs: the pod, the profile, where the
// pod is bound or nominated, how many nodes there are.
Explanation ExplanationHeader(const Framework& fw, const Snapshot& snapshot, const PodInfo& pod,
                              const Handle& handle, const ExplainOptions& options) {
  Explanation e;
  e.pod = pod.key;
  e.profile = fw.scheduler_name();
  e.bound_node = options.bound_node;
  e.nominated_node = !pod.view->nominated_node_name.empty() ? pod.view->nominated_node_name
                                                            : handle.NominatedNodeOf(pod.key);
  e.total_nodes = snapshot.size();
  e.selection =
      fw.node_selection() == NodeSelectionStrategy::kWeightedRandom ? "WeightedRandom" : "TopScore";
  return e;
}

// One NodeExplanation per node, in the snapshot's order: PreFilter's
// rejection, or its node restriction, stands for a node no Filter runs on;
// the others get every Filter's verdict. The nodes that pass go to
// `feasible`. Returns an error status when a plugin failed with one.
PluginStatus FilterNodes(const Framework& fw, const CycleState& state, const PodInfo& pod,
                         const Snapshot& snapshot, const Handle& handle, const PluginStatus& pre,
                         Explanation& e, std::vector<const NodeInfo*>& feasible) {
  e.nodes.resize(snapshot.size());
  const auto& restriction = state.node_restriction();
  PluginStatus left_out;
  if (pre.ok() && restriction) {
    std::vector<std::string> by = state.restricting_plugins();
    std::sort(by.begin(), by.end());
    by.erase(std::unique(by.begin(), by.end()), by.end());
    left_out = PluginStatus::Unresolvable("node(s) didn't satisfy plugin(s) " + GoList(by));
  }
  for (size_t i = 0; i < snapshot.size(); ++i) {
    const NodeInfo& node = *snapshot.nodes()[i];
    NodeExplanation& ne = e.nodes[i];
    ne.node = node.name();
    if (!pre.ok()) {
      ne.status = pre;  // PreFilter's rejection stands for every node; no Filter runs
      ne.failing_plugins = 1;
      continue;
    }
    if (restriction && !std::binary_search(restriction->begin(), restriction->end(), node.name())) {
      ne.status = left_out;
      ne.failing_plugins = 1;
      continue;
    }
    if (PluginStatus s = FilterEach(fw, state, pod, node, handle, ne); !s.ok()) return s;
    if (ne.failing_plugins == 0) feasible.push_back(&node);
  }
  return {};
}

// The indices of the rejected nodes, closest first (fewest failing plugins,
// then the smallest resource shortfall).
std::vector<size_t> RejectedClosestFirst(const Framework& fw, const PodInfo& pod,
                                         const Snapshot& snapshot, const PluginStatus& pre,
                                         Explanation& e) {
  std::vector<size_t> rejected;
  for (size_t i = 0; i < e.nodes.size(); ++i) {
    if (e.nodes[i].failing_plugins == 0) continue;
    rejected.push_back(i);
    if (pre.ok())
      AddHints(fw, pod, *snapshot.nodes()[i], snapshot, e.nodes[i], /*resources_only=*/true);
  }
  std::stable_sort(rejected.begin(), rejected.end(), [&](size_t a, size_t b) {
    // Nodes no Filter ran on (left out by PreFilter) need the pod itself changed: last.
    if (e.nodes[a].filters.empty() != e.nodes[b].filters.empty()) return e.nodes[b].filters.empty();
    if (e.nodes[a].failing_plugins != e.nodes[b].failing_plugins) {
      return e.nodes[a].failing_plugins < e.nodes[b].failing_plugins;
    }
    return e.nodes[a].shortfall < e.nodes[b].shortfall;
  });
  return rejected;
}

// e.closest_nodes in that order; the first `detailed` of them also get what
// would make them fit (PreFilter's reasons when it rejected the pod).
void AddClosestNodes(const Framework& fw, const PodInfo& pod, const Snapshot& snapshot,
                     const PluginStatus& pre, const std::vector<size_t>& rejected, size_t detailed,
                     Explanation& e) {
  for (size_t k = 0; k < rejected.size(); ++k) {
    const size_t i = rejected[k];
    e.closest_nodes.push_back(e.nodes[i].node);
    if (k >= detailed) continue;
    if (pre.ok()) {
      AddHints(fw, pod, *snapshot.nodes()[i], snapshot, e.nodes[i], /*resources_only=*/false);
    } else {
      for (const auto& r : pre.reasons()) e.nodes[i].would_fit.push_back(pre.plugin() + ": " + r);
    }
  }
}

// The closest nodes' changes; nodes that need the same change share a line
// ("nodes a, b and 3 more: ..."), at most `options.closest` lines.
void SuggestClosestChanges(const std::vector<size_t>& rejected, size_t detailed,
                           const ExplainOptions& options, Explanation& e) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // change → nodes
  for (size_t k = 0; k < detailed; ++k) {
    const NodeExplanation& ne = e.nodes[rejected[k]];
    std::string change = Joined(ne.would_fit, "; ");
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == change; });
    if (it != groups.end()) {
      it->second.push_back(ne.node);
    } else if (groups.size() < options.closest) {
      groups.push_back({std::move(change), {ne.node}});
    }
  }
  if (detailed < rejected.size()) {
    e.notes.push_back("what would fit was worked out for the " + std::to_string(detailed) +
                      " closest of " + std::to_string(rejected.size()) + " rejected nodes");
  }
  for (const auto& [change, nodes] : groups) {
    std::string who =
        nodes.size() == 1 ? "node " + nodes.front() : "nodes " + nodes[0] + ", " + nodes[1];
    if (nodes.size() == 3) who += ", " + nodes[2];
    if (nodes.size() > 3) who += " and " + std::to_string(nodes.size() - 2) + " more";
    e.suggestions.push_back(who + ": " + change);
  }
}

// No node fits: the scheduler's FitError message, what preemption would do
// (for a pod not bound yet), and what to change.
void ExplainUnschedulable(const Framework& fw, const CycleState& state, const PodInfo& pod,
                          const Snapshot& snapshot, const Handle& handle,
                          const ExplainOptions& options, const PluginStatus& pre,
                          const std::vector<size_t>& rejected, size_t detailed, Explanation& e) {
  std::vector<NodeStatus> statuses;
  if (pre.ok()) {
    for (size_t i = 0; i < e.nodes.size(); ++i)
      statuses.push_back({snapshot.nodes()[i].get(), e.nodes[i].status});
  }
  e.summary = FitErrorMessage(snapshot.size(), pre.ok() ? nullptr : &pre, statuses);
  if (e.bound_node.empty()) {
    DryRunPreemption(fw, state, pod, snapshot, handle, options, e);
  }
  if (!pre.ok()) {
    for (const auto& r : pre.reasons()) e.suggestions.push_back(pre.plugin() + ": " + r);
  } else {
    SuggestClosestChanges(rejected, detailed, options, e);
  }
  if (e.preemption.helps) {
    e.suggestions.push_back("preemption would make room on node " + e.preemption.node +
                            " by evicting " + Joined(e.preemption.victims, ", "));
  }
}

// Some nodes fit: which one the scheduler would choose, and by how much
// (empty for a bound pod, whose summary SummarizeBoundPod writes).
void SummarizeChoice(size_t feasible, size_t total_nodes, Explanation& e) {
  const std::string of_nodes = "/" + std::to_string(total_nodes) + " nodes";
  const ScoreRow& best = e.scores.front();
  std::string choice =
      e.random_decides && e.tied > 1
          ? "one of " + std::to_string(e.tied) + " nodes tied at score " +
                std::to_string(best.total) + " (random tie-break), e.g. " + best.node
          : best.node + " (score " + std::to_string(best.total) +
                (e.runner_up.empty()
                     ? ""
                     : ", margin " + std::to_string(e.margin) + " over " + e.runner_up) +
                ")";
  if (e.selection == "WeightedRandom" && e.scores.size() > 1) {
    choice = "a node drawn at random weighted by score, most likely " + best.node;
  }
  e.summary = e.bound_node.empty() ? std::to_string(feasible) + of_nodes +
                                         " fit the pod now; the scheduler would choose " + choice
                                   : "";
}

// A placed pod: where it is, and how its node compares now.
void SummarizeBoundPod(bool none_feasible, Explanation& e) {
  std::string now;
  auto row = std::find_if(e.scores.begin(), e.scores.end(),
                          [&](const ScoreRow& r) { return r.node == e.bound_node; });
  bool best = false;
  if (row != e.scores.end()) {
    const int64_t total = row->total;
    const auto better = std::count_if(e.scores.begin(), e.scores.end(),
                                      [&](const ScoreRow& r) { return r.total > total; });
    best = better == 0;
    now = "it still fits there: score " + std::to_string(total) + ", " +
          (best ? (e.tied > 1
                       ? "tied for the top with " + std::to_string(e.tied - 1) + " other node(s)"
                       : "the top")
                : "rank " + std::to_string(better + 1)) +
          " (" + std::to_string(e.scores.size()) + " feasible nodes)";
  } else {
    now = "as the cluster is now it would not fit there";
  }
  e.summary = "bound to " + e.bound_node + "; " + now +
              (none_feasible ? " (" + e.summary + ")" : "") +
              (e.chosen.empty() || best ? "" : "; the scheduler would now choose " + e.chosen);
}

// Where this explanation and a real scheduling cycle may differ.
void AddCaveats(size_t total_nodes, Explanation& e) {
  if (total_nodes >= 100) {
    e.notes.emplace_back(
        "a scheduling cycle stops filtering once it has found percentageOfNodesToScore's share of "
        "feasible nodes, "
        "so it may choose among fewer nodes than scored here");
  }
  if (e.preemption.helps) {
    e.notes.emplace_back(
        "preemption's dry run weighs every candidate node; a real preemption starts from a random "
        "node and may "
        "pick another of equal merit");
  }
}

}  // namespace

Result<Explanation> Explain(const Framework& profile, const Snapshot& snapshot, const PodInfo& pod,
                            const Handle& handle, const ExplainOptions& options) {
  const std::unique_ptr<Framework> untimed = profile.Untimed();
  const Framework& fw = *untimed;
  Explanation e = ExplanationHeader(fw, snapshot, pod, handle, options);
  if (snapshot.size() == 0) {
    e.summary = "0/0 nodes are available: no nodes available to schedule pods.";
    e.suggestions.emplace_back("add a node");
    return e;
  }

  CycleState state(&snapshot);
  PluginStatus pre = fw.RunPreFilter(state, pod);
  if (!pre.ok() && !pre.IsRejected()) return Status::Internal(pre.Message());
  std::vector<const NodeInfo*> feasible;
  if (PluginStatus s = FilterNodes(fw, state, pod, snapshot, handle, pre, e, feasible); !s.ok())
    return Status::Internal(s.Message());
  e.feasible = feasible.size();
  if (pre.IsRejected()) e.pre_filter = pre;

  if (!feasible.empty()) {
    PluginStatus error;
    ScoreFeasible(fw, state, pod, feasible, e, error);
    if (!error.ok()) return Status::Internal(error.Message());
    Select(fw, e);
  }

  const std::vector<size_t> rejected = RejectedClosestFirst(fw, pod, snapshot, pre, e);
  const size_t detailed = rejected.size() <= options.all_detailed_up_to
                              ? rejected.size()
                              : std::min(options.detailed, rejected.size());
  AddClosestNodes(fw, pod, snapshot, pre, rejected, detailed, e);
  if (feasible.empty()) {
    ExplainUnschedulable(fw, state, pod, snapshot, handle, options, pre, rejected, detailed, e);
  } else {
    SummarizeChoice(feasible.size(), snapshot.size(), e);
  }
  if (!e.bound_node.empty()) SummarizeBoundPod(feasible.empty(), e);
  AddCaveats(snapshot.size(), e);
  return e;
}

}  // namespace berth::scheduler
