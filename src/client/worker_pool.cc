#include "client/worker_pool.h"

#include <utility>

namespace berth::client {

WorkerPool::WorkerPool(WorkQueue& queue, int workers, Reconcile reconcile, OnError on_error)
    : queue_(queue), reconcile_(std::move(reconcile)), on_error_(std::move(on_error)) {
  std::lock_guard lock(mu_);
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Stop() {
  std::lock_guard lock(mu_);
  queue_.ShutDown();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
}

void WorkerPool::Work() {
  std::string key;
  while (queue_.Get(&key)) {
    Status status = reconcile_(key);
    if (status.ok()) {
      queue_.Forget(key);
    } else {
      // Before Done: if the retry comes due while `key` is still being
      // processed, it makes the key dirty and Done queues it; it is not lost.
      queue_.AddRateLimited(key);
      errors_.fetch_add(1, std::memory_order_relaxed);
      if (on_error_) on_error_(key, status);
    }
    queue_.Done(key);
  }
}

}  // namespace berth::client
