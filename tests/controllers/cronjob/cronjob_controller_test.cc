// The CronJob controller against a real API server in process, on a fake
// clock: Jobs created at each activation with kube's names, annotation and
// owner; concurrency policies; missed activations and startingDeadlineSeconds;
// history limits; time zones; and a whole day of hourly runs, driven by the
// controller's own requeues, in well under a second.

#include "controllers/cronjob/cronjob_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <thread>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "controllers/owner_references.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

std::chrono::system_clock::time_point At(const char* rfc3339) {
  return api::ParseRfc3339(rfc3339).value();
}

// Minutes since the epoch: the suffix of a Job's name.
std::string Suffix(const char* rfc3339) {
  return std::to_string(
      std::chrono::duration_cast<minutes>(At(rfc3339).time_since_epoch()).count());
}

class CronJobTest : public InProcessApiTest {
 protected:
  // Every test starts at 2026-03-07T00:00:30Z on the controller's clock.
  CronJobTest() : clock_(api::Clock::time_point(hours(1)), At("2026-03-07T00:00:30Z")) {}

  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
    controller_ = std::make_unique<CronJobController>(
        ControllerContext{*client_, *informers_, nullptr, events_.get(), &clock_});
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override {
    informers_->Stop();
    controller_.reset();
  }

  // A CronJob whose last activation was at `last` (so that its real
  // creationTimestamp does not matter), with `extra` spec fields.
  api::ObjectPtr MakeCronJob(const std::string& schedule, const std::string& extra,
                             const char* last) {
    std::string text =
        R"({"metadata":{"name":"tick"},"spec":{"schedule":")" + schedule + "\"" + extra +
        R"(,"jobTemplate":{"metadata":{"labels":{"team":"a"}},"spec":{"template":{"spec":{
                       "restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}})";
    auto created = client_->Create(api::Kind::kCronJob, "default", json::parse(text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    json::object next = created.value()->json();
    api::MutableObject(next, "metadata")["resourceVersion"] =
        std::to_string(created.value()->resource_version());
    next["status"] = json::object{{"lastScheduleTime", last}};
    auto written = client_->UpdateStatus(api::Kind::kCronJob, next);
    EXPECT_TRUE(written.ok()) << written.status().message();
    WaitFor([&] {
      auto cached = informers_->For(api::Kind::kCronJob).Get("default/tick");
      return cached && cached->resource_version() == written.value()->resource_version();
    });
    return written.value();
  }

  template <typename Pred>
  void WaitFor(Pred done) {
    for (int i = 0; i < 5000 && !done(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(done());
  }
  // Reconciles once the caches hold what the API holds.
  void Reconcile() {
    SyncCaches();
    Status s = controller_->ReconcileForTest("default/tick");
    ASSERT_TRUE(s.ok()) << s.message();
    SyncCaches();
  }
  void SyncCaches() {
    WaitFor([&] {
      auto cj = client_->Get(api::Kind::kCronJob, "default", "tick");
      auto cached = informers_->For(api::Kind::kCronJob).Get("default/tick");
      if (cj.ok() != static_cast<bool>(cached)) return false;
      if (cj.ok() && cj.value()->resource_version() != cached->resource_version()) return false;
      auto jobs = client_->List(api::Kind::kJob, "default").value();
      if (jobs.size() != informers_->For(api::Kind::kJob).Size()) return false;
      for (const auto& j : jobs) {
        auto c = informers_->For(api::Kind::kJob).Get("default/" + j->name());
        if (!c || c->resource_version() != j->resource_version()) return false;
      }
      return true;
    });
  }
  std::vector<std::string> JobNames() {
    std::vector<std::string> names;
    const std::vector<api::ObjectPtr> jobs = client_->List(api::Kind::kJob, "default").value();
    for (const auto& j : jobs) names.push_back(j->name());
    std::sort(names.begin(), names.end());
    return names;
  }
  json::object CronStatus() {
    return *api::StatusOf(*client_->Get(api::Kind::kCronJob, "default", "tick").value());
  }
  std::vector<std::string> Active() {
    std::vector<std::string> names;
    const json::object status = CronStatus();
    if (const json::array* active = api::ArrayAt(status, "active")) {
      for (const auto& r : *active) names.emplace_back(api::StringAt(r.as_object(), "name"));
    }
    return names;
  }
  // Marks a Job finished as a Job controller would: `type` is Complete or Failed.
  void Finish(const std::string& name, const char* type, const char* started,
              const char* finished) {
    auto job = client_->Get(api::Kind::kJob, "default", name).value();
    json::object next = job->json();
    api::MutableObject(next, "metadata")["resourceVersion"] =
        std::to_string(job->resource_version());
    json::object status{
        {"startTime", started},
        {"conditions", json::array{json::object{{"type", type}, {"status", "True"}}}}};
    if (std::string_view(type) == "Complete") status["completionTime"] = finished;
    next["status"] = std::move(status);
    ASSERT_TRUE(client_->UpdateStatus(api::Kind::kJob, next).ok());
  }
  // "<type> <reason>: <message>" of the CronJob's events, in the order recorded.
  std::vector<std::string> Events() {
    events_->Flush();
    std::vector<std::pair<std::string, std::string>> stamped;
    const std::vector<api::ObjectPtr> events = client_->List(api::Kind::kEvent, "default").value();
    for (const auto& e : events) {
      const json::object& o = e->json();
      if (o.at("involvedObject").at("name") != json::value("tick")) continue;
      stamped.emplace_back(std::string(api::StringAt(api::Metadata(*e), "name")),
                           std::string(o.at("type").as_string()) + " " +
                               std::string(o.at("reason").as_string()) + ": " +
                               std::string(o.at("message").as_string()));
    }
    std::sort(stamped.begin(), stamped.end());  // names end in the time recorded, in hex
    std::vector<std::string> out;
    for (auto& [name, text] : stamped) out.push_back(std::move(text));
    return out;
  }
  bool HasEvent(const std::string& prefix) {
    auto all = Events();
    return std::any_of(all.begin(), all.end(),
                       [&](const std::string& e) { return e.starts_with(prefix); });
  }

  api::FakeClock clock_;
  std::unique_ptr<client::EventBroadcaster> events_;
  std::unique_ptr<CronJobController> controller_;
};

TEST_F(CronJobTest, CreatesTheJobOfEachActivationWithKubesNameAnnotationAndOwner) {
  auto cj = MakeCronJob("*/5 * * * *", "", "2026-03-07T00:00:00Z");
  Reconcile();
  EXPECT_TRUE(JobNames().empty()) << "00:05 has not come yet";
  // The controller asked to be woken just after 00:05 (kube's 100 ms of slack).
  ASSERT_TRUE(clock_.NextAlarm());
  EXPECT_EQ(
      std::chrono::duration_cast<std::chrono::milliseconds>(*clock_.NextAlarm() - clock_.Now())
          .count(),
      4 * 60 * 1000 + 30 * 1000 + 100);

  clock_.Step(minutes(5));
  Reconcile();
  const std::string name = "tick-" + Suffix("2026-03-07T00:05:00Z");
  ASSERT_EQ(JobNames(), std::vector<std::string>{name});
  auto job = client_->Get(api::Kind::kJob, "default", name).value();
  EXPECT_EQ(api::Annotation(*job, kCronJobScheduledTimestampAnnotation), "2026-03-07T00:05:00Z");
  EXPECT_EQ(ControllerUid(*job, "CronJob"), cj->uid());
  EXPECT_EQ(api::StringAt(api::ObjectAt(api::Metadata(*job), "labels"), "team"), "a");
  EXPECT_EQ(Active(), std::vector<std::string>{name});
  EXPECT_EQ(api::StringAt(CronStatus(), "lastScheduleTime"), "2026-03-07T00:05:00Z");
  const json::object status = CronStatus();
  const json::object& ref = api::ArrayAt(status, "active")->at(0).as_object();
  EXPECT_EQ(api::StringAt(ref, "kind"), "Job");
  EXPECT_EQ(api::StringAt(ref, "uid"), job->uid());

  // Again at the same time: the activation is done, nothing more.
  Reconcile();
  EXPECT_EQ(JobNames().size(), 1u);

  Finish(name, "Complete", "2026-03-07T00:05:01Z", "2026-03-07T00:06:00Z");
  Reconcile();
  EXPECT_TRUE(Active().empty());
  EXPECT_EQ(api::StringAt(CronStatus(), "lastSuccessfulTime"), "2026-03-07T00:06:00Z");
  EXPECT_EQ(Events(), (std::vector<std::string>{"Normal SuccessfulCreate: Created job " + name,
                                                "Normal SawCompletedJob: Saw completed job: " +
                                                    name + ", status: Complete"}));
}

TEST_F(CronJobTest, ForbidSkipsAnActivationWhileAJobRuns) {
  MakeCronJob("*/5 * * * *", R"(,"concurrencyPolicy":"Forbid")", "2026-03-07T00:00:00Z");
  clock_.Step(minutes(5));
  Reconcile();
  const std::string first = "tick-" + Suffix("2026-03-07T00:05:00Z");
  ASSERT_EQ(JobNames(), std::vector<std::string>{first});
  clock_.Step(minutes(5));
  Reconcile();
  EXPECT_EQ(JobNames(), std::vector<std::string>{first}) << "the 00:10 run must wait";
  EXPECT_TRUE(
      HasEvent("Normal JobAlreadyActive: Not starting job because prior execution is running and "
               "concurrency policy is Forbid"));
  // Once it finishes, the missed 00:10 activation (still the latest) starts.
  Finish(first, "Failed", "2026-03-07T00:05:01Z", "");
  Reconcile();
  EXPECT_EQ(JobNames(),
            (std::vector<std::string>{first, "tick-" + Suffix("2026-03-07T00:10:00Z")}));
}

TEST_F(CronJobTest, ReplaceDeletesTheRunningJobFirst) {
  MakeCronJob("*/5 * * * *", R"(,"concurrencyPolicy":"Replace")", "2026-03-07T00:00:00Z");
  clock_.Step(minutes(5));
  Reconcile();
  const std::string first = "tick-" + Suffix("2026-03-07T00:05:00Z");
  const std::string second = "tick-" + Suffix("2026-03-07T00:10:00Z");
  clock_.Step(minutes(5));
  Reconcile();
  EXPECT_EQ(JobNames(), std::vector<std::string>{second});
  EXPECT_EQ(Active(), std::vector<std::string>{second});
  EXPECT_TRUE(HasEvent("Normal SuccessfulDelete: Deleted job " + first));
}

TEST_F(CronJobTest, AllowRunsJobsSideBySide) {
  MakeCronJob("*/5 * * * *", "", "2026-03-07T00:00:00Z");
  clock_.Step(minutes(5));
  Reconcile();
  clock_.Step(minutes(5));
  Reconcile();
  EXPECT_EQ(Active().size(), 2u);
}

TEST_F(CronJobTest, StartingDeadlineSkipsActivationsTooLongAgo) {
  MakeCronJob("0 * * * *", R"(,"startingDeadlineSeconds":60)", "2026-03-07T00:00:00Z");
  clock_.Step(hours(3) + minutes(2));  // 03:02:30: the 03:00 run is 150 s late
  Reconcile();
  EXPECT_TRUE(JobNames().empty());
  ASSERT_TRUE(clock_.NextAlarm());
  EXPECT_EQ(
      std::chrono::duration_cast<std::chrono::milliseconds>(*clock_.NextAlarm() - clock_.Now())
          .count(),
      (57 * 60 + 30) * 1000 + 100)
      << "woken for 04:00";
  clock_.Step(minutes(58));  // 04:00:30
  Reconcile();
  EXPECT_EQ(JobNames(), std::vector<std::string>{"tick-" + Suffix("2026-03-07T04:00:00Z")});
}

TEST_F(CronJobTest, TooManyMissedActivationsStartOnlyTheLatest) {
  MakeCronJob("* * * * *", "", "2026-03-07T00:00:00Z");
  clock_.Step(hours(3));  // 03:00:30: 180 missed
  Reconcile();
  EXPECT_EQ(JobNames(), std::vector<std::string>{"tick-" + Suffix("2026-03-07T03:00:00Z")});
  EXPECT_TRUE(
      HasEvent("Warning TooManyMissedTimes: too many missed start times. Set or decrease "
               ".spec.startingDeadlineSeconds or check clock skew"));
}

TEST_F(CronJobTest, SuspendedStartsNothing) {
  MakeCronJob("*/5 * * * *", R"(,"suspend":true)", "2026-03-07T00:00:00Z");
  clock_.Step(hours(1));
  Reconcile();
  EXPECT_TRUE(JobNames().empty());
}

TEST_F(CronJobTest, ReadsTheScheduleInItsTimeZone) {
  // Noon in New York: 17:00Z on 7 March, 16:00Z on the 8th (daylight saving began).
  MakeCronJob("0 12 * * *", R"(,"timeZone":"America/New_York")", "2026-03-07T17:00:00Z");
  clock_.Step(hours(40));  // 2026-03-08T16:00:30Z
  Reconcile();
  const std::string name = "tick-" + Suffix("2026-03-08T16:00:00Z");
  ASSERT_EQ(JobNames(), std::vector<std::string>{name});
  auto job = client_->Get(api::Kind::kJob, "default", name).value();
  EXPECT_EQ(api::Annotation(*job, kCronJobScheduledTimestampAnnotation),
            "2026-03-08T12:00:00-04:00");
}

TEST_F(CronJobTest, KeepsOnlyTheNewestFinishedJobsOfEachKind) {
  auto cj =
      MakeCronJob("0 0 1 1 *", R"(,"successfulJobsHistoryLimit":1,"failedJobsHistoryLimit":2)",
                  "2026-01-01T00:00:00Z");
  // Finished Jobs of this CronJob (as if from earlier runs), started an hour apart.
  const char* started[] = {"2026-03-06T01:00:00Z", "2026-03-06T02:00:00Z", "2026-03-06T03:00:00Z",
                           "2026-03-06T04:00:00Z", "2026-03-06T05:00:00Z"};
  for (int i = 0; i < 5; ++i) {
    json::object job = json::parse(R"({"metadata":{"name":"old-)" + std::to_string(i) + R"("},
      "spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})")
                           .as_object();
    api::MutableObject(job, "metadata")["ownerReferences"] = json::array{ControllerRef(*cj)};
    ASSERT_TRUE(client_->Create(api::Kind::kJob, "default", job).ok());
    Finish("old-" + std::to_string(i), i % 2 ? "Complete" : "Failed", started[i], started[i]);
  }
  Reconcile();
  // Failed: old-0, old-2, old-4 → the two newest stay; Complete: old-1, old-3 → the newest stays.
  EXPECT_EQ(JobNames(), (std::vector<std::string>{"old-2", "old-3", "old-4"}));
  EXPECT_TRUE(HasEvent("Normal SuccessfulDelete: Deleted job old-0"));
  EXPECT_TRUE(HasEvent("Normal SuccessfulDelete: Deleted job old-1"));
  EXPECT_EQ(api::StringAt(CronStatus(), "lastSuccessfulTime"), "2026-03-06T04:00:00Z");
}

TEST_F(CronJobTest, AnActiveJobDeletedBehindItsBackIsForgotten) {
  MakeCronJob("0 * * * *", "", "2026-03-07T00:00:00Z");
  clock_.Step(hours(1));
  Reconcile();
  const std::string name = "tick-" + Suffix("2026-03-07T01:00:00Z");
  ASSERT_EQ(Active(), std::vector<std::string>{name});
  ASSERT_TRUE(client_->Delete(api::Kind::kJob, "default", name).ok());
  Reconcile();
  EXPECT_TRUE(Active().empty());
  EXPECT_TRUE(HasEvent("Normal MissingJob: Active job went missing: " + name));
}

// The workers run, woken only by the clock: 24 hourly activations, each Job
// finished as soon as it appears, history limited to 3.
TEST_F(CronJobTest, RunsADayOfHourlySchedulesOnTheFakeClock) {
  MakeCronJob("0 * * * *", R"(,"successfulJobsHistoryLimit":3)", "2026-03-07T00:00:00Z");
  controller_->Run();
  std::set<std::string> seen;
  for (int hour = 1; hour <= 24; ++hour) {
    // Step from alarm to alarm (a retry after a conflict may come first)
    // until the hour has struck.
    const auto target = At("2026-03-07T00:00:00Z") + hours(hour);
    for (int steps = 0; clock_.WallNow() < target; ++steps) {
      ASSERT_LT(steps, 100);
      WaitFor([&] { return clock_.NextAlarm().has_value(); });  // the worker asks to be woken
      auto next = clock_.NextAlarm();
      ASSERT_TRUE(next) << "nothing will wake the controller at hour " << hour;
      clock_.Step(
          std::max<std::chrono::nanoseconds>(*next - clock_.Now(), std::chrono::nanoseconds(0)));
    }
    std::string name;
    WaitFor([&] {
      for (const auto& n : JobNames()) {
        if (!seen.count(n) && Active() == std::vector<std::string>{n}) name = n;
      }
      return !name.empty();
    });
    seen.insert(name);
    const auto scheduled = target;
    EXPECT_EQ(
        name,
        "tick-" + std::to_string(
                      std::chrono::duration_cast<minutes>(scheduled.time_since_epoch()).count()));
    const std::string t = api::FormatRfc3339(scheduled);
    Finish(name, "Complete", t.c_str(), t.c_str());
    WaitFor([&] { return Active().empty(); });
  }
  WaitFor([&] { return JobNames().size() == 3; });
  EXPECT_EQ(seen.size(), 24u);
  EXPECT_EQ(api::StringAt(CronStatus(), "lastScheduleTime"), "2026-03-08T00:00:00Z");
  controller_->Stop();
}

}  // namespace
}  // namespace berth::controllers
