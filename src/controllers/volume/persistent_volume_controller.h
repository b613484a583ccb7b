#pragma once
// kube's PersistentVolume controller (pkg/controller/volume/persistentvolume,
// kube-controller-manager's persistentvolume-binder-controller): binds
// claims to volumes and follows both through their phases.
//
// Claims (syncClaim): a claim without pv.kubernetes.io/bind-completed is
// unbound. With no spec.volumeName it takes the best volume
// (volume_matching.h); failing one, a claim of a WaitForFirstConsumer class
// waits for the scheduler (event WaitForFirstConsumer) until it carries
// volume.kubernetes.io/selected-node; a claim of a class is handed to its
// provisioner (annotations volume.kubernetes.io/storage-provisioner and
// volume.beta.kubernetes.io/storage-provisioner, event ExternalProvisioning);
// a claim with no class stays Pending (event FailedBinding "no persistent
// volumes available for this claim and no storage class is set"). A claim
// naming a volume (pre-bound) binds to it when the volume is free or points
// back at the claim. A bound claim whose volume is gone or bound elsewhere is
// Lost (event ClaimLost / ClaimMisbound).
//
// Binding writes, in kube's order: the volume's spec.claimRef (with
// pv.kubernetes.io/bound-by-controller when the controller chose it), the
// volume's phase Bound, the claim's spec.volumeName with
// pv.kubernetes.io/bind-completed (and bound-by-controller when the
// controller chose the volume), the claim's phase Bound with its capacity and
// access modes. berth adds scheduler.berth.dev/bound-at (RFC 3339, the
// context's clock) to both when it binds them.
//
// Volumes (syncVolume): no claimRef, or a claimRef without uid (pre-bound by
// a user): Available. The claim gone (or a new claim of that name): Released,
// then reclaimed: Retain keeps it Released; Delete deletes the PV object
// (berth has no storage behind it: this stands for kube's deleter and the
// external provisioner's deletion); Recycle and unknown policies make it
// Failed with kube's events. A claim bound to another volume: the volume is
// unbound (the claimRef dropped when the controller set it, else only its
// uid), or released when it was provisioned with policy Delete.
//
// A volume annotated sim.berth.dev/volume-healthy: "false" is never bound
// (event FailedBinding on the claim saying the volume is unhealthy).
//
// Every 15 s (kube's --pvclaimbinder-sync-period) every claim and volume is
// synced again; a volume becoming Available re-queues the Pending claims at
// once (kube waits for the period).

#include <chrono>
#include <memory>
#include <string>

#include "controllers/controller.h"

namespace berth::controllers {

inline constexpr char kAnnBindCompleted[] = "pv.kubernetes.io/bind-completed";
inline constexpr char kAnnBoundByController[] = "pv.kubernetes.io/bound-by-controller";
inline constexpr char kAnnProvisionedBy[] = "pv.kubernetes.io/provisioned-by";
inline constexpr char kAnnStorageProvisioner[] = "volume.kubernetes.io/storage-provisioner";
inline constexpr char kAnnBetaStorageProvisioner[] =
    "volume.beta.kubernetes.io/storage-provisioner";
inline constexpr char kAnnSelectedNode[] = "volume.kubernetes.io/selected-node";
inline constexpr char kAnnBoundAt[] = "scheduler.berth.dev/bound-at";
inline constexpr char kNoProvisioner[] = "kubernetes.io/no-provisioner";

struct PersistentVolumeControllerOptions {
  std::chrono::milliseconds sync_period{15000};
};

class PersistentVolumeController final : public Controller {
 public:
  PersistentVolumeController(const ControllerContext& context,
                             PersistentVolumeControllerOptions options = {});
  ~PersistentVolumeController() override;

  // The workers and the sync period's ticker.
  void Start();

  // Work-queue keys: "pv/NAME" and "pvc/NAMESPACE/NAME".
  static std::string VolumeKey(std::string_view name) { return "pv/" + std::string(name); }
  static std::string ClaimKey(std::string_view ns, std::string_view name) {
    return "pvc/" + std::string(ns) + "/" + std::string(name);
  }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  Status SyncClaim(const api::ObjectPtr& claim);
  Status SyncUnboundClaim(const api::ObjectPtr& claim);
  Status SyncBoundClaim(const api::ObjectPtr& claim);
  Status SyncVolume(const api::ObjectPtr& volume);
  Status ReclaimVolume(const api::ObjectPtr& volume);
  // Binds the pair (each step skipped when already done).
  Status Bind(api::ObjectPtr volume, api::ObjectPtr claim);
  Status SetClaimPhase(const api::Object& claim, std::string_view phase);
  Status SetVolumePhase(const api::Object& volume, std::string_view phase,
                        std::string_view message = {});
  // Drops the volume's claimRef (or only its uid, when a user set it).
  Status UnbindVolume(const api::Object& volume);
  // The claim is given to its class's provisioner.
  Status HandToProvisioner(const api::ObjectPtr& claim, const api::Object& storage_class);
  void EnqueuePendingClaims();
  void EnqueueAll();
  void Event(const api::Object& object, std::string_view type, std::string_view reason,
             std::string message) const;

  PersistentVolumeControllerOptions options_;
  client::SharedInformer& volumes_;
  client::SharedInformer& claims_;
  client::SharedInformer& classes_;
  client::EventRecorder events_;
  std::unique_ptr<api::Ticker> ticker_;
};

}  // namespace berth::controllers
