#pragma once
// The delay before a Job replaces failed pods (kube's pod failure backoff):
// 10 s after the first failure since the last success, doubling with each
// further one, at most 10 minutes (kube's MaxJobPodFailureBackOff; kube's
// documentation still says six minutes, its controller has used ten since
// 1.28). Counted from the latest failure's finish time on the wall clock.

#include <chrono>
#include <optional>
#include <vector>

#include "api/object.h"

namespace berth::controllers::job {

inline constexpr std::chrono::seconds kPodFailureBackoff{10};
inline constexpr std::chrono::minutes kMaxPodFailureBackoff{10};

struct BackoffRecord {
  int64_t failures_after_last_success = 0;
  std::optional<std::chrono::system_clock::time_point> last_failure;
};

// When a finished pod finished (kube's getFinishedTime): its containers'
// latest terminated.finishedAt once all have one, else the time its Ready
// condition turned False, else when its deletion was asked
// (deletionTimestamp less the grace period), else its creation (`now` when
// even that is missing).
std::chrono::system_clock::time_point PodFinishTime(const api::Object& pod,
                                                    std::chrono::system_clock::time_point now);

// The record after newly finished pods were seen: successes reset the count
// to the failures that finished after the latest success.
BackoffRecord NextBackoffRecord(const BackoffRecord& previous,
                                const std::vector<api::ObjectPtr>& new_succeeded,
                                const std::vector<api::ObjectPtr>& new_failed,
                                std::chrono::system_clock::time_point now);

// How long pod creation still waits at `now`; zero when it may go ahead.
std::chrono::nanoseconds RemainingBackoff(const BackoffRecord& record,
                                          std::chrono::system_clock::time_point now);

}  // namespace berth::controllers::job
