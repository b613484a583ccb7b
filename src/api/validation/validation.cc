#include "api/validation/validation.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"

namespace berth::api {

namespace json = boost::json;

namespace {

// The rule each kind's names follow (kube's ValidateNameFunc of the kind).
std::vector<std::string> NameProblems(Kind kind, std::string_view name) {
  switch (kind) {
    case Kind::kNamespace:
    case Kind::kStatefulSet:
      return IsDns1123Label(name);
    case Kind::kService:
      return IsDns1035Label(name);
    case Kind::kRole:
    case Kind::kClusterRole:
    case Kind::kRoleBinding:
    case Kind::kClusterRoleBinding:
      return IsValidPathSegmentName(name);
    default:
      return IsDns1123Subdomain(name);
  }
}

void ValidateMetadata(const Object& object, FieldErrors& errors) {
  const json::object* meta = ObjectAt(&object.json(), "metadata");
  const std::string& name = object.name();
  if (name.empty()) {
    errors.Required("metadata.name", "name or generateName is required");
  } else {
    for (const auto& p : NameProblems(object.kind(), name)) errors.Invalid("metadata.name", name, p);
  }
  if (object.info().namespaced && object.namespace_name().empty()) errors.Required("metadata.namespace");
  for (const auto& [key, value] : object.labels()) {
    for (const auto& p : IsQualifiedName(key)) errors.Invalid("metadata.labels", key, p);
    for (const auto& p : IsValidLabelValue(value)) errors.Invalid("metadata.labels", value, p);
  }
  if (const json::object* annotations = ObjectAt(meta, "annotations")) {
    for (const auto& kv : *annotations) {
      for (const auto& p : IsQualifiedName(kv.key())) errors.Invalid("metadata.annotations", kv.key(), p);
    }
  }
}

// kube's ValidatePriorityClass: "system-" names are the built-in classes
// only, with their values; user classes stop at HighestUserDefinablePriority;
// preemptionPolicy is one of kube's two.
void ValidatePriorityClass(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  auto v = o.find("value");
  if (v == o.end() || !v->value().is_number()) {
    errors.Required("value");
    return;
  }
  const int64_t value = v->value().to_number<int64_t>();
  const bool global_default = BoolAt(&o, "globalDefault");
  if (object.name().starts_with(kSystemPriorityClassPrefix)) {
    std::string problem;
    const SystemPriorityClass* known = nullptr;
    for (const auto& c : SystemPriorityClasses()) {
      if (object.name() == c.name) known = &c;
    }
    if (!known) {
      problem = object.name() + " is not a known system priority class";
    } else if (known->value != value) {
      problem = "value of " + std::string(known->name) + " PriorityClass must be " + std::to_string(known->value);
    } else if (global_default) {
      problem = "globalDefault of " + std::string(known->name) + " PriorityClass must be false";
    }
    if (!problem.empty()) {
      errors.Forbidden("metadata.name", "priority class names with '" + std::string(kSystemPriorityClassPrefix) +
                                            "' prefix are reserved for system use only. error: " + problem);
    }
  } else if (value > kHighestUserDefinablePriority) {
    errors.Forbidden("value", "maximum allowed value of a user defined priority is " +
                                  std::to_string(kHighestUserDefinablePriority));
  }
  if (auto p = o.find("preemptionPolicy"); p != o.end() && !p->value().is_null()) {
    std::string_view policy = p->value().is_string() ? std::string_view(p->value().get_string()) : "";
    if (policy != "PreemptLowerPriority" && policy != "Never") {
      errors.NotSupported("preemptionPolicy", policy, {"Never", "PreemptLowerPriority"});
    }
  }
}

// kube's ValidatePodDisruptionBudgetSpec: one of minAvailable and
// maxUnavailable, each a non-negative integer or a percentage up to 100%.
void ValidateDisruptionBudget(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  auto present = [&](std::string_view field) {
    const json::value* v = spec ? spec->if_contains(field) : nullptr;
    return v && !v->is_null() ? v : nullptr;
  };
  const json::value* min_available = present("minAvailable");
  const json::value* max_unavailable = present("maxUnavailable");
  if (min_available && max_unavailable) {
    errors.InvalidValue("spec.minAvailable", *min_available, "minAvailable and maxUnavailable cannot be both set");
  }
  for (const auto& [field, value] : {std::pair{"minAvailable", min_available}, {"maxUnavailable", max_unavailable}}) {
    if (!value) continue;
    const std::string path = std::string("spec.") + field;
    if (value->is_int64() || value->is_uint64()) {
      if (value->is_int64() && value->get_int64() < 0) {
        errors.InvalidValue(path, *value, "must be greater than or equal to 0");
      }
    } else if (value->is_string()) {
      std::string_view s = value->get_string();
      bool digits = s.size() >= 2 && s.back() == '%';
      int64_t percent = 0;
      for (char c : s.substr(0, s.empty() ? 0 : s.size() - 1)) {
        digits = digits && c >= '0' && c <= '9';
        if (digits && percent <= 1000) percent = percent * 10 + (c - '0');
      }
      if (!digits) {
        errors.InvalidValue(path, *value, "a valid percent string must be a numeric string followed by an ending '%' "
                                          "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
      } else if (percent > 100) {
        errors.InvalidValue(path, *value, "must not be greater than 100%");
      }
    } else {
      errors.InvalidValue(path, *value, "must be an integer or percentage (e.g '5%')");
    }
  }
  if (auto policy = StringAt(spec, "unhealthyPodEvictionPolicy");
      !policy.empty() && policy != "IfHealthyBudget" && policy != "AlwaysAllow") {
    errors.NotSupported("spec.unhealthyPodEvictionPolicy", policy, {"AlwaysAllow", "IfHealthyBudget"});
  }
}

}  // namespace

std::span<const SystemPriorityClass> SystemPriorityClasses() {
  static constexpr SystemPriorityClass kClasses[] = {
      {"system-node-critical", kSystemCriticalPriority + 1000,
       "Used for system critical pods that must not be moved from their current node."},
      {"system-cluster-critical", kSystemCriticalPriority,
       "Used for system critical pods that must run in the cluster, but can be moved to another node if "
       "necessary."},
  };
  return kClasses;
}

Status ValidatePriorityClassUpdate(const Object& next, const Object& current) {
  FieldErrors errors;
  const json::object& n = next.json();
  const json::object& c = current.json();
  auto value_of = [](const json::object& o) {
    auto v = o.find("value");
    return v != o.end() && v->value().is_number() ? v->value().to_number<int64_t>() : int64_t{0};
  };
  if (value_of(n) != value_of(c)) errors.Forbidden("value", "may not be changed in an update.");
  if (StringAt(n, "preemptionPolicy") != StringAt(c, "preemptionPolicy")) {
    errors.Invalid("preemptionPolicy", StringAt(n, "preemptionPolicy"), "field is immutable");
  }
  return errors.ToStatus(QualifiedKind(next.info()), next.name());
}

Status ValidateObject(const Object& object) {
  FieldErrors errors;
  const json::object& o = object.json();
  if (object.kind() == Kind::kSecret || object.kind() == Kind::kConfigMap) {
    if (Status encoded = validation::CheckBase64Fields(object); !encoded.ok()) return encoded;
  }
  ValidateMetadata(object, errors);
  switch (object.kind()) {
    case Kind::kPod:
      ValidatePodSpec(ObjectAt(&o, "spec"), "spec", errors);
      break;
    case Kind::kDeployment:
    case Kind::kReplicaSet:
      validation::ValidateDeploymentOrReplicaSet(object, errors);
      break;
    case Kind::kConfigMap:
      validation::ValidateConfigMap(object, errors);
      break;
    case Kind::kSecret:
      validation::ValidateSecret(object, errors);
      break;
    case Kind::kService:
      validation::ValidateService(object, errors);
      break;
    case Kind::kEndpoints:
      validation::ValidateEndpoints(object, errors);
      break;
    case Kind::kLimitRange:
      validation::ValidateLimitRange(object, errors);
      break;
    case Kind::kResourceQuota:
      validation::ValidateResourceQuota(object, errors);
      break;
    case Kind::kPodTemplate:
      validation::ValidatePodTemplate(object, errors);
      break;
    case Kind::kReplicationController:
      validation::ValidateReplicationController(object, errors);
      break;
    case Kind::kStatefulSet:
      validation::ValidateStatefulSet(object, errors);
      break;
    case Kind::kDaemonSet:
      validation::ValidateDaemonSet(object, errors);
      break;
    case Kind::kControllerRevision:
      validation::ValidateControllerRevision(object, errors);
      break;
    case Kind::kJob:
      validation::ValidateJob(object, errors);
      break;
    case Kind::kCronJob:
      validation::ValidateCronJob(object, errors);
      break;
    case Kind::kHorizontalPodAutoscaler:
      validation::ValidateHorizontalPodAutoscaler(object, errors);
      break;
    case Kind::kEvent:
      validation::ValidateEventLegacy(object, errors);
      break;
    case Kind::kIngress:
      validation::ValidateIngress(object, errors);
      break;
    case Kind::kIngressClass:
      validation::ValidateIngressClass(object, errors);
      break;
    case Kind::kNetworkPolicy:
      validation::ValidateNetworkPolicy(object, errors);
      break;
    case Kind::kEndpointSlice:
      validation::ValidateEndpointSlice(object, errors);
      break;
    case Kind::kRole:
    case Kind::kClusterRole:
      validation::ValidateRole(object, errors);
      break;
    case Kind::kRoleBinding:
    case Kind::kClusterRoleBinding:
      validation::ValidateRoleBinding(object, errors);
      break;
    case Kind::kRuntimeClass:
      validation::ValidateRuntimeClass(object, errors);
      break;
    case Kind::kCSIDriver:
      validation::ValidateCSIDriver(object, errors);
      break;
    case Kind::kCSINode:
      validation::ValidateCSINode(object, errors);
      break;
    case Kind::kCSIStorageCapacity:
      validation::ValidateCSIStorageCapacity(object, errors);
      break;
    case Kind::kVolumeAttachment:
      validation::ValidateVolumeAttachment(object, errors);
      break;
    case Kind::kPersistentVolumeClaim: {
      const json::object* spec = ObjectAt(&o, "spec");
      auto modes = spec ? spec->find("accessModes") : nullptr;
      if (!spec || modes == spec->end() || !modes->value().is_array() || modes->value().get_array().empty()) {
        errors.Required("spec.accessModes", "at least 1 access mode is required");
      }
      const json::object* requests = ObjectAt(ObjectAt(spec, "resources"), "requests");
      if (!requests || !requests->contains("storage")) {
        errors.Required("spec.resources[storage]");
      } else {
        ValidateResourceList(requests, "spec.resources.requests", errors);
      }
      break;
    }
    case Kind::kPersistentVolume: {
      const json::object* spec = ObjectAt(&o, "spec");
      const json::object* capacity = ObjectAt(spec, "capacity");
      if (!capacity || !capacity->contains("storage")) {
        errors.Required("spec.capacity");
      } else {
        ValidateResourceList(capacity, "spec.capacity", errors);
      }
      auto modes = spec ? spec->find("accessModes") : nullptr;
      if (!spec || modes == spec->end() || !modes->value().is_array() || modes->value().get_array().empty()) {
        errors.Required("spec.accessModes");
      }
      break;
    }
    case Kind::kPriorityClass:
      ValidatePriorityClass(object, errors);
      break;
    case Kind::kPodDisruptionBudget:
      ValidateDisruptionBudget(object, errors);
      break;
    case Kind::kNode: {
      validation::ValidateNodeTaints(ArrayAt(ObjectAt(&o, "spec"), "taints"), "spec.taints", errors);
      if (const json::object* allocatable = ObjectAt(ObjectAt(&o, "status"), "allocatable")) {
        ValidateResourceList(allocatable, "status.allocatable", errors);
      }
      if (const json::object* capacity = ObjectAt(ObjectAt(&o, "status"), "capacity")) {
        ValidateResourceList(capacity, "status.capacity", errors);
      }
      break;
    }
    default:
      break;
  }
  return errors.ToStatus(QualifiedKind(object.info()), object.name());
}

Status ValidateObjectUpdate(const Object& next, const Object& current) {
  FieldErrors errors;
  switch (next.kind()) {
    case Kind::kPod:
      return ValidatePodUpdate(next, current);
    case Kind::kPriorityClass:
      return ValidatePriorityClassUpdate(next, current);
    case Kind::kDeployment:
    case Kind::kReplicaSet:
    case Kind::kDaemonSet:
      validation::ValidateSelectorUpdate(next, current, errors);
      break;
    case Kind::kStatefulSet:
      validation::ValidateStatefulSetUpdate(next, current, errors);
      break;
    case Kind::kControllerRevision:
      validation::ValidateControllerRevisionUpdate(next, current, errors);
      break;
    case Kind::kJob:
      validation::ValidateJobUpdate(next, current, errors);
      break;
    case Kind::kConfigMap:
      validation::ValidateConfigMapUpdate(next, current, errors);
      break;
    case Kind::kSecret:
      validation::ValidateSecretUpdate(next, current, errors);
      break;
    case Kind::kService:
      validation::ValidateServiceUpdate(next, current, errors);
      break;
    case Kind::kPersistentVolumeClaim:
      validation::ValidatePersistentVolumeClaimUpdate(next, current, errors);
      break;
    case Kind::kResourceQuota:
      validation::ValidateResourceQuotaUpdate(next, current, errors);
      break;
    case Kind::kRoleBinding:
    case Kind::kClusterRoleBinding:
      validation::ValidateRoleBindingUpdate(next, current, errors);
      break;
    case Kind::kIngressClass:
      validation::ValidateIngressClassUpdate(next, current, errors);
      break;
    case Kind::kEndpointSlice:
      validation::ValidateEndpointSliceUpdate(next, current, errors);
      break;
    case Kind::kRuntimeClass:
      validation::ValidateRuntimeClassUpdate(next, current, errors);
      break;
    case Kind::kVolumeAttachment:
      validation::ValidateVolumeAttachmentUpdate(next, current, errors);
      break;
    default:
      break;
  }
  return errors.ToStatus(QualifiedKind(next.info()), next.name());
}

}  // namespace berth::api
