#include "controllers/cronjob/schedule.h"

#include <cstdio>

namespace berth::controllers {

namespace {

using std::chrono::seconds;

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

// A UTC instant's wall-clock fields in a zone.
struct Local {
  int year = 0;
  unsigned month = 0, day = 0, hour = 0, minute = 0, second = 0, weekday = 0;
};

Local FieldsOf(int64_t utc, int32_t offset) {
  using namespace std::chrono;
  const int64_t local = utc + offset;
  const int64_t days = FloorDiv(local, 86400);
  const int64_t in_day = local - days * 86400;
  const sys_days d{std::chrono::days{days}};
  const year_month_day ymd{d};
  Local l;
  l.year = static_cast<int>(ymd.year());
  l.month = static_cast<unsigned>(ymd.month());
  l.day = static_cast<unsigned>(ymd.day());
  l.hour = static_cast<unsigned>(in_day / 3600);
  l.minute = static_cast<unsigned>(in_day / 60 % 60);
  l.second = static_cast<unsigned>(in_day % 60);
  l.weekday = weekday{d}.c_encoding();
  return l;
}

Local FieldsOf(int64_t utc, const TimeZone& zone) { return FieldsOf(utc, zone.OffsetAt(utc)); }

// Go's time.Date in `zone`: fields out of range are normalised (month 13 is
// January of the next year, day 0 the last of the month before).
int64_t Date(const TimeZone& zone, int64_t year, int64_t month, int64_t day, int64_t hour,
             int64_t minute, int64_t second) {
  using namespace std::chrono;
  const int64_t m0 = month - 1;
  year += FloorDiv(m0, 12);
  const int64_t m = m0 - FloorDiv(m0, 12) * 12 + 1;
  const int64_t first = sys_days{std::chrono::year{static_cast<int>(year)} /
                                 std::chrono::month{static_cast<unsigned>(m)} / 1}
                            .time_since_epoch()
                            .count();
  const int64_t local = (first + day - 1) * 86400 + hour * 3600 + minute * 60 + second;
  return zone.FromLocal(local);
}

bool Bit(uint64_t set, unsigned i) { return (set >> i) & 1; }

bool DayMatches(const api::CronSchedule& s, const Local& l) {
  const bool dom = Bit(s.days_of_month, l.day);
  const bool dow = Bit(s.days_of_week, l.weekday);
  if (s.any_day_of_month || s.any_day_of_week) return dom && dow;
  return dom || dow;
}

WallTime FromSeconds(int64_t s) { return WallTime(seconds(s)); }
int64_t FloorSeconds(WallTime t) {
  return std::chrono::floor<seconds>(t.time_since_epoch()).count();
}

}  // namespace

std::optional<WallTime> NextActivation(const api::CronSchedule& s, const TimeZone& zone,
                                       WallTime t) {
  if (s.every) {
    // robfig's Every: at least a second, whole seconds.
    int64_t delay = std::chrono::duration_cast<seconds>(*s.every).count();
    if (delay < 1) delay = 1;
    return FromSeconds(FloorSeconds(t) + delay);
  }
  int64_t u = FloorSeconds(t) + 1;  // the upcoming second
  bool added = false;
  const int year_limit = FieldsOf(u, zone).year + 5;
wrap:
  if (FieldsOf(u, zone).year > year_limit) return std::nullopt;
  for (Local l = FieldsOf(u, zone); !Bit(s.months, l.month); l = FieldsOf(u, zone)) {
    if (!added) {
      added = true;
      u = Date(zone, l.year, l.month, 1, 0, 0, 0);
      l = FieldsOf(u, zone);
    }
    u = Date(zone, l.year, l.month + 1, l.day, l.hour, l.minute, l.second);
    if (FieldsOf(u, zone).month == 1) goto wrap;
  }
  for (Local l = FieldsOf(u, zone); !DayMatches(s, l); l = FieldsOf(u, zone)) {
    if (!added) {
      added = true;
      u = Date(zone, l.year, l.month, l.day, 0, 0, 0);
      l = FieldsOf(u, zone);
    }
    u = Date(zone, l.year, l.month, l.day + 1, l.hour, l.minute, l.second);
    // Where midnight does not exist (DST), come back to it.
    const Local next = FieldsOf(u, zone);
    if (next.hour != 0)
      u += next.hour > 12 ? (24 - next.hour) * 3600 : -static_cast<int64_t>(next.hour) * 3600;
    if (FieldsOf(u, zone).day == 1) goto wrap;
  }
  for (Local l = FieldsOf(u, zone); !Bit(s.hours, l.hour); l = FieldsOf(u, zone)) {
    if (!added) {
      added = true;
      u = Date(zone, l.year, l.month, l.day, l.hour, 0, 0);
    }
    u += 3600;
    if (FieldsOf(u, zone).hour == 0) goto wrap;
  }
  for (Local l = FieldsOf(u, zone); !Bit(s.minutes, l.minute); l = FieldsOf(u, zone)) {
    if (!added) {
      added = true;
      u = FloorDiv(u, 60) * 60;
    }
    u += 60;
    if (FieldsOf(u, zone).minute == 0) goto wrap;
  }
  // Standard schedules fire at second 0.
  while (FieldsOf(u, zone).second != 0) {
    added = true;
    ++u;
    if (FieldsOf(u, zone).second == 0) goto wrap;
  }
  return FromSeconds(u);
}

Result<ScheduleWindow> MostRecentScheduleTime(const api::CronSchedule& schedule,
                                              const TimeZone& zone, WallTime created,
                                              std::optional<WallTime> last_scheduled,
                                              std::optional<seconds> starting_deadline,
                                              WallTime now) {
  ScheduleWindow w;
  w.earliest = last_scheduled ? *last_scheduled : created;
  if (starting_deadline && now - *starting_deadline > w.earliest)
    w.earliest = now - *starting_deadline;
  const Status never =
      Status::BadRequest("time difference between two schedules is less than 1 second");
  auto t1 = NextActivation(schedule, zone, w.earliest);
  if (!t1) return never;
  if (now < *t1) return w;
  auto t2 = NextActivation(schedule, zone, *t1);
  if (!t2) return never;
  if (now < *t2) {
    w.most_recent = t1;
    return w;
  }
  // Roughly how many fit between the first missed one and now, from the
  // first two (kube's approximation); then the exact latest one near now.
  const int64_t between = std::chrono::round<seconds>(*t2 - *t1).count();
  if (between < 1) return never;
  const int64_t elapsed = std::chrono::duration_cast<seconds>(now - *t1).count();
  const int64_t missed = elapsed / between + 1;
  std::optional<WallTime> t = NextActivation(schedule, zone, *t1 + seconds((missed - 2) * between));
  for (; t && *t <= now; t = NextActivation(schedule, zone, *t)) w.most_recent = t;
  if (missed > 100) {
    w.missed = MissedSchedules::kMany;
  } else if (missed > 0) {
    w.missed = MissedSchedules::kFew;
  }
  return w;
}

std::optional<std::chrono::milliseconds> NextScheduleDelay(const api::CronSchedule& schedule,
                                                           const TimeZone& zone, WallTime created,
                                                           std::optional<WallTime> last_scheduled,
                                                           WallTime now) {
  auto window = MostRecentScheduleTime(schedule, zone, created, last_scheduled, std::nullopt, now);
  WallTime from = now;
  if (window.ok()) {
    if (window->most_recent) {
      from = *window->most_recent;
    } else if (window->missed == MissedSchedules::kNone) {
      from = window->earliest;
    }
  }
  auto next = NextActivation(schedule, zone, from);
  if (!next) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(*next - now) +
         std::chrono::milliseconds(100);
}

std::string FormatRfc3339In(const TimeZone& zone, WallTime t) {
  const int64_t u = FloorSeconds(t);
  const int32_t offset = zone.OffsetAt(u);
  const Local l = FieldsOf(u, offset);
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02u:%02u:%02u", l.year, l.month, l.day,
                        l.hour, l.minute, l.second);
  if (offset == 0) {
    std::snprintf(buf + n, sizeof(buf) - n, "Z");
  } else {
    const int32_t a = offset < 0 ? -offset : offset;
    std::snprintf(buf + n, sizeof(buf) - n, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600,
                  a / 60 % 60);
  }
  return buf;
}

}  // namespace berth::controllers
