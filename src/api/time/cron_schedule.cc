#include "api/time/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

#include "api/time/duration.h"

namespace berth::api {
namespace {

struct FieldBounds {
  uint64_t min, max;
  std::span<const std::string_view> names;  // names[i] means min + i (months) or i (weekdays)
};

constexpr std::string_view kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(
        s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// Go's strconv.Atoi then robfig's "negative number" check.
Result<uint64_t> ParseNumber(std::string_view expr) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size() || ec == std::errc::invalid_argument) {
    return Status::BadRequest("failed to parse int from " + std::string(expr) +
                              ": strconv.Atoi: parsing \"" + std::string(expr) +
                              "\": invalid syntax");
  }
  if (ec == std::errc::result_out_of_range) {
    return Status::BadRequest("failed to parse int from " + std::string(expr) +
                              ": strconv.Atoi: parsing \"" + std::string(expr) +
                              "\": value out of range");
  }
  if (negative && value != 0) {
    return Status::BadRequest("negative number (-" + std::to_string(value) +
                              ") not allowed: " + std::string(expr));
  }
  return static_cast<uint64_t>(value);
}

Result<uint64_t> ParseNumberOrName(std::string_view expr, const FieldBounds& bounds) {
  std::string lower(expr);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < bounds.names.size(); ++i) {
    if (bounds.names[i] == lower) return static_cast<uint64_t>(bounds.min == 1 ? i + 1 : i);
  }
  return ParseNumber(expr);
}

uint64_t Bits(uint64_t from, uint64_t to, uint64_t step) {
  uint64_t bits = 0;
  for (uint64_t i = from; i <= to; i += step) bits |= uint64_t{1} << i;
  return bits;
}

// robfig's getRange: one comma-separated part of a field.
Result<uint64_t> ParseRange(std::string_view expr, const FieldBounds& bounds, bool& star) {
  const auto range_and_step = Split(expr, '/');
  const auto low_and_high = Split(range_and_step[0], '-');
  uint64_t start = 0, end = 0, step = 1;
  const bool single = low_and_high.size() == 1;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    auto low = ParseNumberOrName(low_and_high[0], bounds);
    if (!low.ok()) return low.status();
    start = end = *low;
    if (low_and_high.size() == 2) {
      auto high = ParseNumberOrName(low_and_high[1], bounds);
      if (!high.ok()) return high.status();
      end = *high;
    } else if (low_and_high.size() > 2) {
      return Status::BadRequest("too many hyphens: " + std::string(expr));
    }
  }
  if (range_and_step.size() == 2) {
    auto parsed = ParseNumber(range_and_step[1]);
    if (!parsed.ok()) return parsed.status();
    step = *parsed;
    if (single) end = bounds.max;
    if (step > 1) star = false;
  } else if (range_and_step.size() > 2) {
    return Status::BadRequest("too many slashes: " + std::string(expr));
  }
  const std::string tail = ": " + std::string(expr);
  if (start < bounds.min) {
    return Status::BadRequest("beginning of range (" + std::to_string(start) + ") below minimum (" +
                              std::to_string(bounds.min) + ")" + tail);
  }
  if (end > bounds.max) {
    return Status::BadRequest("end of range (" + std::to_string(end) + ") above maximum (" +
                              std::to_string(bounds.max) + ")" + tail);
  }
  if (start > end) {
    return Status::BadRequest("beginning of range (" + std::to_string(start) +
                              ") beyond end of range (" + std::to_string(end) + ")" + tail);
  }
  if (step == 0) return Status::BadRequest("step of range should be a positive number" + tail);
  return Bits(start, end, step);
}

Result<uint64_t> ParseField(std::string_view field, const FieldBounds& bounds,
                            bool* any = nullptr) {
  uint64_t bits = 0;
  bool star = false;
  for (std::string_view part : Split(field, ',')) {
    auto range = ParseRange(part, bounds, star);
    if (!range.ok()) return range.status();
    bits |= *range;
  }
  if (any) *any = star;
  return bits;
}

