#include "apiserver/registry/strategies.h"

#include <memory>

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "api/validation/validation.h"
#include "apiserver/status_json.h"
#include "apiserver/subresources/binding.h"
#include "apiserver/subresources/connect.h"
#include "apiserver/subresources/eviction.h"
#include "apiserver/subresources/finalize.h"
#include "apiserver/subresources/log.h"
#include "apiserver/subresources/token.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// A pod's subresources of its own, as kube's pod storage has them: binding,
// eviction, log, and those a kubelet would serve (exec, attach, portforward,
// proxy).
ResourceStrategy::Subresources PodSubresources() {
  ResourceStrategy::Subresources own;
  own.push_back(std::make_unique<BindingSubresource>());
  own.push_back(std::make_unique<EvictionSubresource>());
  own.push_back(std::make_unique<LogSubresource>());
  for (auto& connect : PodConnectSubresources()) own.push_back(std::move(connect));
  return own;
}

ResourceStrategy::Subresources NamespaceSubresources() {
  ResourceStrategy::Subresources own;
  own.push_back(std::make_unique<FinalizeSubresource>());
  return own;
}

// kube's pod strategy.
class PodStrategy final : public BuiltinResourceStrategy {
 public:
  explicit PodStrategy(store::Store& store)
      : BuiltinResourceStrategy(api::Kind::kPod, PodSubresources()), store_(store) {}

  // A new pod is Pending, with the QoS class of what it asks for. (kube
  // replaces a status sent on create; berth keeps one, which tools that
  // load a cluster's state rely on.)
  void PrepareForCreate(json::object& pod) const override {
    json::string qos_class(api::QosClass(api::MutableObject(pod, "spec")));
    json::object& status = api::MutableObject(pod, "status");
    if (!status.contains("phase")) status["phase"] = "Pending";
    if (!status.contains("qosClass")) status["qosClass"] = std::move(qos_class);
  }

  // A pod bound to a node with a kubelet terminates gracefully: it is marked
  // and the kubelet deletes it (with grace 0) once its containers stopped.
  // kube's rule: no grace for unbound or finished pods; berth's: none either
  // when no kubelet heartbeats the node (nobody would finish the deletion).
  int64_t DeleteGracePeriod(const api::Object& object, std::optional<int64_t> requested) const override {
    const auto* pod = object.As<api::PodView>();
    if (!pod || pod->node_name.empty() || pod->phase == "Succeeded" || pod->phase == "Failed") return 0;
    int64_t fallback = 30;
    if (const json::object* spec = api::ObjectAt(object.json(), "spec")) {
      if (const auto* t = spec->if_contains("terminationGracePeriodSeconds"); t && t->is_int64()) {
        fallback = t->get_int64();
      }
    }
    int64_t grace = requested.value_or(fallback);
    if (grace > 0 && !store_.Get(api::StorageKey(api::Kind::kLease, "kube-node-lease", pod->node_name)).ok()) grace = 0;
    return grace;
  }

 private:
  store::Store& store_;
};

// kube's namespace strategy: the "kubernetes" finalizer on create, which only
// /finalize changes afterwards, and the label naming the namespace.
class NamespaceStrategy final : public BuiltinResourceStrategy {
 public:
  NamespaceStrategy() : BuiltinResourceStrategy(api::Kind::kNamespace, NamespaceSubresources()) {}

  void PrepareForCreate(json::object& ns) const override {
    json::object& spec = api::MutableObject(ns, "spec");
    if (!spec.contains("finalizers")) spec["finalizers"] = json::array{"kubernetes"};
  }
  void PrepareForUpdate(json::object& next, const json::object& current) const override {
    const json::object* before = api::ObjectAt(current, "spec");
    const json::value* finalizers = before ? before->if_contains("finalizers") : nullptr;
    json::object& spec = api::MutableObject(next, "spec");
    if (finalizers) {
      spec["finalizers"] = *finalizers;
    } else {
      spec.erase("finalizers");
    }
  }
  // kubernetes.io/metadata.name is always the namespace's name (kube 1.22):
  // namespaceSelectors can pick a namespace by name.
  void Canonicalize(json::object& ns) const override {
    json::object& meta = api::MutableObject(ns, "metadata");
    json::string name(api::StringAt(meta, "name"));
    api::MutableObject(meta, "labels")["kubernetes.io/metadata.name"] = std::move(name);
  }
  bool DeletesContents() const override { return true; }
};

// A Service's cluster IP and node ports, allocated when it is created or
// when an update changes its type to one that needs them.
class ServiceStrategy final : public BuiltinResourceStrategy {
 public:
  ServiceStrategy(store::Store& store, ServiceAllocator& services)
      : BuiltinResourceStrategy(api::Kind::kService), store_(store), services_(services) {}

