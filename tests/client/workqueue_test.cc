#include "client/workqueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/worker_pool.h"

// The concurrency test (many workers, few keys) is in workqueue_stress_test.cc,
// its own binary so that CI runs it under ThreadSanitizer.

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// Takes the next key, which must be queued already (Get would block).
std::string Next(WorkQueue& q) {
  EXPECT_GT(q.Len(), 0u);
  if (q.Len() == 0) return "";
  std::string key;
  EXPECT_TRUE(q.Get(&key));
  return key;
}

// ---- Add, Get, Done ----

TEST(WorkQueue, DuplicatesCollapse) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(Next(q), "a");
  EXPECT_EQ(Next(q), "b");
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueue, KeyAddedWhileProcessedIsQueuedAgainByDone) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  EXPECT_EQ(Next(q), "a");
  q.Add("a");  // dirty: waits for Done
  q.Add("a");  // and collapses
  EXPECT_EQ(q.Len(), 0u);
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(Next(q), "a");
  q.Done("a");
  EXPECT_EQ(q.Len(), 0u);  // processed once more, not twice
}

TEST(WorkQueue, KeyBeingProcessedIsNotHandedToASecondWorker) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  EXPECT_EQ(Next(q), "a");
  q.Add("a");
  q.Add("b");
  EXPECT_EQ(Next(q), "b");  // the second worker gets b, not a

  std::atomic<bool> got{false};
  std::string third;
  std::thread worker([&] {
    q.Get(&third);
    got = true;
  });
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(got.load()) << "a was handed out while still being processed";
  q.Done("a");
  worker.join();
  EXPECT_EQ(third, "a");
}

TEST(WorkQueue, DoneOfAKeyNotBeingProcessedChangesNothing) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  q.Done("a");
  q.Done("b");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(Next(q), "a");
}

// ---- metrics ----

TEST(WorkQueue, UnfinishedWorkIsMeasuredWhenTheRegistryRenders) {
  api::FakeClock clock;
  metrics::Registry registry;
  {
    WorkQueue q("myctl", &registry, {.clock = &clock});
    q.Add("a");
    q.Add("b");
    std::string a, b;
    ASSERT_TRUE(q.Get(&a));
    clock.Step(std::chrono::seconds(2));
    ASSERT_TRUE(q.Get(&b));
    clock.Step(std::chrono::seconds(1));
    std::string text = registry.Render();
    // a has run for 3 s and b for 1 s.
    EXPECT_NE(text.find("workqueue_unfinished_work_seconds{name=\"myctl\"} 4\n"), std::string::npos) << text;
    EXPECT_NE(text.find("workqueue_longest_running_processor_seconds{name=\"myctl\"} 3\n"), std::string::npos);
    EXPECT_NE(text.find("workqueue_adds_total{name=\"myctl\"} 2\n"), std::string::npos);
    q.Done(a);
    q.Done(b);
    text = registry.Render();
    EXPECT_NE(text.find("workqueue_unfinished_work_seconds{name=\"myctl\"} 0\n"), std::string::npos) << text;
    EXPECT_NE(text.find("workqueue_work_duration_seconds_count{name=\"myctl\"} 2\n"), std::string::npos);
  }
  // The queue is gone: rendering no longer calls into it.
  EXPECT_NE(registry.Render().find("workqueue_depth{name=\"myctl\"} 0\n"), std::string::npos);
}

// ---- AddAfter, with a fake clock ----

TEST(WorkQueue, AddAfterQueuesEachKeyWhenItIsDue) {
  api::FakeClock clock;
  const auto start = clock.Now();
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.AddAfter("c", milliseconds(300));
  q.AddAfter("a", milliseconds(100));
  q.AddAfter("b", milliseconds(200));
  EXPECT_EQ(q.Len(), 0u);
  EXPECT_EQ(clock.NextAlarm(), start + milliseconds(100));
  clock.Step(milliseconds(100) - nanoseconds(1));
  EXPECT_EQ(q.Len(), 0u);
  clock.Step(nanoseconds(1));
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(Next(q), "a");
  EXPECT_EQ(clock.NextAlarm(), start + milliseconds(200));
  clock.Step(milliseconds(200));  // past b's and c's due times at once
  EXPECT_EQ(Next(q), "b");
  EXPECT_EQ(Next(q), "c");
  EXPECT_EQ(clock.NextAlarm(), std::nullopt);
}

