#include "scheduler/plugins/volume_binding/volume_matching.h"

#include <algorithm>

#include "api/json_fields.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

std::string VolumeClass(const VolumeEntry& pv) {
  if (std::string_view beta = api::Annotation(*pv.object, "volume.beta.kubernetes.io/storage-class"); !beta.empty()) {
    return std::string(beta);
  }
  return pv.view->storage_class_name;
}

// Every access mode the claim asks for is one the volume offers (kube's CheckAccessModes).
bool AccessModesFit(const api::PersistentVolumeClaimView& claim, const api::PersistentVolumeView& pv) {
  for (const std::string& mode : claim.access_modes) {
    if (std::find(pv.access_modes.begin(), pv.access_modes.end(), mode) == pv.access_modes.end()) return false;
  }
  return true;
}

bool BoundToClaim(const VolumeEntry& pv, const Claim& claim) {
  const auto& ref = pv.view->claim_ref;
  if (!ref || ref->name != claim.object->name() || ref->ns != claim.object->namespace_name()) return false;
  return ref->uid.empty() || ref->uid == claim.object->uid();
}

}  // namespace

Claim MakeClaim(const VolumeLister& volumes, const api::ObjectPtr& pvc) {
  Claim c;
  c.object = pvc;
  c.view = pvc->As<api::PersistentVolumeClaimView>();
  c.key = pvc->namespace_name() + "/" + pvc->name();
  c.class_name = ClaimClass(*pvc);
  if (!c.class_name.empty()) {
    c.storage_class = volumes.StorageClass(c.class_name);
    if (c.storage_class) c.class_view = c.storage_class->As<api::StorageClassView>();
  }
  return c;
}

bool VolumeFitsNode(const VolumeEntry& pv, const NodeInfo& node) {
  const auto& affinity = pv.view->node_affinity;
  return !affinity || affinity->Matches(node.labels(), node.name());
}

VolumeEntryPtr FindMatchingVolume(const VolumeLister& volumes, const Claim& claim,
                                  const std::vector<VolumeEntryPtr>& candidates, const NodeInfo& node,
                                  const std::vector<std::string>& taken, bool* skipped_unhealthy) {
  VolumeEntryPtr best;
  for (const VolumeEntryPtr& pv : candidates) {
    const api::PersistentVolumeView& v = *pv->view;
    if (pv->being_deleted || v.volume_mode != claim.view->volume_mode) continue;
    const bool fits_node = VolumeFitsNode(*pv, node);
    if (BoundToClaim(*pv, claim)) {
      if (!fits_node) return nullptr;
      if (pv->unhealthy) {
        *skipped_unhealthy = true;
        return nullptr;
      }
      return pv;
    }
    if (v.claim_ref || v.phase != "Available" || !fits_node) continue;
    if (VolumeClass(*pv) != claim.class_name) continue;
    if (claim.view->selector && !claim.view->selector->Matches(pv->object->labels())) continue;
    if (v.capacity_bytes < claim.view->requested_bytes) continue;
    if (!AccessModesFit(*claim.view, v)) continue;
    if (std::find(taken.begin(), taken.end(), pv->object->name()) != taken.end()) continue;
    if (std::string holder = volumes.AssumedClaim(pv->object->name()); !holder.empty() && holder != claim.key) continue;
    if (pv->unhealthy) {
      *skipped_unhealthy = true;
      continue;
    }
    if (!best || v.capacity_bytes < best->view->capacity_bytes) best = pv;
  }
  return best;
}

Provisioning CheckProvisioning(const VolumeLister& volumes, const Claim& claim, const NodeInfo& node) {
  if (!claim.class_view || claim.class_view->provisioner.empty() || claim.class_view->provisioner == kNoProvisioner) {
    return Provisioning::kImpossible;
  }
  const auto& allowed = claim.class_view->allowed_topologies;
  if (!allowed.empty() && std::none_of(allowed.begin(), allowed.end(), [&](const api::NodeSelectorTerm& t) {
        return t.Matches(node.labels(), node.name());
      })) {
    return Provisioning::kImpossible;
  }
  // kube's hasEnoughCapacity: only drivers that publish capacity are checked.
  std::optional<bool> publishes = volumes.DriverStorageCapacity(claim.class_view->provisioner);
  if (!publishes || !*publishes) return Provisioning::kPossible;
  const int64_t size = claim.view->requested_bytes;
  for (const StorageCapacityEntry& c : volumes.Capacities(claim.class_name)) {
    const std::optional<int64_t>& limit = c.maximum_volume_size ? c.maximum_volume_size : c.capacity;
    if (!limit || *limit < size) continue;
    if (c.node_topology && c.node_topology->Matches(node.labels())) return Provisioning::kPossible;
  }
  return Provisioning::kNotEnoughSpace;
}

}  // namespace berth::scheduler
