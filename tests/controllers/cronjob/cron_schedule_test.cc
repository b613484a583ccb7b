// When CronJob schedules fire (robfig/cron's rules, as kube uses them), in
// UTC and in IANA zones across daylight-saving changes, and which firings a
// CronJob missed (kube's mostRecentScheduleTime).

#include "api/time/cron_schedule.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "api/time/rfc3339.h"
#include "controllers/cronjob/schedule.h"
#include "controllers/cronjob/time_zone.h"

namespace berth::controllers {
namespace {

using std::chrono::seconds;

WallTime At(const char* rfc3339) { return api::ParseRfc3339(rfc3339).value(); }
std::string Show(std::optional<WallTime> t) { return t ? api::FormatRfc3339(*t) : "never"; }

std::string Next(const char* spec, const char* from, const TimeZone& zone = *TimeZone::Utc()) {
  auto schedule = api::ParseCronSchedule(spec);
  EXPECT_TRUE(schedule.ok()) << spec;
  return Show(NextActivation(schedule.value(), zone, At(from)));
}

std::shared_ptr<const TimeZone> Zone(const char* name) {
  auto zone = TimeZone::Load(name);
  EXPECT_TRUE(zone.ok()) << zone.status().message();
  return zone.ok() ? zone.value() : TimeZone::Utc();
}

TEST(CronNext, FieldsAndSteps) {
  struct Case {
    const char* spec;
    const char* from;
    const char* want;
  } cases[] = {
      {"*/15 * * * *", "2026-03-06T10:07:30Z", "2026-03-06T10:15:00Z"},
      {"*/15 * * * *", "2026-03-06T10:15:00Z", "2026-03-06T10:30:00Z"},  // strictly after
      {"*/1 * * * *", "2026-03-06T10:15:59Z", "2026-03-06T10:16:00Z"},
      {"0 9 * * 1-5", "2026-03-06T10:00:00Z", "2026-03-09T09:00:00Z"},  // Friday → Monday
      {"0 0 13 * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"},   // the 13th OR a Friday
      {"0 0 13 * *", "2026-03-01T00:00:00Z", "2026-03-13T00:00:00Z"},
      {"0 0 29 2 *", "2026-03-01T00:00:00Z", "2028-02-29T00:00:00Z"},  // the next leap day
      {"0 0 30 2 *", "2026-03-01T00:00:00Z", "never"},
      {"@hourly", "2026-03-06T10:07:30Z", "2026-03-06T11:00:00Z"},
      {"@daily", "2026-03-06T10:07:30Z", "2026-03-07T00:00:00Z"},
      {"@midnight", "2026-03-06T10:07:30Z", "2026-03-07T00:00:00Z"},
      {"@weekly", "2026-03-06T10:07:30Z", "2026-03-08T00:00:00Z"},  // Sunday
      {"@monthly", "2026-03-06T10:07:30Z", "2026-04-01T00:00:00Z"},
      {"@yearly", "2026-03-06T10:07:30Z", "2027-01-01T00:00:00Z"},
      {"@annually", "2026-12-31T23:59:59Z", "2027-01-01T00:00:00Z"},
      {"@every 90s", "2026-03-06T10:07:30Z", "2026-03-06T10:09:00Z"},
      {"30 4 1 jan,jul *", "2026-03-06T10:07:30Z", "2026-07-01T04:30:00Z"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(Next(c.spec, c.from), c.want) << c.spec << " after " << c.from;
}

TEST(CronNext, FollowsTheZonesWallClockAcrossDaylightSaving) {
  auto ny = Zone("America/New_York");
  // Noon in New York is 17:00Z in winter, 16:00Z once the clocks move on 8 March 2026.
  EXPECT_EQ(Next("0 12 * * *", "2026-03-07T00:00:00Z", *ny), "2026-03-07T17:00:00Z");
  EXPECT_EQ(Next("0 12 * * *", "2026-03-07T17:00:00Z", *ny), "2026-03-08T16:00:00Z");
  // 02:30 does not exist on 8 March: robfig's walk skips that day.
  EXPECT_EQ(Next("30 2 * * *", "2026-03-07T08:00:00Z", *ny), "2026-03-09T06:30:00Z");
  // 01:30 happens twice on 1 November: the first (EDT) one fires.
  EXPECT_EQ(Next("30 1 * * *", "2026-11-01T00:00:00Z", *ny), "2026-11-01T05:30:00Z");
  auto kolkata = Zone("Asia/Kolkata");
  EXPECT_EQ(Next("0 9 * * *", "2026-03-07T00:00:00Z", *kolkata), "2026-03-07T03:30:00Z");
}

TEST(TimeZones, FormatsWithTheOffsetInForce) {
  auto ny = Zone("America/New_York");
  EXPECT_EQ(FormatRfc3339In(*ny, At("2026-03-09T06:30:00Z")), "2026-03-09T02:30:00-04:00");
  EXPECT_EQ(FormatRfc3339In(*ny, At("2026-01-09T06:30:00Z")), "2026-01-09T01:30:00-05:00");
  EXPECT_EQ(FormatRfc3339In(*Zone("Asia/Kolkata"), At("2026-01-09T06:30:00Z")),
            "2026-01-09T12:00:00+05:30");
  EXPECT_EQ(FormatRfc3339In(*TimeZone::Utc(), At("2026-01-09T06:30:00Z")), "2026-01-09T06:30:00Z");
}

int64_t Unix(const char* rfc3339) {
  return std::chrono::duration_cast<seconds>(At(rfc3339).time_since_epoch()).count();
}

TEST(TimeZones, TheFooterRuleContinuesPastTheFilesData) {
  auto ny = Zone("America/New_York");
  auto rule = TimeZone::FromPosixRule("NY", "EST5EDT,M3.2.0,M11.1.0").value();
  for (const char* t : {"2030-03-10T06:59:59Z", "2030-03-10T07:00:00Z", "2030-11-03T05:59:59Z",
                        "2030-11-03T06:00:00Z", "2036-07-01T00:00:00Z"}) {
    EXPECT_EQ(ny->OffsetAt(Unix(t)), rule->OffsetAt(Unix(t))) << t;
  }
  EXPECT_EQ(ny->OffsetAt(Unix("2030-03-10T06:59:59Z")), -5 * 3600);
  EXPECT_EQ(ny->OffsetAt(Unix("2030-03-10T07:00:00Z")), -4 * 3600);
  // Beyond 2037, where even "fat" files end.
  EXPECT_EQ(ny->OffsetAt(Unix("2050-07-01T00:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny->OffsetAt(Unix("2050-12-01T00:00:00Z")), -5 * 3600);
  // Southern hemisphere: summer time spans the new year.
  auto sydney = TimeZone::FromPosixRule("Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3").value();
  EXPECT_EQ(sydney->OffsetAt(Unix("2050-01-15T00:00:00Z")), 11 * 3600);
  EXPECT_EQ(sydney->OffsetAt(Unix("2050-07-15T00:00:00Z")), 10 * 3600);
  EXPECT_EQ(Zone("Australia/Sydney")->OffsetAt(Unix("2050-01-15T00:00:00Z")), 11 * 3600);
  // A fixed zone with an angle-bracket name.
  EXPECT_EQ(TimeZone::FromPosixRule("x", "<+0545>-5:45").value()->OffsetAt(0), 5 * 3600 + 45 * 60);
  EXPECT_FALSE(TimeZone::FromPosixRule("x", "EST5EDT,M13.2.0,M11.1.0").ok());
}

TEST(TimeZones, UnknownZonesAreRefused) {
  for (const char* name : {"Mars/Olympus", "../etc/passwd", "/etc/localtime"}) {
    auto zone = TimeZone::Load(name);
    ASSERT_FALSE(zone.ok()) << name;
    EXPECT_EQ(zone.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(zone.status().message(), std::string("unknown time zone ") + name);
  }
  // Validation agrees: a zone is a TZif file, not any file of the database's directory.
  if (std::filesystem::is_regular_file("/usr/share/zoneinfo/zone.tab")) {
    EXPECT_FALSE(api::IsKnownTimeZone("zone.tab"));
    EXPECT_FALSE(TimeZone::Load("zone.tab").ok());
  }
  EXPECT_TRUE(api::IsKnownTimeZone("America/New_York"));
  EXPECT_EQ(TimeZone::Load("UTC").value()->OffsetAt(0), 0);
  EXPECT_EQ(TimeZone::Load("Etc/UTC").value()->OffsetAt(0), 0);
}

ScheduleWindow Window(const char* spec, const char* last, std::optional<int> deadline,
                      const char* now) {
  auto schedule = api::ParseCronSchedule(spec).value();
  std::optional<seconds> d;
  if (deadline) d = seconds(*deadline);
  auto w = MostRecentScheduleTime(schedule, *TimeZone::Utc(), At("2020-01-01T00:00:00Z"), At(last),
                                  d, At(now));
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? w.value() : ScheduleWindow{};
}

TEST(MissedSchedules, OnlyTheMostRecentActivationCounts) {
  auto none = Window("0 * * * *", "2026-03-06T00:00:00Z", std::nullopt, "2026-03-06T00:59:00Z");
  EXPECT_EQ(Show(none.most_recent), "never");
  EXPECT_EQ(none.missed, MissedSchedules::kNone);

  auto one = Window("0 * * * *", "2026-03-06T00:00:00Z", std::nullopt, "2026-03-06T01:00:00Z");
  EXPECT_EQ(Show(one.most_recent), "2026-03-06T01:00:00Z");
  EXPECT_EQ(one.missed, MissedSchedules::kNone);

  auto few = Window("0 * * * *", "2026-03-06T00:00:00Z", std::nullopt, "2026-03-06T05:30:00Z");
  EXPECT_EQ(Show(few.most_recent), "2026-03-06T05:00:00Z");
  EXPECT_EQ(few.missed, MissedSchedules::kFew);

  // Weekdays only: the estimate from the first two (a day apart) still finds Friday 09:00.
  auto irregular =
      Window("0 9 * * 1-5", "2026-03-02T09:00:00Z", std::nullopt, "2026-03-06T12:00:00Z");
  EXPECT_EQ(Show(irregular.most_recent), "2026-03-06T09:00:00Z");

  auto many = Window("* * * * *", "2026-03-06T00:00:00Z", std::nullopt, "2026-03-06T03:00:30Z");
  EXPECT_EQ(Show(many.most_recent), "2026-03-06T03:00:00Z");
  EXPECT_EQ(many.missed, MissedSchedules::kMany);
  auto hundred = Window("* * * * *", "2026-03-06T00:00:00Z", std::nullopt, "2026-03-06T01:40:00Z");
  EXPECT_EQ(hundred.missed, MissedSchedules::kFew) << "100 missed is not too many";
}

TEST(MissedSchedules, StartingDeadlineIgnoresOlderActivations) {
  auto late = Window("0 * * * *", "2026-03-06T00:00:00Z", 600, "2026-03-06T05:30:00Z");
  EXPECT_EQ(Show(late.most_recent), "never") << "05:00 is more than 600 s ago";
  auto in_time = Window("0 * * * *", "2026-03-06T00:00:00Z", 600, "2026-03-06T05:09:59Z");
  EXPECT_EQ(Show(in_time.most_recent), "2026-03-06T05:00:00Z");
  // The deadline also keeps "too many" away.
  auto bounded = Window("* * * * *", "2026-03-06T00:00:00Z", 300, "2026-03-06T03:00:30Z");
  EXPECT_EQ(bounded.missed, MissedSchedules::kFew);
}

TEST(MissedSchedules, AScheduleThatNeverFiresIsAnError) {
  auto schedule = api::ParseCronSchedule("0 0 31 2 *").value();
  auto w = MostRecentScheduleTime(schedule, *TimeZone::Utc(), At("2026-01-01T00:00:00Z"),
                                  std::nullopt, std::nullopt, At("2026-03-01T00:00:00Z"));
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "time difference between two schedules is less than 1 second");
}

TEST(MissedSchedules, NextDelayAimsJustPastTheNextActivation) {
  auto schedule = api::ParseCronSchedule("*/5 * * * *").value();
  auto delay = NextScheduleDelay(schedule, *TimeZone::Utc(), At("2026-01-01T00:00:00Z"),
                                 At("2026-03-06T10:05:00Z"), At("2026-03-06T10:06:00Z"));
  ASSERT_TRUE(delay);
  EXPECT_EQ(delay->count(), 4 * 60 * 1000 + 100);
}

}  // namespace
}  // namespace berth::controllers
