#pragma once
// CronJob schedules in the syntax kube accepts (robfig/cron's ParseStandard):
// five fields — minute, hour, day of month, month, day of week — each a
// comma-separated list of "*", "?", a number or name, a range "a-b", any of
// them with a step "/n"; or a descriptor (@yearly, @annually, @monthly,
// @weekly, @daily, @midnight, @hourly, @every <duration>); optionally after
// "TZ=<zone> " or "CRON_TZ=<zone> ". Errors carry robfig's messages, which kube
// puts in its field errors ("expected exactly 5 fields, found 4: [* * * *]").

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"

namespace berth::api {

struct CronSchedule {
  // Bit i set: value i matches (minute 0-59, hour 0-23, day 1-31, month 1-12,
  // weekday 0-6 with Sunday 0).
  uint64_t minutes = 0, hours = 0, days_of_month = 0, months = 0, days_of_week = 0;
  // The day field was "*" or "?" (cron matches either day field then).
  bool any_day_of_month = false, any_day_of_week = false;
  std::optional<std::chrono::milliseconds> every;  // "@every <duration>"
  std::string time_zone;                           // from a TZ= or CRON_TZ= prefix
};

// BadRequest with robfig's message when `spec` does not parse.
Result<CronSchedule> ParseCronSchedule(std::string_view spec);

// Whether Go's time.LoadLocation knows `zone`: "UTC", or a TZif file of the
// tz database under /usr/share/zoneinfo (any name of the right shape when
// that directory is absent).
bool IsKnownTimeZone(std::string_view zone);

}  // namespace berth::api
