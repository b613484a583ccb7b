// A Deployment's Progressing condition and progressDeadlineSeconds, as kube
// keeps them: the rules on their own (times given), then the controller on
// a fake clock timing out a rollout whose pods never become available.

#include "controllers/deployment/deployment_progress.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "controllers/deployment/deployment_controller.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

std::chrono::system_clock::time_point At(const char* rfc3339) {
  return api::ParseRfc3339(rfc3339).value();
}
const auto kT0 = At("2026-03-07T00:00:00Z");

std::string Field(const json::object& status, const char* field) {
  const json::object* c = api::FindCondition(&status, "Progressing");
  return c ? std::string(api::StringAt(*c, field)) : "<none>";
}
std::string Summary(const json::object& status) {
  return Field(status, "status") + " " + Field(status, "reason") + ": " + Field(status, "message");
}

ProgressInput Input(RolloutCounts before, RolloutCounts now) {
  ProgressInput in;
  in.deployment = "web";
  in.new_replica_set = "web-5d4f";
  in.spec_replicas = 2;
  in.deadline_seconds = 5;
  in.before = before;
  in.now = now;
  return in;
}

TEST(DeploymentProgress, ANewReplicaSetThatNeverBecomesAvailableTimesOut) {
  json::object status;
  ProgressInput in = Input({}, {});  // no pods yet
  in.created_new_replica_set = true;
  auto recheck = UpdateProgressing(status, in, kT0);
  EXPECT_EQ(Summary(status), "True NewReplicaSetCreated: Created new replica set \"web-5d4f\"");
  ASSERT_TRUE(recheck);
  EXPECT_EQ(recheck->count(), 6000) << "the deadline, plus a second";

  in = Input({}, {});  // still none (say, unschedulable)
  recheck = UpdateProgressing(status, in, kT0 + seconds(5));
  EXPECT_EQ(Field(status, "reason"), "NewReplicaSetCreated")
      << "not before the deadline has passed";
  ASSERT_TRUE(recheck);
  EXPECT_EQ(recheck->count(), 1000);

  recheck = UpdateProgressing(status, in, kT0 + seconds(6));
  EXPECT_EQ(Summary(status),
            "False ProgressDeadlineExceeded: ReplicaSet \"web-5d4f\" has timed out progressing.");
  EXPECT_EQ(Field(status, "lastUpdateTime"), "2026-03-07T00:00:06Z");
  EXPECT_FALSE(recheck) << "timed out: nothing more to wait for";
}

TEST(DeploymentProgress, ProgressRestartsTheDeadlineAndEndsATimeout) {
  json::object status;
  ProgressInput in = Input({}, {});
  in.created_new_replica_set = true;
  UpdateProgressing(status, in, kT0);
  UpdateProgressing(status, Input({}, {2, 2, 0, 0}), kT0);  // its pods are created
  // One pod ready at 4 s: progress.
  UpdateProgressing(status, Input({2, 2, 0, 0}, {2, 2, 1, 1}), kT0 + seconds(4));
  EXPECT_EQ(Summary(status), "True ReplicaSetUpdated: ReplicaSet \"web-5d4f\" is progressing.");
  EXPECT_EQ(Field(status, "lastUpdateTime"), "2026-03-07T00:00:04Z");
  EXPECT_EQ(Field(status, "lastTransitionTime"), "2026-03-07T00:00:00Z") << "still True";
  UpdateProgressing(status, Input({2, 2, 1, 1}, {2, 2, 1, 1}), kT0 + seconds(8));
  EXPECT_EQ(Field(status, "reason"), "ReplicaSetUpdated");
  UpdateProgressing(status, Input({2, 2, 1, 1}, {2, 2, 1, 1}), kT0 + seconds(10));
  EXPECT_EQ(Field(status, "reason"), "ProgressDeadlineExceeded");
  EXPECT_EQ(Field(status, "lastTransitionTime"), "2026-03-07T00:00:10Z");
  // Late progress still counts: the rollout goes on.
  UpdateProgressing(status, Input({2, 2, 1, 1}, {3, 2, 1, 1}), kT0 + seconds(12));
  EXPECT_EQ(Field(status, "reason"), "ProgressDeadlineExceeded")
      << "more old replicas is no progress";
  UpdateProgressing(status, Input({3, 2, 1, 1}, {2, 2, 2, 1}), kT0 + seconds(13));
  EXPECT_EQ(Summary(status), "True ReplicaSetUpdated: ReplicaSet \"web-5d4f\" is progressing.");
}

TEST(DeploymentProgress, ACompleteRolloutIsNotJudgedAgain) {
  json::object status;
  ProgressInput in = Input({}, {2, 2, 2, 2});
  in.created_new_replica_set = true;
  auto recheck = UpdateProgressing(status, in, kT0);
  EXPECT_EQ(Summary(status),
            "True NewReplicaSetAvailable: ReplicaSet \"web-5d4f\" has successfully progressed.");
  EXPECT_FALSE(recheck);
  // A pod lost much later is not a stalled rollout.
  UpdateProgressing(status, Input({2, 2, 2, 2}, {2, 2, 1, 1}), kT0 + std::chrono::hours(1));
  EXPECT_EQ(Field(status, "reason"), "NewReplicaSetAvailable");
}

TEST(DeploymentProgress, AnExistingReplicaSetIsFoundWhenThereIsNoCondition) {
  json::object status;
  UpdateProgressing(status, Input({2, 2, 0, 0}, {2, 2, 0, 0}), kT0);
  EXPECT_EQ(Summary(status), "True FoundNewReplicaSet: Found new replica set \"web-5d4f\"");
  // With no new ReplicaSet yet (Recreate waiting for old pods), the Deployment is named.
  json::object recreate;
  ProgressInput in = Input({}, {0, 0, 0, 0});
  in.new_replica_set = "";
  UpdateProgressing(recreate, in, kT0);
  UpdateProgressing(recreate, in, kT0 + seconds(6));
  EXPECT_EQ(Summary(recreate), "<none> <none>: <none>") << "no condition to time out from";
}

