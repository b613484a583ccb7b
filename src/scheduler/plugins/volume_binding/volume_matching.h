#pragma once
// VolumeBinding's matching (kube's FindMatchingVolume on a node, whose rules
// it shares with the PersistentVolume controller: api/volume_matching.h) and
// the binder's provisioning checks, apart from the plugin so that they can be
// tested on their own.

#include <string>
#include <vector>

#include "api/storage_views.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/volume_lister.h"

namespace berth::scheduler {

// A claim with its storage class (nullptr fields when the class is unknown).
struct Claim {
  api::ObjectPtr object;
  const api::PersistentVolumeClaimView* view = nullptr;
  std::string key;         // "ns/name"
  std::string class_name;  // ClaimClass
  api::ObjectPtr storage_class;
  const api::StorageClassView* class_view = nullptr;
};
Claim MakeClaim(const VolumeLister& volumes, const api::ObjectPtr& pvc);

// Whether `pv`'s spec.nodeAffinity (if any) takes `node`.
bool VolumeFitsNode(const VolumeEntry& pv, const NodeInfo& node);

// The volume among `candidates` that `claim` may bind to on `node` (kube's
// FindMatchingVolume with delayed binding): one pre-bound to the claim wins if
// its node affinity takes the node; otherwise the preferred (smallest; ties by
// name) of the candidates api::FitVolume finds whose node affinity takes the
// node, not assumed for another claim and not in `taken`. Unhealthy volumes are
// skipped, *skipped_unhealthy then says whether one would have matched.
// nullptr when none.
VolumeEntryPtr FindMatchingVolume(const VolumeLister& volumes, const Claim& claim,
                                  const std::vector<VolumeEntryPtr>& candidates, const NodeInfo& node,
                                  const std::vector<std::string>& taken, bool* skipped_unhealthy);

// Whether a claim with no matching volume can be provisioned for `node`: the
// class names a provisioner (not kubernetes.io/no-provisioner), its
// allowedTopologies take the node, and there is room: the provisioner's
// CSIDriver has storageCapacity true and a CSIStorageCapacity of the class
// reaching the node is large enough (no CSIDriver, or storageCapacity false:
// unlimited, as kube).
enum class Provisioning { kPossible, kImpossible, kNotEnoughSpace };
Provisioning CheckProvisioning(const VolumeLister& volumes, const Claim& claim, const NodeInfo& node);

}  // namespace berth::scheduler
