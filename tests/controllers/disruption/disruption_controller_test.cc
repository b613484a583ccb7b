// The disruption controller: kube's PodDisruptionBudget status arithmetic as
// a table, and reconciles against a real API server in process (memory
// store) with an injected clock for disruptedPods expiry.

#include "controllers/disruption/disruption_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "in_process_api.h"
#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::minutes;
using std::chrono::seconds;

const auto kNow = std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 56));

struct PodSpec {
  std::string name;
  bool ready = true;
  bool deleting = false;
};

api::ObjectPtr MakePod(const PodSpec& p) {
  json::object meta{
      {"name", p.name}, {"namespace", "default"}, {"labels", json::object{{"app", "web"}}}};
  if (p.deleting) meta["deletionTimestamp"] = api::FormatRfc3339(kNow);
  json::object status{
      {"phase", "Running"},
      {"conditions",
       json::array{json::object{{"type", "Ready"}, {"status", p.ready ? "True" : "False"}}}}};
  return api::Object::FromJson(
             json::object{
                 {"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", meta},
                 {"spec", json::object{{"containers",
                                        json::array{json::object{{"name", "c"}, {"image", "i"}}}}}},
                 {"status", status}})
      .value();
}

api::ObjectPtr MakeBudget(const std::string& spec_fields, const std::string& status = "{}") {
  return api::Object::FromJson(
             json::parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"web","namespace":"default","generation":1},
      "spec":{"selector":{"matchLabels":{"app":"web"}},)" +
                         spec_fields + R"(},"status":)" + status + "}"))
      .value();
}

struct Case {
  std::string name;
  std::string spec;  // minAvailable / maxUnavailable
  std::vector<PodSpec> pods;
  int64_t scale;  // the controllers' summed replicas
  int64_t expected, desired, healthy, allowed;
};

TEST(DisruptionMath, BudgetStatusAsKubeComputesIt) {
  const std::vector<PodSpec> three = {{"a"}, {"b"}, {"c"}};
  const Case cases[] = {
      {"integer minAvailable counts the selected pods", R"("minAvailable":2)", three, 5, 3, 2, 3,
       1},
      {"percentage minAvailable is of the scale, rounded up", R"("minAvailable":"50%")", three, 3,
       3, 2, 3, 1},
      {"percentage minAvailable of a larger scale", R"("minAvailable":"50%")", three, 5, 5, 3, 3,
       0},
      {"integer maxUnavailable", R"("maxUnavailable":1)", three, 3, 3, 2, 3, 1},
      {"percentage maxUnavailable rounds up", R"("maxUnavailable":"34%")", three, 3, 3, 1, 3, 2},
      {"maxUnavailable above the scale desires 0", R"("maxUnavailable":5)", three, 3, 3, 0, 3, 3},
      {"unready pods are not healthy",
       R"("minAvailable":2)",
       {{"a"}, {"b", false}, {"c"}},
       3,
       3,
       2,
       2,
       0},
      {"pods being deleted are not healthy",
       R"("maxUnavailable":1)",
       {{"a"}, {"b", true, true}, {"c"}},
       3,
       3,
       2,
       2,
       0},
      {"no expected pods allows nothing", R"("maxUnavailable":1)", three, 0, 0, 0, 3, 0},
      {"no pods", R"("minAvailable":1)", {}, 0, 0, 1, 0, 0},
      {"minAvailable 100% allows nothing", R"("minAvailable":"100%")", three, 3, 3, 3, 3, 0},
  };
  for (const auto& c : cases) {
    std::vector<api::ObjectPtr> pods;
    for (const auto& p : c.pods) pods.push_back(MakePod(p));
    auto got = DisruptionController::Compute(
        *MakeBudget(c.spec), pods, [&] { return Result<int64_t>(c.scale); }, kNow);
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
    EXPECT_EQ(got->expected_pods, c.expected) << c.name;
    EXPECT_EQ(got->desired_healthy, c.desired) << c.name;
    EXPECT_EQ(got->current_healthy, c.healthy) << c.name;
    EXPECT_EQ(got->disruptions_allowed, c.allowed) << c.name;
  }
}

