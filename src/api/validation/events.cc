// Events (kube's pkg/apis/core/validation/events.go): the legacy rules every
// Event meets, and the stricter ones of writes through events.k8s.io/v1.
// Field paths are kube's (reportingController for core's reportingComponent).

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/validation.h"

namespace berth::api {

namespace json = boost::json;

namespace {

constexpr size_t kReportingInstanceLengthLimit = 128;
constexpr size_t kActionLengthLimit = 128;
constexpr size_t kReasonLengthLimit = 128;
constexpr size_t kNoteLengthLimit = 1024;

// A meta/v1 Time or MicroTime that is set (kube's zero time is absent or null).
bool TimeSet(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() && !v->get_string().empty();
}

void ValidateSeries(const json::object& o, FieldErrors& errors) {
  const json::object* series = ObjectAt(o, "series");
  if (!series) return;
  if (IntAt(series, "count") < 2) errors.Invalid("series.count", "", "should be at least 2");
  if (!TimeSet(*series, "lastObservedTime")) errors.Required("series.lastObservedTime");
}

}  // namespace

namespace validation {

void ValidateEventLegacy(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  const std::string& ns = object.namespace_name();
  std::string_view involved_ns = StringAt(ObjectAt(o, "involvedObject"), "namespace");
  if (!TimeSet(o, "eventTime")) {
    // Old-style events: the namespaces agree (an involved object without one
    // may be recorded in "default").
    if (involved_ns.empty() ? (!ns.empty() && ns != "default") : ns != involved_ns) {
      errors.Invalid("involvedObject.namespace", involved_ns, "does not match event.namespace");
    }
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errors.Invalid("involvedObject.namespace", involved_ns, "does not match event.namespace");
    }
    std::string_view controller = StringAt(o, "reportingComponent");
    if (controller.empty()) errors.Required("reportingController");
    for (const auto& p : IsQualifiedName(controller)) errors.Invalid("reportingController", controller, p);
    std::string_view instance = StringAt(o, "reportingInstance");
    if (instance.empty()) errors.Required("reportingInstance");
    if (instance.size() > kReportingInstanceLengthLimit) {
      errors.Invalid("reportingInstance", "", "can have at most 128 characters");
    }
    std::string_view action = StringAt(o, "action");
    if (action.empty()) errors.Required("action");
    if (action.size() > kActionLengthLimit) errors.Invalid("action", "", "can have at most 128 characters");
    std::string_view reason = StringAt(o, "reason");
    if (reason.empty()) errors.Required("reason");
    if (reason.size() > kReasonLengthLimit) errors.Invalid("reason", "", "can have at most 128 characters");
    if (StringAt(o, "message").size() > kNoteLengthLimit) {
      errors.Invalid("message", "", "can have at most 1024 characters");
    }
  }
  for (const auto& p : IsDns1123Subdomain(ns)) errors.Invalid("namespace", ns, p);
}

}  // namespace validation

Status ValidateEventsV1Create(const Object& object) {
  Status valid = ValidateObject(object);
  if (!valid.ok()) return valid;
  FieldErrors errors;
  const json::object& o = object.json();
  ValidateSeries(o, errors);
  if (!TimeSet(o, "eventTime")) errors.Required("eventTime");
  std::string_view type = StringAt(o, "type");
  if (type != "Normal" && type != "Warning") {
    errors.Invalid("type", "", "has invalid value: " + std::string(type));
  }
  if (TimeSet(o, "firstTimestamp")) errors.Invalid("firstTimestamp", "", "needs to be unset");
  if (TimeSet(o, "lastTimestamp")) errors.Invalid("lastTimestamp", "", "needs to be unset");
  if (IntAt(&o, "count") != 0) errors.Invalid("count", "", "needs to be unset");
  const json::object* source = ObjectAt(o, "source");
  if (!StringAt(source, "component").empty() || !StringAt(source, "host").empty()) {
    errors.Invalid("source", "", "needs to be unset");
  }
  return errors.ToStatus(QualifiedKind(object.info()), object.name());
}

Status ValidateEventsV1Update(const Object& next, const Object& current) {
  Status valid = ValidateObject(next);
  if (!valid.ok()) return valid;
  FieldErrors errors;
  const json::object& n = next.json();
  const json::object& c = current.json();
  auto field = [](const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v ? *v : json::value();
  };
  if (field(n, "series") != field(c, "series")) ValidateSeries(n, errors);
  // kube's immutable fields, under its paths (core's names but for reportingController).
  static constexpr std::pair<std::string_view, std::string_view> kImmutable[] = {
      {"involvedObject", "involvedObject"}, {"reason", "reason"},
      {"message", "message"},               {"source", "source"},
      {"firstTimestamp", "firstTimestamp"}, {"lastTimestamp", "lastTimestamp"},
      {"count", "count"},                   {"type", "type"},
      {"eventTime", "eventTime"},           {"action", "action"},
      {"related", "related"},               {"reportingComponent", "reportingController"},
      {"reportingInstance", "reportingInstance"},
  };
  for (const auto& [key, path] : kImmutable) {
    json::value now = field(n, key), before = field(c, key);
    if (now != before) errors.InvalidValue(std::string(path), now, "field is immutable");
  }
  return errors.ToStatus(QualifiedKind(next.info()), next.name());
}

}  // namespace berth::api
