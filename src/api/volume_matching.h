#pragma once
// Whether a PersistentVolume can serve a claim, by kube's rules
// (component-helpers/storage/volume: FindMatchingVolume, CheckAccessModes,
// IsVolumeBoundToClaim, GetPersistentVolumeClass), for both of their users:
// the PersistentVolume controller's binder (controllers/volume/) and the
// scheduler's VolumeBinding (scheduler/plugins/volume_binding/). What only
// a caller knows — the node (its affinity), the volumes taken or assumed
// meanwhile, berth's health annotation — each adds on top.

#include <string_view>

#include "api/object.h"
#include "api/storage_views.h"

namespace berth::api {

// kube's GetPersistentVolumeClass: the annotation
// volume.beta.kubernetes.io/storage-class, else spec.storageClassName.
std::string_view VolumeClass(const Object& volume, const PersistentVolumeView& pv);

// spec.claimRef names `claim` (namespace, name and, when the reference has
// one, uid).
bool VolumeBoundToClaim(const PersistentVolumeView& pv, const Object& claim);

// Every access mode the claim asks for is one the volume offers.
bool VolumeHasAccessModes(const PersistentVolumeView& pv, const PersistentVolumeClaimView& claim);

enum class VolumeFit {
  kNo,            // it cannot serve the claim
  kBoundToClaim,  // its claimRef names the claim: it is the claim's
  kCandidate,     // unbound and matching: the smallest candidate wins (PreferVolume)
};

// How `volume` stands for `claim` (`claim_class`: ClaimClass). In kube's
// order: one being deleted, too small, of another volume mode or bound to
// another claim is kNo; one bound to the claim is the claim's; an unbound
// one is a candidate when Available, selected by the claim's selector, of
// the claim's class and with every access mode it asks for.
VolumeFit FitVolume(const Object& volume, const PersistentVolumeView& pv, bool being_deleted, const Object& claim,
                    const PersistentVolumeClaimView& pvc, std::string_view claim_class);

// Whether candidate `a` wins over `b`: the smaller capacity, equal ones by
// name (so the choice is reproducible).
bool PreferVolume(const Object& a, const PersistentVolumeView& a_view, const Object& b,
                  const PersistentVolumeView& b_view);

}  // namespace berth::api
