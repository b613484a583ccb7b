// Validation of batch/v1 kinds (Job, CronJob), their schedules, and a Job's
// update rules.

#include <gtest/gtest.h>

#include <filesystem>

#include "api/time/cron_schedule.h"
#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::Template;
using testing::UpdateProblems;

std::string Job(const std::string& spec_extra, const std::string& tmpl = Template("Never"),
                const std::string& name = "pi") {
  return Obj("batch/v1", "Job", name, R"("spec":{"template":)" + tmpl + spec_extra + "}");
}
std::string CronJob(const std::string& schedule, const std::string& extra = "",
                    const std::string& tmpl = Template("OnFailure"),
                    const std::string& name = "c") {
  return Obj("batch/v1", "CronJob", name,
             R"("spec":{"schedule":")" + schedule + R"(","jobTemplate":{"spec":{"template":)" +
                 tmpl + "}}" + extra + "}");
}

TEST(BatchValidation, Jobs) {
  const std::string p = "Job.batch \"pi\" is invalid: ";
  EXPECT_EQ(Problems(Job("")), "");
  EXPECT_EQ(Problems(Job("", Template())), p + "spec.template.spec.restartPolicy: Required value: "
                                               "valid values: \"OnFailure\", \"Never\"");
  EXPECT_EQ(Problems(Job("", Template("Always"))),
            p + "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", "
                "\"Never\"");
  EXPECT_EQ(Problems(Job(R"(,"parallelism":-1)")),
            p + "spec.parallelism: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_EQ(Problems(Job(R"(,"backoffLimit":-2)")),
            p + "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0");
  EXPECT_EQ(Problems(Job(R"(,"completionMode":"Sometimes")")),
            p + "spec.completionMode: Unsupported value: \"Sometimes\": supported values: "
                "\"NonIndexed\", \"Indexed\"");
  EXPECT_EQ(Problems(Job(R"(,"completionMode":"Indexed")")),
            p + "spec.completions: Required value: when completion mode is Indexed");
  EXPECT_EQ(Problems(Job(R"(,"backoffLimitPerIndex":1)")),
            p + "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode");
  EXPECT_EQ(Problems(Job(R"(,"manualSelector":true)")), p + "spec.selector: Required value");
  EXPECT_EQ(Problems(Job(R"(,"manualSelector":true,"selector":{"matchLabels":{"app":"x"}})")),
            p + "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
                "`selector` does "
                "not match template `labels`");
  EXPECT_EQ(
      Problems(Job(R"(,"podReplacementPolicy":"Never")")),
      p + "spec.podReplacementPolicy: Unsupported value: \"Never\": supported values: \"Failed\", "
          "\"TerminatingOrFailed\"");
}

TEST(BatchValidation, CronJobs) {
  const std::string p = "CronJob.batch \"c\" is invalid: ";
  EXPECT_EQ(Problems(CronJob("*/5 * * * *")), "");
  EXPECT_EQ(Problems(CronJob("0 9 * jan-jun MON-FRI")), "");
  EXPECT_EQ(Problems(CronJob("@hourly")), "");
  EXPECT_EQ(Problems(CronJob("")), p + "spec.schedule: Required value");
  EXPECT_EQ(Problems(CronJob("* * * *")), p + "spec.schedule: Invalid value: \"* * * *\": expected "
                                              "exactly 5 fields, found 4: [* * * *]");
  EXPECT_EQ(
      Problems(CronJob("61 * * * *")),
      p + "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61");
  EXPECT_EQ(Problems(CronJob("TZ=UTC * * * * *")),
            p + "spec.schedule: Invalid value: \"TZ=UTC * * * * *\": cannot use TZ or CRON_TZ in "
                "schedule, use "
                "timeZone field instead");
  EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"concurrencyPolicy":"Sometimes")")),
            p + "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: "
                "\"Allow\", \"Forbid\", "
                "\"Replace\"");
  EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"timeZone":"")")),
            p + "spec.timeZone: Invalid value: \"\": timeZone must be nil or non-empty string");
  EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"timeZone":"Local")")),
            p + "spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone "
                "as defined in "
                "https://www.iana.org/time-zones");
  EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"timeZone":"../etc")")),
            p + "spec.timeZone: Invalid value: \"../etc\": unknown time zone ../etc");
  EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"timeZone":"Etc/UTC")")), "");
  if (std::filesystem::is_directory("/usr/share/zoneinfo")) {
    EXPECT_EQ(Problems(CronJob("* * * * *", R"(,"timeZone":"Mars/Olympus")")),
              p + "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus");
  }
  EXPECT_EQ(
      Problems(CronJob("* * * * *", R"(,"successfulJobsHistoryLimit":-1)")),
      p + "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_EQ(Problems(CronJob("* * * * *", "", Template())),
            p + "spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "
                "\"OnFailure\", "
                "\"Never\"");
  const std::string long_name(53, 'a');
  EXPECT_EQ(Problems(CronJob("* * * * *", "", Template("OnFailure"), long_name)),
            "CronJob.batch \"" + long_name + "\" is invalid: metadata.name: Invalid value: \"" +
                long_name + "\": must be no more than 52 characters");
}

