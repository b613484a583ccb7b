#include "controllers/job/backoff.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"

namespace berth::controllers::job {

namespace json = boost::json;
using WallTime = std::chrono::system_clock::time_point;

WallTime PodFinishTime(const api::Object& pod, WallTime now) {
  const json::object* status = api::StatusOf(pod);
  // The latest finish of its containers, once all of them have finished.
  std::optional<WallTime> latest;
  if (const json::array* statuses = api::ArrayAt(status, "containerStatuses")) {
    for (const auto& s : *statuses) {
      const json::object* terminated =
          s.is_object() ? api::ObjectAt(api::ObjectAt(s.get_object(), "state"), "terminated")
                        : nullptr;
      auto at = api::ParseRfc3339(api::StringAt(terminated, "finishedAt"));
      if (!at) {
        latest.reset();
        break;
      }
      if (!latest || *at > *latest) latest = at;
    }
  }
  if (latest) return *latest;
  if (const json::array* conditions = api::ArrayAt(status, "conditions")) {
    for (const auto& c : *conditions) {
      if (!c.is_object() || api::StringAt(c.get_object(), "type") != "Ready" ||
          api::StringAt(c.get_object(), "status") != "False") {
        continue;
      }
      if (auto at = api::ParseRfc3339(api::StringAt(c.get_object(), "lastTransitionTime")))
        return *at;
    }
  }
  const json::object* meta = api::Metadata(pod);
  if (auto at = api::ParseRfc3339(api::StringAt(meta, "deletionTimestamp"))) {
    return *at - std::chrono::seconds(
                     api::IntAt(meta, "deletionGracePeriodSeconds"));  // when deletion was asked
  }
  if (auto at = api::ParseRfc3339(api::StringAt(meta, "creationTimestamp"))) return *at;
  return now;
}

BackoffRecord NextBackoffRecord(const BackoffRecord& previous,
                                const std::vector<api::ObjectPtr>& new_succeeded,
                                const std::vector<api::ObjectPtr>& new_failed, WallTime now) {
  if (new_succeeded.empty()) {
    if (new_failed.empty()) return previous;
    BackoffRecord next = previous;
    next.failures_after_last_success += static_cast<int64_t>(new_failed.size());
    for (const auto& pod : new_failed) {
      WallTime at = PodFinishTime(*pod, now);
      if (!next.last_failure || at > *next.last_failure) next.last_failure = at;
    }
    return next;
  }
  WallTime last_success = PodFinishTime(*new_succeeded.front(), now);
  for (const auto& pod : new_succeeded)
    last_success = std::max(last_success, PodFinishTime(*pod, now));
  BackoffRecord next;
  for (const auto& pod : new_failed) {
    WallTime at = PodFinishTime(*pod, now);
    if (at <= last_success) continue;
    ++next.failures_after_last_success;
    if (!next.last_failure || at > *next.last_failure) next.last_failure = at;
  }
  return next;
}

std::chrono::nanoseconds RemainingBackoff(const BackoffRecord& record, WallTime now) {
  if (record.failures_after_last_success <= 0 || !record.last_failure)
    return std::chrono::nanoseconds(0);
  std::chrono::nanoseconds backoff = kPodFailureBackoff;
  for (int64_t i = 1; i < record.failures_after_last_success && backoff < kMaxPodFailureBackoff;
       ++i)
    backoff *= 2;
  backoff = std::min<std::chrono::nanoseconds>(backoff, kMaxPodFailureBackoff);
  const auto elapsed = now - *record.last_failure;
  if (elapsed >= backoff) return std::chrono::nanoseconds(0);
  return backoff - std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed);
}

}  // namespace berth::controllers::job
