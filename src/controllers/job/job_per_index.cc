// backoffLimitPerIndex as kube's Job controller applies it: each index of an
// Indexed Job has its own failure count, carried from a failed pod to its
// replacement in the batch.kubernetes.io/job-index-failure-count annotation
// (and job-index-ignored-failure-count for failures a podFailurePolicy
// Ignore rule matched). An index whose pod fails with the count at the limit,
// or matching a FailIndex rule, is failed (status.failedIndexes) and not run
// again; its own backoff delays each replacement.

#include <boost/json.hpp>
#include <charconv>

#include "api/json_fields.h"
#include "controllers/job/job_sync.h"
#include "controllers/job/pod_failure_policy.h"

namespace berth::controllers::job {

namespace json = boost::json;

namespace {

// An annotation holding a count; 0 when absent or not an int32 >= 0 (kube's parseInt32).
int64_t CountAnnotation(const api::Object& pod, std::string_view key) {
  const std::string_view text = api::Annotation(pod, key);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > INT32_MAX) {
    return 0;
  }
  return value;
}

int64_t AbsoluteFailureCount(const api::Object& pod) {
  return CountAnnotation(pod, kIndexFailureCountAnnotation) +
         CountAnnotation(pod, kIndexIgnoredFailureCountAnnotation);
}

bool ValidIndex(const JobController::Sync& s, const api::Object& pod, int64_t& index) {
  auto ix = CompletionIndex(pod);
  if (!ix || *ix >= *s.completions) return false;
  index = *ix;
  return true;
}

bool IsIndexFailed(const JobController::Sync& s, const api::Object& pod) {
  if (!IsPodFailed(pod, s.only_replace_failed)) return false;
  bool counted = true;
  if (s.failure_policy) {
    PodFailureDecision d = MatchPodFailurePolicy(s.failure_policy, pod);
    if (d.action == "FailIndex") return true;
    counted = d.count;
  }
  return counted && CountAnnotation(pod, kIndexFailureCountAnnotation) >= s.backoff_limit_per_index;
}

}  // namespace

void ComputeFailedIndexes(JobController::Sync& s) {
  s.failed_indexes = IndexSet::Parse(api::StringAt(s.status, "failedIndexes"), *s.completions);
  for (const auto& pod : s.pods) {
    int64_t ix;
    if (ValidIndex(s, *pod, ix) && HasTrackingFinalizer(*pod) && IsIndexFailed(s, *pod))
      s.failed_indexes.Add(ix);
  }
}

void ComputeDelayedDeletion(JobController::Sync& s) {
  IndexSet active;
  for (const auto& pod : s.active) {
    if (auto ix = CompletionIndex(*pod)) active.Add(*ix);
  }
  const auto now = s.wall_now;
  for (const auto& pod : s.pods) {
    int64_t ix;
    if (!HasTrackingFinalizer(*pod) || s.expected_removals.count(pod->uid()) ||
        !ValidIndex(s, *pod, ix) || !IsPodFailed(*pod, s.only_replace_failed)) {
      continue;
    }
    // Failed pods of an index that runs again (or is done) may go: the running pod has the count.
    if (s.succeeded_indexes.Contains(ix) || s.failed_indexes.Contains(ix) || active.Contains(ix))
      continue;
    auto [it, inserted] = s.delayed_deletion.try_emplace(ix, pod);
    if (inserted) continue;
    const api::Object& last = *it->second;
    if (AbsoluteFailureCount(last) <= AbsoluteFailureCount(*pod) &&
        PodFinishTime(*pod, now) >= PodFinishTime(last, now)) {
      it->second = pod;
    }
  }
}

void AddIndexFailureCounts(const JobController::Sync& s, int64_t index, json::object& annotations) {
  int64_t failures = 0, ignored = 0;
  if (auto it = s.delayed_deletion.find(index); it != s.delayed_deletion.end()) {
    const api::Object& replaced = *it->second;
    failures = CountAnnotation(replaced, kIndexFailureCountAnnotation);
    ignored = CountAnnotation(replaced, kIndexIgnoredFailureCountAnnotation);
    if (MatchPodFailurePolicy(s.failure_policy, replaced).count) {
      ++failures;
    } else {
      ++ignored;
    }
  }
  annotations[kIndexFailureCountAnnotation] = std::to_string(failures);
  if (ignored > 0) annotations[kIndexIgnoredFailureCountAnnotation] = std::to_string(ignored);
}

std::chrono::nanoseconds IndexBackoff(const JobController::Sync& s, int64_t index,
                                      std::chrono::system_clock::time_point now) {
  auto it = s.delayed_deletion.find(index);
  if (it == s.delayed_deletion.end()) return std::chrono::nanoseconds(0);
  const api::Object& last = *it->second;
  return RemainingBackoff(BackoffRecord{AbsoluteFailureCount(last) + 1, PodFinishTime(last, now)},
                          now);
}

}  // namespace berth::controllers::job
