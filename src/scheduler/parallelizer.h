#pragma once
// Runs a function over [0, n) on a fixed pool of threads, in chunks; the
// calling thread works too. kube-scheduler's parallelize.Until. Pieces may be
// abandoned early through the `stop` flag the function sees.
//
// scheduler_goroutines{operation}: while a call runs, the threads it uses
// (the caller and the helpers it can use, as kube adds its workers' count
// for the call) count under the call's operation ("Filter", or the plugin
// that asked, as kube labels its Parallelizer().Until calls).

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "metrics/metrics.h"

namespace berth::scheduler {

// scheduler_goroutines{operation} in `registry` (kube's name, help and
// stability): what runs in parallel for the scheduler, by the work it does.
metrics::Family<metrics::Gauge>& GoroutinesFamily(metrics::Registry& registry);

class Parallelizer {
 public:
  // `threads` helpers besides the caller (0: everything runs on the caller).
  // `goroutines`: scheduler_goroutines, or nullptr. REQUIRES: it outlives this.
  explicit Parallelizer(int threads, metrics::Family<metrics::Gauge>* goroutines = nullptr);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  // Calls fn(i) for every i in [0, n) unless `stop` becomes true; returns when
  // all started calls are done. Thread-safe: concurrent Until calls share the pool.
  // `operation` labels the threads in scheduler_goroutines ("": not counted).
  void Until(size_t n, const std::function<void(size_t)>& fn, const std::atomic<bool>* stop = nullptr,
             std::string_view operation = {});
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct Job;
  void Work();
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Job*> jobs_;  // guarded by mu_
  bool closing_ = false;    // guarded by mu_
  std::vector<std::thread> workers_;
  // scheduler_goroutines' children by operation, resolved on first use.
  metrics::Gauge* Goroutines(std::string_view operation);
  metrics::Family<metrics::Gauge>* goroutines_ = nullptr;
  std::mutex goroutines_mu_;
  std::map<std::string, metrics::Gauge*, std::less<>> goroutines_by_operation_;  // guarded by goroutines_mu_
};

}  // namespace berth::scheduler
