// The client-side request limit (--kube-api-qps / --kube-api-burst) on a
// fake clock: a burst goes at once, then one request per 1/qps, and idle
// time refills the bucket only up to the burst.

#include "client/token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(TokenBucket, BurstGoesAtOnceThenOneRequestPerInterval) {
  api::FakeClock clock;
  TokenBucket bucket(/*qps=*/50, /*burst=*/3, clock);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.Reserve(), nanoseconds(0)) << i;
  // Tokens missing are reserved in order: 20ms, 40ms, 60ms ahead.
  EXPECT_EQ(bucket.Reserve(), milliseconds(20));
  EXPECT_EQ(bucket.Reserve(), milliseconds(40));
  EXPECT_EQ(bucket.Reserve(), milliseconds(60));
  // 60ms later the reservations are paid; the next waits one interval.
  clock.Step(milliseconds(60));
  EXPECT_EQ(bucket.Reserve(), milliseconds(20));
}

TEST(TokenBucket, IdleTimeRefillsUpToTheBurstOnly) {
  api::FakeClock clock;
  TokenBucket bucket(/*qps=*/10, /*burst=*/2, clock);
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  clock.Step(std::chrono::seconds(60));  // would be 600 tokens without the cap
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), nanoseconds(0));
  EXPECT_EQ(bucket.Reserve(), milliseconds(100));
}

TEST(TokenBucket, KubeSchedulerDefaultsAllowFiftyASecondAfterTheBurst) {
  api::FakeClock clock;
  TokenBucket bucket(/*qps=*/50, /*burst=*/100, clock);
  nanoseconds last{0};
  for (int i = 0; i < 150; ++i) last = bucket.Reserve();
  // The 150th request: 50 beyond the burst, one second at 50/s.
  EXPECT_EQ(last, std::chrono::seconds(1));
}

TEST(TokenBucket, NonPositiveQpsIsUnlimited) {
  api::FakeClock clock;
  TokenBucket bucket(/*qps=*/0, /*burst=*/1, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bucket.Reserve(), nanoseconds(0));
}

}  // namespace
}  // namespace berth::client
