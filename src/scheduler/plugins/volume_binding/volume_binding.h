#pragma once
// VolumeBinding (kube's volumebinding plugin): a pod runs only where all its
// PersistentVolumeClaims can be met, and the claims that wait for their
// first consumer (volumeBindingMode WaitForFirstConsumer) are bound for the
// chosen node before the pod is.
//
//   PreFilter  reads the pod's claims: a missing one, one being deleted, or
//              an unbound Immediate one (the PV controller binds those) is
//              UnschedulableAndUnresolvable; a pod without claims is skipped.
//   Filter     per node: a bound claim's PV must exist and its node affinity
//              match; an unbound delayed claim needs an Available PV of its
//              class that fits (the smallest, never one another cycle has
//              assumed, never an unhealthy one: berth's health pre-check), or
//              a class that provisions, whose allowedTopologies take the node
//              and, when its CSIDriver publishes storage capacity, a
//              CSIStorageCapacity reaching the node with room for the claim.
//   Reserve    assumes the chosen PVs (no concurrent cycle takes them);
//              Unreserve gives them back.
//   PreBind    writes kube's bindings: the PV's claimRef (annotation
//              pv.kubernetes.io/bound-by-controller), or the claim's
//              volume.kubernetes.io/selected-node and storage-provisioner
//              annotations; then waits until the PV controller has every claim
//              bound, at most bindTimeoutSeconds (args; default 600), and
//              fails when it times out or a claim loses its selected node.
//
// Metrics (kube's volumebinding metrics, in the scheduler's registry when
// the handle has one): scheduler_volume_scheduling_stage_error_total
// {operation} counts Reserve failing to assume the chosen volumes ("assume")
// and PreBind failing ("bind"); "predicate" (kube's FindPodVolumes failing
// with an error) never counts, as berth's Filter answers without errors.
// scheduler_volume_binder_cache_requests_total{operation} counts a pod's
// bindings entering the assumed bindings at Reserve ("add") and leaving them
// at Unreserve or once bound ("delete"): what kube's binder cache counted.
//
// Score (kube's StorageCapacityScoring, alpha) is not implemented: kube's
// default profile scores nothing with this plugin either.
// Reads the storage objects through Handle::Volumes(); without them
// (a handle that keeps none) every pod is let through.

#include <chrono>
#include <string_view>

#include <boost/json/object.hpp>

#include "metrics/metrics.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class VolumeBinding final : public PreFilterPlugin, public FilterPlugin, public ReservePlugin, public PreBindPlugin {
 public:
  static constexpr std::string_view kName = "VolumeBinding";
  static constexpr std::string_view kUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims";
  static constexpr std::string_view kBindConflict = "node(s) didn't find available persistent volumes to bind";
  static constexpr std::string_view kNodeConflict = "node(s) had volume node affinity conflict";
  static constexpr std::string_view kNotEnoughSpace = "node(s) did not have enough free storage";
  static constexpr std::string_view kPVNotExist =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
  // berth's health pre-check: a PV annotated sim.berth.dev/volume-healthy: "false".
  static constexpr std::string_view kUnhealthy = "node(s) had unhealthy persistent volumes";

  VolumeBinding(const Handle& handle, std::chrono::seconds bind_timeout);

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus Reserve(CycleState& state, const PodInfo& pod, const std::string& node) const override;
  void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) const override;
  PluginStatus PreBind(CycleState& state, const PodInfo& pod, const std::string& node) const override;

  std::chrono::seconds bind_timeout() const { return bind_timeout_; }

 private:
  const Handle& handle_;
  std::chrono::seconds bind_timeout_;
  // The metrics' children; nullptr without a registry.
  metrics::Counter* cache_add_ = nullptr;
  metrics::Counter* cache_delete_ = nullptr;
  metrics::Counter* assume_errors_ = nullptr;
  metrics::Counter* bind_errors_ = nullptr;
  static void Count(metrics::Counter* c) {
    if (c) c->Increment();
  }
  // PreBind's work; PreBind counts its failures.
  PluginStatus BindVolumes(CycleState& state, const PodInfo& pod, const std::string& node) const;
};

// Args: bindTimeoutSeconds (int, > 0; default 600), as kube's
// VolumeBindingArgs; shape (StorageCapacityScoring's) is refused.
Result<std::shared_ptr<Plugin>> NewVolumeBinding(const boost::json::object& args, const Handle& handle);

}  // namespace berth::scheduler
