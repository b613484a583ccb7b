#pragma once
// PodTopologySpread (kube's podtopologyspread plugin). Filter: for every
// DoNotSchedule constraint, placing the pod must keep
// count(domain) + selfMatch − min(count over eligible domains) ≤ maxSkew
// (min is 0 while fewer than minDomains domains exist); a node without the
// topology key cannot take the pod. Score: ScheduleAnyway constraints prefer
// domains with fewer matching pods, each weighted by log(domains + 2).
// Eligible nodes follow nodeAffinityPolicy (Honor: the pod's nodeSelector and
// required node affinity) and nodeTaintsPolicy (Honor: taints tolerated).
//
// System default constraints (defaultingType System, the default) apply to
// pods without constraints: maxSkew 3 per kubernetes.io/hostname and 5 per
// topology.kubernetes.io/zone, ScheduleAnyway. kube selects the pods of the
// services and controllers owning the pod; berth approximates that with the
// pods sharing the pod's controller owner (same ownerReference uid), so pods
// without a controller get no default constraints.
// Args: defaultConstraints (list), defaultingType ("System" | "List").

#include <vector>

#include <boost/json/object.hpp>

#include "api/pod_view.h"
#include "scheduler/framework/domain_sums.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_value_cache.h"

namespace berth::scheduler {

class PodTopologySpread final : public PreFilterPlugin, public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "PodTopologySpread";
  static constexpr std::string_view kReason = "node(s) didn't match pod topology spread constraints";
  static constexpr std::string_view kMissingLabelReason =
      "node(s) didn't match pod topology spread constraints (missing required label)";

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  // Preemption's dry runs: a pod added to or removed from `node` moves its
  // domain's count (and the minimum) for every constraint that counts it.
  bool HasPreFilterExtensions() const override { return true; }
  PluginStatus AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                      const NodeInfo& node) const override;
  PluginStatus RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                         const NodeInfo& node) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState& state, const PodInfo&, std::span<NodeScore> scores) const override;

  // Whether the pod has DoNotSchedule constraints of its own.
  static bool HasHardConstraints(const PodInfo& pod);

  bool system_defaulting = true;
  std::vector<api::TopologySpreadConstraint> default_constraints;  // with defaultingType List

  // How many of each node's pods a constraint's matcher (namespace + selector
  // or controller) counts, remembered per node version.
  mutable NodeValueCache<int64_t> node_counts;
  // The same counts summed per domain and followed across snapshots, for
  // constraints every node is eligible for.
  mutable DomainSums domain_sums;
};

Result<std::shared_ptr<Plugin>> NewPodTopologySpread(const boost::json::object& args, const Handle& handle);

}  // namespace berth::scheduler
