#include "controllers/volume/protection_controllers.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kPodClaimIndex[] = "pvc-protection-claims";  // pods by "ns/claim" they use

bool HasFinalizer(const api::Object& o, std::string_view finalizer) {
  const json::array* list = api::ArrayAt(api::Metadata(o), "finalizers");
  return list && std::any_of(list->begin(), list->end(), [&](const json::value& f) {
           return f.is_string() && f.get_string() == finalizer;
         });
}

// The claims a pod's volumes name.
std::vector<std::string> ClaimsOf(const api::Object& pod) {
  std::vector<std::string> out;
  const json::array* volumes = api::ArrayAt(api::Spec(pod), "volumes");
  if (!volumes) return out;
  for (const auto& v : *volumes) {
    if (!v.is_object()) continue;
    const json::object& volume = v.get_object();
    if (const json::object* pvc = api::ObjectAt(volume, "persistentVolumeClaim")) {
      out.push_back(client::ObjectKey(pod.namespace_name(), api::StringAt(pvc, "claimName")));
    } else if (api::ObjectAt(volume, "ephemeral")) {
      out.push_back(client::ObjectKey(
          pod.namespace_name(), pod.name() + "-" + std::string(api::StringAt(volume, "name"))));
    }
  }
  return out;
}

bool UsesClaims(const api::Object& pod) {
  if (api::StringAt(api::Spec(pod), "nodeName").empty()) return false;
  const std::string_view phase = api::StringAt(api::StatusOf(pod), "phase");
  return phase != "Succeeded" && phase != "Failed";
}

}  // namespace

Status SetFinalizer(client::RestClient& client, const api::Object& object,
                    std::string_view finalizer, bool add) {
  json::object next = ForUpdate(object);
  json::array& list = api::MutableArray(api::MutableObject(next, "metadata"), "finalizers");
  if (add) {
    list.emplace_back(finalizer);
  } else {
    api::EraseIf(
        list, [&](const json::value& f) { return f.is_string() && f.get_string() == finalizer; });
  }
  auto written = client.Update(object.kind(), next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

PvcProtectionController::PvcProtectionController(const ControllerContext& context, int workers)
    : Controller("pvc-protection", context, workers),
      claims_(context.informers.For(api::Kind::kPersistentVolumeClaim)),
      pods_(context.informers.For(api::Kind::kPod)) {
  pods_.AddIndex(kPodClaimIndex, [](const api::Object& pod) { return ClaimsOf(pod); });
  auto claim_changed = [this](const api::ObjectPtr& claim) {
    const bool deleting = api::BeingDeleted(*claim);
    if (deleting == HasFinalizer(*claim, kPvcProtectionFinalizer))
      Enqueue(client::ObjectKey(*claim));
  };
  claims_.AddHandlers({claim_changed, claim_changed, nullptr});
  // A pod that finished or went away may be what a deleted claim waits for.
  auto pod_changed = [this](const api::ObjectPtr& pod) {
    if (UsesClaims(*pod) && !api::BeingDeleted(*pod)) return;
    for (const auto& key : ClaimsOf(*pod)) Enqueue(key);
  };
  auto pod_deleted = [this](const api::ObjectPtr& pod) {
    for (const auto& key : ClaimsOf(*pod)) Enqueue(key);
  };
  pods_.AddHandlers({nullptr, pod_changed, pod_deleted});
}

bool PvcProtectionController::InUse(const api::Object& claim) const {
  for (const auto& pod : pods_.ByIndex(kPodClaimIndex, client::ObjectKey(claim))) {
    if (UsesClaims(*pod)) return true;
  }
  return false;
}

Status PvcProtectionController::Reconcile(const std::string& key) {
  api::ObjectPtr claim = claims_.Get(key);
  if (!claim) return Status::Ok();
  const bool has = HasFinalizer(*claim, kPvcProtectionFinalizer);
  if (!api::BeingDeleted(*claim)) {
    return has ? Status::Ok() : SetFinalizer(client_, *claim, kPvcProtectionFinalizer, true);
  }
  if (!has || InUse(*claim)) return Status::Ok();
  return SetFinalizer(client_, *claim, kPvcProtectionFinalizer, false);
}

PvProtectionController::PvProtectionController(const ControllerContext& context, int workers)
    : Controller("pv-protection", context, workers),
      volumes_(context.informers.For(api::Kind::kPersistentVolume)) {
  auto volume_changed = [this](const api::ObjectPtr& volume) {
    const bool deleting = api::BeingDeleted(*volume);
    if (deleting == HasFinalizer(*volume, kPvProtectionFinalizer)) Enqueue(volume->name());
  };
  volumes_.AddHandlers({volume_changed, volume_changed, nullptr});
}

Status PvProtectionController::Reconcile(const std::string& key) {
  api::ObjectPtr volume = volumes_.Get(key);
  if (!volume) return Status::Ok();
  const bool has = HasFinalizer(*volume, kPvProtectionFinalizer);
  if (!api::BeingDeleted(*volume)) {
    return has ? Status::Ok() : SetFinalizer(client_, *volume, kPvProtectionFinalizer, true);
  }
  if (!has || api::StringAt(api::StatusOf(*volume), "phase") == "Bound") return Status::Ok();
  return SetFinalizer(client_, *volume, kPvProtectionFinalizer, false);
}

}  // namespace berth::controllers
