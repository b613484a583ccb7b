#pragma once
// A token bucket (client-go's flowcontrol.NewTokenBucketRateLimiter): `qps`
// tokens a second, holding up to `burst`. Shared by the work queues' retry
// limiter and the HTTP client's request limit (--kube-api-qps/-burst).

#include <chrono>
#include <mutex>

#include "api/time/clock.h"

namespace berth::client {

class TokenBucket {
 public:
  // qps <= 0: unlimited (every Reserve answers 0). REQUIRES: burst >= 1;
  // `clock` outlives the bucket.
  TokenBucket(double qps, int burst, api::Clock& clock);

  // Takes a token and returns how long the caller must wait before using it:
  // 0 when the bucket held one, else the time the bucket needs to produce it
  // (a missing token is reserved ahead, so that waiters are served in order).
  // Thread-safe.
  std::chrono::nanoseconds Reserve();
  // Reserve, then sleep the real time it answered. Returns the wait.
  std::chrono::nanoseconds Accept();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  const double qps_;
  const int burst_;
  api::Clock& clock_;
  std::mutex mu_;
  double tokens_;                       // guarded by mu_; < 0: reserved ahead
  api::Clock::time_point refilled_at_;  // guarded by mu_
};

}  // namespace berth::client
