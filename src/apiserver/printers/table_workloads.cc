// Printers of apps/v1, batch/v1, autoscaling/v2 and policy/v1 kinds.

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "api/json_fields.h"
#include "api/selector.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"
#include "apiserver/printers/table_printers.h"

namespace berth::apiserver::table {

namespace json = boost::json;
using api::ArrayAt;
using api::IntAt;
using api::ObjectAt;
using api::StringAt;
using Clock = std::chrono::system_clock;

namespace {

const json::value* Member(const json::object* o, std::string_view key) {
  return o ? o->if_contains(key) : nullptr;
}

// ---- ReplicaSet, Deployment, StatefulSet, DaemonSet ----

constexpr Column kReplicaSetColumns[] = {
    {"Name", "string", 0, "name"}, {"Desired", "integer"},   {"Current", "integer"},
    {"Ready", "integer"},          {"Age", "string"},        {"Containers", "string", 1},
    {"Images", "string", 1},       {"Selector", "string", 1}};

void ReplicaSetRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  cells.emplace_back(object.name());
  cells.emplace_back(IntAt(spec, "replicas", 1));
  cells.emplace_back(IntAt(status, "replicas"));
  cells.emplace_back(IntAt(status, "readyReplicas"));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
  cells.emplace_back(FormatLabelSelector(Member(spec, "selector")));
}

constexpr Column kDeploymentColumns[] = {
    {"Name", "string", 0, "name"}, {"Ready", "string"},      {"Up-to-date", "string"},
    {"Available", "string"},       {"Age", "string"},        {"Containers", "string", 1},
    {"Images", "string", 1},       {"Selector", "string", 1}};

void DeploymentRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  // The selector as written, "" when it selects everything (kube's selector.String()).
  std::string selector;
  if (const json::value* s = Member(spec, "selector"); s && !s->is_null()) {
    auto parsed = api::LabelSelector::FromJson(*s);
    selector = parsed.ok() ? parsed->ToString() : "<invalid>";
  }
  cells.emplace_back(object.name());
  cells.emplace_back(std::to_string(IntAt(status, "readyReplicas")) + "/" +
                     std::to_string(IntAt(spec, "replicas", 1)));
  cells.emplace_back(IntAt(status, "updatedReplicas"));
  cells.emplace_back(IntAt(status, "availableReplicas"));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
  cells.emplace_back(selector);
}

constexpr Column kStatefulSetColumns[] = {{"Name", "string", 0, "name"},
                                          {"Ready", "string"},
                                          {"Age", "string"},
                                          {"Containers", "string", 1},
                                          {"Images", "string", 1}};

void StatefulSetRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  cells.emplace_back(object.name());
  cells.emplace_back(std::to_string(IntAt(api::StatusOf(object), "readyReplicas")) + "/" +
                     std::to_string(IntAt(spec, "replicas", 1)));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
}

constexpr Column kDaemonSetColumns[] = {
    {"Name", "string", 0, "name"}, {"Desired", "integer"},    {"Current", "integer"},
    {"Ready", "integer"},          {"Up-to-date", "integer"}, {"Available", "integer"},
    {"Node Selector", "string"},   {"Age", "string"},         {"Containers", "string", 1},
    {"Images", "string", 1},       {"Selector", "string", 1}};

void DaemonSetRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  cells.emplace_back(object.name());
  cells.emplace_back(IntAt(status, "desiredNumberScheduled"));
  cells.emplace_back(IntAt(status, "currentNumberScheduled"));
  cells.emplace_back(IntAt(status, "numberReady"));
  cells.emplace_back(IntAt(status, "updatedNumberScheduled"));
  cells.emplace_back(IntAt(status, "numberAvailable"));
  cells.emplace_back(FormatLabels(ObjectAt(TemplatePodSpec(spec), "nodeSelector")));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
  cells.emplace_back(FormatLabelSelector(Member(spec, "selector")));
}

// ---- ControllerRevision ----

constexpr Column kControllerRevisionColumns[] = {{"Name", "string", 0, "name"},
                                                 {"Controller", "string"},
                                                 {"Revision", "string"},
                                                 {"Age", "string"}};

// "statefulset.apps/web": the controlling owner as kind.group/name, lower case.
std::string ControllerOf(const api::Object& object) {
  if (const json::array* owners = ArrayAt(api::Metadata(object), "ownerReferences")) {
    for (const auto& r : *owners) {
      const json::object* owner = r.if_object();
      if (!api::BoolAt(owner, "controller")) continue;
      std::string_view api_version = StringAt(owner, "apiVersion");
      size_t slash = api_version.find('/');
      std::string kind(StringAt(owner, "kind"));
      if (slash != std::string_view::npos) {
        kind += '.';
        kind += api_version.substr(0, slash);
      }
      std::transform(kind.begin(), kind.end(), kind.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (!kind.empty()) kind += '/';
      kind += StringAt(owner, "name");
      return kind;
    }
  }
  return "<none>";
}

void ControllerRevisionRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(ControllerOf(object));
  cells.emplace_back(IntAt(&object.json(), "revision"));
  cells.emplace_back(Age(object, now));
}