TEST(CronSchedule, ReportsRobfigsMessages) {
  struct Case {
    std::string spec, message;
  };
  const Case cases[] = {
      {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"1/2/3 * * * *", "too many slashes: 1/2/3"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"* * * JANUARY *",
       "failed to parse int from JANUARY: strconv.Atoi: parsing \"JANUARY\": invalid syntax"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
      {"@fortnightly", "unrecognized descriptor: @fortnightly"},
      {"@every soon", "failed to parse duration @every soon: time: invalid duration \"soon\""},
      {"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseCronSchedule(c.spec);
    ASSERT_FALSE(parsed.ok()) << c.spec;
    EXPECT_EQ(parsed.status().message(), c.message) << c.spec;
  }
}

TEST(CronSchedule, ParsesFieldsNamesStepsAndDescriptors) {
  auto every_quarter = ParseCronSchedule("*/15 9-17 * * mon-fri");
  ASSERT_TRUE(every_quarter.ok());
  EXPECT_EQ(every_quarter->minutes, (1ull << 0) | (1ull << 15) | (1ull << 30) | (1ull << 45));
  EXPECT_EQ(every_quarter->hours, ((1ull << 18) - 1) & ~((1ull << 9) - 1));
  EXPECT_EQ(every_quarter->days_of_week, 0b111110ull);
  EXPECT_TRUE(every_quarter->any_day_of_month);
  EXPECT_FALSE(every_quarter->any_day_of_week);
  auto lists = ParseCronSchedule("0,30 0 1,15 feb,Aug ?");
  ASSERT_TRUE(lists.ok());
  EXPECT_EQ(lists->days_of_month, (1ull << 1) | (1ull << 15));
  EXPECT_EQ(lists->months, (1ull << 2) | (1ull << 8));
  auto every = ParseCronSchedule("@every 1h30m");
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->every, std::chrono::milliseconds(90 * 60 * 1000));
  auto zoned = ParseCronSchedule("CRON_TZ=UTC 0 0 * * *");
  ASSERT_TRUE(zoned.ok());
  EXPECT_EQ(zoned->time_zone, "UTC");
  EXPECT_TRUE(ParseCronSchedule("@midnight").ok());
}

TEST(BatchValidation, JobUpdates) {
  const std::string p = "Job.batch \"pi\" is invalid: ";
  const std::string selector = R"(,"selector":{"matchLabels":{"app":"web"}})";
  const std::string before = Job(selector + R"(,"completions":3,"parallelism":1)");
  EXPECT_EQ(UpdateProblems(Job(selector + R"(,"completions":3,"parallelism":2)"), before), "");
  EXPECT_EQ(UpdateProblems(Job(selector + R"(,"completions":4,"parallelism":1)"), before),
            p + "spec.completions: Invalid value: 4: field is immutable");
  EXPECT_NE(
      UpdateProblems(
          Job(R"(,"selector":{"matchLabels":{"app":"web","x":"y"}},"completions":3,"parallelism":1)",
              Template("Never", R"({"app":"web","x":"y"})")),
          before)
          .find("spec.selector: Invalid value: "
                "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", "
                "\"x\":\"y\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is "
                "immutable"),
      std::string::npos);
  const std::string changed_image = Job(
      selector + R"(,"completions":3,"parallelism":1)",
      R"({"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"Never"}})");
  const std::string message = UpdateProblems(changed_image, before);
  EXPECT_TRUE(message.starts_with(p + "spec.template: Invalid value: {")) << message;
  EXPECT_TRUE(message.ends_with(": field is immutable")) << message;

  // Indexed Jobs scale completions with parallelism.
  const std::string indexed =
      Job(selector + R"(,"completionMode":"Indexed","completions":3,"parallelism":3)");
  EXPECT_EQ(UpdateProblems(
                Job(selector + R"(,"completionMode":"Indexed","completions":5,"parallelism":5)"),
                indexed),
            "");
  EXPECT_EQ(UpdateProblems(
                Job(selector + R"(,"completionMode":"Indexed","completions":5,"parallelism":3)"),
                indexed),
            p + "spec.completions: Invalid value: 5: can only be modified in tandem with "
                "spec.parallelism");
  EXPECT_EQ(UpdateProblems(
                Job(selector + R"(,"completionMode":"NonIndexed","completions":3,"parallelism":3)"),
                indexed),
            p + "spec.completionMode: Invalid value: \"NonIndexed\": field is immutable");

  // A suspended Job that never started may move: nodeSelector, tolerations, labels.
  const std::string suspended = Job(selector + R"(,"suspend":true)");
  const std::string moved = Job(
      selector + R"(,"suspend":true)",
      R"({"metadata":{"labels":{"app":"web","queue":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}],"restartPolicy":"Never","nodeSelector":{"zone":"b"}}})");
  EXPECT_EQ(UpdateProblems(moved, suspended), "");
  EXPECT_NE(UpdateProblems(moved, Job(selector)), "");
  const std::string started =
      Obj("batch/v1", "Job", "pi",
          R"("spec":{"suspend":true,"selector":{"matchLabels":{"app":"web"}},"template":)" +
              Template("Never") + R"(},"status":{"startTime":"2024-01-01T00:00:00Z"})");
  EXPECT_NE(UpdateProblems(moved, started), "");
}

}  // namespace
}  // namespace berth::api