TEST(WorkQueue, AddAfterTwiceKeepsTheEarlierTime) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.AddAfter("k", milliseconds(500));
  q.AddAfter("k", milliseconds(100));  // brought forward
  q.AddAfter("k", milliseconds(900));  // not postponed
  clock.Step(milliseconds(100));
  EXPECT_EQ(Next(q), "k");
  q.Done("k");
  clock.Step(seconds(1));
  EXPECT_EQ(q.Len(), 0u);  // one add, not three
}

TEST(WorkQueue, AddAfterWithoutDelayAddsAtOnce) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.AddAfter("k", nanoseconds(0));
  q.AddAfter("j", milliseconds(-5));
  EXPECT_EQ(q.Len(), 2u);
}

TEST(WorkQueue, DelayedAddOfAQueuedKeyCollapses) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.Add("k");
  q.AddAfter("k", milliseconds(10));
  clock.Step(milliseconds(10));
  EXPECT_EQ(q.Len(), 1u);
}

// ---- Rate limiting ----

TEST(WorkQueue, RateLimitedRetriesBackOffExponentiallyPerKey) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  for (int failure = 0; failure < 10; ++failure) {
    const nanoseconds backoff = milliseconds(5) * (1 << failure);  // 5 ms, 10 ms, 20 ms, ...
    q.AddRateLimited("a");
    EXPECT_EQ(clock.NextAlarm(), clock.Now() + backoff) << failure;
    clock.Step(backoff - nanoseconds(1));
    EXPECT_EQ(q.Len(), 0u) << failure;
    clock.Step(nanoseconds(1));
    EXPECT_EQ(Next(q), "a") << failure;
    q.Done("a");
  }
  EXPECT_EQ(q.NumRequeues("a"), 10);
  EXPECT_EQ(q.NumRequeues("b"), 0);

  q.Forget("a");  // a success
  EXPECT_EQ(q.NumRequeues("a"), 0);
  q.AddRateLimited("a");
  clock.Step(milliseconds(5));
  EXPECT_EQ(Next(q), "a");
}

TEST(RateLimiter, BackoffDoublesFrom5MillisecondsUpTo1000Seconds) {
  api::FakeClock clock;
  RateLimiter limiter({.qps = 1e9, .burst = 1 << 30}, clock);  // the bucket out of the way
  for (int failure = 0; failure < 18; ++failure) {             // up to 5 ms * 2^17 = 655.36 s
    EXPECT_EQ(limiter.When("a"), milliseconds(5) * (int64_t{1} << failure)) << failure;
  }
  for (int failure = 18; failure < 300; ++failure) {  // 1310.72 s capped; no overflow later
    ASSERT_EQ(limiter.When("a"), seconds(1000)) << failure;
  }
  EXPECT_EQ(limiter.NumRequeues("a"), 300);
}

TEST(RateLimiter, ForgetResetsOnlyThatKey) {
  api::FakeClock clock;
  RateLimiter limiter({}, clock);
  limiter.When("a");
  limiter.When("a");
  limiter.When("b");
  limiter.Forget("a");
  EXPECT_EQ(limiter.NumRequeues("a"), 0);
  EXPECT_EQ(limiter.NumRequeues("b"), 1);
  EXPECT_EQ(limiter.When("a"), milliseconds(5));
  EXPECT_EQ(limiter.When("b"), milliseconds(10));
}

