#pragma once
// What one reconcile of a Job knows and decides, shared by the Job
// controller's files (job_controller.cc: counting and conditions;
// job_pods.cc: creating and deleting pods). Internal to the controller.

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "api/object.h"
#include "controllers/job/backoff.h"
#include "controllers/job/indexes.h"
#include "controllers/job/job_controller.h"

namespace berth::controllers {

namespace job {

inline constexpr char kTrackingFinalizer[] = "batch.kubernetes.io/job-tracking";
inline constexpr char kControllerUidLabel[] = "batch.kubernetes.io/controller-uid";
inline constexpr char kJobNameLabel[] = "batch.kubernetes.io/job-name";
inline constexpr char kLegacyControllerUidLabel[] = "controller-uid";
inline constexpr char kLegacyJobNameLabel[] = "job-name";
inline constexpr char kIndexFailureCountAnnotation[] =
    "batch.kubernetes.io/job-index-failure-count";
inline constexpr char kIndexIgnoredFailureCountAnnotation[] =
    "batch.kubernetes.io/job-index-ignored-failure-count";

struct Condition {
  std::string type, reason, message;
};

bool HasTrackingFinalizer(const api::Object& pod);
// The uids in status.uncountedTerminatedPods.`list` ("succeeded", "failed").
std::unordered_set<std::string> UncountedUids(const boost::json::object& status,
                                              std::string_view list);
// status[field] = value, or no field for 0 (kube's omitempty counters).
void SetCounter(boost::json::object& status, std::string_view field, int64_t value);
// kube's isPodFailed: phase Failed, or (unless only failed pods are
// replaced) being deleted without having succeeded.
bool IsPodFailed(const api::Object& pod, bool only_replace_failed);

}  // namespace job

namespace job {

// backoffLimitPerIndex (job_per_index.cc). Failed indexes: those of
// status.failedIndexes and of uncounted failed pods past the limit (or
// matching a FailIndex rule).
void ComputeFailedIndexes(JobController::Sync& s);
void ComputeDelayedDeletion(JobController::Sync& s);
// The failure-count annotations a replacement pod for `index` carries.
void AddIndexFailureCounts(const JobController::Sync& s, int64_t index,
                           boost::json::object& annotations);
// How long `index` still waits before its replacement (per-index backoff).
std::chrono::nanoseconds IndexBackoff(const JobController::Sync& s, int64_t index,
                                      std::chrono::system_clock::time_point now);

}  // namespace job

struct JobController::Sync {
  std::string key;
  api::ObjectPtr job;
  const boost::json::object* spec = nullptr;
  boost::json::object status;    // being built
  boost::json::object written;   // the status last read or written
  int64_t resource_version = 0;  // of the Job version last read or written

  std::optional<int64_t> completions;  // unset: a work-queue Job
  int64_t parallelism = 1;
  int64_t backoff_limit = 6;
  bool indexed = false;
  bool suspended = false;
  bool only_replace_failed = false;  // podReplacementPolicy Failed (or a podFailurePolicy)
  const boost::json::object* failure_policy = nullptr;
  bool satisfied = true;  // creation/deletion expectations met

  std::vector<api::ObjectPtr> pods;    // owned
  std::vector<api::ObjectPtr> active;  // owned, neither finished nor being deleted
  int64_t active_count = 0, ready = 0, terminating = 0, succeeded = 0, failed = 0;
  std::unordered_set<std::string> uncounted_succeeded, uncounted_failed, expected_removals;
  job::IndexSet previous_indexes, succeeded_indexes;
  job::BackoffRecord backoff;
  // The terminal condition this sync moves towards (interim type first).
  std::optional<job::Condition> finished;

  // backoffLimitPerIndex (Indexed Jobs; job_per_index.cc).
  bool per_index = false;
  int64_t backoff_limit_per_index = 0;
  std::optional<int64_t> max_failed_indexes;
  job::IndexSet failed_indexes;
  // Per index without a running pod, the failed pod whose finalizer stays
  // until its replacement exists: the replacement's failure count comes from it.
  std::map<int64_t, api::ObjectPtr> delayed_deletion;
  std::string now;  // RFC 3339
  std::chrono::system_clock::time_point wall_now;
};

}  // namespace berth::controllers
