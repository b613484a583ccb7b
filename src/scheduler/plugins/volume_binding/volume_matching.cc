#include "scheduler/plugins/volume_binding/volume_matching.h"

#include <algorithm>

#include "api/json_fields.h"
#include "api/volume_matching.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

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
    const api::VolumeFit fit = api::FitVolume(*pv->object, *pv->view, pv->being_deleted, *claim.object,
                                              *claim.view, claim.class_name);
    if (fit == api::VolumeFit::kNo) continue;
    const bool fits_node = VolumeFitsNode(*pv, node);
    if (fit == api::VolumeFit::kBoundToClaim) {
      if (!fits_node) return nullptr;
      if (pv->unhealthy) {
        *skipped_unhealthy = true;
        return nullptr;
      }
      return pv;
    }
    if (!fits_node) continue;
    if (std::find(taken.begin(), taken.end(), pv->object->name()) != taken.end()) continue;
    if (std::string holder = volumes.AssumedClaim(pv->object->name()); !holder.empty() && holder != claim.key) continue;
    if (pv->unhealthy) {
      *skipped_unhealthy = true;
      continue;
    }
    if (!best || api::PreferVolume(*pv->object, *pv->view, *best->object, *best->view)) best = pv;
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