  Result<WriteGuard> BeginCreate(json::object& service) const override {
    return services_.Allocate(service, store_);
  }
  void PrepareForUpdate(json::object& next, const json::object& current) const override {
    ServiceAllocator::PrepareUpdate(next, current);
  }
  Result<WriteGuard> BeginUpdate(json::object& next, const json::object& current) const override {
    return services_.AllocateUpdate(next, current, store_);
  }

 private:
  store::Store& store_;
  ServiceAllocator& services_;
};

// The system PriorityClasses cannot be deleted.
class PriorityClassStrategy final : public BuiltinResourceStrategy {
 public:
  PriorityClassStrategy() : BuiltinResourceStrategy(api::Kind::kPriorityClass) {}

  Status ValidateDelete(const api::Object& object) const override {
    for (const auto& system : api::SystemPriorityClasses()) {
      if (system.name != object.name()) continue;
      return Status(StatusCode::kForbidden, QualifiedResource(object.info()) + " \"" + object.name() +
                                                "\" is forbidden: this is a system priority class and cannot be "
                                                "deleted");
    }
    return Status::Ok();
  }
};

// kube-aggregator's availability as far as berth has it: a local APIService
// (no service) is served here, Available; one backed by a Service is stored
// and listed but berth does not proxy to other API servers, so it is never
// Available and requests to its group/version answer 503
// (ApiServer::AggregatedUnavailable). The condition is set on every write;
// its lastTransitionTime moves only when it changes.
class ApiServiceStrategy final : public BuiltinResourceStrategy {
 public:
  ApiServiceStrategy() : BuiltinResourceStrategy(api::Kind::kAPIService) {}

  void PrepareForCreate(json::object& object) const override { SetAvailable(object, nullptr); }
  void PrepareForUpdate(json::object& next, const json::object& current) const override {
    SetAvailable(next, &current);
  }

 private:
  static void SetAvailable(json::object& object, const json::object* current) {
    const json::object* service = api::ObjectAt(api::ObjectAt(object, "spec"), "service");
    json::object condition{{"type", "Available"}};
    if (service == nullptr) {
      condition["status"] = "True";
      condition["reason"] = "Local";
      condition["message"] = "Local APIServices are always available";
    } else {
      condition["status"] = "False";
      condition["reason"] = "AggregationNotSupported";
      condition["message"] = "berth does not proxy to other API servers (service " +
                             std::string(api::StringAt(service, "namespace")) + "/" +
                             std::string(api::StringAt(service, "name")) + ")";
    }
    std::string since = api::NowRfc3339();
    if (const json::array* before = api::ArrayAt(api::ObjectAt(current, "status"), "conditions")) {
      for (const auto& c : *before) {
        const json::object* old = c.if_object();
        if (old && api::StringAt(old, "type") == "Available" &&
            api::StringAt(old, "status") == api::StringAt(condition, "status") &&
            api::StringAt(old, "reason") == api::StringAt(condition, "reason")) {
          since = std::string(api::StringAt(old, "lastTransitionTime"));
        }
      }
    }
    condition["lastTransitionTime"] = since;
    json::object& status = api::MutableObject(object, "status");
    json::array conditions;
    if (const json::array* given = api::ArrayAt(status, "conditions")) {
      for (const auto& c : *given) {
        if (api::StringAt(c.if_object(), "type") != "Available") conditions.push_back(c);
      }
    }
    conditions.emplace_back(std::move(condition));
    status["conditions"] = std::move(conditions);
  }
};

}  // namespace

// A service account's token subresource (kube's TokenREST).
class ServiceAccountStrategy final : public BuiltinResourceStrategy {
 public:
  explicit ServiceAccountStrategy(const ServiceAccountTokens* tokens)
      : BuiltinResourceStrategy(api::Kind::kServiceAccount, TokenSubresources(tokens)) {}

 private:
  static Subresources TokenSubresources(const ServiceAccountTokens* tokens) {
    Subresources own;
    own.push_back(std::make_unique<TokenSubresource>(tokens));
    return own;
  }
};

void RegisterBuiltinStrategies(ResourceRegistry& registry, const StrategyContext& context) {
  registry.Set(api::Kind::kPod, std::make_shared<PodStrategy>(context.store));
  registry.Set(api::Kind::kNamespace, std::make_shared<NamespaceStrategy>());
  registry.Set(api::Kind::kService, std::make_shared<ServiceStrategy>(context.store, context.services));
  registry.Set(api::Kind::kPriorityClass, std::make_shared<PriorityClassStrategy>());
  registry.Set(api::Kind::kAPIService, std::make_shared<ApiServiceStrategy>());
  registry.Set(api::Kind::kServiceAccount, std::make_shared<ServiceAccountStrategy>(context.tokens));
}

}  // namespace berth::apiserver
