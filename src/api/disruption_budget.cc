#include "api/disruption_budget.h"

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"

namespace berth::api {

namespace json = boost::json;

LabelSelector BudgetSelector(const Object& budget) {
  const json::object* spec = Spec(budget);
  const json::value* selector = spec ? spec->if_contains("selector") : nullptr;
  if (!selector || selector->is_null()) return LabelSelector::Nothing();
  auto parsed = LabelSelector::FromJson(*selector);
  return parsed.ok() ? std::move(parsed).value() : LabelSelector::Nothing();
}

bool BudgetCoversPod(const Object& budget, const Object& pod) {
  return budget.namespace_name() == pod.namespace_name() &&
         BudgetSelector(budget).Matches(pod.labels());
}

namespace {

void SetBudgetCondition(json::object& status, const Condition& c, std::string_view now) {
  SetCondition(status, c, now);
  // metav1.Condition: observedGeneration, and a message even when empty.
  for (auto& entry : MutableArray(status, "conditions")) {
    if (!entry.is_object() || StringAt(entry.get_object(), "type") != c.type) continue;
    entry.get_object()["observedGeneration"] = IntAt(&status, "observedGeneration");
    entry.get_object()["message"] = c.message;
  }
}

}  // namespace

void SetDisruptionAllowedCondition(json::object& status, std::string_view now) {
  if (IntAt(&status, "disruptionsAllowed") > 0) {
    SetBudgetCondition(status, {"DisruptionAllowed", "True", "SufficientPods", ""}, now);
  } else {
    SetBudgetCondition(status, {"DisruptionAllowed", "False", "InsufficientPods", ""}, now);
  }
}

void SetDisruptionSyncFailedCondition(json::object& status, std::string_view message,
                                      std::string_view now) {
  SetBudgetCondition(status, {"DisruptionAllowed", "False", "SyncFailed", std::string(message)},
                     now);
}

Result<int64_t> ScaledValueFromIntOrPercent(const json::value& value, int64_t total,
                                            bool round_up) {
  if (value.is_int64()) return value.get_int64();
  if (value.is_uint64()) return static_cast<int64_t>(value.get_uint64());
  if (!value.is_string())
    return Status::Invalid(
        "invalid value for IntOrString: invalid type: neither int nor percentage");
  std::string_view s = value.get_string();
  if (s.size() < 2 || s.back() != '%') {
    return Status::Invalid(
        "invalid value for IntOrString: invalid type: string is not a percentage");
  }
  int64_t percent = 0;
  for (char c : s.substr(0, s.size() - 1)) {
    if (c < '0' || c > '9' || percent > 1'000'000'000) {
      return Status::Invalid("invalid value for IntOrString: invalid value \"" + std::string(s) +
                             "\"");
    }
    percent = percent * 10 + (c - '0');
  }
  // Integer arithmetic: ceil/floor of percent * total / 100 without rounding error.
  const int64_t product = percent * total;
  return round_up ? (product + 99) / 100 : product / 100;
}

}  // namespace berth::api
