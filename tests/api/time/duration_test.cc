// Go durations as flags and annotations carry them, and kubectl's ages.

#include "api/time/duration.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

using std::chrono::milliseconds;

TEST(GoDuration, ParsesKubesFlagValuesAndRefusesTheRest) {
  EXPECT_EQ(ParseGoDuration("40s"), milliseconds(40000));
  EXPECT_EQ(ParseGoDuration("1h30m"), milliseconds(5400000));
  EXPECT_EQ(ParseGoDuration("1.5s"), milliseconds(1500));
  EXPECT_EQ(ParseGoDuration("250ms"), milliseconds(250));
  EXPECT_EQ(ParseGoDuration("0"), milliseconds(0));
  for (const char* bad : {"", "5", ".s", "1..2s", "s", "3x", "-1s"}) {
    EXPECT_FALSE(ParseGoDuration(bad).has_value()) << bad;
  }
}

TEST(GoDuration, FormatsAsGoPrintsDurations) {
  using std::chrono::nanoseconds;
  struct Case {
    nanoseconds d;
    const char* want;
  };
  const Case cases[] = {
      {nanoseconds(0), "0s"},
      {milliseconds(10000), "10s"},
      {milliseconds(1500), "1.5s"},
      {milliseconds(250), "250ms"},
      {milliseconds(90000), "1m30s"},
      {std::chrono::minutes(15), "15m0s"},
      {std::chrono::hours(1), "1h0m0s"},
      {milliseconds(3723004), "1h2m3.004s"},
      {nanoseconds(1500), "1.5\u00b5s"},
      {nanoseconds(7), "7ns"},
      {milliseconds(-2000), "-2s"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatGoDuration(c.d), c.want) << c.d.count();
}

TEST(GoDuration, EdgeCases) {
  struct Case {
    const char* text;
    std::optional<milliseconds> want;
  };
  const Case cases[] = {
      {"0s", milliseconds(0)},
      {"1h2m3s4ms", milliseconds(3723004)},
      {"2m1h", milliseconds(3720000)},  // any order, as Go
      {"1s1s", milliseconds(2000)},     // repeated units add up
      {".5s", milliseconds(500)},
      {"1.s", milliseconds(1000)},
      {"0.0005s", milliseconds(0)},  // below a millisecond: truncated
      {"1.9ms", milliseconds(1)},
      {"48h", milliseconds(172800000)},
      {"1us", std::nullopt},  // units below a millisecond are not read
      {"1ns", std::nullopt},
      {"1d", std::nullopt},  // Go has no days
      {"+1s", std::nullopt},
      {" 1s", std::nullopt},
      {"1s ", std::nullopt},
      {"1S", std::nullopt},
      {"00", std::nullopt},  // only "0" itself goes without a unit
      {"1m30", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(ParseGoDuration(c.text), c.want) << c.text;
}

TEST(HumanDuration, PrintsAgesAsKubectlDoes) {
  using std::chrono::seconds;
  const std::pair<int64_t, const char*> cases[] = {
      {-5, "<invalid>"},
      {-1, "0s"},
      {0, "0s"},
      {119, "119s"},
      {120, "2m"},
      {200, "3m20s"},
      {600, "10m"},
      {3 * 3600 - 1, "179m"},
      {3 * 3600, "3h"},
      {5 * 3600 + 60, "5h1m"},
      {47 * 3600, "47h"},
      {51 * 3600, "2d3h"},
      {8 * 86400, "8d"},
      {3 * 365 * 86400 + 45 * 86400, "3y45d"},
      {9 * 365 * 86400, "9y"},
  };
  for (const auto& [s, want] : cases) EXPECT_EQ(HumanDuration(seconds(s)), want) << s;
}

}  // namespace
}  // namespace berth::api
