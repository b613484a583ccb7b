#pragma once
// Runs a function over [0, n) on a fixed pool of threads, in chunks; the
// calling thread works too. kube-scheduler's parallelize.Until. Pieces may be
// abandoned early through the `stop` flag the function sees.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace berth::scheduler {

class Parallelizer {
 public:
  // `threads` helpers besides the caller (0: everything runs on the caller).
  explicit Parallelizer(int threads);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  // Calls fn(i) for every i in [0, n) unless `stop` becomes true; returns when
  // all started calls are done. Thread-safe: concurrent Until calls share the pool.
  void Until(size_t n, const std::function<void(size_t)>& fn, const std::atomic<bool>* stop = nullptr);
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct Job;
  void Work();
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Job*> jobs_;  // guarded by mu_
  bool closing_ = false;    // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace berth::scheduler