// ---- Job, CronJob ----

constexpr Column kJobColumns[] = {
    {"Name", "string", 0, "name"}, {"Status", "string"},     {"Completions", "string"},
    {"Duration", "string"},        {"Age", "string"},        {"Containers", "string", 1},
    {"Images", "string", 1},       {"Selector", "string", 1}};

// The status of the first condition of `type`; false when there is none.
bool JobCondition(const json::object* status, std::string_view type) {
  if (const json::array* conditions = ArrayAt(status, "conditions")) {
    for (const auto& c : *conditions) {
      if (StringAt(c.if_object(), "type") == type)
        return StringAt(c.if_object(), "status") == "True";
    }
  }
  return false;
}

void JobRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  int64_t succeeded = IntAt(status, "succeeded");
  std::string completions;
  if (Has(spec, "completions")) {
    completions = std::to_string(succeeded) + "/" + std::to_string(IntAt(spec, "completions"));
  } else if (int64_t parallelism = IntAt(spec, "parallelism"); parallelism > 1) {
    completions = std::to_string(succeeded) + "/1 of " + std::to_string(parallelism);
  } else {
    completions = std::to_string(succeeded) + "/1";
  }
  std::string duration;
  if (auto start = api::ParseRfc3339(StringAt(status, "startTime"))) {
    auto end = api::ParseRfc3339(StringAt(status, "completionTime"));
    duration = api::HumanDuration(
        std::chrono::duration_cast<std::chrono::seconds>(end.value_or(now) - *start));
  }
  std::string state = "Running";
  if (JobCondition(status, "Complete")) {
    state = "Complete";
  } else if (JobCondition(status, "Failed")) {
    state = "Failed";
  } else if (api::BeingDeleted(object)) {
    state = "Terminating";
  } else if (JobCondition(status, "Suspended")) {
    state = "Suspended";
  } else if (JobCondition(status, "FailureTarget")) {
    state = "FailureTarget";
  }
  cells.emplace_back(object.name());
  cells.emplace_back(state);
  cells.emplace_back(completions);
  cells.emplace_back(duration);
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
  cells.emplace_back(FormatLabelSelector(Member(spec, "selector")));
}

constexpr Column kCronJobColumns[] = {{"Name", "string", 0, "name"},
                                      {"Schedule", "string"},
                                      {"Timezone", "string"},
                                      {"Suspend", "boolean"},
                                      {"Active", "integer"},
                                      {"Last Schedule", "string"},
                                      {"Age", "string"},
                                      {"Containers", "string", 1},
                                      {"Images", "string", 1},
                                      {"Selector", "string", 1}};

void CronJobRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  const json::object* job_spec = ObjectAt(ObjectAt(spec, "jobTemplate"), "spec");
  const json::array* active = ArrayAt(status, "active");
  std::string_view last = StringAt(status, "lastScheduleTime");
  cells.emplace_back(object.name());
  cells.emplace_back(StringAt(spec, "schedule"));
  cells.emplace_back(Text(spec, "timeZone", "<none>"));
  cells.emplace_back(BoolText(api::BoolAt(spec, "suspend")));  // kube defaults suspend to false
  cells.emplace_back(active ? active->size() : 0);
  cells.emplace_back(last.empty() ? "<none>" : Since(last, now));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(job_spec), cells);
  cells.emplace_back(FormatLabelSelector(Member(job_spec, "selector")));
}

// ---- HorizontalPodAutoscaler ----

constexpr Column kHorizontalPodAutoscalerColumns[] = {{"Name", "string", 0, "name"},
                                                      {"Reference", "string"},
                                                      {"Targets", "string"},
                                                      {"MinPods", "string"},
                                                      {"MaxPods", "string"},
                                                      {"Replicas", "string"},
                                                      {"Age", "string"}};

// A quantity member as kube's (*Quantity).String(): "<nil>" when absent.
std::string QuantityOrNil(const json::object* o, std::string_view key) {
  const json::value* v = Member(o, key);
  return v && !v->is_null() ? QuantityText(v) : "<nil>";
}

std::string Percent(const json::object* o, std::string_view key, std::string_view absent) {
  return Has(o, key) ? std::to_string(IntAt(o, key)) + "%" : std::string(absent);
}

