#include "apiserver/admission/plugins.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

const AdmissionRegistry& InTreeAdmissionPlugins() {
  static const AdmissionRegistry registry = [] {
    AdmissionRegistry r;
    r.Register("AlwaysAdmit", NewAlwaysAdmit, "admits every write");
    r.Register("NamespaceLifecycle", NewNamespaceLifecycle,
               "nothing created in a namespace that is missing or terminating; system namespaces kept");
    r.Register("LimitRanger", NewLimitRanger, "LimitRanges' defaults, minimums, maximums and ratios");
    r.Register("ServiceAccount", NewServiceAccount,
               "pods run as an existing service account (default: \"default\") and mount its API token");
    r.Register("AlwaysPullImages", NewAlwaysPullImages, "every container's imagePullPolicy Always");
    r.Register("Priority", NewPriority, "a pod's priority from its PriorityClass");
    r.Register("DefaultTolerationSeconds", NewDefaultTolerationSeconds,
               "pods tolerate not-ready and unreachable for a while");
    r.Register("DefaultStorageClass", NewDefaultStorageClass, "claims without a class get the default class");
    r.Register("StorageObjectInUseProtection", NewStorageObjectInUseProtection,
               "volumes and claims carry their protection finalizers");
    r.Register("RuntimeClass", NewRuntimeClass, "a pod's overhead and scheduling from its RuntimeClass");
    r.Register("DefaultIngressClass", NewDefaultIngressClass, "ingresses without a class get the default class");
    r.Register("ResourceQuota", NewResourceQuota, "writes within the namespace's quotas, charged at once");
    r.Register("AlwaysDeny", NewAlwaysDeny, "refuses every write");
    r.Register("MutatingAdmissionWebhook", NewMutatingAdmissionWebhook,
               "the MutatingWebhookConfigurations' webhooks change what is written");
    r.Register("ValidatingAdmissionWebhook", NewValidatingAdmissionWebhook,
               "the ValidatingWebhookConfigurations' webhooks allow or refuse what is written");
    return r;
  }();
  return registry;
}

api::ObjectPtr NewestDefault(store::Store& store, api::Kind kind, std::string_view annotation,
                             std::string_view beta) {
  auto listed = store.List({.prefix = api::StoragePrefix(kind)});
  if (!listed.ok()) return nullptr;
  api::ObjectPtr best;
  std::string best_time;
  for (const auto& o : listed->items) {
    const json::object* annotations = api::ObjectAt(api::ObjectAt(o->json(), "metadata"), "annotations");
    bool is_default = annotations && (api::StringAt(*annotations, annotation) == "true" ||
                                      (!beta.empty() && api::StringAt(*annotations, beta) == "true"));
    if (!is_default) continue;
    std::string created(api::StringAt(api::ObjectAt(o->json(), "metadata"), "creationTimestamp"));
    if (!best || created > best_time || (created == best_time && o->name() < best->name())) {
      best = o;
      best_time = std::move(created);
    }
  }
  return best;
}

}  // namespace berth::apiserver
