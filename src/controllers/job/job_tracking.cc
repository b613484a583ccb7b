// The Job controller's counting of finished pods (kube's
// trackJobStatusAndRemoveFinalizers): record finished pods' uids in
// status.uncountedTerminatedPods, remove their tracking finalizers, move the
// uids into the counters, and add the terminal condition once nothing is
// left uncounted or terminating.

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/job/job_sync.h"
#include "controllers/job/pod_failure_policy.h"
#include "controllers/parallel.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

void UncountedPush(JobController::Sync& s, std::string_view list, const std::string& uid) {
  api::MutableArray(api::MutableObject(s.status, "uncountedTerminatedPods"), list)
      .emplace_back(uid);
}

// Moves the uids of uncountedTerminatedPods.`list` whose pods no longer hold
// the finalizer into the counter `field`. True when anything moved.
bool CountRemoved(json::object& status, std::string_view list, std::string_view field,
                  const std::unordered_set<std::string>& with_finalizer) {
  json::object& uncounted = api::MutableObject(status, "uncountedTerminatedPods");
  auto it = uncounted.find(list);
  if (it == uncounted.end() || !it->value().is_array()) return false;
  json::array& uids = it->value().get_array();
  const size_t before = uids.size();
  api::EraseIf(uids, [&](const json::value& u) {
    return !u.is_string() || !with_finalizer.count(std::string(u.get_string()));
  });
  const auto moved = static_cast<int64_t>(before - uids.size());
  if (uids.empty()) uncounted.erase(list);
  if (moved == 0) return false;
  job::SetCounter(status, field, api::IntAt(&status, field) + moved);
  return true;
}

bool HasCondition(const json::object& status, std::string_view type) {
  const json::array* conditions = api::ArrayAt(status, "conditions");
  if (!conditions) return false;
  return std::any_of(conditions->begin(), conditions->end(), [&](const json::value& c) {
    return c.is_object() && api::StringAt(c.get_object(), "type") == type;
  });
}

json::object ConditionJson(const job::Condition& c, const std::string& now) {
  json::object o{
      {"type", c.type}, {"status", "True"}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
  if (!c.reason.empty()) o["reason"] = c.reason;
  if (!c.message.empty()) o["message"] = c.message;
  return o;
}

}  // namespace

namespace job {

std::unordered_set<std::string> UncountedUids(const json::object& status, std::string_view list) {
  std::unordered_set<std::string> out;
  const json::array* uids = api::ArrayAt(api::ObjectAt(status, "uncountedTerminatedPods"), list);
  if (!uids) return out;
  for (const auto& u : *uids) {
    if (u.is_string()) out.emplace(u.get_string());
  }
  return out;
}

void SetCounter(json::object& status, std::string_view field, int64_t value) {
  if (value == 0) {
    status.erase(field);  // omitempty
  } else {
    status[field] = value;
  }
}

}  // namespace job

Status JobController::WriteStatus(Sync& s) {
  json::object next = s.job->json();
  next["status"] = s.status;
  api::MutableObject(next, "metadata")["resourceVersion"] = std::to_string(s.resource_version);
  auto written = client_.UpdateStatus(api::Kind::kJob, next);
  if (!written.ok()) return written.status();
  s.resource_version = written.value()->resource_version();
  s.written = s.status;
  std::lock_guard lock(mu_);
  written_versions_[s.key] = s.resource_version;
  return Status::Ok();
}

