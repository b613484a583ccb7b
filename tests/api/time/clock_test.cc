// Clocks: the fake one moves only when stepped and fires its alarms in order
// on the stepping thread, its wall time moving with it; the real one's alarms
// fire after their deadline; a Ticker ticks once per period of its clock.

#include "api/time/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace berth::api {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(FakeClock, StepFiresDueAlarmsEarliestFirstOnTheCallersThread) {
  FakeClock clock;
  const auto start = clock.Now();
  std::vector<std::string> fired;
  auto late = clock.NewAlarm([&] { fired.push_back("late"); });
  auto early = clock.NewAlarm([&] { fired.push_back("early"); });
  auto gone = clock.NewAlarm([&] { fired.push_back("gone"); });
  late->Set(start + milliseconds(20));
  early->Set(start + milliseconds(10));
  gone->Set(start + milliseconds(5));
  gone.reset();
  clock.Step(milliseconds(9));
  EXPECT_TRUE(fired.empty());
  clock.Step(milliseconds(30));
  EXPECT_EQ(fired, (std::vector<std::string>{"early", "late"}));
  clock.Step(seconds(1));
  EXPECT_EQ(fired.size(), 2u);  // once per Set
  early->Set(start);            // already past: fires at the next Step
  clock.Step(nanoseconds(0));
  EXPECT_EQ(fired.back(), "early");
}

TEST(RealClock, AlarmFiresAfterItsDeadline) {
  RealClock& clock = RealClock::Instance();
  std::mutex mu;
  std::condition_variable cv;
  bool fired = false;            // guarded by mu
  Clock::time_point fired_at{};  // guarded by mu
  auto alarm = clock.NewAlarm([&] {
    std::lock_guard lock(mu);
    fired = true;
    fired_at = clock.Now();
    cv.notify_all();
  });
  const auto deadline = clock.Now() + milliseconds(5);
  alarm->Set(deadline);
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, seconds(5), [&] { return fired; }));
  EXPECT_GE(fired_at, deadline);
}

TEST(FakeClock, WallTimeMovesWithSteps) {
  const auto wall = std::chrono::system_clock::time_point(std::chrono::hours(1000));
  FakeClock clock(Clock::time_point(std::chrono::hours(1)), wall);
  EXPECT_EQ(clock.WallNow(), wall);
  clock.Step(std::chrono::seconds(90));
  EXPECT_EQ(clock.WallNow(), wall + std::chrono::seconds(90));
  EXPECT_EQ(clock.Now(), Clock::time_point(std::chrono::hours(1) + std::chrono::seconds(90)));
}

TEST(Ticker, TicksOncePerPeriodUntilDestroyed) {
  FakeClock clock;
  std::atomic<int> ticks{0};
  {
    Ticker ticker(clock, std::chrono::seconds(10), [&] { ++ticks; });
    clock.Step(std::chrono::seconds(9));
    EXPECT_EQ(ticks, 0);
    clock.Step(std::chrono::seconds(1));
    EXPECT_EQ(ticks, 1);
    clock.Step(std::chrono::seconds(10));
    EXPECT_EQ(ticks, 2);
  }
  clock.Step(std::chrono::seconds(100));
  EXPECT_EQ(ticks, 2);
  EXPECT_FALSE(clock.NextAlarm().has_value());
}

}  // namespace
}  // namespace berth::api
