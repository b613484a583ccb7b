// The simulated kubelet's graceful termination: containers stop after the
// pod's sim.berth.dev/stop-duration, never later than its grace period, and
// only then is the pod deleted. Time is a FakeClock whose wall time follows
// the real one from the start, as the API server stamps deletionTimestamp.

#include "controllers/simnode/sim_nodes.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "api/json_fields.h"
#include "in_process_api.h"
#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

class SimTerminationTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    SimNodesOptions options;
    options.groups.push_back({.count = 1, .name_prefix = "sim-"});
    sim_ = std::make_unique<SimNodes>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_}, options);
    ASSERT_TRUE(sim_->Register().ok());
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override {
    informers_->Stop();
    sim_.reset();
  }

  // A pod running on sim-0, then asked to be deleted.
  void RunThenDelete(const std::string& name, const std::string& annotations, int64_t grace) {
    auto created = client_->Create(
        api::Kind::kPod, "default",
        json::parse(R"({"metadata":{"name":")" + name + R"(","annotations":)" + annotations +
                    R"(},"spec":{"nodeName":"sim-0",
        "terminationGracePeriodSeconds":)" +
                    std::to_string(grace) + R"(,"containers":[{"name":"c","image":"nginx"}]}})")
            .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
    WaitUntil(name, [](const api::ObjectPtr& p) { return p != nullptr; });
    ASSERT_TRUE(sim_->ReconcileForTest("default/" + name).ok());  // Running
    ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", name).ok());
    WaitUntil(name, [](const api::ObjectPtr& p) { return p && api::BeingDeleted(*p); });
  }
  void WaitUntil(const std::string& name, const std::function<bool(const api::ObjectPtr&)>& done) {
    for (int i = 0; i < 2000 && !done(informers_->For(api::Kind::kPod).Get("default/" + name));
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  bool Exists(const std::string& name) {
    return client_->Get(api::Kind::kPod, "default", name).ok();
  }

  api::FakeClock clock_;  // outlives the kubelets
  std::unique_ptr<SimNodes> sim_;
};

TEST_F(SimTerminationTest, ContainersThatStopAtOnceEndTheGracePeriodEarly) {
  RunThenDelete("quick", "{}", 30);
  ASSERT_TRUE(sim_->ReconcileForTest("default/quick").ok());
  EXPECT_FALSE(Exists("quick"));
}

TEST_F(SimTerminationTest, SlowContainersStayTerminatingUntilTheGracePeriodEnds) {
  RunThenDelete("slow", R"({"sim.berth.dev/stop-duration":"1m"})", 5);
  ASSERT_TRUE(sim_->ReconcileForTest("default/slow").ok());
  EXPECT_TRUE(Exists("slow"));
  clock_.Step(std::chrono::seconds(3));
  ASSERT_TRUE(sim_->ReconcileForTest("default/slow").ok());
  EXPECT_TRUE(Exists("slow"));  // still Terminating, well within 5 s
  clock_.Step(std::chrono::seconds(3));
  ASSERT_TRUE(sim_->ReconcileForTest("default/slow").ok());
  EXPECT_FALSE(Exists("slow"));  // killed at the end of the grace period
}

TEST_F(SimTerminationTest, StopDurationShorterThanTheGracePeriodWins) {
  RunThenDelete("drain", R"({"sim.berth.dev/stop-duration":"2s"})", 30);
  ASSERT_TRUE(sim_->ReconcileForTest("default/drain").ok());
  EXPECT_TRUE(Exists("drain"));
  clock_.Step(std::chrono::seconds(3));
  ASSERT_TRUE(sim_->ReconcileForTest("default/drain").ok());
  EXPECT_FALSE(Exists("drain"));
}

}  // namespace
}  // namespace berth::controllers