namespace {

// Pods holding the finalizer, less those whose removal is on its way.
std::unordered_set<std::string> PodsWithFinalizer(const JobController::Sync& s) {
  std::unordered_set<std::string> with_finalizer;
  for (const auto& pod : s.pods) {
    if (job::HasTrackingFinalizer(*pod) && !s.expected_removals.count(pod->uid()))
      with_finalizer.insert(pod->uid());
  }
  return with_finalizer;
}

// The pods whose tracking finalizer comes off this sync; each is first
// recorded in uncountedTerminatedPods (an Indexed Job's succeeded ones count
// as new indexes instead). Stops at kMaxUncountedPods (`reached_max`).
// `needs_flush` when the status must be written before any removal.
std::vector<api::ObjectPtr> PickFinalizersToRemove(JobController::Sync& s, bool& needs_flush,
                                                   bool& reached_max) {
  std::vector<api::ObjectPtr> ordered = s.pods;
  if (s.indexed) {
    // Completed indexes are introduced in order.
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
                       return job::CompletionIndex(*a).value_or(INT64_MAX) <
                              job::CompletionIndex(*b).value_or(INT64_MAX);
                     });
  }
  std::vector<api::ObjectPtr> to_remove;
  std::unordered_set<std::string> uncounted_succeeded = job::UncountedUids(s.status, "succeeded");
  std::unordered_set<std::string> uncounted_failed = job::UncountedUids(s.status, "failed");
  const bool job_failing = s.finished && s.finished->type != "SuccessCriteriaMet";
  int64_t new_indexes = 0;
  for (const auto& pod : ordered) {
    const std::string uid = pod->uid();
    if (!job::HasTrackingFinalizer(*pod) || s.expected_removals.count(uid))
      continue;  // counted before
    const bool failed = job::IsPodFailed(*pod, s.only_replace_failed);
    const bool succeeded = api::StringAt(api::StatusOf(*pod), "phase") == "Succeeded";
    // The finalizer may come off a finished pod, or any pod of a finishing or deleted Job.
    if (!(api::BeingDeleted(*s.job) || s.finished || succeeded || failed)) continue;
    auto ix = job::CompletionIndex(*pod);
    if (!api::BeingDeleted(*s.job) && !s.finished && !succeeded && s.per_index && ix) {
      // Kept until its replacement carries the index's failure count.
      auto delayed = s.delayed_deletion.find(*ix);
      if (delayed != s.delayed_deletion.end() && delayed->second->uid() == uid) continue;
    }
    to_remove.push_back(pod);
    const bool valid_index = !s.indexed || (ix && *ix < *s.completions);
    if (succeeded && !uncounted_failed.count(uid)) {
      if (s.indexed) {
        if (valid_index && !s.previous_indexes.Contains(*ix)) {
          ++new_indexes;
          needs_flush = true;
        }
      } else if (uncounted_succeeded.insert(uid).second) {
        UncountedPush(s, "succeeded", uid);
        needs_flush = true;
      }
    } else if ((failed || job_failing) && valid_index && !uncounted_failed.count(uid)) {
      // Once the Job is failing every pod not yet finished counts as failed.
      if (job::MatchPodFailurePolicy(s.failure_policy, *pod).count) {
        uncounted_failed.insert(uid);
        UncountedPush(s, "failed", uid);
        needs_flush = true;
      }
    }
    const int64_t uncounted =
        new_indexes + static_cast<int64_t>(uncounted_succeeded.size() + uncounted_failed.size());
    if (uncounted >= JobController::kMaxUncountedPods) {
      // Bounded work per sync (and a bounded status); the rest next time, at once.
      reached_max = true;
      break;
    }
  }
  return to_remove;
}

// An Indexed Job's completedIndexes, succeeded count (and failedIndexes).
void SetIndexesInStatus(JobController::Sync& s) {
  std::string text = s.succeeded_indexes.String();
  if (text.empty()) {
    s.status.erase("completedIndexes");
  } else {
    s.status["completedIndexes"] = text;
  }
  job::SetCounter(s.status, "succeeded", s.succeeded_indexes.Count());
  if (s.per_index) s.status["failedIndexes"] = s.failed_indexes.String();
}

// Interim conditions are written before any finalizer comes off:
// FailureTarget (then Failed) and SuccessCriteriaMet (then Complete).
void AddInterimCondition(JobController::Sync& s) {
  if (s.finished && s.finished->type == "FailureTarget") {
    api::MutableArray(s.status, "conditions").push_back(ConditionJson(*s.finished, s.now));
    s.finished->type = "Failed";
  }
  if (s.finished && s.finished->type == "SuccessCriteriaMet") {
    if (!HasCondition(s.status, "SuccessCriteriaMet")) {
      api::MutableArray(s.status, "conditions").push_back(ConditionJson(*s.finished, s.now));
    }
    s.finished->type = "Complete";
  }
}

