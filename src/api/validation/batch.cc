// batch/v1 kinds: kube's pkg/apis/batch/validation for Job and CronJob, and
// a Job's update rules (kube 1.32: elastic indexed Jobs; a suspended Job
// that never started may change its template's scheduling directives).

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/json_fields.h"
#include "api/selector.h"
#include "api/time/cron_schedule.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"
#include "api/validation/warnings.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

constexpr int64_t kMaxParallelismForIndexedJob = 100000;

bool IsTrue(const json::object* o, std::string_view key) { return BoolAt(o, key); }

// kube's validateJobSpec at `path` ("spec", "spec.jobTemplate.spec"): counts,
// completion mode, pod replacement policy, the pod template and its restart
// policy. Not the selector.
void ValidateJobSpec(const json::object* spec, const std::string& path, FieldErrors& errors) {
  for (std::string_view key :
       {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
        "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"}) {
    NonNegative(spec, key, path + "." + std::string(key), errors);
  }
  if (Present(spec, "maxFailedIndexes") && !Present(spec, "backoffLimitPerIndex")) {
    errors.Required(path + ".backoffLimitPerIndex", "when maxFailedIndexes is specified");
  }
  const json::value* mode = Present(spec, "completionMode");
  const std::string_view mode_name = StringAt(spec, "completionMode");
  if (mode && mode_name != "NonIndexed" && mode_name != "Indexed") {
    errors.NotSupported(path + ".completionMode", mode_name, {"NonIndexed", "Indexed"});
  }
  if (mode_name == "Indexed") {
    if (!Present(spec, "completions"))
      errors.Required(path + ".completions", "when completion mode is Indexed");
    if (const json::value* p = Present(spec, "parallelism");
        p && p->is_number() && p->to_number<int64_t>() > kMaxParallelismForIndexedJob) {
      errors.InvalidValue(path + ".parallelism", *p,
                          "must be less than or equal to 100000 when completion mode is Indexed");
    }
  } else {
    for (std::string_view key : {"backoffLimitPerIndex", "maxFailedIndexes"}) {
      if (const json::value* v = Present(spec, key)) {
        errors.InvalidValue(path + "." + std::string(key), *v, "requires indexed completion mode");
      }
    }
  }
  const bool failure_policy = Present(spec, "podFailurePolicy") != nullptr;
  if (const json::value* policy = Present(spec, "podReplacementPolicy")) {
    const std::string_view value =
        policy->is_string() ? std::string_view(policy->get_string()) : "";
    if (failure_policy && value != "Failed") {
      errors.NotSupported(path + ".podReplacementPolicy", value, {"Failed"});
    } else if (value != "Failed" && value != "TerminatingOrFailed") {
      errors.NotSupported(path + ".podReplacementPolicy", value, {"Failed", "TerminatingOrFailed"});
    }
  }
  const json::object* tmpl = ObjectAt(spec, "template");
  ValidatePodTemplateSpec(tmpl, path + ".template", errors);
  const std::string_view restart = StringAt(ObjectAt(tmpl, "spec"), "restartPolicy");
  const std::string restart_path = path + ".template.spec.restartPolicy";
  if (restart.empty() || restart == "Always") {
    errors.Required(restart_path, "valid values: \"OnFailure\", \"Never\"");
  } else if (restart != "OnFailure" && restart != "Never") {
    errors.NotSupported(restart_path, restart, {"OnFailure", "Never"});
  } else if (failure_policy && restart != "Never") {
    errors.Invalid(restart_path, restart,
                   "only \"Never\" is supported when podFailurePolicy is specified");
  }
}

// The template's labels match the selector.
void CheckSelectorMatchesTemplate(const json::value& sel, const json::object* spec,
                                  const std::string& path, FieldErrors& errors) {
  auto selector = LabelSelector::FromJson(sel);
  if (!selector.ok()) {
    errors.InvalidValue(path + ".selector", sel, selector.status().message());
    return;
  }
  const json::object* tmpl = ObjectAt(spec, "template");
  if (!selector->Matches(TemplateLabels(tmpl))) {
    const json::object* l = ObjectAt(ObjectAt(tmpl, "metadata"), "labels");
    errors.InvalidGo(path + ".template.metadata.labels",
                     l ? GoStringMap(*l) : "map[string]string(nil)",
                     "`selector` does not match template `labels`");
  }
}