TEST(DisruptionMath, DisruptedPodsCountAsGoneUntilTheyExpire) {
  const std::string recorded = api::FormatRfc3339(kNow - seconds(30));
  const std::string stale = api::FormatRfc3339(kNow - minutes(3));
  auto budget =
      MakeBudget(R"("minAvailable":1)", R"({"disruptedPods":{"a":")" + recorded + R"(","b":")" +
                                            stale + R"(","gone":")" + recorded + R"("}})");
  std::vector<api::ObjectPtr> pods = {MakePod({"a"}), MakePod({"b"}), MakePod({"c"})};
  auto got = DisruptionController::Compute(
      *budget, pods, [] { return Result<int64_t>(3); }, kNow);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->current_healthy, 2);  // a is about to go; b's entry expired
  EXPECT_EQ(got->disruptions_allowed, 1);
  EXPECT_EQ(got->disrupted_pods, (json::object{{"a", recorded}}));  // b expired, "gone" has no pod
  EXPECT_EQ(got->expired_pods, std::vector<std::string>{"b"});
  ASSERT_TRUE(got->recheck_at.has_value());
  EXPECT_EQ(api::FormatRfc3339(*got->recheck_at),
            api::FormatRfc3339(kNow - seconds(30) + minutes(2)));
}

TEST(DisruptionMath, ScaleFailuresAreErrorsUnlessMinAvailableIsAnInteger) {
  std::vector<api::ObjectPtr> pods = {MakePod({"a"})};
  auto failed = DisruptionController::Compute(
      *MakeBudget(R"("maxUnavailable":1)"), pods,
      [] { return Result<int64_t>(Status::NotFound("found no controllers for pod \"a\"")); }, kNow);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "found no controllers for pod \"a\"");
  // An integer minAvailable needs no controllers.
  EXPECT_TRUE(DisruptionController::Compute(
                  *MakeBudget(R"("minAvailable":1)"), pods,
                  [] { return Result<int64_t>(Status::NotFound("unused")); }, kNow)
                  .ok());
}

// A real API server over a memory store and store informers; the controller's
// workers do not run (tests call Reconcile), its clock is a FakeClock.
class DisruptionEnv : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    controller_ = std::make_unique<DisruptionController>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_});
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override {
    informers_->Stop();
    controller_.reset();
  }

  api::ObjectPtr Create(api::Kind kind, const std::string& json_text) {
    auto created = client_->Create(kind, "default", json::parse(json_text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  // A Running, Ready pod app=web controlled by `owner` (kind, name, uid).
  void OwnedPod(const std::string& name, const std::string& kind, const std::string& owner,
                const std::string& uid) {
    auto pod =
        Create(api::Kind::kPod, R"({"metadata":{"name":")" + name + R"(","labels":{"app":"web"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":")" +
                                    kind + R"(","name":")" + owner + R"(","uid":")" + uid +
                                    R"(","controller":true}]},
        "spec":{"containers":[{"name":"c","image":"i"}]}})");
    json::object next = pod->json();
    next["status"] = json::object{
        {"phase", "Running"},
        {"conditions", json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}};
    ASSERT_TRUE(client_->UpdateStatus(api::Kind::kPod, next).ok());
  }
  // Waits until the informers hold what the store has (pods and budgets).
  void Sync(size_t pods, std::function<bool(const api::Object&)> budget_ready = nullptr) {
    // Generous: the machine may be busy (the informers are threads of their own).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      auto b = informers_->For(api::Kind::kPodDisruptionBudget).Get("default/web");
      bool pods_ready = true;
      for (const auto& p : informers_->For(api::Kind::kPod).List()) {
        pods_ready = pods_ready && api::StringAt(api::StatusOf(*p), "phase") == "Running";
      }
      if (informers_->For(api::Kind::kPod).Size() == pods && pods_ready && b &&
          (!budget_ready || budget_ready(*b))) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "informers did not catch up";
  }
  json::object BudgetStatus() {
    return client_->Get(api::Kind::kPodDisruptionBudget, "default", "web")
        .value()
        ->json()
        .at("status")
        .as_object();
  }

  api::FakeClock clock_;  // outlives the controller
  std::unique_ptr<DisruptionController> controller_;
};

