#include "controllers/volume/persistent_volume_controller.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/storage_views.h"
#include "api/time/rfc3339.h"
#include "controllers/for_update.h"
#include "controllers/volume/volume_matching.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kClaimIndex[] = "pv-controller-claim";  // volumes by their claimRef "ns/name"

std::string_view Phase(const api::Object& o) { return api::StringAt(api::StatusOf(o), "phase"); }

const api::PersistentVolumeView& Pv(const api::Object& volume) {
  static const api::PersistentVolumeView kEmpty;
  const auto* view = volume.As<api::PersistentVolumeView>();
  return view ? *view : kEmpty;
}
const api::PersistentVolumeClaimView& Pvc(const api::Object& claim) {
  static const api::PersistentVolumeClaimView kEmpty;
  const auto* view = claim.As<api::PersistentVolumeClaimView>();
  return view ? *view : kEmpty;
}

bool HasAnnotation(const api::Object& o, std::string_view key) {
  const json::object* annotations = api::ObjectAt(api::Metadata(o), "annotations");
  return annotations && annotations->contains(key);
}

json::object& Annotations(json::object& o) {
  return api::MutableObject(api::MutableObject(o, "metadata"), "annotations");
}

Status IgnoreNotFound(Status s) { return s.code() == StatusCode::kNotFound ? Status::Ok() : s; }

}  // namespace

PersistentVolumeController::PersistentVolumeController(const ControllerContext& context,
                                                       PersistentVolumeControllerOptions options)
    : Controller("persistentvolume-binder", context, 4),
      options_(options),
      volumes_(context.informers.For(api::Kind::kPersistentVolume)),
      claims_(context.informers.For(api::Kind::kPersistentVolumeClaim)),
      classes_(context.informers.For(api::Kind::kStorageClass)),
      events_(context.events, {"persistentvolume-controller", ""}) {
  volumes_.AddIndex(kClaimIndex, [](const api::Object& volume) -> std::vector<std::string> {
    const auto& ref = Pv(volume).claim_ref;
    if (!ref) return {};
    return {client::ObjectKey(ref->ns, ref->name)};
  });
  auto volume_changed = [this](const api::ObjectPtr& volume) {
    Enqueue(VolumeKey(volume->name()));
    const auto& pv = Pv(*volume);
    if (pv.claim_ref) Enqueue(ClaimKey(pv.claim_ref->ns, pv.claim_ref->name));
    // A free volume may be what a Pending claim waits for.
    if (!pv.claim_ref && pv.phase == "Available") EnqueuePendingClaims();
  };
  auto volume_deleted = [this](const api::ObjectPtr& volume) {
    const auto& pv = Pv(*volume);
    if (pv.claim_ref) Enqueue(ClaimKey(pv.claim_ref->ns, pv.claim_ref->name));
  };
  volumes_.AddHandlers({volume_changed, volume_changed, volume_deleted});
  auto claim_changed = [this](const api::ObjectPtr& claim) {
    Enqueue(ClaimKey(claim->namespace_name(), claim->name()));
    if (!Pvc(*claim).volume_name.empty()) Enqueue(VolumeKey(Pvc(*claim).volume_name));
  };
  auto claim_deleted = [this](const api::ObjectPtr& claim) {
    if (!Pvc(*claim).volume_name.empty()) Enqueue(VolumeKey(Pvc(*claim).volume_name));
    for (const auto& volume : volumes_.ByIndex(kClaimIndex, client::ObjectKey(*claim))) {
      Enqueue(VolumeKey(volume->name()));
    }
  };
  claims_.AddHandlers({claim_changed, claim_changed, claim_deleted});
  auto class_changed = [this](const api::ObjectPtr&) { EnqueuePendingClaims(); };
  classes_.AddHandlers({class_changed, class_changed, nullptr});
}

PersistentVolumeController::~PersistentVolumeController() {
  ticker_.reset();
  Stop();
}

void PersistentVolumeController::Start() {
  Run();
  ticker_ = std::make_unique<api::Ticker>(clock_, options_.sync_period, [this] { EnqueueAll(); });
}

void PersistentVolumeController::EnqueuePendingClaims() {
  for (const auto& claim : claims_.List()) {
    if (Pvc(*claim).phase == "Pending") Enqueue(ClaimKey(claim->namespace_name(), claim->name()));
  }
}

void PersistentVolumeController::EnqueueAll() {
  for (const auto& volume : volumes_.List()) Enqueue(VolumeKey(volume->name()));
  for (const auto& claim : claims_.List())
    Enqueue(ClaimKey(claim->namespace_name(), claim->name()));
}

void PersistentVolumeController::Event(const api::Object& object, std::string_view type,
                                       std::string_view reason, std::string message) const {
  events_.Event(object, type, reason, std::move(message));
}

