#include "controllers/job/job_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "controllers/job/job_sync.h"
#include "controllers/job/pod_failure_policy.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "Job";
// How soon a sync that found the informer behind the Job's last status write looks again.
constexpr std::chrono::milliseconds kStaleRetry{20};
// Work-queue keys of pods whose tracking finalizer must come off although no
// running Job counts them (their Job is gone or finished). ':' never occurs
// in a Job key.
constexpr std::string_view kOrphanPodPrefix = "orphan-pod:";

const json::object* FindCondition(const json::object& status, std::string_view type) {
  const json::array* conditions = api::ArrayAt(status, "conditions");
  if (!conditions) return nullptr;
  for (const auto& c : *conditions) {
    if (c.is_object() && api::StringAt(c.get_object(), "type") == type) return &c.get_object();
  }
  return nullptr;
}

bool ConditionTrue(const json::object& status, std::string_view type) {
  const json::object* c = FindCondition(status, type);
  return c && api::StringAt(*c, "status") == "True";
}

json::object NewCondition(std::string_view type, std::string_view status, const std::string& reason,
                          const std::string& message, const std::string& now) {
  json::object c{
      {"type", type}, {"status", status}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

// kube's ensureJobConditionStatus: replaces the condition of that type when
// its status, reason or message differ; appends it unless the new status is
// False. True when anything changed.
bool EnsureCondition(json::object& status, std::string_view type, std::string_view value,
                     const std::string& reason, const std::string& message,
                     const std::string& now) {
  json::array& conditions = api::MutableArray(status, "conditions");
  for (auto& c : conditions) {
    if (!c.is_object() || api::StringAt(c.get_object(), "type") != type) continue;
    const json::object& o = c.get_object();
    if (api::StringAt(o, "status") == value && api::StringAt(o, "reason") == reason &&
        api::StringAt(o, "message") == message) {
      return false;
    }
    c = NewCondition(type, value, reason, message, now);
    return true;
  }
  if (value == "False") {
    if (conditions.empty()) status.erase("conditions");
    return false;
  }
  conditions.push_back(NewCondition(type, value, reason, message, now));
  return true;
}

// The Job's pod selector: spec.selector or, when it has none, the
// batch.kubernetes.io/controller-uid=<uid> kube's API server generates for
// every Job (berth's does not yet); the Job's pods carry that label.
api::LabelSelector JobSelector(const api::Object& job) {
  const json::object* spec = api::Spec(job);
  if (spec && spec->contains("selector")) return OwnerSelector(job);
  auto generated = api::LabelSelector::FromJson(
      json::object{{"matchLabels", json::object{{job::kControllerUidLabel, job.uid()}}}});
  return generated.ok() ? std::move(generated).value() : api::LabelSelector::Nothing();
}

bool IsFinished(const api::Object& job) {
  const json::object* status = api::StatusOf(job);
  return status && (ConditionTrue(*status, "Complete") || ConditionTrue(*status, "Failed"));
}

// kube's pastBackoffLimitOnFailure: restarts of the containers of running
// and pending pods, for restartPolicy OnFailure.
bool PastBackoffLimitOnFailure(const JobController::Sync& s) {
  const json::object* pod_spec = api::ObjectAt(api::ObjectAt(s.spec, "template"), "spec");
  if (api::StringAt(pod_spec, "restartPolicy") != "OnFailure") return false;
  int64_t restarts = 0;
  for (const auto& pod : s.pods) {
    const std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
    if (phase != "Running" && phase != "Pending") continue;
    for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
      if (const json::array* statuses = api::ArrayAt(api::StatusOf(*pod), list)) {
        for (const auto& c : *statuses) {
          if (c.is_object()) restarts += api::IntAt(&c.get_object(), "restartCount");
        }
      }
    }
  }
  return s.backoff_limit == 0 ? restarts > 0 : restarts >= s.backoff_limit;
}

}  // namespace

