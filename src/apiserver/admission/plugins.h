#pragma once
// The admission plugins berth has, one file each, registered by kube's
// names in InTreeAdmissionPlugins (plugins.cc): the registry the chain is
// built from (admission.h), as scheduler plugins are built from theirs.

#include <functional>
#include <memory>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/named_registry.h"
#include "api/object.h"
#include "apiserver/admission/admission.h"

namespace berth::store {
class Store;
}

namespace berth::apiserver {

// What a plugin is built with.
struct AdmissionPluginContext {
  const AdmissionOptions& options;
  store::Store& store;
};

using AdmissionPluginFactory = std::function<std::unique_ptr<AdmissionPlugin>(const AdmissionPluginContext&)>;
using AdmissionRegistry = NamedRegistry<AdmissionPluginFactory>;

// Every plugin berth has, by kube's name, with a line of help each.
const AdmissionRegistry& InTreeAdmissionPlugins();

// The plugins, one file each (namespace_lifecycle.cc, priority.cc, …).
std::unique_ptr<AdmissionPlugin> NewAlwaysAdmit(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewNamespaceLifecycle(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewLimitRanger(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewServiceAccount(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewAlwaysPullImages(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewPriority(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewDefaultTolerationSeconds(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewDefaultStorageClass(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewStorageObjectInUseProtection(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewRuntimeClass(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewDefaultIngressClass(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewResourceQuota(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewAlwaysDeny(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewMutatingAdmissionWebhook(const AdmissionPluginContext&);
std::unique_ptr<AdmissionPlugin> NewValidatingAdmissionWebhook(const AdmissionPluginContext&);

// Shared by the plugins.

// A create of the object itself (not a subresource), with a body.
inline bool Creating(const AdmissionAttributes& a, const boost::json::object* object) {
  return a.operation == AdmissionOperation::kCreate && a.subresource.empty() && object;
}

// Of the objects of `kind` annotated `annotation` = "true" (or `beta` =
// "true"), the newest (kube: the most recently created; equal times by
// name): the default StorageClass or IngressClass.
api::ObjectPtr NewestDefault(store::Store& store, api::Kind kind, std::string_view annotation,
                             std::string_view beta = {});

}  // namespace berth::apiserver
