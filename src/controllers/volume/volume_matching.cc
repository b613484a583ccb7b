#include "controllers/volume/volume_matching.h"

#include <algorithm>

#include "api/json_fields.h"
#include "api/storage_views.h"
#include "api/volume_matching.h"

namespace berth::controllers {

bool VolumeUnhealthy(const api::Object& volume) {
  return api::Annotation(volume, kVolumeHealthyAnnotation) == "false";
}

bool VolumeBoundToClaim(const api::Object& volume, const api::Object& claim) {
  const auto* pv = volume.As<api::PersistentVolumeView>();
  return pv && api::VolumeBoundToClaim(*pv, claim);
}

std::string VolumeMismatch(const api::Object& volume, const api::Object& claim) {
  const auto* pv = volume.As<api::PersistentVolumeView>();
  const auto* pvc = claim.As<api::PersistentVolumeClaimView>();
  if (!pv || !pvc) return "not a volume and a claim";
  if (pv->capacity_bytes < pvc->requested_bytes) return "requested PV is too small";
  if (api::VolumeClass(volume, *pv) != ClaimClass(claim)) return "storageClassName does not match";
  if (pv->volume_mode != pvc->volume_mode) return "incompatible volumeMode";
  if (!api::VolumeHasAccessModes(*pv, *pvc)) return "incompatible accessMode";
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
    if (!pv) continue;
    const api::VolumeFit fit = api::FitVolume(*volume, *pv, api::BeingDeleted(*volume), claim, *pvc, claim_class);
    if (fit == api::VolumeFit::kNo) continue;
    if (fit == api::VolumeFit::kBoundToClaim) {
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
    if (VolumeUnhealthy(*volume)) {
      if (match.unhealthy_skipped.empty()) match.unhealthy_skipped = volume->name();
      continue;
    }
    if (!match.volume ||
        api::PreferVolume(*volume, *pv, *match.volume, *match.volume->As<api::PersistentVolumeView>())) {
      match.volume = volume;
    }
  }
  return match;
}

}  // namespace berth::controllers
