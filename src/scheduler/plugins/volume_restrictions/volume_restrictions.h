#pragma once
// VolumeRestrictions (kube's volumerestrictions plugin), the
// ReadWriteOncePod part: a claim with access mode ReadWriteOncePod is used
// by at most one pod in the cluster, so a pod using such a claim that
// another pod uses already fits nowhere until that pod goes (Unschedulable:
// preemption may evict it; the PreFilter extensions keep the count true in
// its dry runs). A claim that does not exist is UnschedulableAndUnresolvable.
//
// Partial: kube's in-use disk conflicts for inline volumes (gcePersistentDisk,
// awsElasticBlockStore, rbd, iscsi written into the pod itself) are not
// checked; berth's pod view reads only claim volumes.

#include <string_view>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class VolumeRestrictions final : public PreFilterPlugin, public FilterPlugin {
 public:
  static constexpr std::string_view kName = "VolumeRestrictions";
  static constexpr std::string_view kReadWriteOncePodConflict =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

  explicit VolumeRestrictions(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  bool HasPreFilterExtensions() const override { return true; }
  PluginStatus AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                      const NodeInfo& node) const override;
  PluginStatus RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                         const NodeInfo& node) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;

 private:
  const Handle& handle_;
};

}  // namespace berth::scheduler