JobController::JobController(const ControllerContext& context, int workers)
    : Controller("job", context, workers),
      jobs_(context.informers.For(api::Kind::kJob)),
      pods_(context.informers.For(api::Kind::kPod)),
      expectations_(clock_),
      events_(context.events, {"job-controller", ""}) {
  jobs_.AddHandlers({[this](const api::ObjectPtr& j) { JobEvent(j, false); },
                     [this](const api::ObjectPtr& j) { JobEvent(j, false); },
                     [this](const api::ObjectPtr& j) { JobEvent(j, true); }});
  pods_.AddHandlers({[this](const api::ObjectPtr& p) { PodEvent(p, PodChange::kAdded); },
                     [this](const api::ObjectPtr& p) { PodEvent(p, PodChange::kUpdated); },
                     [this](const api::ObjectPtr& p) { PodEvent(p, PodChange::kDeleted); }});
}

void JobController::JobEvent(const api::ObjectPtr& job, bool deleted) {
  const std::string key = client::ObjectKey(*job);
  bool spec_changed = true;
  {
    std::lock_guard lock(mu_);
    if (deleted) {
      generations_.erase(key);
    } else {
      auto [it, inserted] = generations_.try_emplace(key, api::Generation(*job));
      spec_changed = inserted || it->second != api::Generation(*job);
      it->second = api::Generation(*job);
    }
  }
  // Its pods' finalizers come off now: no sync of a deleted Job will.
  if (deleted) EnqueueOrphanPods(*job);
  // Creation, deletion and spec changes sync at once; status writes are batched.
  if (spec_changed) {
    Enqueue(key);
  } else {
    EnqueueAfter(key, kSyncBatchPeriod);
  }
}

void JobController::PodEvent(const api::ObjectPtr& pod, PodChange change) {
  const std::string owner = LiveControllerKey(*pod, kKind, jobs_);
  const std::string pod_key = client::ObjectKey(*pod);
  if (owner.empty()) {
    if (change == PodChange::kDeleted) return;
    // A pod of a Job that is gone keeps the finalizer until someone removes it.
    if (job::HasTrackingFinalizer(*pod)) Enqueue(std::string(kOrphanPodPrefix) + pod_key);
    // An orphan: the Jobs selecting it may adopt it.
    if (!HasControllerRef(*pod) && !api::BeingDeleted(*pod)) {
      for (const auto& key : SelectingJobs(*pod)) EnqueueAfter(key, kSyncBatchPeriod);
    }
    return;
  }
  if (change == PodChange::kDeleted || api::BeingDeleted(*pod)) {
    expectations_.DeletionObserved(owner, pod_key);
  } else if (change == PodChange::kAdded) {
    expectations_.CreationObserved(owner);
  }
  if (change == PodChange::kDeleted || !job::HasTrackingFinalizer(*pod))
    RemovalObserved(owner, pod->uid());
  EnqueueAfter(owner, kSyncBatchPeriod);
}

std::vector<std::string> JobController::SelectingJobs(const api::Object& pod) {
  // Jobs with a spec.selector, found as every owner is.
  std::vector<std::string> keys = SelectingOwners(pod, jobs_);
  // A Job without one selects its pods by the controller-uid label; job-name names it.
  const auto uid = pod.labels().Get(job::kControllerUidLabel);
  const auto name = pod.labels().Get(job::kJobNameLabel);
  if (!uid || !name) return keys;
  api::ObjectPtr job = jobs_.Get(client::ObjectKey(pod.namespace_name(), *name));
  const json::object* spec = job ? api::Spec(*job) : nullptr;
  if (job && job->uid() == *uid && !(spec && spec->contains("selector")))
    keys.push_back(client::ObjectKey(*job));
  return keys;
}

void JobController::EnqueueOrphanPods(const api::Object& job) {
  for (const auto& pod : pods_.ByIndex(client::kOwnerUidIndex, job.uid())) {
    if (ControllerUid(*pod, kKind) == job.uid() && job::HasTrackingFinalizer(*pod))
      Enqueue(std::string(kOrphanPodPrefix) + client::ObjectKey(*pod));
  }
}

std::unordered_set<std::string> JobController::ExpectedRemovals(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = removals_.find(key);
  return it == removals_.end() ? std::unordered_set<std::string>() : it->second;
}

void JobController::ExpectRemoval(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  removals_[key].insert(uid);
}

void JobController::RemovalObserved(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = removals_.find(key);
  if (it == removals_.end()) return;
  it->second.erase(uid);
  if (it->second.empty()) removals_.erase(it);
}