Status PersistentVolumeController::Reconcile(const std::string& key) {
  if (key.rfind("pv/", 0) == 0) {
    api::ObjectPtr volume = volumes_.Get(key.substr(3));
    return volume ? SyncVolume(volume) : Status::Ok();
  }
  if (key.rfind("pvc/", 0) == 0) {
    api::ObjectPtr claim = claims_.Get(key.substr(4));
    return claim ? SyncClaim(claim) : Status::Ok();
  }
  return Status::Ok();
}

// ---- Claims ----

Status PersistentVolumeController::SyncClaim(const api::ObjectPtr& claim) {
  return HasAnnotation(*claim, kAnnBindCompleted) ? SyncBoundClaim(claim) : SyncUnboundClaim(claim);
}

Status PersistentVolumeController::SyncUnboundClaim(const api::ObjectPtr& claim) {
  const auto& pvc = Pvc(*claim);
  const std::string class_name = ClaimClass(*claim);
  api::ObjectPtr storage_class = class_name.empty() ? nullptr : classes_.Get(class_name);
  const auto* sc = storage_class ? storage_class->As<api::StorageClassView>() : nullptr;
  if (pvc.volume_name.empty()) {
    const bool delay = sc && sc->wait_for_first_consumer;
    VolumeMatch match = FindBestVolume(volumes_.List(), *claim, delay);
    if (match.volume) return Bind(match.volume, claim);
    if (!match.unhealthy_skipped.empty()) {
      Event(*claim, "Warning", "FailedBinding",
            "volume \"" + match.unhealthy_skipped + "\" is unhealthy (" + kVolumeHealthyAnnotation +
                ": \"false\"): not binding it");
    }
    if (delay && pvc.selected_node.empty()) {
      Event(*claim, "Normal", "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding");
    } else if (storage_class) {
      if (Status s = HandToProvisioner(claim, *storage_class); !s.ok()) return s;
    } else if (!class_name.empty()) {
      Event(*claim, "Warning", "ProvisioningFailed",
            "storageclass.storage.k8s.io \"" + class_name + "\" not found");
    } else {
      Event(*claim, "Normal", "FailedBinding",
            "no persistent volumes available for this claim and no storage class is set");
    }
    return SetClaimPhase(*claim, "Pending");
  }
  // Pre-bound to a volume by name.
  api::ObjectPtr volume = volumes_.Get(pvc.volume_name);
  if (!volume) return SetClaimPhase(*claim, "Pending");
  if (VolumeUnhealthy(*volume)) {
    Event(*claim, "Warning", "FailedBinding",
          "volume \"" + volume->name() + "\" is unhealthy (" + kVolumeHealthyAnnotation +
              ": \"false\"): not binding it");
    return SetClaimPhase(*claim, "Pending");
  }
  const auto& pv = Pv(*volume);
  if (!pv.claim_ref) {
    if (std::string why = VolumeMismatch(*volume, *claim); !why.empty()) {
      Event(*claim, "Warning", "VolumeMismatch",
            "Cannot bind to requested volume \"" + volume->name() + "\": " + why);
      return SetClaimPhase(*claim, "Pending");
    }
    return Bind(volume, claim);
  }
  if (VolumeBoundToClaim(*volume, *claim)) return Bind(volume, claim);
  if (HasAnnotation(*claim, kAnnBoundByController)) {
    return Status::Internal("invalid binding of claim " + client::ObjectKey(*claim) +
                            " to volume " + volume->name());
  }
  Event(*claim, "Warning", "FailedBinding",
        "volume \"" + volume->name() + "\" already bound to a different claim.");
  return SetClaimPhase(*claim, "Pending");
}

Status PersistentVolumeController::SyncBoundClaim(const api::ObjectPtr& claim) {
  const auto& pvc = Pvc(*claim);
  if (pvc.volume_name.empty()) {
    if (pvc.phase != "Lost") {
      Event(*claim, "Warning", "ClaimLost",
            "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!");
    }
    return SetClaimPhase(*claim, "Lost");
  }
  api::ObjectPtr volume = volumes_.Get(pvc.volume_name);
  if (!volume) {
    if (pvc.phase != "Lost") {
      Event(*claim, "Warning", "ClaimLost",
            "Bound claim has lost its PersistentVolume. Data on the volume is lost!");
    }
    return SetClaimPhase(*claim, "Lost");
  }
  if (!Pv(*volume).claim_ref || VolumeBoundToClaim(*volume, *claim)) return Bind(volume, claim);
  if (pvc.phase != "Lost") {
    Event(*claim, "Warning", "ClaimMisbound",
          "Two claims are bound to the same volume, this one is bound incorrectly");
  }
  return SetClaimPhase(*claim, "Lost");
}

