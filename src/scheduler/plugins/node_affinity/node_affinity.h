#pragma once
// NodeAffinity (kube's nodeaffinity plugin): Filter by spec.nodeSelector and
// required node affinity; Score by the weights of matching preferred terms.
// PreFilter restricts the pod to the nodes its required terms name by
// metadata.name (kube's PreFilterResult), so only those are filtered.
// Args: addedAffinity, a NodeAffinity applied to every pod of the profile.

#include <optional>

#include <boost/json/object.hpp>

#include "api/node_selector.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class NodeAffinity final : public PreFilterPlugin, public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "NodeAffinity";
  static constexpr std::string_view kReason = "node(s) didn't match Pod's node affinity/selector";
  // Required terms naming nodes by metadata.name that have none in common.
  static constexpr std::string_view kConflictReason = "pod affinity terms conflict";

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const>) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const override;

  // Whether `node` satisfies the pod's nodeSelector and required node affinity
  // (no added affinity). Used by other plugins (PodTopologySpread).
  static bool RequiredMatches(const PodInfo& pod, const NodeInfo& node);

  std::optional<api::NodeSelector> added_required;
  std::vector<api::PreferredSchedulingTerm> added_preferred;
};

Result<std::shared_ptr<Plugin>> NewNodeAffinity(const boost::json::object& args, const Handle& handle);

}  // namespace berth::scheduler
