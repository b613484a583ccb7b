#include "controllers/cronjob/cronjob_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <ctime>

#include "api/json_fields.h"
#include "api/time/cron_schedule.h"
#include "api/time/rfc3339.h"
#include "controllers/cronjob/schedule.h"
#include "controllers/cronjob/time_zone.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "CronJob";

// The name of `o`'s controller when it is a CronJob; "" otherwise.
std::string_view ControllingCronJob(const api::Object& o) {
  const json::array* refs = api::ArrayAt(api::Metadata(o), "ownerReferences");
  if (!refs) return {};
  for (const auto& ref : *refs) {
    if (ref.is_object() && api::BoolAt(&ref.get_object(), "controller") &&
        api::StringAt(ref.get_object(), "kind") == kKind) {
      return api::StringAt(ref.get_object(), "name");
    }
  }
  return {};
}

// "Complete" or "Failed" when that condition of the Job is True; "" while it runs.
std::string_view FinishedAs(const api::Object& job) {
  const json::array* conditions = api::ArrayAt(api::StatusOf(job), "conditions");
  if (!conditions) return {};
  for (const auto& c : *conditions) {
    if (!c.is_object()) continue;
    std::string_view type = api::StringAt(c.get_object(), "type");
    if ((type == "Complete" || type == "Failed") &&
        api::StringAt(c.get_object(), "status") == "True")
      return type;
  }
  return {};
}

bool InActive(const json::object& status, std::string_view field, std::string_view value) {
  const json::array* active = api::ArrayAt(status, "active");
  if (!active) return false;
  return std::any_of(active->begin(), active->end(), [&](const json::value& ref) {
    return ref.is_object() && api::StringAt(ref.get_object(), field) == value;
  });
}

void RemoveFromActive(json::object& status, std::string_view uid) {
  auto* active = status.if_contains("active");
  if (!active || !active->is_array()) return;
  api::EraseIf(active->get_array(), [&](const json::value& ref) {
    return ref.is_object() && api::StringAt(ref.get_object(), "uid") == uid;
  });
  if (active->get_array().empty()) status.erase("active");
}

json::object JobReference(const api::Object& job) {
  return json::object{{"kind", "Job"},
                      {"namespace", job.namespace_name()},
                      {"name", job.name()},
                      {"uid", job.uid()},
                      {"apiVersion", "batch/v1"},
                      {"resourceVersion", std::to_string(job.resource_version())}};
}

std::optional<WallTime> TimeAt(const json::object* o, std::string_view field) {
  std::string_view text = api::StringAt(o, field);
  if (text.empty()) return std::nullopt;
  return api::ParseRfc3339(text);
}

// Go's time.RFC1123Z of a UTC time: "Tue, 24 Nov 2026 19:05:00 +0000".
std::string FormatRfc1123Z(WallTime t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

// The Job spec.jobTemplate describes, named `job_name`: the template's
// labels, its annotations plus the scheduled-timestamp one, its spec; and
// controlled by `cj`.
json::object JobFromTemplate(const api::Object& cj, const std::string& job_name,
                             const std::string& scheduled_timestamp) {
  const json::object* spec = api::Spec(cj);
  const json::object* job_template = spec ? api::ObjectAt(*spec, "jobTemplate") : nullptr;
  const json::object* template_meta =
      job_template ? api::ObjectAt(*job_template, "metadata") : nullptr;
  json::object labels, annotations;
  if (const json::object* l = template_meta ? api::ObjectAt(*template_meta, "labels") : nullptr)
    labels = *l;
  if (const json::object* a =
          template_meta ? api::ObjectAt(*template_meta, "annotations") : nullptr)
    annotations = *a;
  annotations[kCronJobScheduledTimestampAnnotation] = scheduled_timestamp;
  json::object job_meta{{"name", job_name}, {"namespace", cj.namespace_name()}};
  if (!labels.empty()) job_meta["labels"] = std::move(labels);
  job_meta["annotations"] = std::move(annotations);
  job_meta["ownerReferences"] = json::array{ControllerRef(cj)};
  const json::object* template_spec = job_template ? api::ObjectAt(*job_template, "spec") : nullptr;
  return json::object{{"apiVersion", "batch/v1"},
                      {"kind", "Job"},
                      {"metadata", std::move(job_meta)},
                      {"spec", template_spec ? *template_spec : json::object()}};
}

}  // namespace

