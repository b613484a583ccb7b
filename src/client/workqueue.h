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

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "api/time/clock.h"
#include "client/rate_limiter.h"
#include "metrics/metrics.h"

namespace berth::client {

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
  // Adds `key` now or once `delay` has passed (the earliest of several delays wins).
  void ScheduleLocked(const std::string& key, std::chrono::nanoseconds delay);  // REQUIRES: mu_ held
  void ShutDownLocked();                                          // REQUIRES: mu_ held
  void UpdateDepthLocked();                                       // REQUIRES: mu_ held
  // Sets workqueue_unfinished_work_seconds and _longest_running_processor_seconds.
  void UpdateProcessingMetrics();
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

}  // namespace berth::client
