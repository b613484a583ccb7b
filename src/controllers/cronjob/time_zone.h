#pragma once
// IANA time zones for CronJobs' spec.timeZone, read from the system's tz
// database (the TZif files under /usr/share/zoneinfo, as Go's
// time.LoadLocation reads them): libstdc++ 12 has no std::chrono::locate_zone.
//
// A zone is the list of its offset changes (UTC instant → seconds east of
// UTC). A file's transitions end where its data does (2037 in "fat" files,
// sooner in "slim" ones); the POSIX TZ rule of its footer
// ("EST5EDT,M3.2.0,M11.1.0") continues them, expanded at load up to the year
// 2200 — schedules look a few years ahead at most. Zones are immutable and
// shared; Load caches them per name. Thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::controllers {

class TimeZone {
 public:
  // The offset in force over [start, end) (UTC seconds since the epoch).
  struct Period {
    int32_t offset = 0;  // seconds east of UTC
    int64_t start = INT64_MIN;
    int64_t end = INT64_MAX;
  };

  static std::shared_ptr<const TimeZone> Utc();
  // "" or "UTC" (Go's LoadLocation("") is UTC), else the TZif file `root`/`name`.
  // NotFound "unknown time zone NAME" when there is none or it does not parse.
  static Result<std::shared_ptr<const TimeZone>> Load(
      std::string_view name, const std::string& root = "/usr/share/zoneinfo");
  // A zone from the bytes of a TZif file (versions 1 to 4).
  static Result<std::shared_ptr<const TimeZone>> FromTzif(std::string name, std::string_view data);
  // A zone from a POSIX TZ rule alone ("CET-1CEST,M3.5.0,M10.5.0/3").
  static Result<std::shared_ptr<const TimeZone>> FromPosixRule(std::string name,
                                                               std::string_view rule);

  const std::string& name() const { return name_; }
  Period Lookup(int64_t utc) const;
  int32_t OffsetAt(int64_t utc) const { return Lookup(utc).offset; }
  // The UTC instant of a local wall-clock time (seconds since the epoch as
  // if the zone were UTC), resolved as Go's time.Date does: the offset in
  // force at `local` read as UTC, corrected once when the result falls
  // outside that offset's period. A time repeated by a change (fall back)
  // is its first occurrence; one skipped by it (spring forward) takes the
  // later offset, so 02:30 on a 02:00→03:00 day is 01:30 standard time.
  int64_t FromLocal(int64_t local) const;

 private:
  TimeZone() = default;
  Status ExtendWithRule(std::string_view rule);

  std::string name_;
  int32_t initial_offset_ = 0;   // before the first transition
  std::vector<int64_t> at_;      // transition instants, ascending
  std::vector<int32_t> offset_;  // offset_[i] in force from at_[i]
};

}  // namespace berth::controllers
