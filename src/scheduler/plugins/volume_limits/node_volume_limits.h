#pragma once
// NodeVolumeLimits (kube's nodevolumelimits CSILimits): a node's CSINode
// says how many volumes of each CSI driver it can attach
// (spec.drivers[].allocatable.count); a pod whose volumes would take a
// driver past that count on the node does not fit there ("node(s) exceed max
// volume count"; preemption may free room). Volumes are counted once per
// node however many pods use them; in-tree volumes count under the CSI
// driver kube migrates them to; a claim not bound yet counts under its
// class's provisioner. Nodes without a CSINode, and drivers without a
// count, are not limited.

#include <string_view>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class NodeVolumeLimits final : public PreFilterPlugin, public FilterPlugin {
 public:
  static constexpr std::string_view kName = "NodeVolumeLimits";
  static constexpr std::string_view kReason = "node(s) exceed max volume count";

  explicit NodeVolumeLimits(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;

 private:
  const Handle& handle_;
};

}  // namespace berth::scheduler
