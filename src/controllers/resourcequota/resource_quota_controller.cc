#include "controllers/resourcequota/resource_quota_controller.h"

#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/quota.h"
#include "client/shared_informer.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

// The kind a quota resource name counts ("count/deployments.apps",
// "services.nodeports", "requests.cpu" ...).
std::optional<api::Kind> KindCounted(std::string_view resource) {
  if (resource.starts_with("count/")) {
    std::string_view rest = resource.substr(6);
    auto dot = rest.find('.');
    std::string_view plural = rest.substr(0, dot);
    std::string_view group = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    return api::KindFromResource(group, plural);
  }
  if (resource == "pods" || resource.starts_with("requests.") || resource.starts_with("limits.") ||
      resource == "cpu" || resource == "memory" || resource == "ephemeral-storage") {
    if (resource == "requests.storage") return api::Kind::kPersistentVolumeClaim;
    return api::Kind::kPod;
  }
  if (resource.starts_with("services")) return api::Kind::kService;
  if (resource == "persistentvolumeclaims" || resource.find(".storageclass.storage.k8s.io/") != std::string_view::npos) {
    return api::Kind::kPersistentVolumeClaim;
  }
  if (resource == "configmaps") return api::Kind::kConfigMap;
  if (resource == "secrets") return api::Kind::kSecret;
  if (resource == "replicationcontrollers") return api::Kind::kReplicationController;
  if (resource == "resourcequotas") return api::Kind::kResourceQuota;
  return std::nullopt;
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(const ControllerContext& context, ResourceQuotaOptions options,
                                                 int workers)
    : Controller("resourcequota", context, workers),
      options_(options),
      quotas_(context.informers.For(api::Kind::kResourceQuota)),
      pods_(context.informers.For(api::Kind::kPod)) {
  auto enqueue = [this](const api::ObjectPtr& q) { Enqueue(client::ObjectKey(*q)); };
  // As kube's, an update is synced only when its hard limits are not yet
  // published: admission charges status.used on every admitted create, and a
  // recount then would race the creates it has just charged.
  auto hard_changed = [this](const api::ObjectPtr& q) {
    const json::object& o = q->json();
    const json::object* spec_hard = api::ObjectAt(api::ObjectAt(o, "spec"), "hard");
    const json::object* status_hard = api::ObjectAt(api::ObjectAt(o, "status"), "hard");
    if (!spec_hard || !status_hard || *spec_hard != *status_hard) Enqueue(client::ObjectKey(*q));
  };
  quotas_.AddHandlers({enqueue, hard_changed, nullptr});
  // kube's replenishment: a pod that goes, finishes or starts terminating
  // gives its share back. Other updates (bound, started, its status) change
  // nothing it uses, and are not recounted, as kube's: a recount lists the
  // pods while a create admission has charged may not be stored yet, and
  // would give its share back too early.
  auto pod_gone = [this](const api::ObjectPtr& pod) { EnqueueNamespace(pod->namespace_name()); };
  auto pod_freed = [this](const api::ObjectPtr& pod) {
    if (!api::IsPodActive(*pod)) EnqueueNamespace(pod->namespace_name());
  };
  pods_.AddHandlers({nullptr, pod_freed, pod_gone});
}

void ResourceQuotaController::EnqueueNamespace(std::string_view ns) {
  for (const auto& q : quotas_.ByIndex(client::kNamespaceIndex, std::string(ns))) Enqueue(client::ObjectKey(*q));
}

Status ResourceQuotaController::Reconcile(const std::string& key) {
  const auto slash = key.find('/');
  const std::string ns = key.substr(0, slash);
  const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  // Read through, not from the cache: admission charges status.used between syncs.
  auto got = client_.Get(api::Kind::kResourceQuota, ns, name);
  if (!got.ok()) return got.status().code() == StatusCode::kNotFound ? Status::Ok() : got.status();
  const api::ObjectPtr& quota = got.value();
  const json::object* spec_hard = api::ObjectAt(api::ObjectAt(quota->json(), "spec"), "hard");
  json::object hard = spec_hard ? *spec_hard : json::object();

  std::set<api::Kind> kinds;
  for (const auto& [resource, value] : hard) {
    if (auto kind = KindCounted(resource)) kinds.insert(*kind);
  }
  api::QuotaUsage used;
  for (api::Kind kind : kinds) {
    // Listed through, not from the cache: a pod admission charged must be
    // counted (a count behind the quota's charges would free what is used),
    // and the status write below is conditional on the quota as read.
    auto objects = client_.List(kind, ns);
    if (!objects.ok()) return objects.status();
    for (const auto& object : objects.value()) {
      if (!api::QuotaCovers(quota->json(), kind, object->json())) continue;
      for (const auto& [resource, amount] : api::UsageOf(kind, object->json())) used[resource] += amount;
    }
  }
  json::object used_json;
  for (const auto& [resource, value] : hard) {
    const std::string name(resource);
    used_json[name] = api::QuotaQuantity(name, used.contains(name) ? used.at(name) : 0);
  }
  EnqueueAfter(key, options_.resync);
  const json::object* status = api::ObjectAt(quota->json(), "status");
  const json::object* old_hard = api::ObjectAt(status, "hard");
  const json::object* old_used = api::ObjectAt(status, "used");
  if (old_hard && *old_hard == hard && old_used && *old_used == used_json) return Status::Ok();
  json::object next = quota->json();
  json::object& s = api::MutableObject(next, "status");
  s["hard"] = std::move(hard);
  s["used"] = std::move(used_json);
  auto written = client_.UpdateStatus(api::Kind::kResourceQuota, next);
  return written.ok() ? Status::Ok() : written.status();
}

}  // namespace berth::controllers
