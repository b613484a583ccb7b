#pragma once
// The workers of a controller: threads that reconcile the keys of a WorkQueue.

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/status.h"
#include "client/workqueue.h"

namespace berth::client {

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
