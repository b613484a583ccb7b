#pragma once
// DefaultPreemption (PostFilter), kube-scheduler's preemption: when no node
// fits a pod, find nodes where evicting pods of lower priority would let it
// fit, choose one by kube's rules, evict those pods and nominate the node.
//
// - Eligibility: preemptionPolicy Never never preempts; a pod nominated to a
//   node that still has a lower-priority pod terminating by preemption (or
//   whose eviction has been started) waits.
// - Candidates: nodes whose filter status is Unschedulable (not
//   UnschedulableAndUnresolvable), tried from a random offset (the handle's
//   seeded randomness) until max(minCandidateNodesAbsolute,
//   minCandidateNodesPercentage of them) candidates are found (at least one
//   of them violating no PodDisruptionBudget).
// - Victims on a node: every lower-priority pod removed (PreFilter state kept
//   true through the extensions), the pod must then fit; then as many as
//   possible are reprieved, PDB-violating ones first, each group from most to
//   least important.
// - The node: fewest PDB violations, lowest highest-victim priority, smallest
//   sum of priorities, fewest victims, latest start of the highest-priority
//   victims, then the first.
// - Eviction: asynchronous, as kube's since 1.33 (Handle::PreemptPod starts
//   it; the victims count as gone for later preemptions meanwhile, and the
//   preemptor waits in the queue until they are).
// Thread-safe (its state is per call).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

struct DefaultPreemptionArgs {
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
};

class DefaultPreemption final : public PostFilterPlugin {
 public:
  static constexpr std::string_view kName = "DefaultPreemption";
  DefaultPreemption(const Handle& handle, DefaultPreemptionArgs args) : handle_(handle), args_(args) {}
  std::string_view Name() const override { return kName; }

  PluginStatus PostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                          const FilterRunner& runner, PostFilterResult* result) const override;

  // ---- the steps, for tests ----
  // "" when `pod` may preempt; otherwise kube's reason. With `handle`, a
  // pod whose eviction it has started counts as terminating.
  static std::string EligibleToPreempt(const PodInfo& pod, const Snapshot& snapshot,
                                       const PluginStatus* nominated_node_status, const Handle* handle = nullptr);
  // How many candidates to look for among `nodes` potential nodes.
  size_t NumCandidates(size_t nodes) const;
  // The victims on `node` (a copy this changes) with `state` (a clone).
  // With `handle`, pods whose eviction it has started are out of the node
  // already and never chosen again.
  static PluginStatus SelectVictimsOnNode(CycleState& state, const PodInfo& pod, NodeInfo& node,
                                          const std::vector<DisruptionBudget>& budgets, const FilterRunner& runner,
                                          PreemptionVictims* victims, const Handle* handle = nullptr);
  // kube's pickOneNodeForPreemption over (node, victims) in order.
  static size_t PickOneNode(const std::vector<std::pair<std::string, PreemptionVictims>>& candidates);
  // Higher priority first; equal priority: the earlier started first.
  static bool MoreImportant(const PodInfo& a, const PodInfo& b);

 private:
  const Handle& handle_;
  DefaultPreemptionArgs args_;
};

// kube's DefaultPreemptionArgs: minCandidateNodesPercentage (0–100),
// minCandidateNodesAbsolute (≥ 0), not both zero.
Result<std::shared_ptr<Plugin>> NewDefaultPreemption(const boost::json::object& args, const Handle& handle);

}  // namespace berth::scheduler