void ValidateSchedule(const json::object* spec, FieldErrors& errors) {
  const std::string_view schedule = StringAt(spec, "schedule");
  if (schedule.empty()) {
    errors.Required("spec.schedule");
    return;
  }
  if (auto parsed = ParseCronSchedule(schedule); !parsed.ok()) {
    errors.Invalid("spec.schedule", schedule, parsed.status().message());
  }
  if (schedule.find("TZ") != std::string_view::npos) {
    errors.Invalid("spec.schedule", schedule,
                   "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
  }
}

void ValidateTimeZone(const json::object* spec, FieldErrors& errors) {
  if (!Present(spec, "timeZone")) return;
  const std::string_view zone = StringAt(spec, "timeZone");
  if (zone.empty()) {
    errors.Invalid("spec.timeZone", zone, "timeZone must be nil or non-empty string");
    return;
  }
  size_t start = 0;
  while (true) {
    const size_t slash = zone.find('/', start);
    std::string_view part = zone.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    bool ok =
        !part.empty() && part.size() <= 14 && part != "." && part != ".." && part.front() != '-';
    for (char c : part) {
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
                  c == '+');
    }
    if (!ok) {
      errors.Invalid("spec.timeZone", zone, "unknown time zone " + std::string(zone));
      return;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string lower(zone);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "local") {
    errors.Invalid(
        "spec.timeZone", zone,
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  } else if (!IsKnownTimeZone(zone)) {
    errors.Invalid("spec.timeZone", zone, "unknown time zone " + std::string(zone));
  }
}

// What a suspended Job that never started may change in its template:
// labels, annotations, nodeSelector, tolerations, scheduling gates and node
// affinity. Removed, so that the rest can be compared.
void StripSchedulingDirectives(json::object& tmpl) {
  if (auto meta = tmpl.find("metadata"); meta != tmpl.end() && meta->value().is_object()) {
    meta->value().get_object().erase("labels");
    meta->value().get_object().erase("annotations");
    if (meta->value().get_object().empty()) tmpl.erase("metadata");
  }
  if (auto spec = tmpl.find("spec"); spec != tmpl.end() && spec->value().is_object()) {
    json::object& pod = spec->value().get_object();
    for (std::string_view key : {"nodeSelector", "tolerations", "schedulingGates"}) pod.erase(key);
    if (auto affinity = pod.find("affinity");
        affinity != pod.end() && affinity->value().is_object()) {
      affinity->value().get_object().erase("nodeAffinity");
      if (affinity->value().get_object().empty()) pod.erase("affinity");
    }
  }
}

}  // namespace

void ValidateJob(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateJobSpec(spec, "spec", errors);
  // kube's strategy generates a selector unless manualSelector is set;
  // berth does not yet, so an absent one passes.
  if (const json::value* sel = Present(spec, "selector")) {
    CheckSelectorMatchesTemplate(*sel, spec, "spec", errors);
  } else if (IsTrue(spec, "manualSelector")) {
    errors.Required("spec.selector");
  }
  if (StringAt(spec, "completionMode") == "Indexed") {
    if (const json::value* c = Present(spec, "completions");
        c && c->is_number() && c->to_number<int64_t>() > 0) {
      const std::string hostname =
          object.name() + "-" + std::to_string(c->to_number<int64_t>() - 1);
      if (!IsDns1123Label(hostname).empty()) {
        errors.Invalid("metadata.name", object.name(),
                       "will not able to create pod with invalid DNS label: " + hostname);
      }
    }
  }
}

void ValidateCronJob(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateSchedule(spec, errors);
  NonNegative(spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds", errors);
  ValidateTimeZone(spec, errors);
  if (auto policy = StringAt(spec, "concurrencyPolicy");
      !policy.empty() && policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    errors.NotSupported("spec.concurrencyPolicy", policy, {"Allow", "Forbid", "Replace"});
  }
  const json::object* job_spec = ObjectAt(ObjectAt(spec, "jobTemplate"), "spec");
  ValidateJobSpec(job_spec, "spec.jobTemplate.spec", errors);
  if (const json::value* sel = Present(job_spec, "selector")) {
    errors.InvalidGo("spec.jobTemplate.spec.selector", GoLabelSelector(sel),
                     "`selector` will be auto-generated");
  }
  if (IsTrue(job_spec, "manualSelector")) {
    errors.NotSupported("spec.jobTemplate.spec.manualSelector", "true", {"nil", "false"});
  }
  NonNegative(spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit", errors);
  NonNegative(spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit", errors);
  if (object.name().size() > 52)
    errors.Invalid("metadata.name", object.name(), "must be no more than 52 characters");
}

void ValidateJobUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  static const json::object kEmpty;
  const json::object* next_spec_p = ObjectAt(&next.json(), "spec");
  const json::object* cur_spec_p = ObjectAt(&current.json(), "spec");
  const json::object& after = next_spec_p ? *next_spec_p : kEmpty;
  const json::object& before = cur_spec_p ? *cur_spec_p : kEmpty;

  // completions: fixed, but for Indexed Jobs changed together with parallelism.
  const json::value* completions = Present(&after, "completions");
  const json::value* old_completions = Present(&before, "completions");
  const bool same_completions = (completions == nullptr) == (old_completions == nullptr) &&
                                (!completions || *completions == *old_completions);
  if (!same_completions) {
    if (StringAt(after, "completionMode") != "Indexed") {
      CheckImmutable(completions, old_completions, "spec.completions", errors);
    } else if (completions) {
      const json::value* parallelism = Present(&after, "parallelism");
      if (!parallelism || *parallelism != *completions) {
        errors.InvalidValue("spec.completions", *completions,
                            "can only be modified in tandem with spec.parallelism");
      }
    }
  }

  const json::value* selector = Present(&after, "selector");
  const json::value* old_selector = Present(&before, "selector");
  if ((selector == nullptr) != (old_selector == nullptr) ||
      (selector && *selector != *old_selector)) {
    errors.InvalidGo("spec.selector", GoLabelSelector(selector), "field is immutable");
  }

  // The template, but for a suspended Job that never started: its
  // scheduling directives, labels and annotations may change.
  const json::object* tmpl = ObjectAt(&after, "template");
  const json::object* old_tmpl = ObjectAt(&before, "template");
  const bool never_started = !Present(ObjectAt(&current.json(), "status"), "startTime");
  const bool mutable_scheduling = IsTrue(&before, "suspend") && never_started;
  json::object a = tmpl ? *tmpl : json::object();
  json::object b = old_tmpl ? *old_tmpl : json::object();
  // Both with today's pod spec defaults, as kube compares a template decoded
  // from the request with one read (and defaulted) from storage.
  for (json::object* t : {&a, &b}) {
    if (json::value* pod_spec = t->if_contains("spec"); pod_spec && pod_spec->is_object()) {
      DefaultPodSpec(pod_spec->get_object());
    }
  }
  if (mutable_scheduling) {
    StripSchedulingDirectives(a);
    StripSchedulingDirectives(b);
  }
  if (a != b) {
    errors.InvalidValue("spec.template", tmpl ? json::value(*tmpl) : json::value(nullptr),
                        "field is immutable");
  }

  for (std::string_view key : {"completionMode", "podFailurePolicy", "backoffLimitPerIndex",
                               "managedBy", "successPolicy"}) {
    CheckImmutable(Present(&after, key), Present(&before, key), "spec." + std::string(key), errors);
  }
}

void AddBatchRules(KindRuleTable& table) {
  table.Set(Kind::kJob, {.validate = ValidateJob,
                         .validate_update = CollectedUpdateErrors<ValidateJobUpdate>,
                         .warnings = WorkloadTemplateWarnings});
  table.Set(Kind::kCronJob, {.validate = ValidateCronJob, .warnings = CronJobTemplateWarnings});
}

}  // namespace berth::api::validation
