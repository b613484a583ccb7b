// Once under racing threads (run under ThreadSanitizer in CI).

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "api/once.h"

namespace berth::api {
namespace {

// Many threads race for each of many flags: each function runs once, and
// every caller returns only after it has finished (it sees its result).
TEST(OnceStress, CallersWaitForTheRunToFinish) {
  constexpr int kFlags = 2000, kThreads = 8;
  std::vector<Once> flags(kFlags);
  std::vector<int> results(kFlags, 0);
  std::vector<std::atomic<int>> runs(kFlags);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFlags; ++i) {
        int k = (t % 2 == 0) ? i : kFlags - 1 - i;
        flags[k].Call([&] {
          runs[k].fetch_add(1);
          if (k % 97 == 0) std::this_thread::yield();  // let others find it running
          results[k] = k + 1;
        });
        if (results[k] != k + 1) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int k = 0; k < kFlags; ++k) ASSERT_EQ(runs[k].load(), 1) << k;
}

// A run that throws while others wait: one of the waiters runs it next.
TEST(OnceStress, WaitersTakeOverAfterAThrow) {
  for (int round = 0; round < 200; ++round) {
    Once once;
    std::atomic<int> attempts{0}, successes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        try {
          once.Call([&] {
            if (attempts.fetch_add(1) == 0) {
              std::this_thread::yield();
              throw std::runtime_error("first attempt fails");
            }
            successes.fetch_add(1);
          });
        } catch (const std::runtime_error&) {
          // The failed attempt's caller; the flag is someone else's now.
          once.Call([&] { successes.fetch_add(1); });
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(successes.load(), 1);
    EXPECT_TRUE(once.done());
  }
}

}  // namespace
}  // namespace berth::api
