// RFC 3339 timestamps as Kubernetes writes them (seconds, UTC, "Z").

#include "api/time/rfc3339.h"

#include <gtest/gtest.h>

#include <chrono>

namespace berth::api {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

system_clock::time_point At(int64_t unix_seconds) {
  return system_clock::time_point(seconds(unix_seconds));
}

TEST(Rfc3339, FormatsCalendarDatesInUtc) {
  struct Case {
    int64_t unix_seconds;
    const char* text;
  };
  const Case cases[] = {
      {0, "1970-01-01T00:00:00Z"},
      {-1, "1969-12-31T23:59:59Z"},
      {951782400, "2000-02-29T00:00:00Z"},   // leap day of a year divisible by 400
      {1709251199, "2024-02-29T23:59:59Z"},  // last second of a leap day
      {1700000000, "2023-11-14T22:13:20Z"},
      {4102444800, "2100-01-01T00:00:00Z"},   // 2100 is not a leap year
      {-2208988800, "1900-01-01T00:00:00Z"},  // 1900 is not a leap year either
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FormatRfc3339(At(c.unix_seconds)), c.text) << c.unix_seconds;
  }
  // Fractions of a second are dropped, not rounded.
  EXPECT_EQ(FormatRfc3339(At(1700000000) + std::chrono::milliseconds(999)), "2023-11-14T22:13:20Z");
  EXPECT_EQ(FormatRfc3339(At(-1) + std::chrono::milliseconds(500)), "1969-12-31T23:59:59Z");
}

TEST(Rfc3339, ParseReadsWhatFormatWrites) {
  for (int64_t t : {int64_t{0}, int64_t{951782400}, int64_t{1709251199}, int64_t{4102444800}}) {
    auto parsed = ParseRfc3339(FormatRfc3339(At(t)));
    ASSERT_TRUE(parsed.has_value()) << t;
    EXPECT_EQ(*parsed, At(t)) << t;
  }
  EXPECT_FALSE(ParseRfc3339("yesterday").has_value());
}

}  // namespace
}  // namespace berth::api
