#include "client/token_bucket.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace berth::client {

TokenBucket::TokenBucket(double qps, int burst, api::Clock& clock)
    : qps_(qps),
      burst_(std::max(burst, 1)),
      clock_(clock),
      tokens_(burst_),
      refilled_at_(clock.Now()) {}

std::chrono::nanoseconds TokenBucket::Reserve() {
  if (qps_ <= 0) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mu_);
  auto now = clock_.Now();
  if (now > refilled_at_) {
    tokens_ = std::min(static_cast<double>(burst_),
                       tokens_ + std::chrono::duration<double>(now - refilled_at_).count() * qps_);
    refilled_at_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  return std::chrono::nanoseconds(std::llround(-tokens_ * 1e9 / qps_));
}

std::chrono::nanoseconds TokenBucket::Accept() {
  auto wait = Reserve();
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
  return wait;
}

}  // namespace berth::client