struct CronJobController::Sync {
  api::ObjectPtr cj;
  std::string key;
  std::vector<api::ObjectPtr> jobs;  // the Jobs it controls
  json::object status;               // what status becomes
  std::optional<std::chrono::milliseconds> requeue;
  // Set by SyncCronJob's steps once spec.timeZone and spec.schedule are read:
  std::shared_ptr<const TimeZone> job_zone;  // spec.timeZone (UTC): the scheduled-timestamp's
  std::shared_ptr<const TimeZone> zone;      // the schedule's TZ= prefix, else job_zone
  api::CronSchedule schedule;
};

CronJobController::CronJobController(const ControllerContext& context, int workers)
    : Controller("cronjob", context, workers),
      cronjobs_(context.informers.For(api::Kind::kCronJob)),
      jobs_(context.informers.For(api::Kind::kJob)),
      events_(context.events, {"cronjob-controller", ""}) {
  auto enqueue = [this](const api::ObjectPtr& cj) { Enqueue(client::ObjectKey(*cj)); };
  cronjobs_.AddHandlers({enqueue, enqueue, nullptr});
  // A Job's change wakes the CronJob that controls it.
  auto owner = [this](const api::ObjectPtr& job) {
    std::string_view name = ControllingCronJob(*job);
    if (!name.empty()) Enqueue(client::ObjectKey(job->namespace_name(), name));
  };
  jobs_.AddHandlers({owner, owner, owner});
}

Status CronJobController::Reconcile(const std::string& key) {
  api::ObjectPtr cj = cronjobs_.Get(key);
  if (!cj) return Status::Ok();
  Sync s;
  s.cj = cj;
  s.key = key;
  for (const auto& job : jobs_.ByIndex(client::kOwnerUidIndex, cj->uid())) {
    if (ControllerUid(*job, kKind) == cj->uid()) s.jobs.push_back(job);
  }
  if (const json::object* status = api::StatusOf(*cj)) s.status = *status;
  CleanupFinishedJobs(s);
  Status synced = SyncCronJob(s);
  if (Status written = WriteStatus(s); !written.ok()) return written;
  if (!synced.ok()) return synced;
  if (s.requeue) EnqueueAfter(key, std::max(*s.requeue, std::chrono::milliseconds(0)));
  return Status::Ok();
}

