#pragma once
// Work the scheduler sends to the API without waiting for it: a fixed pool
// of threads running queued tasks in order of submission (several at once).
// kube-scheduler starts a goroutine for such work (asynchronous preemption's
// evictions); a pool bounds the threads. Stop runs what is queued, then joins.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace berth::scheduler {

class TaskPool {
 public:
  // `threads` workers, named `name` (at most 15 characters) for profilers.
  TaskPool(int threads, std::string name);
  ~TaskPool() { Stop(); }
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues `task`. After Stop, runs it on the caller's thread instead (so
  // that nothing submitted is lost).
  void Submit(std::function<void()> task);
  // Tasks queued or running.
  size_t pending() const;
  // Runs the tasks already queued, then joins the workers. Idempotent.
  void Stop();

 private:
  void Work();
  const std::string name_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  size_t running_ = 0;                        // guarded by mu_
  bool stopping_ = false;                     // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace berth::scheduler
