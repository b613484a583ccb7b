#include "api/volume_matching.h"

#include <algorithm>

#include "api/json_fields.h"

namespace berth::api {

std::string_view VolumeClass(const Object& volume, const PersistentVolumeView& pv) {
  if (std::string_view beta = Annotation(volume, "volume.beta.kubernetes.io/storage-class"); !beta.empty()) {
    return beta;
  }
  return pv.storage_class_name;
}

bool VolumeBoundToClaim(const PersistentVolumeView& pv, const Object& claim) {
  if (!pv.claim_ref) return false;
  const ObjectReference& ref = *pv.claim_ref;
  return ref.name == claim.name() && ref.ns == claim.namespace_name() && (ref.uid.empty() || ref.uid == claim.uid());
}

bool VolumeHasAccessModes(const PersistentVolumeView& pv, const PersistentVolumeClaimView& claim) {
  return std::all_of(claim.access_modes.begin(), claim.access_modes.end(), [&](const std::string& mode) {
    return std::find(pv.access_modes.begin(), pv.access_modes.end(), mode) != pv.access_modes.end();
  });
}

VolumeFit FitVolume(const Object& volume, const PersistentVolumeView& pv, bool being_deleted, const Object& claim,
                    const PersistentVolumeClaimView& pvc, std::string_view claim_class) {
  if (being_deleted) return VolumeFit::kNo;
  const bool ours = VolumeBoundToClaim(pv, claim);
  if (pv.claim_ref && !ours) return VolumeFit::kNo;
  if (pv.capacity_bytes < pvc.requested_bytes || pv.volume_mode != pvc.volume_mode) return VolumeFit::kNo;
  if (ours) return VolumeFit::kBoundToClaim;
  if (pv.phase != "Available") return VolumeFit::kNo;
  if (pvc.selector && !pvc.selector->Matches(volume.labels())) return VolumeFit::kNo;
  if (VolumeClass(volume, pv) != claim_class) return VolumeFit::kNo;
  if (!VolumeHasAccessModes(pv, pvc)) return VolumeFit::kNo;
  return VolumeFit::kCandidate;
}

bool PreferVolume(const Object& a, const PersistentVolumeView& a_view, const Object& b,
                  const PersistentVolumeView& b_view) {
  if (a_view.capacity_bytes != b_view.capacity_bytes) return a_view.capacity_bytes < b_view.capacity_bytes;
  return a.name() < b.name();
}

}  // namespace berth::api