Status JobController::CleanUpFinishedJob(const api::Object& job) {
  Status first;
  for (const auto& pod : pods_.ByIndex(client::kOwnerUidIndex, job.uid())) {
    if (ControllerUid(*pod, kKind) != job.uid() || !job::HasTrackingFinalizer(*pod)) continue;
    if (Status s = RemoveFinalizer(*pod); !s.ok() && first.ok()) first = s;
  }
  return first;
}

namespace {

// What the sync reads of the Job's spec: completions, parallelism, the
// limits, the completion mode, suspend and the failure policy.
void ReadSpec(JobController::Sync& s, const json::object* spec, std::string_view mode) {
  if (spec && spec->contains("completions") && (*spec).at("completions").is_number()) {
    s.completions = api::IntAt(spec, "completions");
  }
  s.parallelism = api::IntAt(spec, "parallelism", 1);
  s.backoff_limit = api::IntAt(spec, "backoffLimit", 6);
  s.indexed = mode == "Indexed" && s.completions;
  s.per_index = s.indexed && spec->contains("backoffLimitPerIndex");
  s.backoff_limit_per_index = api::IntAt(spec, "backoffLimitPerIndex");
  if (s.per_index && spec->contains("maxFailedIndexes"))
    s.max_failed_indexes = api::IntAt(spec, "maxFailedIndexes");
  s.suspended = api::BoolAt(spec, "suspend");
  s.failure_policy = api::ObjectAt(spec, "podFailurePolicy");
  s.only_replace_failed =
      s.failure_policy || api::StringAt(spec, "podReplacementPolicy") == "Failed";
}

// Finished pods not counted yet (kube's getNewFinishedPods).
void FindNewFinishedPods(const JobController::Sync& s, std::vector<api::ObjectPtr>& new_succeeded,
                         std::vector<api::ObjectPtr>& new_failed) {
  for (const auto& pod : s.pods) {
    const std::string uid = pod->uid();
    if (!job::HasTrackingFinalizer(*pod) || s.uncounted_succeeded.count(uid) ||
        s.uncounted_failed.count(uid) || s.expected_removals.count(uid)) {
      continue;
    }
    if (s.indexed) {
      auto ix = job::CompletionIndex(*pod);
      if (!ix || *ix >= *s.completions) continue;
    }
    if (api::StringAt(api::StatusOf(*pod), "phase") == "Succeeded") {
      new_succeeded.push_back(pod);
    } else if (job::IsPodFailed(*pod, s.only_replace_failed)) {
      new_failed.push_back(pod);
    }
  }
}

// s.succeeded and s.failed: the status' counters, the uncounted pods and
// the new finished ones (failures as the pod failure policy counts them).
void CountSucceededAndFailed(JobController::Sync& s, const std::vector<api::ObjectPtr>& new_succeeded,
                             const std::vector<api::ObjectPtr>& new_failed) {
  int64_t counted_failures = 0;
  for (const auto& pod : new_failed)
    counted_failures += job::MatchPodFailurePolicy(s.failure_policy, *pod).count;
  s.succeeded = api::IntAt(&s.status, "succeeded") +
                static_cast<int64_t>(new_succeeded.size() + s.uncounted_succeeded.size());
  s.failed = api::IntAt(&s.status, "failed") + counted_failures +
             static_cast<int64_t>(s.uncounted_failed.size());
}

}  // namespace