TEST(RateLimiter, TokenBucketDelaysThe101stItemBy100Milliseconds) {
  api::FakeClock clock;
  RateLimiter limiter({}, clock);  // 10 qps, burst 100
  for (int i = 0; i < 100; ++i) {  // the burst: the per-key backoff only
    ASSERT_EQ(limiter.When("k" + std::to_string(i)), milliseconds(5)) << i;
  }
  EXPECT_EQ(limiter.When("k100"), milliseconds(100));  // the next token comes in 1/10 s
  EXPECT_EQ(limiter.When("k101"), milliseconds(200));
  clock.Step(milliseconds(100));  // one token refilled, owed already
  EXPECT_EQ(limiter.When("k102"), milliseconds(200));
  clock.Step(seconds(100));  // full again, never beyond the burst
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter.When("j" + std::to_string(i)), milliseconds(5)) << i;
  }
  EXPECT_EQ(limiter.When("j100"), milliseconds(100));
}

TEST(RateLimiter, OptionsSetBaseCapRateAndBurst) {
  api::FakeClock clock;
  RateLimiter limiter(
      {.base_delay = milliseconds(10), .max_delay = milliseconds(40), .qps = 2, .burst = 2}, clock);
  EXPECT_EQ(limiter.When("a"), milliseconds(10));
  EXPECT_EQ(limiter.When("a"), milliseconds(20));
  EXPECT_EQ(limiter.When("a"), milliseconds(500));  // the bucket is empty: 1/2 s for a token
  clock.Step(seconds(10));
  EXPECT_EQ(limiter.When("a"), milliseconds(40));  // 80 ms capped
}

TEST(WorkQueue, RateLimitedAddsAfterTheBurstWaitForTokens) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  for (int i = 0; i <= 100; ++i) q.AddRateLimited("k" + std::to_string(i));
  clock.Step(milliseconds(5));
  EXPECT_EQ(q.Len(), 100u);
  clock.Step(milliseconds(94));
  EXPECT_EQ(q.Len(), 100u);
  clock.Step(milliseconds(1));  // 100 ms: the 101st
  EXPECT_EQ(q.Len(), 101u);
}

// ---- Shut-down ----

TEST(WorkQueueShutDown, HandsOutQueuedKeysThenGetReturnsFalse) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  q.Add("b");
  q.ShutDown();
  EXPECT_TRUE(q.ShuttingDown());
  q.Add("c");  // ignored
  EXPECT_EQ(q.Len(), 2u);
  std::string key;
  ASSERT_TRUE(q.Get(&key));
  EXPECT_EQ(key, "a");
  ASSERT_TRUE(q.Get(&key));
  EXPECT_EQ(key, "b");
  EXPECT_FALSE(q.Get(&key));
  EXPECT_FALSE(q.Get(&key));
}

TEST(WorkQueueShutDown, UnblocksEveryWaitingGet) {
  WorkQueue q("test", nullptr);
  std::atomic<int> returned_false{0};
  std::vector<std::thread> getters;
  getters.reserve(3);
  for (int i = 0; i < 3; ++i) {
    getters.emplace_back([&] {
      std::string key;
      if (!q.Get(&key)) ++returned_false;
    });
  }
  std::this_thread::sleep_for(milliseconds(20));  // let them block (the result holds either way)
  q.ShutDown();
  for (auto& t : getters) t.join();
  EXPECT_EQ(returned_false.load(), 3);
}

TEST(WorkQueueShutDown, DropsDelayedAdds) {
  api::FakeClock clock;
  WorkQueue q("test", nullptr, {.clock = &clock});
  q.AddAfter("a", seconds(1));
  q.AddRateLimited("b");
  q.ShutDown();
  q.AddAfter("c", seconds(1));
  clock.Step(seconds(2));
  EXPECT_EQ(q.Len(), 0u);
  std::string key;
  EXPECT_FALSE(q.Get(&key));
}

TEST(WorkQueueShutDown, DirtyKeyIsStillProcessedOnceMore) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  EXPECT_EQ(Next(q), "a");
  q.Add("a");  // added before the shut-down: must not be lost
  q.ShutDown();
  q.Done("a");
  std::string key;
  ASSERT_TRUE(q.Get(&key));
  EXPECT_EQ(key, "a");
  q.Done("a");
  EXPECT_FALSE(q.Get(&key));
}

