// autoscaling/v2 HorizontalPodAutoscaler: kube's
// pkg/apis/autoscaling/validation (HPAScaleToZero off: minReplicas ≥ 1).

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

// kube's ValidateCrossVersionObjectReference: kind and name required, each a path segment.
void ValidateObjectReference(const json::object* ref, const std::string& path,
                             FieldErrors& errors) {
  for (std::string_view key : {"kind", "name"}) {
    const std::string field = path + "." + std::string(key);
    const std::string_view value = StringAt(ref, key);
    if (value.empty()) {
      errors.Required(field);
    } else {
      for (const auto& m : IsValidPathSegmentName(value)) errors.Invalid(field, value, m);
    }
  }
}

void ValidateMetric(const json::object* metric, const std::string& path, FieldErrors& errors) {
  static const std::vector<std::string> kTypes = {"ContainerResource", "External", "Object", "Pods",
                                                  "Resource"};
  const std::string_view type = StringAt(metric, "type");
  if (type.empty()) errors.Required(path + ".type", "must specify a metric source type");
  // The member each type names: Object → object, ContainerResource → containerResource.
  std::string expected;
  if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    errors.NotSupported(path + ".type", type, kTypes);
  } else {
    expected = std::string(type);
    expected[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(expected[0])));
    if (!Present(metric, expected)) {
      errors.Required(path + "." + expected,
                      "must populate information for the given metric source");
    }
  }
  int present = 0;
  for (std::string_view member : {"object", "external", "pods", "resource", "containerResource"}) {
    if (Present(metric, member)) ++present;
  }
  if (present > 1) {
    for (std::string_view member :
         {"object", "external", "pods", "resource", "containerResource"}) {
      if (Present(metric, member) && member != expected) {
        errors.Forbidden(path + "." + std::string(member),
                         "must populate the given metric source only");
      }
    }
  }
}

void ValidateScalingRules(const json::object* rules, const std::string& path, FieldErrors& errors) {
  if (!rules) return;
  if (const json::value* window = Present(rules, "stabilizationWindowSeconds");
      window && window->is_number()) {
    if (window->to_number<int64_t>() < 0) {
      errors.InvalidValue(path + ".stabilizationWindowSeconds", *window,
                          "must be greater than or equal to zero");
    } else if (window->to_number<int64_t>() > 3600) {
      errors.InvalidValue(path + ".stabilizationWindowSeconds", *window,
                          "must be less than or equal to 3600");
    }
  }
  if (auto select = StringAt(rules, "selectPolicy"); Present(rules, "selectPolicy") &&
                                                     select != "Max" && select != "Min" &&
                                                     select != "Disabled") {
    errors.NotSupported(path + ".selectPolicy", select, {"Disabled", "Max", "Min"});
  }
  const json::array* policies = ArrayAt(rules, "policies");
  if (!policies || policies->empty()) {
    errors.Required(path + ".policies", "must specify at least one Policy");
    return;
  }
  for (size_t i = 0; i < policies->size(); ++i) {
    const std::string p = IndexPath(path + ".policies", i);
    const json::object* policy =
        (*policies)[i].is_object() ? &(*policies)[i].get_object() : nullptr;
    if (auto type = StringAt(policy, "type"); type != "Pods" && type != "Percent") {
      errors.NotSupported(p + ".type", type, {"Percent", "Pods"});
    }
    const json::value* value = Present(policy, "value");
    if (!value || !value->is_number() || value->to_number<int64_t>() <= 0) {
      errors.InvalidValue(p + ".value", value ? *value : json::value(0),
                          "must be greater than zero");
    }
    const json::value* period = Present(policy, "periodSeconds");
    if (!period || !period->is_number() || period->to_number<int64_t>() <= 0) {
      errors.InvalidValue(p + ".periodSeconds", period ? *period : json::value(0),
                          "must be greater than zero");
    } else if (period->to_number<int64_t>() > 1800) {
      errors.InvalidValue(p + ".periodSeconds", *period, "must be less than or equal to 1800");
    }
  }
}

}  // namespace

void ValidateHorizontalPodAutoscaler(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  const json::value* min = Present(spec, "minReplicas");
  const json::value* max_v = Present(spec, "maxReplicas");
  const int64_t max = max_v && max_v->is_number() ? max_v->to_number<int64_t>() : 0;
  if (min && min->is_number() && min->to_number<int64_t>() < 1) {
    errors.InvalidValue("spec.minReplicas", *min, "must be greater than or equal to 1");
  }
  if (max < 1) errors.InvalidValue("spec.maxReplicas", json::value(max), "must be greater than 0");
  if (min && min->is_number() && max < min->to_number<int64_t>()) {
    errors.InvalidValue("spec.maxReplicas", json::value(max),
                        "must be greater than or equal to `minReplicas`");
  }
  ValidateObjectReference(ObjectAt(spec, "scaleTargetRef"), "spec.scaleTargetRef", errors);
  if (const json::array* metrics = ArrayAt(spec, "metrics")) {
    for (size_t i = 0; i < metrics->size(); ++i) {
      ValidateMetric((*metrics)[i].is_object() ? &(*metrics)[i].get_object() : nullptr,
                     IndexPath("spec.metrics", i), errors);
    }
  }
  const json::object* behavior = ObjectAt(spec, "behavior");
  ValidateScalingRules(ObjectAt(behavior, "scaleUp"), "spec.behavior.scaleUp", errors);
  ValidateScalingRules(ObjectAt(behavior, "scaleDown"), "spec.behavior.scaleDown", errors);
}

void AddAutoscalingRules(KindRuleTable& table) {
  table.Set(Kind::kHorizontalPodAutoscaler, {.validate = ValidateHorizontalPodAutoscaler});
}

}  // namespace berth::api::validation