// One metric of kube's formatHPAMetrics: "current/target", with the resource
// name for resource metrics and "(avg)" for average values of object and
// external metrics.
std::string FormatMetric(const json::object* spec, const json::object* status) {
  std::string_view type = StringAt(spec, "type");
  auto source_key = [](std::string_view t) -> std::string {
    std::string key(t);
    if (!key.empty()) key[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[0])));
    return key;
  };
  std::string key = source_key(type);
  const json::object* source = ObjectAt(spec, key);
  const json::object* target = ObjectAt(source, "target");
  const json::object* current_source = ObjectAt(status, key);  // absent when status is another type
  const json::object* current = ObjectAt(current_source, "current");
  if (type == "External" || type == "Object") {
    if (Has(target, "averageValue")) {
      std::string now_value = current_source && Has(current, "averageValue")
                                  ? QuantityText(Member(current, "averageValue"))
                                  : "<unknown>";
      return now_value + "/" + QuantityText(Member(target, "averageValue")) + " (avg)";
    }
    std::string now_value = current_source ? QuantityOrNil(current, "value") : "<unknown>";
    return now_value + "/" + QuantityOrNil(target, "value");
  }
  if (type == "Pods") {
    std::string now_value = current_source ? QuantityOrNil(current, "averageValue") : "<unknown>";
    return now_value + "/" + QuantityOrNil(target, "averageValue");
  }
  if (type == "Resource" || type == "ContainerResource") {
    std::string name(StringAt(source, "name"));
    if (Has(target, "averageValue")) {
      std::string now_value = current_source ? QuantityOrNil(current, "averageValue") : "<unknown>";
      return name + ": " + now_value + "/" + QuantityText(Member(target, "averageValue"));
    }
    std::string now_value =
        current_source ? Percent(current, "averageUtilization", "<unknown>") : "<unknown>";
    return name + ": " + now_value + "/" + Percent(target, "averageUtilization", "<auto>");
  }
  return "<unknown type>";
}

std::string FormatMetrics(const json::array* specs, const json::array* statuses) {
  if (!specs || specs->empty()) return "<none>";
  constexpr size_t kMax = 2;
  std::vector<std::string> list;
  for (size_t i = 0; i < specs->size(); ++i) {
    const json::object* status =
        statuses && i < statuses->size() ? (*statuses)[i].if_object() : nullptr;
    list.push_back(FormatMetric((*specs)[i].if_object(), status));
  }
  size_t count = list.size();
  if (count <= kMax) return Join(list, ", ");
  list.resize(kMax);
  return Join(list, ", ") + " + " + std::to_string(count - kMax) + " more...";
}

void HorizontalPodAutoscalerRow(const api::Object& object, Clock::time_point now,
                                json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  const json::object* ref = ObjectAt(spec, "scaleTargetRef");
  cells.emplace_back(object.name());
  cells.emplace_back(std::string(StringAt(ref, "kind")) + "/" + std::string(StringAt(ref, "name")));
  cells.emplace_back(FormatMetrics(ArrayAt(spec, "metrics"), ArrayAt(status, "currentMetrics")));
  cells.emplace_back(
      std::to_string(IntAt(spec, "minReplicas", 1)));  // kube defaults minReplicas to 1
  cells.emplace_back(IntAt(spec, "maxReplicas"));
  cells.emplace_back(IntAt(status, "currentReplicas"));
  cells.emplace_back(Age(object, now));
}

// ---- PodDisruptionBudget ----

constexpr Column kPodDisruptionBudgetColumns[] = {{"Name", "string", 0, "name"},
                                                  {"Min Available", "string"},
                                                  {"Max Unavailable", "string"},
                                                  {"Allowed Disruptions", "integer"},
                                                  {"Age", "string"}};

void PodDisruptionBudgetRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  cells.emplace_back(object.name());
  cells.emplace_back(Text(spec, "minAvailable", "N/A"));  // an int or a percentage, as written
  cells.emplace_back(Text(spec, "maxUnavailable", "N/A"));
  cells.emplace_back(IntAt(api::StatusOf(object), "disruptionsAllowed"));
  cells.emplace_back(Age(object, now));
}

constexpr KindPrinter kPrinters[] = {
    {api::Kind::kReplicaSet, kReplicaSetColumns, ReplicaSetRow},
    {api::Kind::kDeployment, kDeploymentColumns, DeploymentRow},
    {api::Kind::kStatefulSet, kStatefulSetColumns, StatefulSetRow},
    {api::Kind::kDaemonSet, kDaemonSetColumns, DaemonSetRow},
    {api::Kind::kControllerRevision, kControllerRevisionColumns, ControllerRevisionRow},
    {api::Kind::kJob, kJobColumns, JobRow},
    {api::Kind::kCronJob, kCronJobColumns, CronJobRow},
    {api::Kind::kHorizontalPodAutoscaler, kHorizontalPodAutoscalerColumns,
     HorizontalPodAutoscalerRow},
    {api::Kind::kPodDisruptionBudget, kPodDisruptionBudgetColumns, PodDisruptionBudgetRow},
};

}  // namespace

std::span<const KindPrinter> WorkloadPrinters() { return kPrinters; }

}  // namespace berth::apiserver::table
