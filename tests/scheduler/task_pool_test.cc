// The scheduler's API task pool: every task runs, on at most the threads
// allowed, none lost at Stop (what is queued runs; later ones run inline).

#include "scheduler/task_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace berth::scheduler {
namespace {

TEST(TaskPool, RunsEveryTaskOnAtMostItsThreads) {
  TaskPool pool(3, "test-pool");
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> ran{0};
  for (int i = 0; i < 200; ++i) {
    pool.Submit([&] {
      {
        std::lock_guard lock(mu);
        threads.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ran++;
    });
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (pool.pending() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(ran.load(), 200);
  EXPECT_GE(threads.size(), 2u);  // tasks ran side by side
  EXPECT_LE(threads.size(), 3u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(TaskPool, StopRunsWhatIsQueuedAndLaterTasksRunInline) {
  std::atomic<int> ran{0};
  TaskPool pool(1, "test-pool");
  for (int i = 0; i < 50; ++i) {
    pool.Submit([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      ran++;
    });
  }
  pool.Stop();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(pool.pending(), 0u);
  std::thread::id where;
  pool.Submit([&] { where = std::this_thread::get_id(); });
  EXPECT_EQ(where, std::this_thread::get_id());
  pool.Stop();  // idempotent
}

}  // namespace
}  // namespace berth::scheduler
