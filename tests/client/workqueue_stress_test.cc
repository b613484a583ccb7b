// The work queue under concurrency (run under ThreadSanitizer in CI).

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "client/workqueue.h"

namespace berth::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Many workers, few keys: a key is never processed by two workers at once,
// and a key added after its processing started is processed again.
TEST(WorkQueueStress, NoKeyOnTwoWorkersAndNoLostAdd) {
  WorkQueue q("stress", nullptr);
  constexpr int kKeys = 100, kAdds = 10000, kWorkers = 8;
  std::mutex mu;
  std::set<std::string> active;
  std::atomic<bool> overlap{false};
  std::vector<std::atomic<int>> last_add(kKeys), last_start(kKeys);
  std::atomic<int> sequence{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      std::string key;
      while (q.Get(&key)) {
        int k = std::stoi(key);
        {
          std::lock_guard lock(mu);
          if (!active.insert(key).second) overlap = true;
        }
        last_start[k] = sequence.fetch_add(1);
        std::this_thread::yield();
        {
          std::lock_guard lock(mu);
          active.erase(key);
        }
        q.Done(key);
      }
    });
  }
  for (int i = 0; i < kAdds; ++i) {
    int k = i % kKeys;
    last_add[k] = sequence.fetch_add(1);
    q.Add(std::to_string(k));
  }
  // Wait until every key has been started after its last add.
  auto deadline = std::chrono::steady_clock::now() + seconds(10);
  auto settled = [&] {
    for (int k = 0; k < kKeys; ++k) {
      if (last_start[k] < last_add[k]) return false;
    }
    return true;
  };
  while (!settled() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(1));
  q.ShutDown();
  for (auto& t : workers) t.join();
  EXPECT_FALSE(overlap.load());
  EXPECT_TRUE(settled());
}

}  // namespace
}  // namespace berth::client
