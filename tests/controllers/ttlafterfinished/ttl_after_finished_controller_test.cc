// The TTL-after-finished controller with a fake clock: a finished Job is
// deleted (Foreground) ttlSecondsAfterFinished after it finished, not before,
// and Jobs without a TTL or not finished are left alone.

#include "controllers/ttlafterfinished/ttl_after_finished_controller.h"

#include <gtest/gtest.h>

#include "job/job_test_env.h"

namespace berth::controllers {

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

class TtlAfterFinishedTest : public JobEnv {
 protected:
  TtlAfterFinishedController& Start() {
    controller_ = std::make_unique<TtlAfterFinishedController>(Context());
    EXPECT_TRUE(informers_->Start().ok());
    return *controller_;
  }
  void TearDown() override {
    JobEnv::TearDown();
    controller_.reset();
  }
  // A Job with `ttl_field` in its spec, finished now with `condition` (none: still running).
  void CreateJobThatFinished(const std::string& name, const std::string& ttl_field,
                             const std::string& condition) {
    auto job = CreateJob(
        R"({"metadata":{"name":")" + name + R"("},"spec":{)" + ttl_field +
        R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}})");
    ASSERT_TRUE(job);
    if (condition.empty()) return;
    const std::string now = api::FormatRfc3339(clock_.WallNow());
    json::object o = job->json();
    api::MutableObject(o, "metadata")["resourceVersion"] = std::to_string(job->resource_version());
    json::object& status = api::MutableObject(o, "status");
    status["startTime"] = now;
    status["conditions"] = json::array{json::object{{"type", condition},
                                                    {"status", "True"},
                                                    {"lastProbeTime", now},
                                                    {"lastTransitionTime", now}}};
    if (condition == "Complete") status["completionTime"] = now;
    auto written = client_->UpdateStatus(api::Kind::kJob, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  // Deleted, or (Foreground) marked for deletion with the foregroundDeletion finalizer.
  bool Deleting(const std::string& name) {
    auto job = GetJob(name);
    if (!job) return true;
    const auto* finalizers = api::ArrayAt(api::Metadata(*job), "finalizers");
    const bool foreground =
        finalizers && std::find(finalizers->begin(), finalizers->end(),
                                json::value("foregroundDeletion")) != finalizers->end();
    return api::BeingDeleted(*job) && foreground;
  }

  std::unique_ptr<TtlAfterFinishedController> controller_;
};

TEST_F(TtlAfterFinishedTest, DeletesAFinishedJobWithForegroundPropagationOnceItsTtlHasPassed) {
  auto& c = Start();
  CreateJobThatFinished("done", R"("ttlSecondsAfterFinished":2,)", "Complete");
  CreateJobThatFinished("failed", R"("ttlSecondsAfterFinished":5,)", "Failed");
  Reconcile(c, "default/done");
  Reconcile(c, "default/failed");
  EXPECT_FALSE(Deleting("done"));
  clock_.Step(1s);
  Reconcile(c, "default/done");
  EXPECT_FALSE(Deleting("done"));
  clock_.Step(1s);
  Reconcile(c, "default/done");
  Reconcile(c, "default/failed");
  EXPECT_TRUE(Deleting("done"));
  EXPECT_FALSE(Deleting("failed"));
  clock_.Step(3s);
  Reconcile(c, "default/failed");
  EXPECT_TRUE(Deleting("failed"));
}

TEST_F(TtlAfterFinishedTest, LeavesRunningJobsAndJobsWithoutTtlAlone) {
  auto& c = Start();
  CreateJobThatFinished("running", R"("ttlSecondsAfterFinished":0,)", "");
  CreateJobThatFinished("kept", "", "Complete");
  clock_.Step(24h);
  Reconcile(c, "default/running");
  Reconcile(c, "default/kept");
  EXPECT_FALSE(Deleting("running"));
  EXPECT_FALSE(Deleting("kept"));
}

TEST_F(TtlAfterFinishedTest, AZeroTtlDeletesAsSoonAsTheJobFinishes) {
  auto& c = Start();
  CreateJobThatFinished("zero", R"("ttlSecondsAfterFinished":0,)", "Complete");
  Reconcile(c, "default/zero");
  EXPECT_TRUE(Deleting("zero"));
}

TEST_F(TtlAfterFinishedTest, ExpiryCountsFromCompletionTime) {
  const auto finished = api::ParseRfc3339("2026-03-01T10:00:00Z").value();
  auto job = api::Object::FromJson(json::parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"j","namespace":"default"},"spec":{"ttlSecondsAfterFinished":30},
      "status":{"completionTime":"2026-03-01T10:00:00Z","conditions":[
        {"type":"Complete","status":"True","lastTransitionTime":"2026-03-01T10:00:09Z"}]}})")
                                       .as_object())
                 .value();
  EXPECT_EQ(TtlAfterFinishedController::ExpiresAt(*job), finished + 30s);
  auto running = api::Object::FromJson(json::parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"j","namespace":"default"},"spec":{"ttlSecondsAfterFinished":30},
      "status":{"conditions":[{"type":"Failed","status":"False","lastTransitionTime":"2026-03-01T10:00:09Z"}]}})")
                                           .as_object())
                     .value();
  EXPECT_FALSE(TtlAfterFinishedController::ExpiresAt(*running));
}

}  // namespace
}  // namespace berth::controllers