TEST(DeploymentProgress, PausingAndResumingAreUnknownProgress) {
  json::object status;
  ProgressInput in = Input({}, {2, 2, 0, 0});
  in.created_new_replica_set = true;
  UpdateProgressing(status, in, kT0);
  in = Input({2, 2, 0, 0}, {2, 2, 0, 0});
  in.paused = true;
  EXPECT_FALSE(UpdateProgressing(status, in, kT0 + seconds(1)));
  EXPECT_EQ(Summary(status), "Unknown DeploymentPaused: Deployment is paused");
  EXPECT_FALSE(UpdateProgressing(status, in, kT0 + seconds(60)))
      << "a paused Deployment never times out";
  EXPECT_EQ(Field(status, "reason"), "DeploymentPaused");
  in.paused = false;
  UpdateProgressing(status, in, kT0 + seconds(61));
  EXPECT_EQ(Summary(status), "Unknown DeploymentResumed: Deployment is resumed");
  UpdateProgressing(status, in, kT0 + seconds(67));
  EXPECT_EQ(Field(status, "reason"), "ProgressDeadlineExceeded")
      << "the deadline counts from the resume";
}

TEST(DeploymentProgress, NoDeadlineMeansNoProgressingCondition) {
  json::object status = json::parse(R"({"conditions":[
    {"type":"Available","status":"True"},{"type":"Progressing","status":"True","reason":"ReplicaSetUpdated"}]})")
                            .as_object();
  ProgressInput in = Input({}, {2, 2, 0, 0});
  in.deadline_seconds.reset();
  EXPECT_FALSE(UpdateProgressing(status, in, kT0));
  EXPECT_EQ(Field(status, "reason"), "<none>");
  EXPECT_NE(api::FindCondition(&status, "Available"), nullptr);
  const json::object never = json::parse(R"({"progressDeadlineSeconds":2147483647})").as_object();
  const json::object ten_minutes = json::parse(R"({"progressDeadlineSeconds":600})").as_object();
  EXPECT_FALSE(ProgressDeadline(&never));
  EXPECT_EQ(ProgressDeadline(&ten_minutes), 600);
  EXPECT_FALSE(ProgressDeadline(nullptr));
}

// The controller, on a fake clock: pods are never made available (no
// ReplicaSet controller runs), so the rollout stalls and times out.
class DeploymentDeadlineTest : public InProcessApiTest {};

TEST_F(DeploymentDeadlineTest, AStalledRolloutExceedsItsProgressDeadline) {
  // Whole seconds, as the condition's timestamps are.
  api::FakeClock clock(api::Clock::time_point(std::chrono::hours(1)),
                       std::chrono::floor<seconds>(std::chrono::system_clock::now()));
  auto controller = std::make_unique<DeploymentController>(
      ControllerContext{*client_, *informers_, nullptr, nullptr, &clock});
  ASSERT_TRUE(informers_->Start().ok());
  ASSERT_TRUE(client_
                  ->Create(api::Kind::kDeployment, "default",
                           json::parse(R"({"metadata":{"name":"web"},"spec":{"replicas":2,
    "progressDeadlineSeconds":5,"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}}}})")
                               .as_object())
                  .ok());
  auto cached_version = [&] {
    auto d = informers_->For(api::Kind::kDeployment).Get("default/web");
    return d ? d->resource_version() : 0;
  };
  auto sync = [&] {
    const int64_t want =
        client_->Get(api::Kind::kDeployment, "default", "web").value()->resource_version();
    const size_t sets = client_->List(api::Kind::kReplicaSet, "default").value().size();
    auto synced = [&] {
      return cached_version() == want && informers_->For(api::Kind::kReplicaSet).Size() == sets;
    };
    for (int i = 0; i < 5000 && !synced(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(synced());
  };
  auto progressing = [&] {
    auto d = client_->Get(api::Kind::kDeployment, "default", "web").value();
    return Summary(*api::StatusOf(*d));
  };
  auto reconcile = [&] {
    Status s = controller->ReconcileForTest("default/web");
    EXPECT_TRUE(s.ok()) << s.message();
    return s.ok();
  };
  sync();
  ASSERT_TRUE(reconcile());
  auto sets = client_->List(api::Kind::kReplicaSet, "default").value();
  ASSERT_EQ(sets.size(), 1u);
  const std::string rs = sets[0]->name();
  EXPECT_EQ(progressing(), "True NewReplicaSetCreated: Created new replica set \"" + rs + "\"");
  // The controller asked to look again just after the deadline.
  ASSERT_TRUE(clock.NextAlarm());
  EXPECT_EQ(std::chrono::duration_cast<seconds>(*clock.NextAlarm() - clock.Now()).count(), 6);

  clock.Step(seconds(3));
  sync();
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(api::StringAt(
                api::FindCondition(
                    api::StatusOf(*client_->Get(api::Kind::kDeployment, "default", "web").value()),
                    "Progressing"),
                "reason"),
            "NewReplicaSetCreated");
  clock.Step(seconds(4));
  sync();
  ASSERT_TRUE(reconcile());
  EXPECT_EQ(progressing(),
            "False ProgressDeadlineExceeded: ReplicaSet \"" + rs + "\" has timed out progressing.");
  informers_->Stop();
}

}  // namespace
}  // namespace berth::controllers
