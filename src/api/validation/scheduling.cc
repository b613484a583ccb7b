// scheduling.k8s.io/v1: PriorityClass.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/validation.h"

namespace berth::api {

namespace json = boost::json;

namespace {

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

namespace validation {

void AddSchedulingRules(KindRuleTable& table) {
  table.Set(Kind::kPriorityClass, {.validate = ValidatePriorityClass, .validate_update = ValidatePriorityClassUpdate});
}

}  // namespace validation
}  // namespace berth::api
