#pragma once
// Which PersistentVolume a claim binds to, with kube's rules
// (pkg/controller/volume/persistentvolume/index.go, findMatchingVolume;
// the rules themselves, shared with the scheduler, in api/volume_matching.h):
//
// - a volume whose spec.claimRef names the claim (namespace, name and, when
//   set, uid) is the claim's whatever else is true of it, so long as it is
//   large enough and its volumeMode agrees;
// - otherwise only volumes in phase Available with no claimRef qualify, with
//   every access mode the claim asks for, the claim's storageClassName ("" when
//   unset), a volumeMode equal to the claim's (Filesystem when unset), a
//   capacity of at least the request, and labels the claim's selector matches;
//   the smallest of them wins (ties: by name, so the choice is reproducible);
// - a claim in delayed binding (WaitForFirstConsumer) takes only a volume
//   already pointed at it (the scheduler chooses the others).
//
// berth's health pre-check: a volume annotated sim.berth.dev/volume-healthy:
// "false" is never chosen; FindBestVolume says when one was passed over.

#include <string>
#include <vector>

#include "api/object.h"
#include "api/storage_views.h"

namespace berth::controllers {

inline constexpr char kVolumeHealthyAnnotation[] = "sim.berth.dev/volume-healthy";

// Whether the volume carries sim.berth.dev/volume-healthy: "false".
bool VolumeUnhealthy(const api::Object& volume);

// spec.claimRef of `volume` names `claim` (uid too, when the reference has one).
bool VolumeBoundToClaim(const api::Object& volume, const api::Object& claim);

// A claim's class: api::ClaimClass (kube's GetPersistentVolumeClaimClass).
using api::ClaimClass;

// Why `volume` cannot serve `claim` (kube's checkVolumeSatisfyClaim
// messages: "requested PV is too small", "storageClassName does not match",
// "incompatible accessMode", "incompatible volumeMode"); "" when it can.
std::string VolumeMismatch(const api::Object& volume, const api::Object& claim);

struct VolumeMatch {
  api::ObjectPtr volume;          // nullptr: none
  std::string unhealthy_skipped;  // a volume that would have fit but is unhealthy
};

VolumeMatch FindBestVolume(const std::vector<api::ObjectPtr>& volumes, const api::Object& claim,
                           bool delay_binding);

}  // namespace berth::controllers
