// The fake clock's wall time moves with its steady time, and a Ticker ticks
// once per period of the clock it is given.

#include "api/clock.h"

#include <gtest/gtest.h>

#include <atomic>

namespace berth::api {
namespace {

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
