// The admission plugins berth has, with kube's names and messages:
// NamespaceLifecycle, Priority, DefaultTolerationSeconds, DefaultStorageClass,
// StorageObjectInUseProtection, RuntimeClass, DefaultIngressClass,
// AlwaysPullImages, AlwaysAdmit and AlwaysDeny. LimitRanger is in limit_ranger.cc.

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "api/quantity.h"
#include "api/validation/validation.h"
#include "apiserver/admission/admission.h"
#include "apiserver/admission/limit_ranger.h"
#include "apiserver/admission/resource_quota.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

bool Creating(const AdmissionAttributes& a, const json::object* object) {
  return a.operation == AdmissionOperation::kCreate && a.subresource.empty() && object;
}

// kube's NamespaceLifecycle: nothing is created in a namespace that does not
// exist or is being deleted; the system namespaces cannot be deleted.
class NamespaceLifecycle final : public AdmissionPlugin {
 public:
  explicit NamespaceLifecycle(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "NamespaceLifecycle"; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete) {
      if (a.kind.kind != api::Kind::kNamespace) return Status::Ok();
      for (std::string_view system : {"default", "kube-system", "kube-public"}) {
        if (a.name == system) return AdmissionForbidden(a, "this namespace may not be deleted");
      }
      return Status::Ok();
    }
    if (a.operation != AdmissionOperation::kCreate || !a.kind.namespaced) return Status::Ok();
    auto got = store_.Get(api::StorageKey(api::Kind::kNamespace, "", a.ns));
    if (!got.ok()) return Status::NotFound("namespaces \"" + std::string(a.ns) + "\" not found");
    if (api::BeingDeleted(*got.value())) {
      const std::string ns(a.ns);
      return Status(StatusCode::kForbidden,
                    std::string(a.kind.resource) + " \"" + std::string(a.name) +
                        "\" is forbidden: unable to create new content in namespace " + ns +
                        " because it is being terminated",
                    {{"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"}});
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

// kube's Priority: a pod's spec.priority and preemptionPolicy come from its
// PriorityClass (or the global default class) and may not be set by hand;
// an update keeps them; at most one PriorityClass is the global default.
class Priority final : public AdmissionPlugin {
 public:
  explicit Priority(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "Priority"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod, api::Kind::kPriorityClass}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.kind.kind != api::Kind::kPod || !a.subresource.empty() || !object) return Status::Ok();
    if (a.operation == AdmissionOperation::kCreate) return AdmitPod(a, *object);
    if (a.operation == AdmissionOperation::kUpdate && a.old) {
      // The priority set at creation stays.
      const json::object* old_spec = api::ObjectAt(*a.old, "spec");
      json::object& spec = api::MutableObject(*object, "spec");
      for (std::string_view field : {"priority", "preemptionPolicy"}) {
        if (const json::value* v = old_spec ? old_spec->if_contains(field) : nullptr) spec[field] = *v;
      }
    }
    return Status::Ok();
  }

  Status Validate(const AdmissionAttributes& a) override {
    if (a.kind.kind != api::Kind::kPriorityClass || !a.object) return Status::Ok();
    if (a.operation != AdmissionOperation::kCreate && a.operation != AdmissionOperation::kUpdate) return Status::Ok();
    auto g = a.object->find("globalDefault");
    if (g == a.object->end() || g->value() != true) return Status::Ok();
    auto classes = store_.List({.prefix = api::StoragePrefix(api::Kind::kPriorityClass)});
    if (!classes.ok()) return classes.status();
    for (const auto& pc : classes->items) {
      auto other = pc->json().find("globalDefault");
      if (other == pc->json().end() || other->value() != true || pc->name() == a.name) continue;
      return AdmissionForbidden(a, "PriorityClass " + pc->name() + " is already marked as default. Only one default can exist");
    }
    return Status::Ok();
  }

