#include "client/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace berth::client {

RateLimiter::RateLimiter(Options options, api::Clock& clock)
    : options_(options), clock_(clock), tokens_(options.burst), refilled_at_(clock.Now()) {}

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

  // Overall: refill for the time elapsed, take a token; a missing one is
  // reserved, and the wait is how long the bucket takes to produce it.
  auto now = clock_.Now();
  if (now > refilled_at_) {
    tokens_ = std::min(static_cast<double>(options_.burst),
                       tokens_ + std::chrono::duration<double>(now - refilled_at_).count() * options_.qps);
    refilled_at_ = now;
  }
  tokens_ -= 1;
  std::chrono::nanoseconds bucket{0};
  if (tokens_ < 0) {
    bucket = std::chrono::nanoseconds(std::llround(-tokens_ * 1e9 / options_.qps));
  }
  return std::max(per_key, bucket);
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
