#pragma once
// A rate-limited work queue of object keys ("namespace/name") with client-go's
// guarantees; every controller's workers share one.
//
// - Duplicates collapse: a key already waiting is not queued twice.
// - One worker per key: a key added again while it is processed (between Get
//   and Done) is marked dirty and queued once more by Done; Get never hands it
//   to a second worker meanwhile.
// - No add is lost: a key added after its processing started is processed
//   again.
// - AddAfter delays an add; of several delays for one key the earliest wins.
// - AddRateLimited delays by a RateLimiter (per-key exponential backoff, and
//   a token bucket over the whole queue); Forget resets a key's backoff.
// - ShutDown (client-go's choice): adds are ignored from then on and delayed
//   adds are dropped, but Get still hands out the keys already queued (and
//   dirty keys that Done re-queues) before it returns false, so workers finish
//   what was asked of them and then stop.
//
// Time comes from an api::Clock; with a FakeClock a test moves time by hand and
// every delay fires exactly when due, without sleeping.
//
// Metrics, kube's names, labelled by queue name ("name"):
//   workqueue_depth                   keys added and not yet handed out by Get
//                                     (including dirty keys waiting for Done)
//   workqueue_adds_total              adds that were not duplicates
//   workqueue_retries_total           AddAfter and AddRateLimited calls
//   workqueue_queue_duration_seconds  Add to Get
//   workqueue_work_duration_seconds   Get to Done

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/clock.h"
#include "api/status.h"
#include "metrics/metrics.h"

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
  api::Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> failures_;  // guarded by mu_
  double tokens_;                                  // guarded by mu_; < 0: reserved ahead
  api::Clock::time_point refilled_at_;                  // guarded by mu_
};

// The queue. Every method may be called from any thread.
class WorkQueue {
 public:
  struct Options {
    RateLimiter::Options rate_limiter;
    api::Clock* clock = nullptr;  // nullptr: RealClock. REQUIRES: outlives the queue.
  };
  // `registry` may be null (no metrics); otherwise it outlives the queue.
  WorkQueue(std::string name, metrics::Registry* registry, Options options);
  WorkQueue(std::string name, metrics::Registry* registry)
      : WorkQueue(std::move(name), registry, Options()) {}
  // Shuts down. REQUIRES: no thread is still inside a method.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already waiting; while `key` is being
  // processed it waits for Done instead. Ignored after shut-down.
  void Add(const std::string& key);
  // Adds `key` once `delay` has passed (at once when delay <= 0). A key
  // already waiting for an earlier time keeps it; a later one is brought
  // forward. Ignored after shut-down.
  void AddAfter(const std::string& key, std::chrono::nanoseconds delay);
  // AddAfter(key, the rate limiter's When(key)): the retry after a failure.
  void AddRateLimited(const std::string& key);
  // Resets `key`'s backoff (call it after `key` was processed successfully).
  void Forget(const std::string& key) { limiter_.Forget(key); }
  // Failures counted for `key` since it was last forgotten.
  int NumRequeues(const std::string& key) const { return limiter_.NumRequeues(key); }

  // Blocks until a key is queued, hands it to the caller and marks it as being
  // processed; every key Get returns must be passed to Done. Returns false
  // once the queue is shut down and empty.
  bool Get(std::string* key);
  // Ends the processing of `key`; if it was added meanwhile, queues it again.
  // A key that is not being processed is ignored.
  void Done(const std::string& key);

  // Stops accepting adds and wakes every Get; see the guarantees above.
  // Idempotent; aborts a ShutDownWithDrain that is waiting.
  void ShutDown();
  // ShutDown, then waits until every key already queued or being processed
  // (and any dirty key Done re-queues) has been handed out and Done.
  // REQUIRES: workers are still calling Get and Done, or it waits forever.
  void ShutDownWithDrain();
  bool ShuttingDown() const;

  // Keys ready for Get (not counting delayed ones or dirty ones waiting for
  // Done).
  size_t Len() const;
  const std::string& name() const { return name_; }

 private:
  struct QueueMetrics;

  void AddLocked(const std::string& key, api::Clock::time_point now);  // REQUIRES: mu_ held
  void ShutDownLocked();                                          // REQUIRES: mu_ held
  void UpdateDepthLocked();                                       // REQUIRES: mu_ held
  // Moves the delayed keys now due into the queue; the alarm's function.
  void AddDueKeys();

  const std::string name_;
  api::Clock& clock_;
  RateLimiter limiter_;
  std::unique_ptr<QueueMetrics> metrics_;  // null: no metrics

  mutable std::mutex mu_;
  std::condition_variable ready_cv_;    // a key was queued, or shut-down
  std::condition_variable drained_cv_;  // nothing processing, or the drain aborted
  std::deque<std::string> queue_;       // guarded by mu_; each key also in waiting_
  // Keys added and not yet handed out ("dirty"), with when they were added.
  std::unordered_map<std::string, api::Clock::time_point> waiting_;  // guarded by mu_
  // Keys between Get and Done, with when Get handed them out.
  std::unordered_map<std::string, api::Clock::time_point> processing_;  // guarded by mu_
  bool shutting_down_ = false;                                     // guarded by mu_
  bool draining_ = false;                                          // guarded by mu_

  // Delayed adds, ordered by (due time, arrival), and each key's place there.
  using DelayedEntry = std::tuple<api::Clock::time_point, uint64_t, std::string>;
  std::set<DelayedEntry> delayed_;  // guarded by mu_
  std::unordered_map<std::string, std::pair<api::Clock::time_point, uint64_t>>
      delayed_at_;             // guarded by mu_
  uint64_t next_arrival_ = 0;  // guarded by mu_
  // Set to the earliest due time; calls AddDueKeys. Guarded by mu_ (the
  // destructor takes it out); used only while something is delayed.
  std::unique_ptr<api::Clock::Alarm> alarm_;
};

// Runs `workers` threads that take keys from a queue and reconcile them. A key
// whose reconcile fails is retried through AddRateLimited, and counted; one
// that succeeds is forgotten, which resets its backoff. The queue's guarantee
// holds: a key is never reconciled on two threads at once.
class WorkerPool {
 public:
  using Reconcile = std::function<Status(const std::string& key)>;
  // Runs on the worker's thread after a failed reconcile (e.g. to log it).
  using OnError = std::function<void(const std::string& key, const Status& status)>;

  // Starts the threads. REQUIRES: `queue` outlives the pool; workers >= 0.
  WorkerPool(WorkQueue& queue, int workers, Reconcile reconcile, OnError on_error = nullptr);
  // Stop().
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Shuts the queue down, lets the workers finish the keys already queued (a
  // failure then is not retried: the queue takes no more adds) and joins them.
  // Idempotent. REQUIRES: not called from a worker (from Reconcile).
  void Stop();
  // Failed reconciles so far.
  int64_t errors() const { return errors_.load(std::memory_order_relaxed); }

 private:
  void Work();

  WorkQueue& queue_;
  const Reconcile reconcile_;
  const OnError on_error_;
  std::atomic<int64_t> errors_{0};
  std::mutex mu_;                     // serializes Stop
  std::vector<std::thread> threads_;  // guarded by mu_
};

}  // namespace berth::client