Status JobController::Reconcile(const std::string& key) {
  if (key.starts_with(kOrphanPodPrefix)) return ReconcileOrphanPod(key);
  api::ObjectPtr job = jobs_.Get(key);
  if (!job) {
    ForgetJob(key);
    return Status::Ok();
  }
  if (AwaitsOwnStatusWrite(key, *job)) return Status::Ok();
  if (IsFinished(*job)) {
    {
      std::lock_guard lock(mu_);
      backoff_.erase(key);
    }
    return CleanUpFinishedJob(*job);
  }
  const json::object* spec = api::Spec(*job);
  const std::string_view mode = api::StringAt(spec, "completionMode");
  if (!mode.empty() && mode != "NonIndexed" && mode != "Indexed") {
    events_.Event(*job, "Warning", "UnknownCompletionMode",
                  "Skipped Job sync because completion mode is unknown");
    return Status::Ok();
  }

  Sync s;
  s.key = key;
  s.job = job;
  s.spec = spec;
  s.resource_version = job->resource_version();
  if (const json::object* status = api::StatusOf(*job)) s.status = *status;
  s.written = s.status;
  s.wall_now = clock_.WallNow();
  s.now = api::FormatRfc3339(s.wall_now);
  ReadSpec(s, spec, mode);
  s.satisfied = expectations_.Satisfied(key);
  s.expected_removals = ExpectedRemovals(key);
  if (!s.status.contains("uncountedTerminatedPods"))
    s.status["uncountedTerminatedPods"] = json::object();
  s.uncounted_succeeded = job::UncountedUids(s.status, "succeeded");
  s.uncounted_failed = job::UncountedUids(s.status, "failed");
  if (Status claimed = ClaimPods(s); !claimed.ok()) return claimed;

  std::vector<api::ObjectPtr> new_succeeded, new_failed;
  FindNewFinishedPods(s, new_succeeded, new_failed);
  CountSucceededAndFailed(s, new_succeeded, new_failed);

  // First start; a suspended Job has not started.
  if (!s.status.contains("startTime") && !s.suspended) s.status["startTime"] = s.now;
  {
    std::lock_guard lock(mu_);
    s.backoff = job::NextBackoffRecord(backoff_[key], new_succeeded, new_failed, s.wall_now);
  }

  DecideFinished(s);
  Status manage = FinishOrManage(s);
  job::SetCounter(s.status, "active", s.active_count);
  s.status["ready"] = s.ready;
  s.status["terminating"] = s.terminating;
  if (Status tracked = TrackStatusAndRemoveFinalizers(s, false); !tracked.ok()) return tracked;
  return manage;
}

Status JobController::ReconcileOrphanPod(const std::string& key) {
  api::ObjectPtr pod = pods_.Get(key.substr(kOrphanPodPrefix.size()));
  if (!pod || !job::HasTrackingFinalizer(*pod)) return Status::Ok();
  // Another kind's pod: not the Job controller's to change.
  if (HasControllerRef(*pod) && ControllerUid(*pod, kKind).empty()) return Status::Ok();
  if (std::string owner = LiveControllerKey(*pod, kKind, jobs_); !owner.empty()) {
    auto job = jobs_.Get(owner);
    if (job && !IsFinished(*job)) return Status::Ok();  // its Job counts it
  }
  return RemoveFinalizer(*pod);
}

void JobController::ForgetJob(const std::string& key) {
  expectations_.Forget(key);
  std::lock_guard lock(mu_);
  removals_.erase(key);
  backoff_.erase(key);
  written_versions_.erase(key);
}

bool JobController::AwaitsOwnStatusWrite(const std::string& key, const api::Object& job) {
  std::lock_guard lock(mu_);
  auto written = written_versions_.find(key);
  if (written == written_versions_.end()) return false;
  if (job.resource_version() < written->second) {
    // Our own write is on its way to the informer: look again shortly.
    EnqueueAfter(key, kStaleRetry);
    return true;
  }
  written_versions_.erase(written);
  return false;
}

Status JobController::ClaimPods(Sync& s) {
  auto claimed = ClaimDependents(client_, pods_, *s.job, JobSelector(*s.job), nullptr, nullptr,
                                 job::kTrackingFinalizer);
  if (!claimed.ok()) return claimed.status();
  for (const auto& pod : claimed.value()) {
    s.pods.push_back(pod);
    const std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
    if (api::IsPodActive(*pod)) {
      s.active.push_back(pod);
      if (api::IsPodReady(*pod)) ++s.ready;
    } else if (api::BeingDeleted(*pod) && phase != "Succeeded" && phase != "Failed") {
      ++s.terminating;
    }
  }
  s.active_count = static_cast<int64_t>(s.active.size());
  return Status::Ok();
}

