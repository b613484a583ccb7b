#include "api/rfc3339.h"

#include <ctime>

namespace berth::api {

std::string FormatRfc3339(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
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
