// policy/v1: PodDisruptionBudget.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

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

void AddPolicyRules(KindRuleTable& table) { table.Set(Kind::kPodDisruptionBudget, {.validate = ValidateDisruptionBudget}); }

}  // namespace berth::api::validation
