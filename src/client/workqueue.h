#pragma once
// A rate-limited work queue with client-go's guarantees:
//
// - a key waiting in the queue is never queued twice (duplicates collapse);
// - a key is never handed to two workers at once: added again while being
//   processed (between Get and Done), it is marked dirty and queued again
//   when Done is called;
// - AddAfter delays an add (the earliest of several delays wins);
// - AddRateLimited delays by the rate limiter: the larger of a per-key
//   exponential backoff (5 ms doubling to 1000 s) and an overall token bucket
//   (10 per second, burst 100) — client-go's default controller rate limiter;
//   Forget resets a key's backoff after a success;
// - ShutDown wakes every Get: the keys still queued are handed out, then Get
//   returns false (workers drain what is there and stop).
//
// Time comes from a Clock so that tests can drive delays with a FakeClock.
// Metrics with kube's names, labelled by queue name: workqueue_depth,
// workqueue_adds_total, workqueue_retries_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds.
// Thread-safe.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "metrics/metrics.h"

namespace berth::client {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point Now() const = 0;
  // Waits on `cv` (with `lock` held) until `deadline` by this clock or a notify.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, time_point deadline) = 0;
};

class RealClock final : public Clock {
 public:
  time_point Now() const override { return std::chrono::steady_clock::now(); }
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, time_point deadline) override {
    cv.wait_until(lock, deadline);
  }
  static RealClock& Instance();
};

// Time moves only when Step is called. Waiters poll it every millisecond of
// real time, so a Step is seen promptly without lost wake-ups.
class FakeClock final : public Clock {
 public:
  time_point Now() const override;
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, time_point deadline) override;
  void Step(std::chrono::nanoseconds by);

 private:
  mutable std::mutex mu_;
  time_point now_{std::chrono::hours(1)};  // guarded by mu_
};

// client-go's DefaultControllerRateLimiter: max(per-key exponential backoff, token bucket).
class RateLimiter {
 public:
  struct Options {
    std::chrono::nanoseconds base_delay = std::chrono::milliseconds(5);
    std::chrono::nanoseconds max_delay = std::chrono::seconds(1000);
    double qps = 10;
    int burst = 100;
  };
  RateLimiter(Options options, Clock& clock);
  // How long `key` should wait before its next try (counts a failure).
  std::chrono::nanoseconds When(const std::string& key);
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key);

 private:
  Options options_;
  Clock& clock_;
  std::mutex mu_;
  std::unordered_map<std::string, int> failures_;  // guarded by mu_
  double tokens_;                                  // guarded by mu_
  Clock::time_point last_;                         // guarded by mu_
};

class WorkQueue {
 public:
  struct Options {
    RateLimiter::Options rate_limiter;
    Clock* clock = nullptr;  // nullptr: the real clock
  };
  // `registry` may be null (no metrics).
  WorkQueue(std::string name, metrics::Registry* registry, Options options);
  WorkQueue(std::string name, metrics::Registry* registry) : WorkQueue(std::move(name), registry, Options()) {}
  ~WorkQueue();

  void Add(const std::string& key);
  void AddAfter(const std::string& key, std::chrono::nanoseconds delay);
  void AddRateLimited(const std::string& key);
  void Forget(const std::string& key) { limiter_.Forget(key); }
  int NumRequeues(const std::string& key) { return limiter_.NumRequeues(key); }

  // Blocks for the next key; false once shut down and drained.
  bool Get(std::string* key);
  void Done(const std::string& key);

  void ShutDown();
  bool ShuttingDown() const;
  // Keys waiting (not counting delayed or in-process ones).
  size_t Len() const;

 private:
  void AddLocked(const std::string& key);
  void DelayLoop();

  std::string name_;
  Clock& clock_;
  RateLimiter limiter_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;                       // guarded by mu_
  std::unordered_set<std::string> dirty_;               // queued or to be re-queued; guarded by mu_
  std::unordered_set<std::string> processing_;          // guarded by mu_
  std::unordered_map<std::string, Clock::time_point> added_at_;  // for queue duration; guarded by mu_
  std::unordered_map<std::string, Clock::time_point> started_at_;  // for work duration; guarded by mu_
  bool shutting_down_ = false;                          // guarded by mu_

  // Delayed adds: due time → keys, and each key's earliest due time.
  std::mutex delay_mu_;
  std::condition_variable delay_cv_;
  std::multimap<Clock::time_point, std::string> delayed_;     // guarded by delay_mu_
  std::unordered_map<std::string, Clock::time_point> due_;    // guarded by delay_mu_
  bool delay_stop_ = false;                                   // guarded by delay_mu_
  std::thread delay_thread_;

  metrics::Gauge* depth_ = nullptr;
  metrics::Counter* adds_ = nullptr;
  metrics::Counter* retries_ = nullptr;
  metrics::Histogram* queue_duration_ = nullptr;
  metrics::Histogram* work_duration_ = nullptr;
};

}  // namespace berth::client
