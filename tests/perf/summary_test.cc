// The one summary the benchmarks report (scheduler_perf's percentile rule),
// and the scheduler histograms read over a phase.

#include "perf/summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "perf/histogram.h"

namespace berth::perf {
namespace {

TEST(Summarize, EmptySampleIsAllZero) {
  Summary s = Summarize({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.average, 0);
  EXPECT_EQ(s.p99, 0);
}

TEST(Summarize, PercentilesAreTheSmallestSampleWithAtLeastQAtOrBelow) {
  // 1..10, shuffled: average 5.5; p50 = sorted[ceil(5) - 1] = 5; p90 = 9;
  // p95 = sorted[ceil(9.5) - 1] = 10; p99 = sorted[ceil(9.9) - 1] = 10.
  Summary s = Summarize({7, 3, 10, 1, 9, 2, 8, 5, 4, 6});
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.average, 5.5);
  EXPECT_EQ(s.p50, 5);
  EXPECT_EQ(s.p90, 9);
  EXPECT_EQ(s.p95, 10);
  EXPECT_EQ(s.p99, 10);
}

TEST(Summarize, HundredSamplesTakeTheNinetyNinthNotTheLast) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  Summary s = Summarize(v);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p99, 99);  // ceil(0.99 * 100) - 1 = 98 → 99, not 100
  EXPECT_DOUBLE_EQ(s.average, 50.5);
}

TEST(Summarize, OneSampleIsEveryPercentile) {
  Summary s = Summarize({42});
  EXPECT_EQ(s.p50, 42);
  EXPECT_EQ(s.p99, 42);
  EXPECT_EQ(s.average, 42);
}

TEST(Percentile, ThreeSamples) {
  // ceil(3 * 0.5) - 1 = 1; ceil(3 * 0.99) - 1 = 2.
  EXPECT_EQ(Percentile({1, 2, 3}, 0.5), 2);
  EXPECT_EQ(Percentile({1, 2, 3}, 0.99), 3);
  EXPECT_EQ(Percentile({1, 2, 3}, 0.3), 1);
}

constexpr char kBefore[] =
    "# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"0.001\"} 10\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"0.002\"} 10\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"+Inf\"} 10\n";
constexpr char kAfter[] =
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"0.001\"} 60\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"0.002\"} 110\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"scheduled\",le=\"+Inf\"} 110\n"
    "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\",result="
    "\"unschedulable\",le=\"0.001\"} 0\n"
    "scheduler_other_bucket{le=\"0.001\"} 999\n";

TEST(HistogramSummary, InterpolatesInsideTheBucketOverThePhaseOnly) {
  auto before = HistogramBuckets(kBefore, "scheduler_scheduling_attempt_duration_seconds");
  auto after = HistogramBuckets(kAfter, "scheduler_scheduling_attempt_duration_seconds");
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0.001], 60);  // label sets summed, other histograms ignored
  // In the phase: 50 observations ≤ 1 ms, 50 in (1 ms, 2 ms].
  Summary s = HistogramSummary(before, after);
  EXPECT_EQ(s.count, 100u);
  EXPECT_NEAR(s.p50, 1.0, 1e-9);  // rank 50: the top of the first bucket
  EXPECT_NEAR(s.p90, 1.8, 1e-9);  // rank 90: 40 of the 50 in (1, 2]
  EXPECT_NEAR(s.p99, 1.98, 1e-9);
}

TEST(HistogramSummary, NoObservationsIsAllZero) {
  auto before = HistogramBuckets(kBefore, "scheduler_scheduling_attempt_duration_seconds");
  Summary s = HistogramSummary(before, before);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.p99, 0);
}

}  // namespace
}  // namespace berth::perf