Result<CronSchedule> ParseDescriptor(std::string_view spec, CronSchedule schedule) {
  auto set = [&](uint64_t minutes, uint64_t hours, uint64_t dom, uint64_t months, uint64_t dow) {
    schedule.minutes = minutes;
    schedule.hours = hours;
    schedule.days_of_month = dom;
    schedule.months = months;
    schedule.days_of_week = dow;
    schedule.any_day_of_week = dow == Bits(0, 6, 1);
    schedule.any_day_of_month = dom == Bits(1, 31, 1);
    return schedule;
  };
  const uint64_t all_days = Bits(1, 31, 1), all_months = Bits(1, 12, 1),
                 all_weekdays = Bits(0, 6, 1);
  if (spec == "@yearly" || spec == "@annually") return set(1, 1, 1 << 1, 1 << 1, all_weekdays);
  if (spec == "@monthly") return set(1, 1, 1 << 1, all_months, all_weekdays);
  if (spec == "@weekly") return set(1, 1, all_days, all_months, 1);
  if (spec == "@daily" || spec == "@midnight") return set(1, 1, all_days, all_months, all_weekdays);
  if (spec == "@hourly") return set(1, Bits(0, 23, 1), all_days, all_months, all_weekdays);
  if (spec.starts_with("@every ")) {
    std::string_view text = spec.substr(7);
    auto every = ParseGoDuration(text);
    if (!every) {
      return Status::BadRequest("failed to parse duration " + std::string(spec) +
                                ": time: invalid duration \"" + std::string(text) + "\"");
    }
    schedule.every = *every;
    return schedule;
  }
  return Status::BadRequest("unrecognized descriptor: " + std::string(spec));
}

}  // namespace

bool IsKnownTimeZone(std::string_view zone) {
  if (zone == "UTC") return true;
  static const std::filesystem::path kZoneInfo = "/usr/share/zoneinfo";
  std::error_code ec;
  if (!std::filesystem::is_directory(kZoneInfo, ec)) return true;
  const std::filesystem::path file = kZoneInfo / std::string(zone);
  if (!std::filesystem::is_regular_file(file, ec)) return false;
  // A tz database file, not one of the tables beside them (zone.tab, tzdata.zi).
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, sizeof(magic)) && std::string_view(magic, sizeof(magic)) == "TZif";
}

Result<CronSchedule> ParseCronSchedule(std::string_view spec) {
  CronSchedule schedule;
  if (spec.empty()) return Status::BadRequest("empty spec string");
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    const size_t eq = spec.find('=');
    const size_t space = spec.find(' ');
    std::string_view zone = spec.substr(
        eq + 1, space == std::string_view::npos ? std::string_view::npos : space - eq - 1);
    if (zone.empty() || !IsKnownTimeZone(zone)) {
      return Status::BadRequest("provided bad location " + std::string(zone) +
                                ": unknown time zone " + std::string(zone));
    }
    schedule.time_zone = std::string(zone);
    spec = space == std::string_view::npos ? std::string_view() : spec.substr(space);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.front())))
      spec.remove_prefix(1);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.back())))
      spec.remove_suffix(1);
  }
  if (spec.starts_with("@")) return ParseDescriptor(spec, std::move(schedule));

  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < spec.size()) {
    while (i < spec.size() && std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    size_t start = i;
    while (i < spec.size() && !std::isspace(static_cast<unsigned char>(spec[i]))) ++i;
    if (i > start) fields.push_back(spec.substr(start, i - start));
  }
  if (fields.size() != 5) {
    std::string shown = "[";
    for (size_t f = 0; f < fields.size(); ++f) shown += (f ? " " : "") + std::string(fields[f]);
    return Status::BadRequest("expected exactly 5 fields, found " + std::to_string(fields.size()) +
                              ": " + shown + "]");
  }
  static constexpr FieldBounds kMinute{0, 59, {}}, kHour{0, 23, {}}, kDayOfMonth{1, 31, {}},
      kMonth{1, 12, kMonthNames}, kDayOfWeek{0, 6, kDayNames};
  auto minutes = ParseField(fields[0], kMinute);
  if (!minutes.ok()) return minutes.status();
  auto hours = ParseField(fields[1], kHour);
  if (!hours.ok()) return hours.status();
  auto dom = ParseField(fields[2], kDayOfMonth, &schedule.any_day_of_month);
  if (!dom.ok()) return dom.status();
  auto months = ParseField(fields[3], kMonth);
  if (!months.ok()) return months.status();
  auto dow = ParseField(fields[4], kDayOfWeek, &schedule.any_day_of_week);
  if (!dow.ok()) return dow.status();
  schedule.minutes = *minutes;
  schedule.hours = *hours;
  schedule.days_of_month = *dom;
  schedule.months = *months;
  schedule.days_of_week = *dow;
  return schedule;
}

}  // namespace berth::api
