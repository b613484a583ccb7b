#include "api/time/duration.h"

#include <cctype>
#include <charconv>
#include <cstdint>

namespace berth::api {

// "30s", "2m", "1h", "1500ms": Go's time.ParseDuration for the common units.
std::optional<std::chrono::milliseconds> ParseGoDuration(std::string_view text) {
  double total = 0;
  size_t i = 0;
  if (text.empty()) return std::nullopt;
  if (text == "0") return std::chrono::milliseconds(0);  // Go's one unitless duration
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    double value = 0;
    auto [end, error] = std::from_chars(text.data() + start, text.data() + i, value);
    if (start == i || error != std::errc() || end != text.data() + i) return std::nullopt;
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit == "ms") {
      total += value;
    } else if (unit == "s") {
      total += value * 1000;
    } else if (unit == "m") {
      total += value * 60000;
    } else if (unit == "h") {
      total += value * 3600000;
    } else {
      return std::nullopt;
    }
  }
  return std::chrono::milliseconds(static_cast<int64_t>(total));
}

namespace {

// `whole` followed by the significant digits of `fraction` (of `digits`
// digits), as Go prints a duration in one unit: 1, 500000, 6 → "1.5".
std::string WithFraction(int64_t whole, int64_t fraction, int digits) {
  std::string out = std::to_string(whole);
  if (fraction == 0) return out;
  std::string decimals(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, fraction /= 10) decimals[static_cast<size_t>(i)] = static_cast<char>('0' + fraction % 10);
  while (!decimals.empty() && decimals.back() == '0') decimals.pop_back();
  return out + "." + decimals;
}

}  // namespace

std::string FormatGoDuration(std::chrono::nanoseconds d) {
  int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  // |INT64_MIN| does not fit; Go prints it too, but no caller waits 292 years.
  uint64_t abs = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  if (abs < 1000) return sign + std::to_string(abs) + "ns";
  const auto u = [](uint64_t v) { return static_cast<int64_t>(v); };
  if (abs < 1'000'000) return sign + WithFraction(u(abs / 1000), u(abs % 1000), 3) + "\u00b5s";
  if (abs < 1'000'000'000) return sign + WithFraction(u(abs / 1'000'000), u(abs % 1'000'000), 6) + "ms";
  const uint64_t seconds = abs / 1'000'000'000;
  std::string out = WithFraction(u(seconds % 60), u(abs % 1'000'000'000), 9) + "s";
  if (seconds >= 60) {
    out = std::to_string((seconds / 60) % 60) + "m" + out;
    if (seconds >= 3600) out = std::to_string(seconds / 3600) + "h" + out;
  }
  return sign + out;
}

std::string HumanDuration(std::chrono::seconds d) {
  const int64_t seconds = d.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const int64_t hours = seconds / 3600;
  if (hours < 8) {
    int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    int64_t days = (hours / 24) % 365;
    return days == 0 ? std::to_string(hours / 24 / 365) + "y"
                     : std::to_string(hours / 24 / 365) + "y" + std::to_string(days) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

}  // namespace berth::api