TEST(WorkQueueShutDown, WithDrainWaitsUntilKeysInProcessAreDone) {
  WorkQueue q("test", nullptr);
  q.Add("a");
  EXPECT_EQ(Next(q), "a");
  q.Add("a");  // dirty
  std::atomic<bool> drained{false};
  std::thread drainer([&] {
    q.ShutDownWithDrain();
    drained = true;
  });
  while (!q.ShuttingDown()) std::this_thread::yield();
  q.Add("b");   // ignored: shutting down
  q.Done("a");  // queues the dirty a again
  EXPECT_EQ(Next(q), "a");
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(drained.load()) << "returned while a was still being processed";
  q.Done("a");
  drainer.join();
  EXPECT_EQ(q.Len(), 0u);
}

TEST(WorkQueueShutDown, WithDrainReturnsAtOnceWhenIdle) {
  WorkQueue q("test", nullptr);
  q.ShutDownWithDrain();
  EXPECT_TRUE(q.ShuttingDown());
}

// ---- Metrics ----

// One queue's series, looked up as a dashboard would: by name and label.
struct QueueSeries {
  QueueSeries(metrics::Registry& r, const std::string& name)
      : depth(r.AddGauge("workqueue_depth", "", {"name"}).WithLabels({name})),
        adds(r.AddCounter("workqueue_adds_total", "", {"name"}).WithLabels({name})),
        retries(r.AddCounter("workqueue_retries_total", "", {"name"}).WithLabels({name})),
        queue_duration(r.AddHistogram("workqueue_queue_duration_seconds", "", {}, {"name"})
                           .WithLabels({name})),
        work_duration(r.AddHistogram("workqueue_work_duration_seconds", "", {}, {"name"})
                          .WithLabels({name})) {}
  metrics::Gauge& depth;
  metrics::Counter& adds;
  metrics::Counter& retries;
  metrics::Histogram& queue_duration;
  metrics::Histogram& work_duration;
};

TEST(WorkQueueMetrics, CountAddsRetriesDepthAndDurations) {
  api::FakeClock clock;
  metrics::Registry registry;
  WorkQueue q("pods", &registry, {.clock = &clock});
  QueueSeries m(registry, "pods");

  q.Add("a");
  q.Add("a");  // a duplicate is not an add
  q.Add("b");
  EXPECT_EQ(m.adds.value(), 2);
  EXPECT_EQ(m.depth.value(), 2);

  clock.Step(seconds(2));
  EXPECT_EQ(Next(q), "a");  // waited 2 s
  EXPECT_EQ(m.depth.value(), 1);
  EXPECT_EQ(m.queue_duration.count(), 1u);
  EXPECT_EQ(m.queue_duration.sum(), 2);

  q.Add("a");  // dirty: in the depth, though not ready before Done
  EXPECT_EQ(m.adds.value(), 3);
  EXPECT_EQ(m.depth.value(), 2);
  EXPECT_EQ(q.Len(), 1u);

  clock.Step(seconds(3));
  q.Done("a");  // worked 3 s
  EXPECT_EQ(m.work_duration.count(), 1u);
  EXPECT_EQ(m.work_duration.sum(), 3);

  EXPECT_EQ(Next(q), "b");  // waited 5 s
  EXPECT_EQ(Next(q), "a");  // waited 3 s, since its second add
  EXPECT_EQ(m.queue_duration.count(), 3u);
  EXPECT_EQ(m.queue_duration.sum(), 10);
  EXPECT_EQ(m.depth.value(), 0);
  q.Done("a");
  q.Done("b");
  EXPECT_EQ(m.work_duration.count(), 3u);
  EXPECT_EQ(m.work_duration.sum(), 3);

  q.AddAfter("c", seconds(1));
  q.AddRateLimited("c");
  EXPECT_EQ(m.retries.value(), 2);
  EXPECT_EQ(m.adds.value(), 3);  // nothing due yet
  clock.Step(seconds(1));
  EXPECT_EQ(m.adds.value(), 4);
  EXPECT_EQ(m.depth.value(), 1);
}