 private:
  Status AdmitPod(const AdmissionAttributes& a, json::object& object) {
    json::object& spec = api::MutableObject(object, "spec");
    std::string class_name(api::StringAt(spec, "priorityClassName"));
    int64_t priority = 0;
    std::string preemption = "PreemptLowerPriority";
    auto read_class = [&](const api::ObjectPtr& pc) {
      const json::object& o = pc->json();
      if (auto v = o.find("value"); v != o.end() && v->value().is_number()) priority = v->value().to_number<int64_t>();
      if (auto p = api::StringAt(o, "preemptionPolicy"); !p.empty()) preemption = std::string(p);
    };
    if (!class_name.empty()) {
      auto pc = store_.Get(api::StorageKey(api::Kind::kPriorityClass, "", class_name));
      const api::SystemPriorityClass* system = nullptr;
      for (const auto& c : api::SystemPriorityClasses()) {
        if (c.name == class_name) system = &c;
      }
      if (!pc.ok() && system) {
        priority = system->value;  // a store bootstrapped before the classes were
      } else if (!pc.ok()) {
        return AdmissionForbidden(a, "no PriorityClass with name " + class_name + " was found");
      } else {
        read_class(pc.value());
      }
    } else {
      auto classes = store_.List({.prefix = api::StoragePrefix(api::Kind::kPriorityClass)});
      if (classes.ok()) {
        for (const auto& pc : classes->items) {
          if (auto g = pc->json().find("globalDefault"); g != pc->json().end() && g->value() == true) {
            read_class(pc);
            spec["priorityClassName"] = pc->name();
            break;
          }
        }
      }
    }
    if (auto p = spec.find("priority");
        p != spec.end() && p->value().is_number() && p->value().to_number<int64_t>() != priority) {
      return AdmissionForbidden(a, "the integer value of priority (" + std::to_string(p->value().to_number<int64_t>()) +
                                       ") must not be provided in pod spec; priority admission controller computed " +
                                       std::to_string(priority) + " from the given PriorityClass name");
    }
    spec["priority"] = priority;
    if (!spec.contains("preemptionPolicy")) spec["preemptionPolicy"] = preemption;
    return Status::Ok();
  }

  store::Store& store_;
};

bool ToleratesNoExecute(const json::array& tolerations, std::string_view key) {
  for (const auto& t : tolerations) {
    const json::object* o = t.if_object();
    if (!o) continue;
    std::string_view k = api::StringAt(*o, "key");
    bool key_matches = k.empty() ? api::StringAt(*o, "operator") == "Exists" : k == key;
    std::string_view effect = api::StringAt(*o, "effect");
    if (key_matches && (effect.empty() || effect == "NoExecute")) return true;
  }
  return false;
}

// kube's DefaultTolerationSeconds: every pod tolerates the not-ready and
// unreachable NoExecute taints for a while (300 s by default), unless it says
// otherwise. kube adds them on create only; berth adds them on an update of
// the pod too, so that a PUT leaving them out is not read as removing them.
class DefaultTolerationSeconds final : public AdmissionPlugin {
 public:
  explicit DefaultTolerationSeconds(const AdmissionOptions& options) : options_(options) {}
  std::string_view Name() const override { return "DefaultTolerationSeconds"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete || !a.subresource.empty() || !object) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    json::value& tv = spec["tolerations"];
    if (!tv.is_array()) tv = json::array();
    json::array& tolerations = tv.get_array();
    auto add = [&](std::string_view key, int64_t seconds) {
      if (ToleratesNoExecute(tolerations, key)) return;
      tolerations.push_back(
          json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", seconds}});
    };
    add("node.kubernetes.io/not-ready", options_.default_not_ready_toleration_seconds);
    add("node.kubernetes.io/unreachable", options_.default_unreachable_toleration_seconds);
    return Status::Ok();
  }

 private:
  AdmissionOptions options_;
};

