#include "api/time/rfc3339.h"

#include <algorithm>
#include <ctime>

namespace berth::api {

std::string FormatRfc3339(std::chrono::system_clock::time_point t) {
  // Calendar arithmetic, not gmtime_r + strftime: those take glibc's time
  // zone lock, which binding threads stamping conditions contend for.
  using namespace std::chrono;
  const auto day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss time{floor<seconds>(t) - day};
  // Digits written by hand: every create and binding stamps a time, and
  // snprintf's format parsing cost more than the rest of this function.
  // Years outside 0–9999 do not occur in Kubernetes timestamps; they are clamped.
  const int year = std::clamp(static_cast<int>(date.year()), 0, 9999);
  std::string out = "0000-00-00T00:00:00Z";
  auto put = [&out](size_t at, unsigned value, size_t width) {
    for (size_t i = width; i-- > 0; value /= 10) out[at + i] = static_cast<char>('0' + value % 10);
  };
  put(0, static_cast<unsigned>(year), 4);
  put(5, static_cast<unsigned>(date.month()), 2);
  put(8, static_cast<unsigned>(date.day()), 2);
  put(11, static_cast<unsigned>(time.hours().count()), 2);
  put(14, static_cast<unsigned>(time.minutes().count()), 2);
  put(17, static_cast<unsigned>(time.seconds().count()), 2);
  return out;
}

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  std::string out = FormatRfc3339(t);  // ...SSZ
  auto micros = static_cast<unsigned>((duration_cast<microseconds>(t.time_since_epoch()) % seconds(1)).count());
  if (t.time_since_epoch().count() < 0) micros = 0;  // before 1970: whole seconds
  std::string fraction = ".000000";
  for (size_t i = 6; i > 0; --i, micros /= 10) fraction[i] = static_cast<char>('0' + micros % 10);
  out.insert(out.size() - 1, fraction);
  return out;
}

std::string NowRfc3339() { return FormatRfc3339(std::chrono::system_clock::now()); }

std::optional<std::chrono::system_clock::time_point> ParseRfc3339(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace berth::api