Status PersistentVolumeController::HandToProvisioner(const api::ObjectPtr& claim,
                                                     const api::Object& storage_class) {
  const std::string provisioner(storage_class.As<api::StorageClassView>()->provisioner);
  if (api::Annotation(*claim, kAnnStorageProvisioner) != provisioner ||
      api::Annotation(*claim, kAnnBetaStorageProvisioner) != provisioner) {
    json::object next = ForUpdate(*claim);
    json::object& annotations = Annotations(next);
    annotations[kAnnStorageProvisioner] = provisioner;
    annotations[kAnnBetaStorageProvisioner] = provisioner;
    auto written = client_.Update(api::Kind::kPersistentVolumeClaim, next);
    if (!written.ok()) return IgnoreNotFound(written.status());
  }
  Event(*claim, "Normal", "ExternalProvisioning",
        "waiting for a volume to be created, either by external provisioner \"" + provisioner +
            "\" or manually created by system administrator");
  return Status::Ok();
}

Status PersistentVolumeController::Bind(api::ObjectPtr volume, api::ObjectPtr claim) {
  const std::string now = api::FormatRfc3339(clock_.WallNow());
  const auto& pv = Pv(*volume);
  const bool volume_points_here = pv.claim_ref && pv.claim_ref->uid == claim->uid() &&
                                  pv.claim_ref->name == claim->name() &&
                                  pv.claim_ref->ns == claim->namespace_name();
  if (!volume_points_here || !HasAnnotation(*volume, kAnnBoundAt)) {
    json::object next = ForUpdate(*volume);
    json::object& spec = api::MutableObject(next, "spec");
    if (!pv.claim_ref) Annotations(next)[kAnnBoundByController] = "yes";
    if (!volume_points_here) {
      spec["claimRef"] =
          json::object{{"kind", "PersistentVolumeClaim"},
                       {"namespace", claim->namespace_name()},
                       {"name", claim->name()},
                       {"uid", claim->uid()},
                       {"apiVersion", "v1"},
                       {"resourceVersion", std::to_string(claim->resource_version())}};
    }
    if (!HasAnnotation(*volume, kAnnBoundAt)) Annotations(next)[kAnnBoundAt] = now;
    auto written = client_.Update(api::Kind::kPersistentVolume, next);
    if (!written.ok()) return IgnoreNotFound(written.status());
    volume = written.value();
  }
  if (Phase(*volume) != "Bound") {
    if (Status s = SetVolumePhase(*volume, "Bound"); !s.ok()) return s;
  }
  const auto& pvc = Pvc(*claim);
  if (pvc.volume_name != volume->name() || !HasAnnotation(*claim, kAnnBindCompleted) ||
      !HasAnnotation(*claim, kAnnBoundAt)) {
    json::object next = ForUpdate(*claim);
    json::object& annotations = Annotations(next);
    if (pvc.volume_name.empty()) annotations[kAnnBoundByController] = "yes";
    annotations[kAnnBindCompleted] = "yes";
    if (!HasAnnotation(*claim, kAnnBoundAt)) annotations[kAnnBoundAt] = now;
    api::MutableObject(next, "spec")["volumeName"] = volume->name();
    auto written = client_.Update(api::Kind::kPersistentVolumeClaim, next);
    if (!written.ok()) return IgnoreNotFound(written.status());
    claim = written.value();
  }
  const json::object* claim_status = api::StatusOf(*claim);
  const json::object* volume_spec = api::Spec(*volume);
  const json::value* capacity = volume_spec ? volume_spec->if_contains("capacity") : nullptr;
  const json::value* modes = volume_spec ? volume_spec->if_contains("accessModes") : nullptr;
  const json::value* has_capacity = claim_status ? claim_status->if_contains("capacity") : nullptr;
  if (Phase(*claim) == "Bound" && has_capacity && capacity && *has_capacity == *capacity)
    return Status::Ok();
  json::object next = ForUpdate(*claim);
  json::object& status = api::MutableObject(next, "status");
  status["phase"] = "Bound";
  if (capacity) status["capacity"] = *capacity;
  if (modes) status["accessModes"] = *modes;
  auto written = client_.UpdateStatus(api::Kind::kPersistentVolumeClaim, next);
  return written.ok() ? Status::Ok() : IgnoreNotFound(written.status());
}

Status PersistentVolumeController::SetClaimPhase(const api::Object& claim, std::string_view phase) {
  if (Phase(claim) == phase) return Status::Ok();
  json::object next = ForUpdate(claim);
  json::object& status = api::MutableObject(next, "status");
  status["phase"] = phase;
  // Not bound to a volume: kube clears what the volume gave the claim.
  status.erase("capacity");
  status.erase("accessModes");
  auto written = client_.UpdateStatus(api::Kind::kPersistentVolumeClaim, next);
  return written.ok() ? Status::Ok() : IgnoreNotFound(written.status());
}

