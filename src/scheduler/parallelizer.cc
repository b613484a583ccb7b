#include "scheduler/parallelizer.h"

#include <pthread.h>

#include <algorithm>

namespace berth::scheduler {

struct Parallelizer::Job {
  size_t n;
  size_t chunk;
  const std::function<void(size_t)>* fn;
  const std::atomic<bool>* stop;
  std::atomic<size_t> next{0};
  std::atomic<int> active{0};
  std::mutex mu;
  std::condition_variable done;

  // Takes and runs chunks until none is left.
  void Run() {
    while (true) {
      size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= n) return;
      size_t end = std::min(n, begin + chunk);
      for (size_t i = begin; i < end; ++i) {
        if (stop && stop->load(std::memory_order_relaxed)) {
          next.store(n, std::memory_order_relaxed);
          return;
        }
        (*fn)(i);
      }
    }
  }
};

metrics::Family<metrics::Gauge>& GoroutinesFamily(metrics::Registry& registry) {
  return registry.AddGauge("scheduler_goroutines",
                           "[ALPHA] Number of running goroutines split by the work they do such as binding.",
                           {"operation"});
}

Parallelizer::Parallelizer(int threads, metrics::Family<metrics::Gauge>* goroutines) : goroutines_(goroutines) {
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "sched-parallel");
      Work();
    });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void Parallelizer::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
    if (closing_) return;
    Job* job = jobs_.back();
    if (job->next.load(std::memory_order_relaxed) >= job->n) {
      // Fully handed out: forget it and look again.
      jobs_.pop_back();
      continue;
    }
    job->active.fetch_add(1);
    lock.unlock();
    job->Run();
    {
      // Notify under the job's lock: once `active` reaches 0 the caller may
      // return and destroy the job.
      std::lock_guard job_lock(job->mu);
      job->active.fetch_sub(1);
      job->done.notify_all();
    }
    lock.lock();
  }
}

metrics::Gauge* Parallelizer::Goroutines(std::string_view operation) {
  if (!goroutines_ || operation.empty()) return nullptr;
  std::lock_guard lock(goroutines_mu_);
  auto it = goroutines_by_operation_.find(operation);
  if (it == goroutines_by_operation_.end()) {
    it = goroutines_by_operation_
             .emplace(std::string(operation), &goroutines_->WithLabels({std::string(operation)}))
             .first;
  }
  return it->second;
}

void Parallelizer::Until(size_t n, const std::function<void(size_t)>& fn, const std::atomic<bool>* stop,
                         std::string_view operation) {
  if (n == 0) return;
  Job job;
  job.n = n;
  job.fn = &fn;
  job.stop = stop;
  // kube's chunk size: about sqrt(n), at least 1.
  size_t chunk = 1;
  while (chunk * chunk < n) ++chunk;
  job.chunk = workers_.empty() ? n : std::max<size_t>(1, chunk / 2);
  // The threads this call can use: the caller and a helper per further chunk.
  const size_t chunks = (n + job.chunk - 1) / job.chunk;
  const double threads = static_cast<double>(1 + std::min(workers_.size(), chunks - 1));
  metrics::Gauge* goroutines = Goroutines(operation);
  if (goroutines) goroutines->Add(threads);
  if (!workers_.empty() && n > job.chunk) {
    std::lock_guard lock(mu_);
    jobs_.push_back(&job);
    cv_.notify_all();
  }
  job.Run();
  {
    std::lock_guard lock(mu_);
    jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), &job), jobs_.end());
  }
  {
    std::unique_lock job_lock(job.mu);
    job.done.wait(job_lock, [&] { return job.active.load() == 0; });
  }
  if (goroutines) goroutines->Add(-threads);
}

}  // namespace berth::scheduler
