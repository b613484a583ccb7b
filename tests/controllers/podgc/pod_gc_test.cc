// Pod garbage collection against a real API server in process, on a fake
// clock: the terminated-pod threshold (evicted first, then oldest), orphans
// of deleted nodes after the quarantine, terminating pods that no kubelet
// will finish, and the periodic pass.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <thread>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "controllers/podgc/pod_gc_controller.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

class PodGCTest : public InProcessApiTest {
 protected:
  void Make(PodGCOptions options) {
    controller_ = std::make_unique<PodGCController>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_}, options);
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override {
    informers_->Stop();
    controller_.reset();
  }

  // A pod in `phase` (status written as a kubelet would), on `node` when given.
  void MakePod(const std::string& name, const std::string& node, const std::string& phase,
               const std::string& reason = "", bool held = false) {
    json::object spec{{"containers", json::array{json::object{{"name", "c"}, {"image", "i"}}}}};
    if (!node.empty()) spec["nodeName"] = node;
    json::object meta{{"name", name}};
    if (held) meta["finalizers"] = json::array{"example.com/hold"};
    auto created = client_->Create(api::Kind::kPod, "default",
                                   json::object{{"metadata", meta}, {"spec", spec}});
    ASSERT_TRUE(created.ok()) << created.status().message();
    json::object next = created.value()->json();
    api::MutableObject(next, "metadata")["resourceVersion"] =
        std::to_string(created.value()->resource_version());
    json::object status{{"phase", phase}};
    if (!reason.empty()) status["reason"] = reason;
    next["status"] = status;
    ASSERT_TRUE(client_->UpdateStatus(api::Kind::kPod, next).ok());
  }
  void MakeNode(const std::string& name, const std::string& ready, bool out_of_service = false) {
    json::object node{
        {"metadata", json::object{{"name", name}}},
        {"status", json::object{{"conditions", json::array{json::object{{"type", "Ready"},
                                                                        {"status", ready}}}}}}};
    if (out_of_service) {
      node["spec"] = json::object{
          {"taints", json::array{json::object{{"key", "node.kubernetes.io/out-of-service"},
                                              {"effect", "NoExecute"}}}}};
    }
    ASSERT_TRUE(client_->Create(api::Kind::kNode, "", node).ok());
  }
  // Waits until the caches hold what the API holds.
  void SyncCaches() {
    auto synced = [&] {
      for (api::Kind kind : {api::Kind::kPod, api::Kind::kNode}) {
        auto listed = client_->List(kind, "");
        if (!listed.ok()) return false;
        const std::vector<api::ObjectPtr> objects = listed.value();
        if (objects.size() != informers_->For(kind).Size()) return false;
        for (const auto& o : objects) {
          auto cached = informers_->For(kind).Get(client::ObjectKey(*o));
          if (!cached || cached->resource_version() != o->resource_version()) return false;
        }
      }
      return true;
    };
    for (int i = 0; i < 5000 && !synced(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(synced());
  }
  void Pass() {
    SyncCaches();
    Status s = controller_->ReconcileForTest(PodGCController::kKey);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  std::vector<std::string> PodNames() {
    std::vector<std::string> names;
    const std::vector<api::ObjectPtr> pods = client_->List(api::Kind::kPod, "default").value();
    for (const auto& p : pods) names.push_back(p->name());
    std::sort(names.begin(), names.end());
    return names;
  }
  api::ObjectPtr Pod(const std::string& name) {
    return client_->Get(api::Kind::kPod, "default", name).value();
  }

  api::FakeClock clock_;
  std::unique_ptr<PodGCController> controller_;
};

TEST_F(PodGCTest, DeletesTerminatedPodsBeyondTheThresholdEvictedThenOldestFirst) {
  Make({.terminated_pod_threshold = 2});
  // Created in this order, so that by creationTimestamp (then name) a is the oldest.
  MakePod("a", "", "Succeeded");
  MakePod("b", "", "Failed");
  MakePod("c", "", "Succeeded");
  MakePod("d", "", "Succeeded");
  MakePod("z-evicted", "", "Failed", "Evicted");
  MakePod("running", "", "Running");
  MakePod("pending", "", "Pending");
  Pass();
  EXPECT_EQ(PodNames(), (std::vector<std::string>{"c", "d", "pending", "running"}));
  Pass();  // at the threshold: nothing more
  EXPECT_EQ(PodNames().size(), 4u);
}

TEST_F(PodGCTest, AThresholdOfZeroKeepsTerminatedPods) {
  Make({.terminated_pod_threshold = 0});
  MakePod("a", "", "Succeeded");
  Pass();
  EXPECT_EQ(PodNames(), std::vector<std::string>{"a"});
}

TEST_F(PodGCTest, OrphansGoOnlyAfterTheQuarantineAndAreMarkedFirst) {
  Make({});
  MakeNode("alive", "True");
  // A finalizer keeps the deleted pod readable, to see how it was marked.
  MakePod("orphan", "gone", "Running", "", /*held=*/true);
  MakePod("late", "late-node", "Running");
  MakePod("fine", "alive", "Running");
  Pass();
  clock_.Step(seconds(39));
  Pass();
  EXPECT_FALSE(api::BeingDeleted(*Pod("orphan"))) << "still in quarantine";
  // late-node registers in time.
  MakeNode("late-node", "True");
  clock_.Step(seconds(2));
  Pass();
  auto orphan = Pod("orphan");
  EXPECT_TRUE(api::BeingDeleted(*orphan));
  EXPECT_EQ(api::IntAt(api::Metadata(*orphan), "deletionGracePeriodSeconds", -1), 0);
  EXPECT_EQ(api::StringAt(api::StatusOf(*orphan), "phase"), "Failed");
  const json::object* condition = api::FindCondition(api::StatusOf(*orphan), "DisruptionTarget");
  ASSERT_NE(condition, nullptr);
  EXPECT_EQ(api::StringAt(*condition, "status"), "True");
  EXPECT_EQ(api::StringAt(*condition, "reason"), "DeletionByPodGC");
  EXPECT_EQ(api::StringAt(*condition, "message"), "PodGC: node no longer exists");
  EXPECT_FALSE(api::BeingDeleted(*Pod("late")));
  EXPECT_FALSE(api::BeingDeleted(*Pod("fine")));
}

TEST_F(PodGCTest, TerminatingPodsNoKubeletWillFinishAreForceDeleted) {
  Make({});
  MakeNode("broken", "False", /*out_of_service=*/true);
  MakeNode("healthy", "True", /*out_of_service=*/true);
  MakePod("unscheduled", "", "Pending", "", /*held=*/true);
  MakePod("on-broken", "broken", "Running", "", /*held=*/true);
  MakePod("on-healthy", "healthy", "Running", "", /*held=*/true);
  for (const char* name : {"unscheduled", "on-broken", "on-healthy"}) {
    ASSERT_TRUE(
        client_->Delete(api::Kind::kPod, "default", name, {.grace_period_seconds = 30}).ok());
  }
  Pass();
  // Force-deleted (grace period 0) and marked Failed; the finalizer still holds them.
  for (const char* name : {"unscheduled", "on-broken"}) {
    auto pod = Pod(name);
    EXPECT_EQ(api::IntAt(api::Metadata(*pod), "deletionGracePeriodSeconds", -1), 0) << name;
    EXPECT_EQ(api::StringAt(api::StatusOf(*pod), "phase"), "Failed") << name;
  }
  EXPECT_EQ(api::StringAt(api::StatusOf(*Pod("on-healthy")), "phase"), "Running")
      << "its node is Ready";
}

TEST_F(PodGCTest, RunsEveryPeriodOnTheInjectedClock) {
  Make({.terminated_pod_threshold = 1});
  MakePod("a", "", "Succeeded");
  MakePod("b", "", "Succeeded");
  SyncCaches();
  controller_->Start();
  clock_.Step(seconds(19));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(PodNames().size(), 2u) << "no pass before the period";
  clock_.Step(seconds(1));
  for (int i = 0; i < 5000 && PodNames().size() != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(PodNames(), std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace berth::controllers
