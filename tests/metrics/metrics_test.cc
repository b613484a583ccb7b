// The registry's text format (what promtool and Prometheus parse) and the
// process_* collector.

#include "metrics/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include "metrics/process.h"

namespace berth::metrics {
namespace {

TEST(Metrics, ValuesAreTheShortestTextThatReadsBack) {
  EXPECT_EQ(FormatValue(1), "1");
  EXPECT_EQ(FormatValue(0.001), "0.001");
  EXPECT_EQ(FormatValue(1e-05), "1e-05");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatValue(1e20), "1e+20");
  EXPECT_EQ(FormatValue(INFINITY), "+Inf");
  EXPECT_EQ(FormatValue(-INFINITY), "-Inf");
  EXPECT_EQ(FormatValue(NAN), "NaN");
  for (double v : {0.00001 * std::pow(1.5, 7), 0.0001 * 1024, 123456.789}) {
    EXPECT_EQ(std::stod(FormatValue(v)), v);
  }
}

TEST(Metrics, HistogramsRenderCumulativeBucketsSumAndCount) {
  Registry r;
  auto& h = r.AddHistogram("x_seconds", "Help with a \\ and\na newline.", {0.1, 1}, {"verb"});
  h.WithLabels({"GET"}).Observe(0.05);
  h.WithLabels({"GET"}).Observe(0.5);
  h.WithLabels({"GET"}).Observe(5);
  r.AddHistogram("y", "Unlabelled.", {1}).WithLabels({}).Observe(1);
  EXPECT_EQ(r.Render(),
            "# HELP x_seconds Help with a \\\\ and\\na newline.\n"
            "# TYPE x_seconds histogram\n"
            "x_seconds_bucket{verb=\"GET\",le=\"0.1\"} 1\n"
            "x_seconds_bucket{verb=\"GET\",le=\"1\"} 2\n"
            "x_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 3\n"
            "x_seconds_sum{verb=\"GET\"} 5.55\n"
            "x_seconds_count{verb=\"GET\"} 3\n"
            "# HELP y Unlabelled.\n"
            "# TYPE y histogram\n"
            "y_bucket{le=\"1\"} 1\n"
            "y_bucket{le=\"+Inf\"} 1\n"
            "y_sum 1\n"
            "y_count 1\n");
}

TEST(Metrics, LabelValuesAreEscaped) {
  Registry r;
  r.AddCounter("c_total", "C.", {"path"}).WithLabels({"a\"b\\c\nd"}).Increment(2);
  EXPECT_NE(r.Render().find("c_total{path=\"a\\\"b\\\\c\\nd\"} 2\n"), std::string::npos) << r.Render();
}

TEST(Metrics, CallbackCountersAndRefreshesRunAtRenderTime) {
  Registry r;
  double cpu = 1.5;
  r.AddCallbackCounter("cpu_seconds_total", "CPU.", {}, [&] { return std::vector<Registry::Sample>{{{}, cpu}}; });
  auto& g = r.AddGauge("g", "G.").WithLabels({});
  int refreshed = 0;
  const uint64_t id = r.AddRefresh([&] { g.Set(++refreshed); });
  std::string text = r.Render();
  EXPECT_NE(text.find("# TYPE cpu_seconds_total counter\ncpu_seconds_total 1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ng 1\n"), std::string::npos) << text;
  cpu = 2;
  text = r.Render();
  EXPECT_NE(text.find("cpu_seconds_total 2\n"), std::string::npos);
  EXPECT_NE(text.find("\ng 2\n"), std::string::npos);
  r.RemoveRefresh(id);
  EXPECT_NE(r.Render().find("\ng 2\n"), std::string::npos);
  EXPECT_EQ(refreshed, 2);
}

TEST(ProcessMetrics, ParsesProcStat) {
  // A command name with spaces and parentheses; utime 250, stime 150 ticks,
  // starttime 1000 ticks after boot, vsize 4096000, rss 300 pages.
  const std::string stat =
      "1234 (my (odd) cmd) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 7 0 1000 4096000 300 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
  auto s = ParseProcStat(stat, 100, 4096, 1700000000);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->cpu_seconds, 4);
  EXPECT_DOUBLE_EQ(s->start_time_seconds, 1700000010);
  EXPECT_DOUBLE_EQ(s->virtual_bytes, 4096000);
  EXPECT_DOUBLE_EQ(s->resident_bytes, 300 * 4096);
  EXPECT_FALSE(ParseProcStat("garbage", 100, 4096, 0));
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2 3", 100, 4096, 0));
}

TEST(ProcessMetrics, ThisProcessHasPlausibleFigures) {
  auto s = ReadProcessStats();
  ASSERT_TRUE(s);
  EXPECT_GT(s->resident_bytes, 1 << 20);
  EXPECT_GE(s->virtual_bytes, s->resident_bytes);
  EXPECT_GE(s->open_fds, 3);  // stdin, stdout, stderr at least
  EXPECT_GE(s->max_fds, s->open_fds);
  EXPECT_GT(s->start_time_seconds, 1.5e9);
  EXPECT_LE(s->start_time_seconds, static_cast<double>(time(nullptr)) + 1);

  Registry r;
  AddProcessMetrics(r);
  const std::string text = r.Render();
  for (const char* name : {"process_cpu_seconds_total", "process_open_fds", "process_max_fds",
                           "process_virtual_memory_bytes", "process_resident_memory_bytes",
                           "process_start_time_seconds"}) {
    EXPECT_NE(text.find(std::string("\n") + name + " "), std::string::npos) << name << "\n" << text;
  }
  EXPECT_NE(text.find("# TYPE process_cpu_seconds_total counter"), std::string::npos);
}

}  // namespace
}  // namespace berth::metrics
