#include "api/conversion.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"

namespace berth::api {

namespace json = boost::json;

namespace {

// ---------------------------------------------------------------------------
// events.k8s.io/v1 <-> core/v1

// (events.k8s.io/v1 name, core/v1 name) of the fields whose names differ.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kEventRenames = {{
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
}};

// Moves each field named `from` to `to`; a field already named `to` is one
// the source version does not have (kube's decoder drops it).
void RenameFields(json::object& object, bool to_core) {
  for (const auto& [events_name, core_name] : kEventRenames) {
    std::string_view from = to_core ? events_name : core_name;
    std::string_view to = to_core ? core_name : events_name;
    object.erase(to);
    if (auto it = object.find(from); it != object.end()) {
      json::value moved = std::move(it->value());
      object.erase(it);
      object[to] = std::move(moved);
    }
  }
}

json::object EventToCore(json::object object) {
  RenameFields(object, true);
  object["apiVersion"] = "v1";
  object["kind"] = "Event";
  return object;
}

json::object EventFromCore(const json::object& stored) {
  json::object object = stored;
  RenameFields(object, false);
  object["apiVersion"] = "events.k8s.io/v1";
  object["kind"] = "Event";
  return object;
}

// ---------------------------------------------------------------------------
// autoscaling/v1 <-> autoscaling/v2

void CopyIf(const json::object* from, std::string_view from_key, json::object& to, std::string_view to_key) {
  if (!from) return;
  if (const json::value* v = from->if_contains(from_key); v && !v->is_null()) to[to_key] = *v;
}

// A Quantity kube's v1 types hold by value: written even when unset.
void CopyQuantity(const json::object* from, std::string_view from_key, json::object& to, std::string_view to_key) {
  if (from && from->if_contains(from_key) && !from->at(from_key).is_null()) {
    to[to_key] = from->at(from_key);
  } else {
    to[to_key] = "0";
  }
}

bool IsCpu(const json::object* source) { return source && StringAt(source, "name") == "cpu"; }

