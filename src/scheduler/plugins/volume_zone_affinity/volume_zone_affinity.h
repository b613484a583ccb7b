#pragma once
// VolumeZoneAffinity (berth's own score plugin, off in the default profile):
// prefers the nodes in zones that already hold bound PersistentVolumes of the
// storage classes the pod's claims ask for, so that a workload's pods, and
// the volumes provisioned for them, gather where its data already is. A
// node's raw score is the number of such volumes in its zone
// (topology.kubernetes.io/zone of the node; of a volume, its label of that
// name, several zones joined by "__", or its node affinity's In values for
// that key); normalised so the best zone scores 100. Pods without claims of a
// known class, or when no such volume is bound anywhere, are not scored.
// Enable it in a profile's score plugins (examples/volume-zone-affinity.yaml).

#include <string_view>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class VolumeZoneAffinity final : public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "VolumeZoneAffinity";

  explicit VolumeZoneAffinity(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus PreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> feasible) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState& state, const PodInfo& pod, std::span<NodeScore> scores) const override;

 private:
  const Handle& handle_;
};

}  // namespace berth::scheduler