TEST(WorkQueueMetrics, QueuesAreLabelledByName) {
  metrics::Registry registry;
  WorkQueue pods("pods", &registry);
  WorkQueue nodes("nodes", &registry);
  pods.Add("a");
  pods.Add("b");
  nodes.Add("n");
  std::string text = registry.Render();
  EXPECT_NE(text.find("workqueue_depth{name=\"pods\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_depth{name=\"nodes\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"pods\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE workqueue_retries_total counter"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE workqueue_queue_duration_seconds histogram"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE workqueue_work_duration_seconds histogram"), std::string::npos)
      << text;
}

// ---- Workers ----

TEST(WorkerPool, RetriesFailuresWithBackoffAndForgetsOnSuccess) {
  WorkQueue q("test", nullptr, {.rate_limiter = {.base_delay = milliseconds(1)}});
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> attempts;  // guarded by mu
  std::vector<std::string> failed;      // guarded by mu
  WorkerPool pool(
      q, 2,
      [&](const std::string& key) {
        std::lock_guard lock(mu);
        int n = ++attempts[key];
        cv.notify_all();
        return key == "a" && n <= 3 ? Status::Unavailable("not yet") : Status::Ok();
      },
      [&](const std::string& key, const Status& status) {
        std::lock_guard lock(mu);
        failed.push_back(key + ": " + status.message());
      });
  q.Add("a");
  q.Add("b");
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(
        cv.wait_for(lock, seconds(5), [&] { return attempts["a"] == 4 && attempts["b"] == 1; }));
  }
  pool.Stop();
  EXPECT_EQ(attempts["a"], 4);
  EXPECT_EQ(attempts["b"], 1);
  EXPECT_EQ(pool.errors(), 3);
  EXPECT_EQ(failed, (std::vector<std::string>(3, "a: not yet")));
  EXPECT_EQ(q.NumRequeues("a"), 0);  // forgotten after the success
}

TEST(WorkerPool, StopFinishesTheQueuedKeysThenJoins) {
  WorkQueue q("test", nullptr);
  for (int i = 0; i < 50; ++i) q.Add("k" + std::to_string(i));
  std::mutex mu;
  std::multiset<std::string> done;  // guarded by mu
  WorkerPool pool(q, 3, [&](const std::string& key) {
    std::lock_guard lock(mu);
    done.insert(key);
    return Status::Ok();
  });
  pool.Stop();
  pool.Stop();  // idempotent
  EXPECT_EQ(done.size(), 50u);
  EXPECT_EQ(std::set<std::string>(done.begin(), done.end()).size(), 50u);
  EXPECT_TRUE(q.ShuttingDown());
}

TEST(WorkerPool, ConcurrentWorkersNeverShareAKeyAndLoseNoAdd) {
  WorkQueue q("test", nullptr);
  constexpr int kKeys = 10, kAdds = 2000;
  std::mutex mu;
  std::set<std::string> active;  // guarded by mu
  std::atomic<bool> overlap{false};
  std::vector<std::atomic<int>> last_add(kKeys), last_start(kKeys);
  for (auto& s : last_start) s = -1;
  std::atomic<int> sequence{0};
  WorkerPool pool(q, 4, [&](const std::string& key) {
    {
      std::lock_guard lock(mu);
      if (!active.insert(key).second) overlap = true;
    }
    last_start[std::stoi(key)] = sequence++;
    std::this_thread::yield();
    std::lock_guard lock(mu);
    active.erase(key);
    return Status::Ok();
  });
  for (int i = 0; i < kAdds; ++i) {
    last_add[i % kKeys] = sequence++;
    q.Add(std::to_string(i % kKeys));
  }
  pool.Stop();  // drains: every add is followed by a processing
  EXPECT_FALSE(overlap.load());
  for (int k = 0; k < kKeys; ++k) EXPECT_GT(last_start[k].load(), last_add[k].load()) << k;
}

}  // namespace
}  // namespace berth::client
