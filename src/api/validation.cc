#include "api/validation.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/selector.h"

namespace berth::api {

namespace json = boost::json;

namespace {

void ValidateMetadata(const Object& object, bool label_name, FieldErrors& errors) {
  const json::object* meta = ObjectAt(&object.json(), "metadata");
  const std::string& name = object.name();
  if (name.empty()) {
    errors.Required("metadata.name", "name or generateName is required");
  } else {
    auto problems = label_name ? IsDns1123Label(name) : IsDns1123Subdomain(name);
    for (const auto& p : problems) errors.Invalid("metadata.name", name, p);
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

void ValidateWorkload(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  if (!spec) {
    errors.Required("spec");
    return;
  }
  if (auto r = spec->find("replicas"); r != spec->end() && r->value().is_number() && r->value().to_number<int64_t>() < 0) {
    errors.InvalidValue("spec.replicas", r->value(), "must be greater than or equal to 0");
  }
  auto sel = spec->find("selector");
  const json::object* tmpl = ObjectAt(spec, "template");
  const json::object* tmpl_meta = ObjectAt(tmpl, "metadata");
  if (sel == spec->end() || sel->value().is_null()) {
    errors.Required("spec.selector");
  } else {
    auto selector = LabelSelector::FromJson(sel->value());
    if (!selector.ok()) {
      errors.InvalidValue("spec.selector", sel->value(), selector.status().message());
    } else if (selector->Empty()) {
      errors.InvalidValue("spec.selector", sel->value(),
                          "empty selector is invalid for deployment");
    } else {
      Labels labels;
      if (const json::object* l = ObjectAt(tmpl_meta, "labels")) {
        for (const auto& kv : *l) {
          if (kv.value().is_string()) labels.Set(kv.key(), kv.value().get_string());
        }
      }
      if (!selector->Matches(labels)) {
        const json::object* l = ObjectAt(tmpl_meta, "labels");
        errors.InvalidValue("spec.template.metadata.labels",
                            l ? json::value(*l) : json::value(nullptr),
                            "`selector` does not match template `labels`");
      }
    }
  }
  ValidatePodSpec(ObjectAt(tmpl, "spec"), "spec.template.spec", errors);
}

}  // namespace

Status ValidateObject(const Object& object) {
  FieldErrors errors;
  const json::object& o = object.json();
  ValidateMetadata(object, object.kind() == Kind::kNamespace, errors);
  switch (object.kind()) {
    case Kind::kPod:
      ValidatePodSpec(ObjectAt(&o, "spec"), "spec", errors);
      break;
    case Kind::kDeployment:
    case Kind::kReplicaSet:
      ValidateWorkload(object, errors);
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
    case Kind::kPriorityClass: {
      auto v = o.find("value");
      if (v == o.end() || !v->value().is_number()) {
        errors.Required("value");
      } else if (v->value().to_number<int64_t>() > 1'000'000'000 && !object.name().starts_with("system-")) {
        errors.InvalidValue("value", v->value(),
                            "maximum allowed value of a user defined priority is 1000000000");
      }
      break;
    }
    case Kind::kNode: {
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
  return errors.ToStatus(object.info().name, object.name());
}

}  // namespace berth::api
