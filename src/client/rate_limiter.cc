#include "client/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace berth::client {

RateLimiter::RateLimiter(Options options, api::Clock& clock)
    : options_(options), bucket_(options.qps, options.burst, clock) {}

std::chrono::nanoseconds RateLimiter::When(const std::string& key) {
  std::lock_guard lock(mu_);
  // Per key: base * 2^failures, capped (the exponent is bounded so that the
  // product stays finite for any sane base).
  int failures = failures_[key]++;
  double backoff =
      static_cast<double>(options_.base_delay.count()) * std::ldexp(1.0, std::min(failures, 1000));
  auto per_key = backoff >= static_cast<double>(options_.max_delay.count())
                     ? options_.max_delay
                     : std::chrono::nanoseconds(static_cast<int64_t>(backoff));

  // Overall: a token of the bucket; a missing one is reserved, and the
  // wait is how long the bucket takes to produce it.
  return std::max(per_key, bucket_.Reserve());
}

void RateLimiter::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int RateLimiter::NumRequeues(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace berth::client
