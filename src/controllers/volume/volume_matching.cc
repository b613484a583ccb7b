#include "controllers/volume/volume_matching.h"

#include <algorithm>

#include "api/json_fields.h"
#include "api/storage_views.h"

namespace berth::controllers {

namespace {

bool HasAllAccessModes(const api::PersistentVolumeView& pv,
                       const api::PersistentVolumeClaimView& claim) {
  return std::all_of(claim.access_modes.begin(), claim.access_modes.end(),
                     [&](const std::string& mode) {
                       return std::find(pv.access_modes.begin(), pv.access_modes.end(), mode) !=
                              pv.access_modes.end();
                     });
}

}  // namespace

bool VolumeUnhealthy(const api::Object& volume) {
  return api::Annotation(volume, kVolumeHealthyAnnotation) == "false";
}

bool VolumeBoundToClaim(const api::Object& volume, const api::Object& claim) {
  const auto* pv = volume.As<api::PersistentVolumeView>();
  if (!pv || !pv->claim_ref) return false;
  const api::ObjectReference& ref = *pv->claim_ref;
  return ref.name == claim.name() && ref.ns == claim.namespace_name() &&
         (ref.uid.empty() || ref.uid == claim.uid());
}

std::string VolumeMismatch(const api::Object& volume, const api::Object& claim) {
  const auto* pv = volume.As<api::PersistentVolumeView>();
  const auto* pvc = claim.As<api::PersistentVolumeClaimView>();
  if (!pv || !pvc) return "not a volume and a claim";
  if (pv->capacity_bytes < pvc->requested_bytes) return "requested PV is too small";
  if (pv->storage_class_name != ClaimClass(claim)) return "storageClassName does not match";
  if (pv->volume_mode != pvc->volume_mode) return "incompatible volumeMode";
  if (!HasAllAccessModes(*pv, *pvc)) return "incompatible accessMode";
  return "";
}

VolumeMatch FindBestVolume(const std::vector<api::ObjectPtr>& volumes, const api::Object& claim,
                           bool delay_binding) {
  VolumeMatch match;
  const auto* pvc = claim.As<api::PersistentVolumeClaimView>();
  if (!pvc) return match;
  const std::string claim_class = ClaimClass(claim);
  for (const auto& volume : volumes) {
    const auto* pv = volume->As<api::PersistentVolumeView>();
    if (!pv || api::BeingDeleted(*volume)) continue;
    const bool ours = VolumeBoundToClaim(*volume, claim);
    if (pv->claim_ref && !ours) continue;
    if (pv->capacity_bytes < pvc->requested_bytes) continue;
    if (pv->volume_mode != pvc->volume_mode) continue;
    if (ours) {
      // A volume pointed at the claim (pre-bound by a user, by the scheduler
      // or by a provisioner) is the claim's.
      if (VolumeUnhealthy(*volume)) {
        match.unhealthy_skipped = volume->name();
        continue;
      }
      match.volume = volume;
      return match;
    }
    if (delay_binding) continue;
    if (pv->phase != "Available") continue;
    if (pvc->selector && !pvc->selector->Matches(volume->labels())) continue;
    if (pv->storage_class_name != claim_class) continue;
    if (!HasAllAccessModes(*pv, *pvc)) continue;
    if (VolumeUnhealthy(*volume)) {
      if (match.unhealthy_skipped.empty()) match.unhealthy_skipped = volume->name();
      continue;
    }
    if (!match.volume) {
      match.volume = volume;
      continue;
    }
    const auto* best = match.volume->As<api::PersistentVolumeView>();
    if (pv->capacity_bytes < best->capacity_bytes ||
        (pv->capacity_bytes == best->capacity_bytes && volume->name() < match.volume->name())) {
      match.volume = volume;
    }
  }
  return match;
}

}  // namespace berth::controllers
