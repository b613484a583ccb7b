#include "client/workqueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Gets a key within `limit` of real time, or "" when none came.
std::string GetWithin(WorkQueue& q, milliseconds limit = milliseconds(2000)) {
  std::string key;
  std::atomic<bool> got{false};
  std::thread t([&] { got = q.Get(&key); });
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!got && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(1));
  if (!got) q.ShutDown();  // unblock the getter
  t.join();
  return got ? key : "";
}

TEST(WorkQueue, DuplicatesCollapse) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "a");
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueue, AddWhileProcessingRequeuesOnDone) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  q.Add("a");  // dirty: must not be handed out while "a" is processed
  EXPECT_EQ(q.Len(), 0u);
  q.Add("a");  // still one
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueue, ShutDownDrainsThenStops) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  q.ShutDown();
  q.Add("b");  // ignored after shutdown
  std::string k;
  ASSERT_TRUE(q.Get(&k));
  EXPECT_EQ(k, "a");
  EXPECT_FALSE(q.Get(&k));
}

TEST(WorkQueue, ShutDownWakesBlockedGet) {
  WorkQueue q("test", nullptr);
  std::atomic<int> result{-1};
  std::thread t([&] {
    std::string k;
    result = q.Get(&k) ? 1 : 0;
  });
  std::this_thread::sleep_for(milliseconds(20));
  q.ShutDown();
  t.join();
  EXPECT_EQ(result.load(), 0);
}

TEST(WorkQueue, AddAfterWaitsForTheClock) {
  FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.AddAfter("late", milliseconds(500));
  q.AddAfter("early", milliseconds(100));
  q.AddAfter("late", milliseconds(900));  // the earlier add wins
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(q.Len(), 0u);
  clock.Step(milliseconds(100));
  EXPECT_EQ(GetWithin(q), "early");
  clock.Step(milliseconds(399));
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(q.Len(), 0u);
  clock.Step(milliseconds(1));
  EXPECT_EQ(GetWithin(q), "late");
}

TEST(RateLimiter, ExponentialBackoffPerKeyCappedAndForgotten) {
  FakeClock clock;
  RateLimiter limiter({.qps = 1e9, .burst = 1 << 30}, clock);  // bucket out of the way
  std::vector<int64_t> got;
  for (int i = 0; i < 5; ++i) got.push_back(std::chrono::duration_cast<milliseconds>(limiter.When("a")).count());
  EXPECT_EQ(got, (std::vector<int64_t>{5, 10, 20, 40, 80}));
  EXPECT_EQ(limiter.NumRequeues("a"), 5);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(limiter.When("b")).count(), 5);  // per key
  for (int i = 0; i < 40; ++i) limiter.When("a");
  EXPECT_EQ(limiter.When("a"), seconds(1000));  // capped
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(limiter.When("a")).count(), 5);
}

TEST(RateLimiter, TokenBucketAfterBurst) {
  FakeClock clock;
  RateLimiter limiter({}, clock);  // 10 qps, burst 100
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter.When("k" + std::to_string(i)), milliseconds(5)) << i;  // only the per-key base
  }
  // The 101st key waits for a token: 100 ms at 10 per second; the 102nd 200 ms.
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(limiter.When("k100")).count(), 100);
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(limiter.When("k101")).count(), 200);
  clock.Step(seconds(10));  // the bucket refills
  EXPECT_EQ(limiter.When("k102"), milliseconds(5));
}

TEST(WorkQueue, AddRateLimitedBacksOffAndCountsRetries) {
  FakeClock clock;
  metrics::Registry registry;
  WorkQueue q("test", &registry, {.clock = &clock});
  q.AddRateLimited("a");
  std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(q.Len(), 0u);
  clock.Step(milliseconds(5));
  EXPECT_EQ(GetWithin(q), "a");
  q.Done("a");
  q.AddRateLimited("a");  // second failure: 10 ms
  clock.Step(milliseconds(9));
  std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(q.Len(), 0u);
  clock.Step(milliseconds(1));
  EXPECT_EQ(GetWithin(q), "a");
  q.Done("a");
  EXPECT_EQ(q.NumRequeues("a"), 2);
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
  std::string text = registry.Render();
  EXPECT_NE(text.find("workqueue_retries_total{name=\"test\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"test\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_depth{name=\"test\"} 0"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_work_duration_seconds_count{name=\"test\"} 2"), std::string::npos) << text;
}

}  // namespace
}  // namespace berth::client
