#include "api/rfc3339.h"

#include <cstdio>
#include <ctime>

namespace berth::api {

std::string FormatRfc3339(std::chrono::system_clock::time_point t) {
  // Calendar arithmetic, not gmtime_r + strftime: those take glibc's time
  // zone lock, which binding threads stamping conditions contend for.
  using namespace std::chrono;
  const auto day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss time{floor<seconds>(t) - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return buf;
}

std::string NowRfc3339() { return FormatRfc3339(std::chrono::system_clock::now()); }

std::optional<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace berth::api