// Of the objects with annotation `annotation` = "true" (or `beta` = "true"),
// the newest (kube: the most recently created; equal times by name).
api::ObjectPtr NewestDefault(store::Store& store, api::Kind kind, std::string_view annotation,
                             std::string_view beta = {}) {
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

// kube's DefaultStorageClass: a claim that names no class (the field absent,
// not "") gets the default StorageClass.
class DefaultStorageClass final : public AdmissionPlugin {
 public:
  explicit DefaultStorageClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "DefaultStorageClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPersistentVolumeClaim}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    if (const json::value* named = spec.if_contains("storageClassName"); named && !named->is_null()) {
      return Status::Ok();
    }
    if (api::ObjectPtr sc = NewestDefault(store_, api::Kind::kStorageClass, "storageclass.kubernetes.io/is-default-class",
                                          "storageclass.beta.kubernetes.io/is-default-class")) {
      spec["storageClassName"] = sc->name();
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

// kube's StorageObjectInUseProtection: every PersistentVolume is created with
// the finalizer kubernetes.io/pv-protection and every claim with
// kubernetes.io/pvc-protection; the PV and PVC protection controllers remove
// them once the object is no longer bound or in use by a pod.
class StorageObjectInUseProtection final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "StorageObjectInUseProtection"; }
  std::vector<api::Kind> Kinds() const override {
    return {api::Kind::kPersistentVolume, api::Kind::kPersistentVolumeClaim};
  }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    const std::string_view finalizer = a.kind.kind == api::Kind::kPersistentVolume ? "kubernetes.io/pv-protection"
                                                                                   : "kubernetes.io/pvc-protection";
    json::object& metadata = api::MutableObject(*object, "metadata");
    json::value& list = metadata["finalizers"];
    if (!list.is_array()) list = json::array();
    json::array& finalizers = list.get_array();
    for (const auto& f : finalizers) {
      if (f.is_string() && f.get_string() == finalizer) return Status::Ok();
    }
    finalizers.emplace_back(finalizer);
    return Status::Ok();
  }
};