Status PersistentVolumeController::SetVolumePhase(const api::Object& volume, std::string_view phase,
                                                  std::string_view message) {
  if (Phase(volume) == phase) return Status::Ok();
  json::object next = ForUpdate(volume);
  json::object& status = api::MutableObject(next, "status");
  status["phase"] = phase;
  status["lastPhaseTransitionTime"] = api::FormatRfc3339(clock_.WallNow());
  if (message.empty()) {
    status.erase("message");
  } else {
    status["message"] = message;
  }
  auto written = client_.UpdateStatus(api::Kind::kPersistentVolume, next);
  return written.ok() ? Status::Ok() : IgnoreNotFound(written.status());
}

// ---- Volumes ----

Status PersistentVolumeController::SyncVolume(const api::ObjectPtr& volume) {
  const auto& pv = Pv(*volume);
  if (!pv.claim_ref || pv.claim_ref->uid.empty()) {
    // Free, or pre-bound by a user to a claim that has not bound yet.
    return SetVolumePhase(*volume, "Available");
  }
  api::ObjectPtr claim = claims_.Get(client::ObjectKey(pv.claim_ref->ns, pv.claim_ref->name));
  if (!claim) {
    // The cache may be behind a claim just created: ask the API.
    auto got = client_.Get(api::Kind::kPersistentVolumeClaim, pv.claim_ref->ns, pv.claim_ref->name);
    if (got.ok()) {
      claim = got.value();
    } else if (got.status().code() != StatusCode::kNotFound) {
      return got.status();
    }
  }
  if (!claim || claim->uid() != pv.claim_ref->uid) {
    // The claim is gone (or is another claim of that name): released.
    if (pv.phase != "Released" && pv.phase != "Failed") {
      if (Status s = SetVolumePhase(*volume, "Released"); !s.ok()) return s;
    }
    return ReclaimVolume(volume);
  }
  const auto& pvc = Pvc(*claim);
  if (pvc.volume_name.empty()) {
    // The volume points at the claim (the scheduler, a provisioner or a
    // user set the claimRef); the claim's sync completes the binding.
    Enqueue(ClaimKey(claim->namespace_name(), claim->name()));
    return Status::Ok();
  }
  if (pvc.volume_name == volume->name()) return SetVolumePhase(*volume, "Bound");
  // The claim is bound to another volume.
  if (HasAnnotation(*volume, kAnnProvisionedBy) && pv.reclaim_policy == "Delete") {
    if (pv.phase != "Released" && pv.phase != "Failed") {
      if (Status s = SetVolumePhase(*volume, "Released"); !s.ok()) return s;
    }
    return ReclaimVolume(volume);
  }
  return UnbindVolume(*volume);
}

Status PersistentVolumeController::UnbindVolume(const api::Object& volume) {
  json::object next = ForUpdate(volume);
  json::object& spec = api::MutableObject(next, "spec");
  if (HasAnnotation(volume, kAnnBoundByController)) {
    spec.erase("claimRef");
    Annotations(next).erase(kAnnBoundByController);
  } else {
    api::MutableObject(spec, "claimRef").erase("uid");
  }
  Annotations(next).erase(kAnnBoundAt);
  auto written = client_.Update(api::Kind::kPersistentVolume, next);
  if (!written.ok()) return IgnoreNotFound(written.status());
  return SetVolumePhase(*written.value(), "Available");
}

Status PersistentVolumeController::ReclaimVolume(const api::ObjectPtr& volume) {
  const std::string& policy = Pv(*volume).reclaim_policy;
  if (policy == "Retain" || Phase(*volume) == "Failed") return Status::Ok();
  if (policy == "Delete") {
    if (api::BeingDeleted(*volume)) return Status::Ok();
    return IgnoreNotFound(client_.Delete(api::Kind::kPersistentVolume, "", volume->name(),
                                         {.uid_precondition = volume->uid()}));
  }
  if (policy == "Recycle") {
    Event(*volume, "Warning", "VolumeFailedRecycle", "No recycler plugin found for the volume!");
    return SetVolumePhase(*volume, "Failed", "No recycler plugin found for the volume!");
  }
  Event(*volume, "Warning", "VolumeUnknownReclaimPolicy",
        "Volume has unrecognized PersistentVolumeReclaimPolicy");
  return SetVolumePhase(*volume, "Failed", "Volume has unrecognized PersistentVolumeReclaimPolicy");
}

}  // namespace berth::controllers
