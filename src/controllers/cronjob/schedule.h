#pragma once
// When a CronJob's schedule fires, and which firings it missed: the time
// arithmetic of kube's CronJob controller (robfig/cron v3's
// SpecSchedule.Next and ConstantDelaySchedule.Next, and the
// mostRecentScheduleTime / nextScheduleTimeDuration rules of
// pkg/controller/cronjob/utils.go). Pure functions of their arguments, so
// tests give them any "now".

#include <chrono>
#include <optional>
#include <string>

#include "api/status.h"
#include "api/time/cron_schedule.h"
#include "controllers/cronjob/time_zone.h"

namespace berth::controllers {

using WallTime = std::chrono::system_clock::time_point;

// The first activation strictly after `t`'s whole second, in `zone`'s wall
// clock (a TZ= prefix of the schedule itself is the caller's to resolve).
// nullopt when none comes within five years (robfig's limit: "0 0 30 2 *").
std::optional<WallTime> NextActivation(const api::CronSchedule& schedule, const TimeZone& zone,
                                       WallTime t);

enum class MissedSchedules { kNone, kFew, kMany };  // kMany: more than 100

struct ScheduleWindow {
  WallTime earliest;  // lastScheduleTime, else creationTimestamp (or the deadline)
  std::optional<WallTime> most_recent;  // the latest activation in (earliest, now]
  MissedSchedules missed = MissedSchedules::kNone;
};

// kube's mostRecentScheduleTime. `starting_deadline` (spec.startingDeadlineSeconds)
// moves `earliest` up to now - deadline when given. BadRequest "time difference
// between two schedules is less than 1 second" for a schedule that fires
// nowhere (31 February).
Result<ScheduleWindow> MostRecentScheduleTime(const api::CronSchedule& schedule,
                                              const TimeZone& zone, WallTime created,
                                              std::optional<WallTime> last_scheduled,
                                              std::optional<std::chrono::seconds> starting_deadline,
                                              WallTime now);

// How long until the next activation after the most recent one (kube's
// nextScheduleTimeDuration, ignoring the starting deadline), plus kube's
// 100 ms of slack for clock skew. nullopt when the schedule never fires again.
std::optional<std::chrono::milliseconds> NextScheduleDelay(const api::CronSchedule& schedule,
                                                           const TimeZone& zone, WallTime created,
                                                           std::optional<WallTime> last_scheduled,
                                                           WallTime now);

// RFC 3339 with the zone's offset at `t`, as Go's time.RFC3339 prints a
// time in a location: "2026-03-08T01:30:00-05:00", "…T06:30:00Z" in UTC.
std::string FormatRfc3339In(const TimeZone& zone, WallTime t);

}  // namespace berth::controllers