// Finished once every pod is counted and none is still terminating: the
// terminal condition (and completionTime). True when it was added now.
bool AddTerminalCondition(JobController::Sync& s, bool reached_max) {
  const json::object* uncounted = api::ObjectAt(s.status, "uncountedTerminatedPods");
  const bool all_counted =
      !api::ArrayAt(uncounted, "succeeded") && !api::ArrayAt(uncounted, "failed");
  if (!s.finished || reached_max || !all_counted || s.terminating != 0) return false;
  json::array& conditions = api::MutableArray(s.status, "conditions");
  bool replaced = false;
  for (auto& c : conditions) {
    if (c.is_object() && api::StringAt(c.get_object(), "type") == s.finished->type) {
      c = ConditionJson(*s.finished, s.now);
      replaced = true;
    }
  }
  if (!replaced) conditions.push_back(ConditionJson(*s.finished, s.now));
  if (s.finished->type == "Complete") s.status["completionTime"] = s.now;
  return true;
}

}  // namespace

Status JobController::TrackStatusAndRemoveFinalizers(Sync& s, bool needs_flush) {
  std::unordered_set<std::string> with_finalizer = PodsWithFinalizer(s);
  if (CountRemoved(s.status, "succeeded", "succeeded", with_finalizer)) needs_flush = true;
  if (CountRemoved(s.status, "failed", "failed", with_finalizer)) needs_flush = true;

  bool reached_max = false;
  const std::vector<api::ObjectPtr> to_remove = PickFinalizersToRemove(s, needs_flush, reached_max);
  if (reached_max) Enqueue(s.key);
  if (s.indexed) SetIndexesInStatus(s);
  AddInterimCondition(s);
  if (needs_flush || s.status != s.written) {
    if (Status w = WriteStatus(s); !w.ok()) return w;
    std::lock_guard lock(mu_);
    backoff_[s.key] = s.backoff;
  }

  // Finalizers off; the uids whose removal worked are counted.
  Status first = RemoveTrackingFinalizers(s, to_remove, with_finalizer);
  CountRemoved(s.status, "succeeded", "succeeded", with_finalizer);
  CountRemoved(s.status, "failed", "failed", with_finalizer);
  if (!first.ok()) {
    if (s.status != s.written) (void)WriteStatus(s);
    return first;
  }

  const bool finished_now = AddTerminalCondition(s, reached_max);
  if (s.status != s.written) {
    if (Status w = WriteStatus(s); !w.ok()) return w;
  }
  if (finished_now) RecordFinished(s);
  return Status::Ok();
}

Status JobController::RemoveTrackingFinalizers(Sync& s, const std::vector<api::ObjectPtr>& pods,
                                               std::unordered_set<std::string>& with_finalizer) {
  std::vector<Status> results(pods.size());
  for (const auto& pod : pods) ExpectRemoval(s.key, pod->uid());
  ParallelFor(static_cast<int64_t>(pods.size()), 16, [&](int64_t i) {
    const auto at = static_cast<size_t>(i);
    results[at] = RemoveFinalizer(*pods[at]);
    return results[at];
  });
  Status first;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (results[i].ok()) {
      with_finalizer.erase(pods[i]->uid());
    } else {
      RemovalObserved(s.key, pods[i]->uid());  // will not be seen
      if (first.ok()) first = results[i];
    }
  }
  return first;
}

void JobController::RecordFinished(const Sync& s) {
  if (s.finished->type == "Complete") {
    if (s.completions && api::IntAt(&s.status, "succeeded") > *s.completions) {
      events_.Event(*s.job, "Warning", "TooManySucceededPods",
                    "Too many succeeded pods running after completion count reached");
    }
    events_.Event(*s.job, "Normal", "Completed", "Job completed");
  } else {
    events_.Event(*s.job, "Warning", s.finished->reason, s.finished->message);
  }
}

}  // namespace berth::controllers
