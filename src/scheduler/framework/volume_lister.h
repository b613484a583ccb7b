#pragma once
// The storage objects the volume plugins read (kube's PV, PVC, StorageClass,
// CSINode, CSIDriver and CSIStorageCapacity listers), fed by the scheduler's
// informers, plus the assumed bindings of pods between Reserve and PreBind
// (kube's assume cache: a PersistentVolume chosen for a claim is taken by
// no other cycle until the binding is written or undone).
//
// Thread-safety: every method may be called from any thread. Informer events
// take the lock exclusively, reads (scheduling cycles, concurrently) share
// it; what a read returns is an immutable snapshot of one object.

#include <atomic>
#include <chrono>
#include <limits>
#include <set>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/object.h"
#include "api/selector.h"
#include "api/storage_views.h"
#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

// A PersistentVolume with what the plugins read beyond its typed view.
struct VolumeEntry {
  api::ObjectPtr object;
  const api::PersistentVolumeView* view = nullptr;
  // The CSI driver and volume handle: spec.csi, or for the in-tree sources
  // that kube migrates to CSI the driver they migrate to (awsElasticBlockStore
  // → ebs.csi.aws.com, gcePersistentDisk → pd.csi.storage.gke.io, azureDisk →
  // disk.csi.azure.com, cinder → cinder.csi.openstack.org); "" for others.
  std::string driver, handle;
  // berth's health pre-check: annotated sim.berth.dev/volume-healthy: "false".
  bool unhealthy = false;
  bool being_deleted = false;
};
using VolumeEntryPtr = std::shared_ptr<const VolumeEntry>;

// One CSIStorageCapacity (storage.k8s.io/v1) as the capacity check reads it.
struct StorageCapacityEntry {
  std::string storage_class;
  std::optional<int64_t> capacity, maximum_volume_size;  // bytes
  // nodeTopology; unset: the capacity is reachable from no node (kube).
  std::optional<api::LabelSelector> node_topology;
};

inline constexpr std::string_view kVolumeHealthyAnnotation = "sim.berth.dev/volume-healthy";

// A claim's storage class as kube reads it: api::ClaimClass.
using api::ClaimClass;

// Whether `pod` uses any claim (persistentVolumeClaim or generic ephemeral
// volumes): the volume plugins skip pods that do not, before anything else.
bool HasClaims(const PodInfo& pod);

class VolumeLister {
 public:
  // ---- informer events ----
  // An add or update; true when the object is new (it was not held).
  bool OnVolume(const api::ObjectPtr& pv);
  void OnVolumeDelete(const std::string& name);
  bool OnClaim(const api::ObjectPtr& pvc);
  void OnClaimDelete(const api::ObjectPtr& pvc);
  bool OnStorageClass(const api::ObjectPtr& sc);
  void OnStorageClassDelete(const std::string& name);
  bool OnCSINode(const api::ObjectPtr& csi_node);
  void OnCSINodeDelete(const std::string& name);
  bool OnCSIDriver(const api::ObjectPtr& driver);
  void OnCSIDriverDelete(const std::string& name);
  bool OnStorageCapacity(const api::ObjectPtr& capacity);
  void OnStorageCapacityDelete(const api::ObjectPtr& capacity);

  // ---- reads (nullptr / nullopt when absent) ----
  // Every PersistentVolume, every claim (the drift guard compares them with
  // the API server's lists).
  std::vector<api::ObjectPtr> Volumes() const;
  std::vector<api::ObjectPtr> Claims() const;
  VolumeEntryPtr Volume(const std::string& name) const;
  api::ObjectPtr Claim(std::string_view ns, std::string_view name) const;
  api::ObjectPtr StorageClass(const std::string& name) const;
  // The volumes whose spec.storageClassName is `storage_class` ("" included).
  std::vector<VolumeEntryPtr> VolumesOfClass(const std::string& storage_class) const;
  // The CSINode of `node`: driver → allocatable.count (drivers without a
  // count are absent: no limit). nullptr when the node has no CSINode.
  std::shared_ptr<const std::unordered_map<std::string, int64_t>> CSINodeLimits(const std::string& node) const;
  // The smallest count of any driver on any CSINode (INT64_MAX when none
  // has one): a node whose volumes stay within it needs no look-up. Lock-free.
  int64_t SmallestCSINodeLimit() const { return smallest_limit_.load(std::memory_order_acquire); }
  // spec.storageCapacity of the CSIDriver named `driver`; nullopt when no
  // such CSIDriver exists (kube then assumes unlimited capacity).
  std::optional<bool> DriverStorageCapacity(const std::string& driver) const;
  std::vector<StorageCapacityEntry> Capacities(const std::string& storage_class) const;

  // ---- assumed bindings (Reserve → PreBind) ----
  // Takes `pv` for `claim_key` ("ns/name"); false when another claim holds it.
  bool AssumeVolume(const std::string& pv, const std::string& claim_key);
  // Gives `pv` back if `claim_key` holds it.
  void ForgetVolume(const std::string& pv, const std::string& claim_key);
  // The claim that assumed `pv` ("" when none).
  std::string AssumedClaim(const std::string& pv) const;

  // ---- waiting for the binder (PreBind) ----
  // Bumped by every PV and PVC event.
  uint64_t Generation() const;
  // Until Generation() != seen, the deadline, or Shutdown; false when shut down.
  bool WaitForChange(uint64_t seen, std::chrono::steady_clock::time_point deadline) const;
  // Wakes every waiter for good (the scheduler is stopping).
  void Shutdown();
  bool IsShutDown() const;

 private:
  void Changed();  // REQUIRES: mu_ held exclusively
  // Replaces a CSINode's counts in limits_. REQUIRES: mu_ held exclusively.
  void SetCSINodeLimits(const std::string& node,
                        std::shared_ptr<const std::unordered_map<std::string, int64_t>> limits);

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, VolumeEntryPtr> volumes_;                 // guarded by mu_
  std::map<std::string, std::map<std::string, VolumeEntryPtr>> by_class_;  // guarded by mu_
  std::unordered_map<std::string, api::ObjectPtr> claims_;                  // "ns/name"; guarded by mu_
  std::unordered_map<std::string, api::ObjectPtr> classes_;                 // guarded by mu_
  std::unordered_map<std::string, std::shared_ptr<const std::unordered_map<std::string, int64_t>>>
      csi_nodes_;                                                           // guarded by mu_
  std::multiset<int64_t> limits_;  // every CSINode's counts; guarded by mu_
  std::atomic<int64_t> smallest_limit_{std::numeric_limits<int64_t>::max()};  // *limits_.begin(), written under mu_
  // CSINodes seen (csi_nodes_ holds only those with a limit).
  std::unordered_set<std::string> csi_node_names_;                         // guarded by mu_
  std::unordered_map<std::string, bool> drivers_;                           // guarded by mu_
  std::map<std::string, StorageCapacityEntry> capacities_;                  // "ns/name"; guarded by mu_
  std::unordered_map<std::string, std::string> assumed_;                    // pv → claim; guarded by mu_

  mutable std::mutex wait_mu_;
  mutable std::condition_variable wait_cv_;
  uint64_t generation_ = 0;  // guarded by wait_mu_
  bool shut_down_ = false;   // guarded by wait_mu_
};

}  // namespace berth::scheduler
