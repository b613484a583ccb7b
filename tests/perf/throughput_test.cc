// SchedulingThroughput's windows by scheduler_perf's collector rule, from
// hand-made binding times.

#include "perf/throughput.h"

#include <gtest/gtest.h>

#include "perf/summary.h"

namespace berth::perf {
namespace {

using namespace std::chrono_literals;

SteadyTime T0() { return SteadyTime() + 1000s; }

// `n` bindings spread evenly over [from, to).
std::vector<SteadyTime> Even(SteadyTime from, SteadyTime to, int n) {
  std::vector<SteadyTime> v;
  for (int i = 0; i < n; ++i) v.push_back(from + (to - from) * i / n);
  return v;
}

TEST(ThroughputWindows, APhaseShorterThanTwoWindowsHasNone) {
  // 1,000 pods in 0.1 s: the first tick (1 s) sees them all and is the
  // baseline; the phase ends before a second tick.
  auto bound = Even(T0(), T0() + 100ms, 1000);
  EXPECT_TRUE(ThroughputWindows(T0(), T0() + 100ms, bound).empty());
  // 1.9 s: still only the skipped first window, and the partial second is dropped.
  bound = Even(T0(), T0() + 1900ms, 1900);
  EXPECT_TRUE(ThroughputWindows(T0(), T0() + 1900ms, bound).empty());
}

TEST(ThroughputWindows, FirstWindowSkippedAndNoPartialWindow) {
  // 100 pods/s for 1 s, then 200, 300, then 50 pods in a partial 0.5 s window.
  std::vector<SteadyTime> bound = Even(T0(), T0() + 1s, 100);
  auto more = Even(T0() + 1s, T0() + 2s, 200);
  bound.insert(bound.end(), more.begin(), more.end());
  more = Even(T0() + 2s, T0() + 3s, 300);
  bound.insert(bound.end(), more.begin(), more.end());
  more = Even(T0() + 3s, T0() + 3500ms, 50);
  bound.insert(bound.end(), more.begin(), more.end());
  auto windows = ThroughputWindows(T0(), T0() + 3500ms, bound);
  // Ticks at 1 s (baseline: 101 bound, the one at exactly 1 s included),
  // 2 s (+200), 3 s (+300); the window (3 s, 3.5 s] is partial.
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_DOUBLE_EQ(windows[0], 200);
  EXPECT_DOUBLE_EQ(windows[1], 300);
  Summary s = Summarize(windows);
  EXPECT_DOUBLE_EQ(s.average, 250);
  EXPECT_EQ(s.p50, 200);
  EXPECT_EQ(s.p99, 300);
}

TEST(ThroughputWindows, TicksBeforeTheFirstBindingTakeNoSample) {
  // Nothing bound for 2.5 s, then 100 pods/s until 6 s.
  auto bound = Even(T0() + 2500ms, T0() + 6s, 350);
  auto windows = ThroughputWindows(T0(), T0() + 6s, bound);
  // Ticks 1 s and 2 s: nothing bound, no sample; 3 s: the baseline; 4, 5, 6 s: 100 each.
  ASSERT_EQ(windows.size(), 3u);
  for (double w : windows) EXPECT_NEAR(w, 100, 1);  // the last window ends at the last binding
}

TEST(ThroughputWindows, AnIdleWindowIsMeasuredWithTheNextAndCountedForBoth) {
  // 100 by 1 s (baseline), none in (1, 2], 100 in (2, 3] → one rate of
  // 100 / 2 s = 50, recorded twice; then 100 in (3, 4].
  std::vector<SteadyTime> bound = Even(T0(), T0() + 1s, 100);
  auto more = Even(T0() + 2100ms, T0() + 3s, 100);
  bound.insert(bound.end(), more.begin(), more.end());
  more = Even(T0() + 3100ms, T0() + 4s, 100);
  bound.insert(bound.end(), more.begin(), more.end());
  auto windows = ThroughputWindows(T0(), T0() + 4s, bound);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_DOUBLE_EQ(windows[0], 50);
  EXPECT_DOUBLE_EQ(windows[1], 50);
  EXPECT_DOUBLE_EQ(windows[2], 100);
}

TEST(ThroughputWindows, UnsortedTimesAndAShorterInterval) {
  std::vector<SteadyTime> bound = {T0() + 350ms, T0() + 50ms, T0() + 150ms, T0() + 250ms};
  // Interval 100 ms: ticks 100 (baseline: 1), 200 (+1), 300 (+1), 400 (+1) → 10/s each.
  auto windows = ThroughputWindows(T0(), T0() + 400ms, bound, 100ms);
  ASSERT_EQ(windows.size(), 3u);
  for (double w : windows) EXPECT_NEAR(w, 10, 1e-9);
}

}  // namespace
}  // namespace berth::perf
