#pragma once
// The retry delays of a work queue (client-go's DefaultControllerRateLimiter).

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/time/clock.h"
#include "client/token_bucket.h"

namespace berth::client {

// How long a failed key waits before its next try: the larger of a per-key
// exponential backoff (base_delay * 2^failures, capped at max_delay) and an
// overall token bucket (qps tokens a second, holding up to burst) that bounds
// the retry rate of the whole queue. The defaults are client-go's
// DefaultControllerRateLimiter. Thread-safe.
class RateLimiter {
 public:
  struct Options {
    std::chrono::nanoseconds base_delay = std::chrono::milliseconds(5);
    std::chrono::nanoseconds max_delay = std::chrono::seconds(1000);
    double qps = 10;  // REQUIRES: > 0
    int burst = 100;  // REQUIRES: >= 1
  };
  // REQUIRES: `clock` outlives the limiter.
  RateLimiter(Options options, api::Clock& clock);

  // The delay before `key`'s next try. Counts one more failure of `key` and
  // takes a token (a missing token is reserved in the future: the delay).
  std::chrono::nanoseconds When(const std::string& key);
  // Clears `key`'s failures, after a success. The bucket is not refunded.
  void Forget(const std::string& key);
  // Failures of `key` counted by When since it was last forgotten.
  int NumRequeues(const std::string& key) const;

 private:
  const Options options_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> failures_;  // guarded by mu_
  TokenBucket bucket_;
};

}  // namespace berth::client