void JobController::DecideFinished(Sync& s) {
  if (const json::object* met = FindCondition(s.status, "SuccessCriteriaMet");
      met && api::StringAt(*met, "status") == "True") {
    s.finished = job::Condition{"SuccessCriteriaMet", std::string(api::StringAt(*met, "reason")),
                                std::string(api::StringAt(*met, "message"))};
  } else if (const json::object* target = FindCondition(s.status, "FailureTarget");
             target && api::StringAt(*target, "status") == "True") {
    s.finished = job::Condition{"Failed", std::string(api::StringAt(*target, "reason")),
                                std::string(api::StringAt(*target, "message"))};
  } else {
    for (const auto& pod : s.pods) {
      if (!s.failure_policy || !job::IsPodFailed(*pod, s.only_replace_failed)) continue;
      if (auto d = job::MatchPodFailurePolicy(s.failure_policy, *pod); d.fail_job_message) {
        s.finished = job::Condition{"FailureTarget", "PodFailurePolicy", *d.fail_job_message};
        break;
      }
    }
  }
  if (!s.finished) {
    const int64_t deadline = api::IntAt(s.spec, "activeDeadlineSeconds", -1);
    auto started = api::ParseRfc3339(api::StringAt(s.status, "startTime"));
    if (s.failed > s.backoff_limit || PastBackoffLimitOnFailure(s)) {
      s.finished = job::Condition{"FailureTarget", "BackoffLimitExceeded",
                                  "Job has reached the specified backoff limit"};
    } else if (deadline >= 0 && started && !s.suspended) {
      const auto allowed = std::chrono::seconds(deadline);
      const auto ran = clock_.WallNow() - *started;
      if (ran >= allowed) {
        s.finished = job::Condition{"FailureTarget", "DeadlineExceeded",
                                    "Job was active longer than specified deadline"};
      } else {
        EnqueueAfter(s.key, std::chrono::ceil<std::chrono::milliseconds>(allowed - ran));
      }
    }
  }
  if (s.indexed) {
    s.previous_indexes =
        job::IndexSet::Parse(api::StringAt(s.status, "completedIndexes"), *s.completions);
    s.succeeded_indexes = s.previous_indexes;
    for (const auto& pod : s.pods) {
      auto ix = job::CompletionIndex(*pod);
      if (ix && *ix < *s.completions && job::HasTrackingFinalizer(*pod) &&
          api::StringAt(api::StatusOf(*pod), "phase") == "Succeeded") {
        s.succeeded_indexes.Add(*ix);
      }
    }
    s.succeeded = s.succeeded_indexes.Count();
    if (s.per_index) {
      job::ComputeFailedIndexes(s);
      const int64_t failed_indexes = s.failed_indexes.Count();
      if (!s.finished && s.max_failed_indexes && failed_indexes > *s.max_failed_indexes) {
        s.finished =
            job::Condition{"FailureTarget", "MaxFailedIndexesExceeded",
                           "Job has exceeded the specified maximal number of failed indexes"};
      } else if (!s.finished && failed_indexes > 0 &&
                 failed_indexes + s.succeeded >= *s.completions) {
        s.finished = job::Condition{"FailureTarget", "FailedIndexes", "Job has failed indexes"};
      }
      job::ComputeDelayedDeletion(s);
    }
  }
}

Status JobController::FinishOrManage(Sync& s) {
  Status manage;
  if (s.finished) {
    // A finishing Job's active pods go; it is not finished while any may still count.
    const int64_t deleted = DeletePods(s, s.active, /*remove_finalizer=*/false, manage);
    if (deleted != s.active_count || !s.satisfied) s.finished.reset();
    s.active_count -= deleted;
    s.terminating += deleted;
  } else {
    bool managed = false;
    if (s.satisfied && !api::BeingDeleted(*s.job)) {
      manage = ManagePods(s);
      managed = true;
    }
    const bool complete = s.completions ? s.succeeded >= *s.completions && s.active_count == 0
                                        : s.succeeded > 0 && s.active_count == 0;
    if (complete) {
      s.finished = job::Condition{"SuccessCriteriaMet", "CompletionsReached",
                                  "Reached expected number of succeeded pods"};
    } else if (managed && s.suspended) {
      if (EnsureCondition(s.status, "Suspended", "True", "JobSuspended", "Job suspended", s.now)) {
        events_.Event(*s.job, "Normal", "Suspended", "Job suspended");
      }
    } else if (managed) {
      if (EnsureCondition(s.status, "Suspended", "False", "JobResumed", "Job resumed", s.now)) {
        events_.Event(*s.job, "Normal", "Resumed", "Job resumed");
        // The deadline counts the time the Job is continuously active.
        s.status["startTime"] = s.now;
      }
    }
  }
  return manage;
}

}  // namespace berth::controllers