Status CronJobController::WriteStatus(Sync& s) {
  const json::object* before = api::StatusOf(*s.cj);
  if (json::value(s.status) == (before ? json::value(*before) : json::value(json::object())))
    return Status::Ok();
  json::object next = ForUpdate(*s.cj);
  next["status"] = s.status;
  auto written = client_.UpdateStatus(api::Kind::kCronJob, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

bool CronJobController::DeleteJob(Sync& s, const api::Object& job) {
  Status deleted =
      client_.Delete(api::Kind::kJob, job.namespace_name(), job.name(),
                     {.propagation_policy = "Background", .uid_precondition = job.uid()});
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
    events_.Event(*s.cj, "Warning", "FailedDelete", "Deleted job: " + deleted.message());
    return false;
  }
  RemoveFromActive(s.status, job.uid());
  events_.Event(*s.cj, "Normal", "SuccessfulDelete", "Deleted job " + job.name());
  return true;
}

void CronJobController::CleanupFinishedJobs(Sync& s) {
  const json::object* spec = api::Spec(*s.cj);
  for (std::string_view outcome : {"Complete", "Failed"}) {
    const std::string_view limit_field =
        outcome == "Complete" ? "successfulJobsHistoryLimit" : "failedJobsHistoryLimit";
    const json::value* limit = spec ? spec->if_contains(limit_field) : nullptr;
    if (!limit || !limit->is_number()) continue;
    std::vector<api::ObjectPtr> finished;
    for (const auto& job : s.jobs) {
      if (FinishedAs(*job) == outcome && !api::BeingDeleted(*job)) finished.push_back(job);
    }
    const int64_t excess = static_cast<int64_t>(finished.size()) - limit->to_number<int64_t>();
    if (excess <= 0) continue;
    // Those that started first go first; never started ones last; then by name.
    std::sort(finished.begin(), finished.end(),
              [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
                auto ta = TimeAt(api::StatusOf(*a), "startTime"),
                     tb = TimeAt(api::StatusOf(*b), "startTime");
                if (ta.has_value() != tb.has_value()) return ta.has_value();
                if (ta && *ta != *tb) return *ta < *tb;
                return a->name() < b->name();
              });
    for (int64_t i = 0; i < excess; ++i) DeleteJob(s, *finished[i]);
  }
}

Status CronJobController::SyncCronJob(Sync& s) {
  const WallTime now = clock_.WallNow();
  const api::ObjectPtr read = s.cj;  // kept alive: s.cj may be replaced by a fresher copy below
  const api::Object& cj = *read;
  if (Status synced = SyncActiveWithJobs(s, cj); !synced.ok()) return synced;
  if (Status dropped = DropMissingActiveJobs(s, cj); !dropped.ok()) return dropped;
  if (api::BeingDeleted(cj)) return Status::Ok();
  if (!LoadJobTimeZone(s, cj)) return Status::Ok();
  if (api::BoolAt(api::Spec(cj), "suspend")) return Status::Ok();
  if (!ParseSchedule(s, cj)) return Status::Ok();
  return StartDueJob(s, cj, now);
}

// Each Job seen against status.active: one not listed is re-read (our own
// status write may not be cached yet) or reported; a finished one leaves the
// list, a completed one moves lastSuccessfulTime.
Status CronJobController::SyncActiveWithJobs(Sync& s, const api::Object& cj) {
  for (const auto& job : s.jobs) {
    const bool found = InActive(s.status, "uid", job->uid());
    const std::string_view finished = FinishedAs(*job);
    if (!found && finished.empty()) {
      // Ours but not listed: perhaps our own status write is not cached yet.
      auto fresh = client_.Get(api::Kind::kCronJob, cj.namespace_name(), cj.name());
      if (!fresh.ok()) return fresh.status();
      const json::object* fresh_status = api::StatusOf(*fresh.value());
      if (fresh_status && InActive(*fresh_status, "uid", job->uid())) {
        s.cj = fresh.value();
        s.status = *fresh_status;
        continue;
      }
      events_.Event(cj, "Warning", "UnexpectedJob",
                    "Saw a job that the controller did not create or forgot: " + job->name());
    } else if (found && !finished.empty()) {
      RemoveFromActive(s.status, job->uid());
      events_.Event(cj, "Normal", "SawCompletedJob",
                    "Saw completed job: " + job->name() + ", status: " + std::string(finished));
    }
    if (finished == "Complete") {
      auto completed = TimeAt(api::StatusOf(*job), "completionTime");
      auto last = TimeAt(&s.status, "lastSuccessfulTime");
      if (completed && (!last || *completed > *last))
        s.status["lastSuccessfulTime"] = api::FormatRfc3339(*completed);
    }
  }
  return Status::Ok();
}

// Active Jobs gone from the cache: gone for good only if the API agrees.
Status CronJobController::DropMissingActiveJobs(Sync& s, const api::Object& cj) {
  const json::array* active = api::ArrayAt(s.status, "active");
  if (!active) return Status::Ok();
  std::vector<std::pair<std::string, std::string>> missing;  // name, uid
  for (const auto& ref : *active) {
    if (!ref.is_object()) continue;
    std::string_view uid = api::StringAt(ref.get_object(), "uid");
    bool child = std::any_of(s.jobs.begin(), s.jobs.end(),
                             [&](const api::ObjectPtr& j) { return j->uid() == uid; });
    if (!child) missing.emplace_back(api::StringAt(ref.get_object(), "name"), uid);
  }
  for (const auto& [name, uid] : missing) {
    auto got = client_.Get(api::Kind::kJob, cj.namespace_name(), name);
    if (got.ok()) continue;
    if (got.status().code() != StatusCode::kNotFound) return got.status();
    events_.Event(cj, "Normal", "MissingJob", "Active job went missing: " + name);
    RemoveFromActive(s.status, uid);
  }
  return Status::Ok();
}

// s.job_zone from spec.timeZone, UTC without one; false (UnknownTimeZone
// recorded) when it names no zone.
bool CronJobController::LoadJobTimeZone(Sync& s, const api::Object& cj) {
  const json::object* spec = api::Spec(cj);
  s.job_zone = TimeZone::Utc();
  if (const json::value* tz = spec ? spec->if_contains("timeZone") : nullptr;
      tz && tz->is_string()) {
    auto zone = TimeZone::Load(tz->get_string());
    if (!zone.ok()) {
      events_.Event(cj, "Warning", "UnknownTimeZone",
                    "invalid timeZone: \"" + std::string(tz->get_string()) +
                        "\": " + zone.status().message());
      return false;
    }
    s.job_zone = zone.value();
  }
  return true;
}

// s.schedule from spec.schedule and s.zone it is read in (its TZ= prefix,
// else s.job_zone); false (UnparseableSchedule recorded) when either fails.
bool CronJobController::ParseSchedule(Sync& s, const api::Object& cj) {
  const std::string_view schedule_text = api::StringAt(api::Spec(cj), "schedule");
  if (schedule_text.find("TZ") != std::string_view::npos) {
    events_.Event(cj, "Warning", "UnsupportedSchedule",
                  "CRON_TZ or TZ used in schedule \"" + std::string(schedule_text) +
                      "\" is not officially supported, see "
                      "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for "
                      "more details");
  }
  auto schedule = api::ParseCronSchedule(schedule_text);
  std::shared_ptr<const TimeZone> zone = s.job_zone;
  if (schedule.ok() && !schedule->time_zone.empty()) {
    auto prefixed = TimeZone::Load(schedule->time_zone);
    if (prefixed.ok()) {
      zone = prefixed.value();
    } else {
      schedule = prefixed.status();
    }
  }
  if (!schedule.ok()) {
    events_.Event(cj, "Warning", "UnparseableSchedule",
                  "unparseable schedule: \"" + std::string(schedule_text) +
                      "\" : " + schedule.status().message());
    return false;
  }
  s.schedule = *schedule;
  s.zone = zone;
  return true;
}

// The most recent activation due by `now` starts a Job unless it is past
// startingDeadlineSeconds, already started, or concurrencyPolicy Forbid holds
// it back; either way s.requeue waits for the next activation.
Status CronJobController::StartDueJob(Sync& s, const api::Object& cj, WallTime now) {
  const json::object* spec = api::Spec(cj);
  const json::object* meta = api::Metadata(cj);
  const WallTime created = TimeAt(meta, "creationTimestamp").value_or(now);
  const std::optional<WallTime> last = TimeAt(&s.status, "lastScheduleTime");
  std::optional<std::chrono::seconds> deadline;
  if (const json::value* d = spec ? spec->if_contains("startingDeadlineSeconds") : nullptr;
      d && d->is_number()) {
    deadline = std::chrono::seconds(d->to_number<int64_t>());
  }
  auto requeue = [&] { s.requeue = NextScheduleDelay(s.schedule, *s.zone, created, last, now); };

  auto window = MostRecentScheduleTime(s.schedule, *s.zone, created, last, deadline, now);
  if (!window.ok()) {
    events_.Event(cj, "Warning", "InvalidSchedule",
                  "invalid schedule: " + std::string(api::StringAt(spec, "schedule")) + " : " +
                      window.status().message());
    return Status::Ok();
  }
  if (!window->most_recent) {
    requeue();
    return Status::Ok();
  }
  const WallTime scheduled = *window->most_recent;
  if (window->missed == MissedSchedules::kMany) {
    events_.Event(cj, "Warning", "TooManyMissedTimes",
                  "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or "
                  "check clock skew");
  }
  if (deadline && scheduled + *deadline < now) {
    events_.Event(cj, "Warning", "MissSchedule",
                  "Missed scheduled time to start a job: " + FormatRfc1123Z(scheduled));
    requeue();
    return Status::Ok();
  }
  const int64_t minutes =
      std::chrono::duration_cast<std::chrono::minutes>(scheduled.time_since_epoch()).count();
  const std::string job_name = cj.name() + "-" + std::to_string(minutes);
  if (InActive(s.status, "name", job_name) || (last && *last == scheduled)) {
    requeue();
    return Status::Ok();
  }
  const std::string_view policy = api::StringAt(spec, "concurrencyPolicy");
  if (policy == "Forbid" && api::ArrayAt(s.status, "active") &&
      !api::ArrayAt(s.status, "active")->empty()) {
    events_.Event(
        cj, "Normal", "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid");
    requeue();
    return Status::Ok();
  }
  if (policy == "Replace") {
    if (Status replaced = DeleteActiveJobs(s, cj); !replaced.ok()) return replaced;
  }
  return CreateScheduledJob(s, cj, job_name, scheduled, created, now);
}

// concurrencyPolicy Replace: every active Job goes before the next starts.
Status CronJobController::DeleteActiveJobs(Sync& s, const api::Object& cj) {
  std::vector<std::string> names;
  if (const json::array* active = api::ArrayAt(s.status, "active")) {
    for (const auto& ref : *active) {
      if (ref.is_object()) names.emplace_back(api::StringAt(ref.get_object(), "name"));
    }
  }
  for (const auto& name : names) {
    auto job = client_.Get(api::Kind::kJob, cj.namespace_name(), name);
    if (!job.ok()) {
      events_.Event(cj, "Warning", "FailedGet", "Get job: " + job.status().message());
      return job.status();
    }
    if (!DeleteJob(s, *job.value())) {
      return Status::Internal("could not replace job " + cj.namespace_name() + "/" + name);
    }
  }
  return Status::Ok();
}

// Creates `job_name` from the template for the activation at `scheduled` and
// lists it in status.active (also when an earlier create of ours went
// unrecorded), then waits for the activation after it.
Status CronJobController::CreateScheduledJob(Sync& s, const api::Object& cj,
                                             const std::string& job_name, WallTime scheduled,
                                             WallTime created, WallTime now) {
  auto created_job =
      client_.Create(api::Kind::kJob, cj.namespace_name(),
                     JobFromTemplate(cj, job_name, FormatRfc3339In(*s.job_zone, scheduled)));
  api::ObjectPtr job_object;
  if (created_job.ok()) {
    job_object = created_job.value();
    events_.Event(cj, "Normal", "SuccessfulCreate", "Created job " + job_name);
  } else if (created_job.status().code() == StatusCode::kAlreadyExists) {
    // Created before, but the status write that should have followed was lost.
    auto existing = client_.Get(api::Kind::kJob, cj.namespace_name(), job_name);
    if (!existing.ok()) return existing.status();
    job_object = existing.value();
    if (ControllerUid(*job_object, kKind) != cj.uid()) return Status::Ok();  // someone else's
    if (InActive(s.status, "uid", job_object->uid())) return Status::Ok();
  } else if (created_job.status().code() == StatusCode::kForbidden) {
    return created_job.status();  // the namespace is terminating: nothing can be created
  } else {
    events_.Event(cj, "Warning", "FailedCreate",
                  "Error creating job: " + created_job.status().message());
    return created_job.status();
  }
  api::MutableArray(s.status, "active").push_back(JobReference(*job_object));
  s.status["lastScheduleTime"] = api::FormatRfc3339(scheduled);
  s.requeue = NextScheduleDelay(s.schedule, *s.zone, created, scheduled, now);
  return Status::Ok();
}

}  // namespace berth::controllers