// kube's DefaultIngressClass: an Ingress that names no class (neither
// spec.ingressClassName nor the kubernetes.io/ingress.class annotation) gets
// the default IngressClass.
class DefaultIngressClass final : public AdmissionPlugin {
 public:
  explicit DefaultIngressClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "DefaultIngressClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kIngress}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    const json::object* annotations = api::ObjectAt(api::ObjectAt(*object, "metadata"), "annotations");
    if (annotations && annotations->contains("kubernetes.io/ingress.class")) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    if (const json::value* named = spec.if_contains("ingressClassName"); named && !named->is_null()) {
      return Status::Ok();
    }
    if (api::ObjectPtr ic =
            NewestDefault(store_, api::Kind::kIngressClass, "ingressclass.kubernetes.io/is-default-class")) {
      spec["ingressClassName"] = ic->name();
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

// kube's RuntimeClass: a pod naming a RuntimeClass takes its overhead
// (spec.overhead, which the scheduler adds to the pod's requests) and its
// scheduling constraints (nodeSelector merged, tolerations added).
class RuntimeClass final : public AdmissionPlugin {
 public:
  explicit RuntimeClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "RuntimeClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    std::string class_name(api::StringAt(spec, "runtimeClassName"));
    if (class_name.empty()) return Status::Ok();
    auto got = store_.Get(api::StorageKey(api::Kind::kRuntimeClass, "", class_name));
    if (!got.ok()) return AdmissionForbidden(a, "pod rejected: RuntimeClass \"" + class_name + "\" not found");
    const json::object& rc = got.value()->json();
    const json::object* fixed = api::ObjectAt(api::ObjectAt(rc, "overhead"), "podFixed");
    const json::value* pod_overhead = spec.if_contains("overhead");
    if (pod_overhead && !pod_overhead->is_null()) {
      if (!fixed) return AdmissionForbidden(a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
      if (!SameQuantities(*pod_overhead, *fixed)) {
        return AdmissionForbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
    } else if (fixed) {
      spec["overhead"] = *fixed;
    }
    const json::object* scheduling = api::ObjectAt(rc, "scheduling");
    if (const json::object* selector = api::ObjectAt(scheduling, "nodeSelector")) {
      json::object& pod_selector = api::MutableObject(spec, "nodeSelector");
      for (const auto& [key, value] : *selector) {
        const json::value* mine = pod_selector.if_contains(key);
        if (mine && *mine != value) {
          return AdmissionForbidden(a, "conflict: runtimeClass.scheduling.nodeSelector[" + std::string(key) +
                                           "] = " + Text(value) + "; pod.spec.nodeSelector[" + std::string(key) +
                                           "] = " + Text(*mine));
        }
        pod_selector[key] = value;
      }
    }
    if (const json::value* tolerations = scheduling ? scheduling->if_contains("tolerations") : nullptr;
        tolerations && tolerations->is_array()) {
      json::value& tv = spec["tolerations"];
      if (!tv.is_array()) tv = json::array();
      for (const auto& t : tolerations->get_array()) {
        auto& mine = tv.get_array();
        if (std::find(mine.begin(), mine.end(), t) == mine.end()) mine.push_back(t);
      }
    }
    return Status::Ok();
  }

 private:
  static std::string Text(const json::value& v) {
    return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
  }
  // Same resource names and, per name, the same quantity as written or as
  // a canonical quantity.
  static bool SameQuantities(const json::value& a, const json::value& b) {
    const json::object* x = a.if_object();
    const json::object* y = b.if_object();
    if (!x || !y || x->size() != y->size()) return false;
    for (const auto& [name, value] : *x) {
      const json::value* other = y->if_contains(name);
      if (!other) return false;
      if (value == *other) continue;
      if (!value.is_string() || !other->is_string()) return false;
      auto qa = api::Quantity::Parse(value.get_string());
      auto qb = api::Quantity::Parse(other->get_string());
      if (!qa.ok() || !qb.ok() || qa.value().Compare(qb.value()) != 0) return false;
    }
    return true;
  }

  store::Store& store_;
};

// kube's AlwaysPullImages: every container of a pod pulls its image always.
class AlwaysPullImages final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysPullImages"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }
  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete || !a.subresource.empty() || !object) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
      json::value* containers = spec.if_contains(list);
      if (!containers || !containers->is_array()) continue;
      for (auto& c : containers->get_array()) {
        if (c.is_object()) c.get_object()["imagePullPolicy"] = "Always";
      }
    }
    return Status::Ok();
  }
};

class AlwaysAdmit final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysAdmit"; }
};

class AlwaysDeny final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysDeny"; }
  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    return AdmissionForbidden(a, "admission control is denying all modifications");
  }
};

}  // namespace

std::unique_ptr<AdmissionPlugin> MakeAdmissionPlugin(std::string_view name, const AdmissionOptions& options,
                                                     store::Store& store) {
  if (name == "NamespaceLifecycle") return std::make_unique<NamespaceLifecycle>(store);
  if (name == "LimitRanger") return MakeLimitRanger(store);
  if (name == "Priority") return std::make_unique<Priority>(store);
  if (name == "DefaultTolerationSeconds") return std::make_unique<DefaultTolerationSeconds>(options);
  if (name == "DefaultStorageClass") return std::make_unique<DefaultStorageClass>(store);
  if (name == "StorageObjectInUseProtection") return std::make_unique<StorageObjectInUseProtection>();
  if (name == "RuntimeClass") return std::make_unique<RuntimeClass>(store);
  if (name == "DefaultIngressClass") return std::make_unique<DefaultIngressClass>(store);
  if (name == "ResourceQuota") return MakeResourceQuota(store);
  if (name == "AlwaysPullImages") return std::make_unique<AlwaysPullImages>();
  if (name == "AlwaysAdmit") return std::make_unique<AlwaysAdmit>();
  if (name == "AlwaysDeny") return std::make_unique<AlwaysDeny>();
  return nullptr;
}

}  // namespace berth::apiserver