TEST_F(DisruptionEnv, PercentageOfADeploymentsReplicasWithKubesCondition) {
  auto d = Create(api::Kind::kDeployment, R"({"metadata":{"name":"web"},"spec":{"replicas":4,
      "selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  auto rs = Create(api::Kind::kReplicaSet,
                   R"({"metadata":{"name":"web-1","ownerReferences":[{"apiVersion":"apps/v1",
      "kind":"Deployment","name":"web","uid":")" +
                       d->uid() + R"(","controller":true}]},"spec":{"replicas":3,
      "selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  for (const char* name : {"web-1-a", "web-1-b", "web-1-c"})
    OwnedPod(name, "ReplicaSet", "web-1", rs->uid());
  Create(
      api::Kind::kPodDisruptionBudget,
      R"({"metadata":{"name":"web"},"spec":{"minAvailable":"50%","selector":{"matchLabels":{"app":"web"}}}})");
  Sync(3);
  for (int i = 0; i < 2000 && informers_->For(api::Kind::kDeployment).Size() +
                                      informers_->For(api::Kind::kReplicaSet).Size() <
                                  2;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(controller_->ReconcileForTest("default/web").ok());
  json::object status = BudgetStatus();
  EXPECT_EQ(status["expectedPods"], 4);  // the Deployment's replicas, not the ReplicaSet's
  EXPECT_EQ(status["desiredHealthy"], 2);
  EXPECT_EQ(status["currentHealthy"], 3);
  EXPECT_EQ(status["disruptionsAllowed"], 1);
  EXPECT_EQ(status["observedGeneration"], 1);
  const json::object* c = api::FindCondition(&status, "DisruptionAllowed");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status"), "True");
  EXPECT_EQ(c->at("reason"), "SufficientPods");
  EXPECT_EQ(c->at("observedGeneration"), 1);
}

TEST_F(DisruptionEnv, DisruptedPodsExpireOnTheInjectedClock) {
  auto rs = Create(api::Kind::kReplicaSet, R"({"metadata":{"name":"web"},"spec":{"replicas":2,
      "selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  OwnedPod("a", "ReplicaSet", "web", rs->uid());
  OwnedPod("b", "ReplicaSet", "web", rs->uid());
  auto budget = Create(
      api::Kind::kPodDisruptionBudget,
      R"({"metadata":{"name":"web"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"web"}}}})");
  // The eviction subresource recorded pod a as about to go, at the clock's time.
  json::object next = budget->json();
  next["status"] =
      json::object{{"disruptionsAllowed", 0},
                   {"disruptedPods", json::object{{"a", api::FormatRfc3339(clock_.WallNow())}}}};
  ASSERT_TRUE(client_->UpdateStatus(api::Kind::kPodDisruptionBudget, next).ok());
  Sync(2, [](const api::Object& b) {
    return api::ObjectAt(api::StatusOf(b), "disruptedPods") != nullptr;
  });
  ASSERT_TRUE(controller_->ReconcileForTest("default/web").ok());
  json::object status = BudgetStatus();
  EXPECT_EQ(status["currentHealthy"], 1);
  EXPECT_EQ(status["disruptionsAllowed"], 0);
  EXPECT_TRUE(status["disruptedPods"].as_object().contains("a"));
  EXPECT_EQ(api::FindCondition(&status, "DisruptionAllowed")->at("reason"), "InsufficientPods");

  // Two minutes later pod a still exists: it was not deleted after all.
  clock_.Step(minutes(2) + seconds(1));
  Sync(2, [](const api::Object& b) { return api::IntAt(api::StatusOf(b), "currentHealthy") == 1; });
  ASSERT_TRUE(controller_->ReconcileForTest("default/web").ok());
  status = BudgetStatus();
  EXPECT_EQ(status["currentHealthy"], 2);
  EXPECT_EQ(status["disruptionsAllowed"], 1);
  EXPECT_FALSE(status.contains("disruptedPods"));
}

TEST_F(DisruptionEnv, PodOfAnUnknownControllerFailsSafe) {
  OwnedPod("db-0", "StatefulSet", "db", "uid-db");
  Create(
      api::Kind::kPodDisruptionBudget,
      R"({"metadata":{"name":"web"},"spec":{"maxUnavailable":"50%","selector":{"matchLabels":{"app":"web"}}}})");
  Sync(1);
  ASSERT_TRUE(controller_->ReconcileForTest("default/web").ok());
  json::object status = BudgetStatus();
  EXPECT_EQ(status["disruptionsAllowed"], 0);
  const json::object* c = api::FindCondition(&status, "DisruptionAllowed");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->at("status"), "False");
  EXPECT_EQ(c->at("reason"), "SyncFailed");
  EXPECT_EQ(c->at("message"), "found no controllers for pod \"db-0\"");
}

}  // namespace
}  // namespace berth::controllers