// v2 MetricSpec -> v1 MetricSpec (kube's v2beta1-shaped v1 metric types).
json::object MetricSpecToV1(const json::object& m) {
  json::object out;
  std::string_view type = StringAt(m, "type");
  out["type"] = type;
  if (const json::object* o = ObjectAt(m, "object")) {
    const json::object* target = ObjectAt(o, "target");
    const json::object* metric = ObjectAt(o, "metric");
    json::object v1;
    v1["target"] = o->contains("describedObject") ? o->at("describedObject") : json::value(json::object());
    v1["metricName"] = StringAt(metric, "name");
    CopyQuantity(target, "value", v1, "targetValue");
    CopyIf(metric, "selector", v1, "selector");
    CopyIf(target, "averageValue", v1, "averageValue");
    out["object"] = std::move(v1);
  }
  if (const json::object* p = ObjectAt(m, "pods")) {
    const json::object* target = ObjectAt(p, "target");
    const json::object* metric = ObjectAt(p, "metric");
    json::object v1;
    v1["metricName"] = StringAt(metric, "name");
    CopyQuantity(target, "averageValue", v1, "targetAverageValue");
    CopyIf(metric, "selector", v1, "selector");
    out["pods"] = std::move(v1);
  }
  for (std::string_view key : {"resource", "containerResource"}) {
    const json::object* r = ObjectAt(m, key);
    if (!r) continue;
    const json::object* target = ObjectAt(r, "target");
    json::object v1;
    v1["name"] = StringAt(r, "name");
    CopyIf(target, "averageUtilization", v1, "targetAverageUtilization");
    CopyIf(target, "averageValue", v1, "targetAverageValue");
    if (key == "containerResource") v1["container"] = StringAt(r, "container");
    out[key] = std::move(v1);
  }
  if (const json::object* e = ObjectAt(m, "external")) {
    const json::object* target = ObjectAt(e, "target");
    const json::object* metric = ObjectAt(e, "metric");
    json::object v1;
    v1["metricName"] = StringAt(metric, "name");
    CopyIf(metric, "selector", v1, "metricSelector");
    CopyIf(target, "value", v1, "targetValue");
    CopyIf(target, "averageValue", v1, "targetAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

json::object Identifier(const json::object& v1, std::string_view selector_key) {
  json::object metric;
  metric["name"] = StringAt(v1, "metricName");
  CopyIf(&v1, selector_key, metric, "selector");
  return metric;
}

// v1 MetricSpec -> v2 MetricSpec (kube's Convert_v1_*MetricSource_To_autoscaling_*).
json::object MetricSpecFromV1(const json::object& m) {
  json::object out;
  out["type"] = StringAt(m, "type");
  if (const json::object* o = ObjectAt(m, "object")) {
    json::object target;
    target["type"] = o->contains("averageValue") && !o->at("averageValue").is_null() ? "AverageValue" : "Value";
    CopyQuantity(o, "targetValue", target, "value");
    CopyIf(o, "averageValue", target, "averageValue");
    json::object v2;
    v2["describedObject"] = o->contains("target") ? o->at("target") : json::value(json::object());
    v2["target"] = std::move(target);
    v2["metric"] = Identifier(*o, "selector");
    out["object"] = std::move(v2);
  }
  if (const json::object* p = ObjectAt(m, "pods")) {
    json::object target{{"type", "AverageValue"}};
    CopyQuantity(p, "targetAverageValue", target, "averageValue");
    out["pods"] = json::object{{"metric", Identifier(*p, "selector")}, {"target", std::move(target)}};
  }
  for (std::string_view key : {"resource", "containerResource"}) {
    const json::object* r = ObjectAt(m, key);
    if (!r) continue;
    const bool utilization = r->contains("targetAverageUtilization") && !r->at("targetAverageUtilization").is_null();
    json::object target{{"type", utilization ? "Utilization" : "AverageValue"}};
    CopyIf(r, "targetAverageUtilization", target, "averageUtilization");
    CopyIf(r, "targetAverageValue", target, "averageValue");
    json::object v2{{"name", StringAt(r, "name")}, {"target", std::move(target)}};
    if (key == "containerResource") v2["container"] = StringAt(r, "container");
    out[key] = std::move(v2);
  }
  if (const json::object* e = ObjectAt(m, "external")) {
    const bool value = e->contains("targetValue") && !e->at("targetValue").is_null();
    json::object target{{"type", value ? "Value" : "AverageValue"}};
    CopyIf(e, "targetValue", target, "value");
    CopyIf(e, "targetAverageValue", target, "averageValue");
    out["external"] = json::object{{"metric", Identifier(*e, "metricSelector")}, {"target", std::move(target)}};
  }
  return out;
}

// v2 MetricStatus -> v1 MetricStatus.
json::object MetricStatusToV1(const json::object& m) {
  json::object out;
  out["type"] = StringAt(m, "type");
  if (const json::object* o = ObjectAt(m, "object")) {
    const json::object* current = ObjectAt(o, "current");
    const json::object* metric = ObjectAt(o, "metric");
    json::object v1;
    v1["target"] = o->contains("describedObject") ? o->at("describedObject") : json::value(json::object());
    v1["metricName"] = StringAt(metric, "name");
    CopyQuantity(current, "value", v1, "currentValue");
    CopyIf(metric, "selector", v1, "selector");
    CopyIf(current, "averageValue", v1, "averageValue");
    out["object"] = std::move(v1);
  }
  if (const json::object* p = ObjectAt(m, "pods")) {
    const json::object* metric = ObjectAt(p, "metric");
    json::object v1;
    v1["metricName"] = StringAt(metric, "name");
    CopyQuantity(ObjectAt(p, "current"), "averageValue", v1, "currentAverageValue");
    CopyIf(metric, "selector", v1, "selector");
    out["pods"] = std::move(v1);
  }
  for (std::string_view key : {"resource", "containerResource"}) {
    const json::object* r = ObjectAt(m, key);
    if (!r) continue;
    const json::object* current = ObjectAt(r, "current");
    json::object v1;
    v1["name"] = StringAt(r, "name");
    CopyIf(current, "averageUtilization", v1, "currentAverageUtilization");
    CopyQuantity(current, "averageValue", v1, "currentAverageValue");
    if (key == "containerResource") v1["container"] = StringAt(r, "container");
    out[key] = std::move(v1);
  }
  if (const json::object* e = ObjectAt(m, "external")) {
    const json::object* current = ObjectAt(e, "current");
    const json::object* metric = ObjectAt(e, "metric");
    json::object v1;
    v1["metricName"] = StringAt(metric, "name");
    CopyIf(metric, "selector", v1, "metricSelector");
    CopyQuantity(current, "value", v1, "currentValue");
    CopyIf(current, "averageValue", v1, "currentAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

// v1 MetricStatus -> v2 MetricStatus.
json::object MetricStatusFromV1(const json::object& m) {
  json::object out;
  out["type"] = StringAt(m, "type");
  if (const json::object* o = ObjectAt(m, "object")) {
    json::object current;
    CopyQuantity(o, "currentValue", current, "value");
    CopyIf(o, "averageValue", current, "averageValue");
    out["object"] = json::object{{"metric", Identifier(*o, "selector")},
                                 {"current", std::move(current)},
                                 {"describedObject", o->contains("target") ? o->at("target") : json::object()}};
  }
  if (const json::object* p = ObjectAt(m, "pods")) {
    json::object current;
    CopyQuantity(p, "currentAverageValue", current, "averageValue");
    out["pods"] = json::object{{"metric", Identifier(*p, "selector")}, {"current", std::move(current)}};
  }
  for (std::string_view key : {"resource", "containerResource"}) {
    const json::object* r = ObjectAt(m, key);
    if (!r) continue;
    json::object current;
    CopyQuantity(r, "currentAverageValue", current, "averageValue");
    CopyIf(r, "currentAverageUtilization", current, "averageUtilization");
    json::object v2{{"name", StringAt(r, "name")}, {"current", std::move(current)}};
    if (key == "containerResource") v2["container"] = StringAt(r, "container");
    out[key] = std::move(v2);
  }
  if (const json::object* e = ObjectAt(m, "external")) {
    json::object current;
    CopyQuantity(e, "currentValue", current, "value");
    CopyIf(e, "currentAverageValue", current, "averageValue");
    out["external"] = json::object{{"metric", Identifier(*e, "metricSelector")}, {"current", std::move(current)}};
  }
  return out;
}

// kube writes the behavior annotation from its internal Go type, which has
// no JSON names: its keys are the Go field names ("ScaleUp", "Policies").
json::value WithKeyCase(const json::value& v, bool upper) {
  if (const json::object* o = v.if_object()) {
    json::object out;
    for (const auto& [key, value] : *o) {
      std::string k(key);
      if (!k.empty()) k[0] = upper ? std::toupper(static_cast<unsigned char>(k[0]))
                                   : std::tolower(static_cast<unsigned char>(k[0]));
      out[k] = WithKeyCase(value, upper);
    }
    return out;
  }
  if (const json::array* a = v.if_array()) {
    json::array out;
    for (const auto& item : *a) out.push_back(WithKeyCase(item, upper));
    return out;
  }
  return v;
}

json::object HpaFromV2(const json::object& stored) {
  json::object out;
  out["kind"] = "HorizontalPodAutoscaler";
  out["apiVersion"] = "autoscaling/v1";
  json::object meta;
  if (const json::object* m = ObjectAt(stored, "metadata")) meta = *m;
  json::object annotations;
  if (const json::object* a = ObjectAt(meta, "annotations")) annotations = *a;

  const json::object* spec = ObjectAt(stored, "spec");
  json::object v1_spec;
  CopyIf(spec, "scaleTargetRef", v1_spec, "scaleTargetRef");
  CopyIf(spec, "minReplicas", v1_spec, "minReplicas");
  v1_spec["maxReplicas"] = IntAt(spec, "maxReplicas");
  json::array other_metrics;
  bool cpu_seen = false;
  for (const auto& v : ArrayAt(spec, "metrics") ? *ArrayAt(spec, "metrics") : json::array()) {
    const json::object* metric = v.if_object();
    if (!metric) continue;
    const json::object* resource = ObjectAt(metric, "resource");
    const json::object* target = ObjectAt(resource, "target");
    const bool cpu = StringAt(metric, "type") == "Resource" && IsCpu(resource);
    const bool utilization = target && target->contains("averageUtilization") &&
                             !target->at("averageUtilization").is_null();
    if (cpu && !cpu_seen) {
      // The first cpu metric says the target, when it is a utilization.
      cpu_seen = true;
      if (utilization) v1_spec["targetCPUUtilizationPercentage"] = target->at("averageUtilization");
    }
    if (cpu && utilization) continue;
    other_metrics.push_back(MetricSpecToV1(*metric));
  }
  if (!other_metrics.empty()) annotations[kHpaMetricsAnnotation] = json::serialize(other_metrics);
  if (const json::value* behavior = spec ? spec->if_contains("behavior") : nullptr; behavior && !behavior->is_null()) {
    annotations[kHpaBehaviorAnnotation] = json::serialize(WithKeyCase(*behavior, true));
  }

  const json::object* status = ObjectAt(stored, "status");
  json::object v1_status;
  CopyIf(status, "observedGeneration", v1_status, "observedGeneration");
  CopyIf(status, "lastScaleTime", v1_status, "lastScaleTime");
  v1_status["currentReplicas"] = IntAt(status, "currentReplicas");
  v1_status["desiredReplicas"] = IntAt(status, "desiredReplicas");
  json::array current_metrics;
  for (const auto& v : ArrayAt(status, "currentMetrics") ? *ArrayAt(status, "currentMetrics") : json::array()) {
    const json::object* metric = v.if_object();
    if (!metric) continue;
    const json::object* resource = ObjectAt(metric, "resource");
    const json::object* current = ObjectAt(resource, "current");
    if (StringAt(metric, "type") == "Resource" && IsCpu(resource) && current &&
        current->contains("averageUtilization") && !current->at("averageUtilization").is_null()) {
      v1_status["currentCPUUtilizationPercentage"] = current->at("averageUtilization");
    }
    current_metrics.push_back(MetricStatusToV1(*metric));
  }
  if (!current_metrics.empty()) annotations[kHpaCurrentMetricsAnnotation] = json::serialize(current_metrics);
  if (const json::array* conditions = ArrayAt(status, "conditions"); conditions && !conditions->empty()) {
    annotations[kHpaConditionsAnnotation] = json::serialize(*conditions);
  }

  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(v1_spec);
  out["status"] = std::move(v1_status);
  return out;
}

// The JSON array or object in annotation `key` (removed from `annotations`);
// null when absent.
Result<json::value> TakeAnnotation(json::object& annotations, std::string_view key, bool array) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return json::value();
  json::error_code ec;
  json::value parsed;
  if (it->value().is_string()) parsed = api::ParseJson(it->value().get_string(), ec);
  if (!it->value().is_string() || ec || (array ? !parsed.is_array() : !parsed.is_object())) {
    return Status::BadRequest("metadata.annotations[" + std::string(key) + "]: the annotation is not a JSON " +
                              (array ? "array" : "object"));
  }
  annotations.erase(it);
  return parsed;
}

Result<json::object> HpaToV2(json::object object) {
  json::object out;
  out["apiVersion"] = "autoscaling/v2";
  out["kind"] = "HorizontalPodAutoscaler";
  json::object meta;
  if (const json::object* m = ObjectAt(object, "metadata")) meta = *m;
  json::object annotations;
  if (const json::object* a = ObjectAt(meta, "annotations")) annotations = *a;
  auto metrics = TakeAnnotation(annotations, kHpaMetricsAnnotation, true);
  if (!metrics.ok()) return metrics.status();
  auto current_metrics = TakeAnnotation(annotations, kHpaCurrentMetricsAnnotation, true);
  if (!current_metrics.ok()) return current_metrics.status();
  auto conditions = TakeAnnotation(annotations, kHpaConditionsAnnotation, true);
  if (!conditions.ok()) return conditions.status();
  auto behavior = TakeAnnotation(annotations, kHpaBehaviorAnnotation, false);
  if (!behavior.ok()) return behavior.status();
  if (annotations.empty()) {
    meta.erase("annotations");
  } else {
    meta["annotations"] = std::move(annotations);
  }
  out["metadata"] = std::move(meta);

  const json::object* spec = ObjectAt(object, "spec");
  json::object v2_spec;
  CopyIf(spec, "scaleTargetRef", v2_spec, "scaleTargetRef");
  CopyIf(spec, "minReplicas", v2_spec, "minReplicas");
  if (spec && spec->contains("maxReplicas")) v2_spec["maxReplicas"] = spec->at("maxReplicas");
  json::array v2_metrics;
  if (metrics->is_array()) {
    for (const auto& m : metrics->get_array()) {
      if (m.is_object()) v2_metrics.push_back(MetricSpecFromV1(m.get_object()));
    }
  }
  const json::value* cpu = spec ? spec->if_contains("targetCPUUtilizationPercentage") : nullptr;
  const bool cpu_set = cpu && !cpu->is_null();
  if (cpu_set || v2_metrics.empty()) {
    // kube's conversion: v1's cpu target, or its implicit default of 80%.
    json::value percent = cpu_set ? *cpu : json::value(80);
    v2_metrics.push_back(json::object{
        {"type", "Resource"},
        {"resource", json::object{{"name", "cpu"},
                                  {"target", json::object{{"type", "Utilization"}, {"averageUtilization", percent}}}}}});
  }
  v2_spec["metrics"] = std::move(v2_metrics);
  if (behavior->is_object()) v2_spec["behavior"] = WithKeyCase(*behavior, false);
  out["spec"] = std::move(v2_spec);

  if (const json::object* status = ObjectAt(object, "status")) {
    json::object v2_status;
    CopyIf(status, "observedGeneration", v2_status, "observedGeneration");
    CopyIf(status, "lastScaleTime", v2_status, "lastScaleTime");
    CopyIf(status, "currentReplicas", v2_status, "currentReplicas");
    v2_status["desiredReplicas"] = IntAt(status, "desiredReplicas");
    json::array v2_current;
    if (current_metrics->is_array()) {
      // The annotation says more than the cpu percentage: it wins.
      for (const auto& m : current_metrics->get_array()) {
        if (m.is_object()) v2_current.push_back(MetricStatusFromV1(m.get_object()));
      }
    } else if (const json::value* percent = status->if_contains("currentCPUUtilizationPercentage");
               percent && !percent->is_null()) {
      v2_current.push_back(json::object{
          {"type", "Resource"},
          {"resource", json::object{{"name", "cpu"}, {"current", json::object{{"averageUtilization", *percent}}}}}});
    }
    if (!v2_current.empty()) v2_status["currentMetrics"] = std::move(v2_current);
    if (conditions->is_array()) v2_status["conditions"] = std::move(conditions->get_array());
    out["status"] = std::move(v2_status);
  }
  return out;
}

}  // namespace

Result<json::object> ConvertToStored(Kind served, json::object object) {
  switch (served) {
    case Kind::kEventsEvent:
      return EventToCore(std::move(object));
    case Kind::kHorizontalPodAutoscalerV1:
      return HpaToV2(std::move(object));
    default:
      return object;
  }
}

json::object ConvertFromStored(Kind served, const json::object& stored) {
  switch (served) {
    case Kind::kEventsEvent:
      return EventFromCore(stored);
    case Kind::kHorizontalPodAutoscalerV1:
      return HpaFromV2(stored);
    default:
      return stored;
  }
}

}  // namespace berth::api
