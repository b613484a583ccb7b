#pragma once
// VolumeZone (kube's volumezone plugin): a pod whose bound PersistentVolumes
// carry zone or region labels (topology.kubernetes.io/zone|region and their
// failure-domain.beta.kubernetes.io forms; several zones joined by "__")
// runs only on nodes labelled with one of them. A node with no such label
// at all is not constrained. Claims of WaitForFirstConsumer classes that are
// not bound yet are left to VolumeBinding.

#include <string_view>

#include <boost/json/object.hpp>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class VolumeZone final : public PreFilterPlugin, public FilterPlugin {
 public:
  static constexpr std::string_view kName = "VolumeZone";
  static constexpr std::string_view kReason = "node(s) had no available volume zone";

  explicit VolumeZone(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;

 private:
  const Handle& handle_;
};

}  // namespace berth::scheduler
