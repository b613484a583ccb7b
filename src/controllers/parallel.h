#pragma once
// Runs a controller's batch of writes (pod creates, deletes) on several
// threads, as kube's controllers fan out their API calls.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "api/status.h"

namespace berth::controllers {

// Runs `work(i)` for i in [0, n) on up to `parallelism` threads (the
// caller's among them); returns how many failed and the first error.
inline std::pair<int64_t, Status> ParallelFor(int64_t n, int64_t parallelism,
                                              const std::function<Status(int64_t)>& work) {
  std::atomic<int64_t> next{0}, failed{0};
  std::mutex mu;
  Status first;
  auto run = [&] {
    for (int64_t i; (i = next.fetch_add(1)) < n;) {
      Status s = work(i);
      if (!s.ok()) {
        ++failed;
        std::lock_guard lock(mu);
        if (first.ok()) first = s;
      }
    }
  };
  const int64_t threads = std::min(n, parallelism);
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  return {failed.load(), first};
}

}  // namespace berth::controllers
