// The Deployment controller against kube's conformance specs for
// Deployments (test/e2e/apps/deployment.go): adopting an orphan
// ReplicaSet, deleting old ReplicaSets past revisionHistoryLimit once the
// rollout is complete, proportional scaling mid-rollout, and scaling a
// paused Deployment. A real API server in process, one reconcile at a time;
// the tests play the ReplicaSet controller by writing ReplicaSet status.

#include "controllers/deployment/deployment_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <thread>

#include "api/json_fields.h"
#include "controllers/deployment/deployment_scale.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

constexpr char kRevision[] = "deployment.kubernetes.io/revision";

TEST(DeploymentProportionalScaling, SharesTheChangeLikeKube) {
  struct Case {
    const char* name;
    std::vector<ScalableReplicaSet> sets;  // oldest first
    int64_t replicas, max_surge, status_replicas;
    std::vector<int64_t> want;
  } cases[] = {
      // kube's "deployment should support proportional scaling": 8 old and
      // 5 new of 10 + 3, scaled to 30: 8 + 20·8/13 and 5 + 20·5/13, rounded.
      {"scaled up mid-rollout", {{8, 13}, {5, 13}}, 30, 3, 13, {20, 13}},
      {"scaled back down", {{20, 33}, {13, 33}}, 10, 3, 33, {8, 5}},
      {"scaled to zero", {{8, 13}, {5, 13}}, 0, 3, 13, {0, 0}},
      {"no annotation: the status' replicas", {{8, {}}, {5, {}}}, 30, 3, 13, {20, 13}},
      {"no annotation nor status: all to the largest", {{8, {}}, {5, {}}}, 30, 3, 0, {28, 5}},
      {"a tie scaling up: the newer grows", {{5, 10}, {5, 10}}, 11, 0, 10, {5, 6}},
      {"a tie scaling down: the older shrinks", {{5, 10}, {5, 10}}, 9, 0, 10, {4, 5}},
      {"nothing to share", {{8, 13}, {5, 13}}, 10, 3, 13, {8, 5}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ProportionalSizes(c.sets, c.replicas, c.max_surge, c.status_replicas), c.want)
        << c.name;
  }
}

class DeploymentControllerTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
    controller_ = std::make_unique<DeploymentController>(
        ControllerContext{*client_, *informers_, nullptr, events_.get()});
    ASSERT_TRUE(informers_->Start().ok());
  }
  // Informers first: their threads call the controller's handlers. Then the
  // workers, while the controller is whole (they call its Reconcile).
  void TearDown() override {
    informers_->Stop();
    controller_->Stop();
    controller_.reset();
  }

  api::ObjectPtr Create(api::Kind kind, const std::string& json_text) {
    auto created = client_->Create(kind, "default", json::parse(json_text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  api::ObjectPtr Get(api::Kind kind, const std::string& name) {
    auto got = client_->Get(kind, "default", name);
    return got.ok() ? got.value() : nullptr;
  }
  std::vector<api::ObjectPtr> ReplicaSets() {
    return client_->List(api::Kind::kReplicaSet, "default").value();
  }
  // The ReplicaSet `d` controls other than `except`; nullptr when none.
  api::ObjectPtr OtherReplicaSetOf(const api::Object& d, const std::string& except) {
    for (const auto& rs : ReplicaSets()) {
      if (ControllerUid(*rs, "Deployment") == d.uid() && rs->name() != except) return rs;
    }
    return nullptr;
  }
  static int64_t Replicas(const api::ObjectPtr& rs) {
    return rs ? api::IntAt(api::Spec(*rs), "replicas", 1) : -1;
  }
  static int64_t StatusOf(const api::ObjectPtr& o, const char* field) {
    return o ? api::IntAt(api::StatusOf(*o), field) : -1;
  }

  // Plays the ReplicaSet controller: `replicas` pods, `available` of them
  // ready and available, its current spec observed.
  void SetStatus(const std::string& rs_name, int64_t replicas, int64_t available) {
    api::ObjectPtr rs = Get(api::Kind::kReplicaSet, rs_name);
    ASSERT_TRUE(rs) << rs_name;
    json::object o = ForUpdate(*rs);
    o["status"] = json::object{{"replicas", replicas},
                               {"readyReplicas", available},
                               {"availableReplicas", available},
                               {"observedGeneration", api::Generation(*rs)}};
    auto written = client_->UpdateStatus(api::Kind::kReplicaSet, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  // Writes the Deployment with `edit` applied to its spec, as a user's update would.
  void EditSpec(const std::string& name, const std::function<void(json::object&)>& edit) {
    api::ObjectPtr d = Get(api::Kind::kDeployment, name);
    ASSERT_TRUE(d);
    json::object o = ForUpdate(*d);
    edit(api::MutableObject(o, "spec"));
    auto written = client_->Update(api::Kind::kDeployment, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }

  // Waits until the informers hold what the API server has, then reconciles once.
  void Reconcile(const std::string& name) {
    Settle();
    if (HasFatalFailure()) return;
    Status s = controller_->ReconcileForTest("default/" + name);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void Settle() {
    for (int i = 0; i < 5000; ++i) {
      if (Matches(api::Kind::kDeployment) && Matches(api::Kind::kReplicaSet)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "informers did not catch up";
  }

  std::unique_ptr<client::EventBroadcaster> events_;
  std::unique_ptr<DeploymentController> controller_;

 private:
  bool Matches(api::Kind kind) {
    auto listed = client_->List(kind, "default");
    if (!listed.ok()) return false;
    auto& informer = informers_->For(kind);
    if (informer.Size() != listed.value().size()) return false;
    for (const auto& o : listed.value()) {
      auto cached = informer.Get(client::ObjectKey(*o));
      if (!cached || cached->resource_version() != o->resource_version()) return false;
    }
    return true;
  }
};

// A ReplicaSet no Deployment created, as kube's specs make one (e2e newRS).
std::string OrphanReplicaSet(const std::string& name, const std::string& pod_label,
                             const std::string& annotations = "{}") {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"name":")" + pod_label +
         R"(","pod":"httpd"},"annotations":)" + annotations + R"(},
    "spec":{"replicas":1,"selector":{"matchLabels":{"name":")" +
         pod_label + R"(","pod":"httpd"}},
    "template":{"metadata":{"labels":{"name":")" +
         pod_label + R"(","pod":"httpd"}},
      "spec":{"containers":[{"name":"httpd","image":"httpd:2.4"}]}}}})";
}

std::string DeploymentJson(const std::string& name, const std::string& pod_label,
                           const std::string& spec_fields = "") {
  return R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec_fields +
         R"("selector":{"matchLabels":{"name":")" + pod_label + R"("}},
    "template":{"metadata":{"labels":{"name":")" +
         pod_label + R"("}},
      "spec":{"containers":[{"name":"agnhost","image":"agnhost:2.40"}]}}}})";
}

// kube's "RollingUpdateDeployment should delete old pods and create new ones".
TEST_F(DeploymentControllerTest, AdoptsAnOrphanReplicaSetWithItsRevisionAndAvailablePods) {
  Create(api::Kind::kReplicaSet,
         OrphanReplicaSet("test-rolling-update-controller", "sample-pod",
                          R"({"deployment.kubernetes.io/revision":"3546343826724305832"})"));
  SetStatus("test-rolling-update-controller", 1, 1);
  auto d = Create(api::Kind::kDeployment, DeploymentJson("test-rolling-update-deployment",
                                                         "sample-pod", R"("replicas":1,)"));
  ASSERT_TRUE(d);
  Reconcile(d->name());

  api::ObjectPtr adopted = Get(api::Kind::kReplicaSet, "test-rolling-update-controller");
  ASSERT_TRUE(adopted);
  EXPECT_EQ(ControllerUid(*adopted, "Deployment"), d->uid()) << "the orphan is adopted";
  api::ObjectPtr created = OtherReplicaSetOf(*d, adopted->name());
  ASSERT_TRUE(created) << "a new ReplicaSet for the Deployment's own template";
  EXPECT_EQ(api::Annotation(*created, kRevision), "3546343826724305833")
      << "the next revision after the adopted one's";
  EXPECT_EQ(Replicas(created), 1) << "maxSurge 25% of 1: one new pod beside the old";
  EXPECT_EQ(Replicas(adopted), 1)
      << "maxUnavailable 0: the old pod stays until a new one is available";
  api::ObjectPtr now = Get(api::Kind::kDeployment, d->name());
  EXPECT_EQ(api::Annotation(*now, kRevision), "3546343826724305833");
  EXPECT_EQ(StatusOf(now, "availableReplicas"), 1) << "the adopted ReplicaSet's pod counts";
  EXPECT_EQ(StatusOf(now, "updatedReplicas"), 0);

  // The new pod becomes available: the adopted ReplicaSet goes to 0 and stays, an old one.
  SetStatus(created->name(), 1, 1);
  Reconcile(d->name());
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, adopted->name())), 0);
  SetStatus(adopted->name(), 0, 0);
  for (int i = 0; i < 3; ++i) Reconcile(d->name());
  now = Get(api::Kind::kDeployment, d->name());
  EXPECT_EQ(StatusOf(now, "replicas"), 1);
  EXPECT_EQ(StatusOf(now, "updatedReplicas"), 1);
  EXPECT_EQ(StatusOf(now, "availableReplicas"), 1);
  EXPECT_EQ(ReplicaSets().size(), 2u) << "revisionHistoryLimit 10 keeps the adopted one";
}

// kube's "deployment should delete old replica sets".
TEST_F(DeploymentControllerTest, DeletesOldReplicaSetsPastTheHistoryLimitOnceComplete) {
  Create(api::Kind::kReplicaSet, OrphanReplicaSet("test-cleanup-controller", "cleanup-pod"));
  SetStatus("test-cleanup-controller", 1, 1);
  auto d =
      Create(api::Kind::kDeployment, DeploymentJson("test-cleanup-deployment", "cleanup-pod",
                                                    R"("replicas":1,"revisionHistoryLimit":0,)"));
  ASSERT_TRUE(d);
  Reconcile(d->name());
  api::ObjectPtr created = OtherReplicaSetOf(*d, "test-cleanup-controller");
  ASSERT_TRUE(created);
  SetStatus(created->name(), 1, 1);
  Reconcile(d->name());  // the old ReplicaSet to 0
  ASSERT_EQ(Replicas(Get(api::Kind::kReplicaSet, "test-cleanup-controller")), 0);
  SetStatus("test-cleanup-controller", 0, 0);
  Reconcile(d->name());
  EXPECT_TRUE(Get(api::Kind::kReplicaSet, "test-cleanup-controller"))
      << "not before the Deployment's status shows the rollout complete";
  Reconcile(d->name());
  EXPECT_FALSE(Get(api::Kind::kReplicaSet, "test-cleanup-controller"))
      << "revisionHistoryLimit 0: no old ReplicaSet is kept";
  EXPECT_TRUE(Get(api::Kind::kReplicaSet, created->name()));
}

// kube's "deployment should support proportional scaling".
TEST_F(DeploymentControllerTest, ScalingMidRolloutSharesReplicasInProportion) {
  auto d = Create(api::Kind::kDeployment,
                  DeploymentJson("webserver-deployment", "httpd", R"("replicas":10,
    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":3,"maxUnavailable":2}},)"));
  ASSERT_TRUE(d);
  Reconcile(d->name());
  ASSERT_EQ(ReplicaSets().size(), 1u);
  const std::string first = ReplicaSets()[0]->name();
  SetStatus(first, 10, 10);
  Reconcile(d->name());

  // A new template whose pods never become available: a partial rollout.
  EditSpec(d->name(), [](json::object& spec) {
    spec["template"]
        .as_object()["spec"]
        .as_object()["containers"]
        .as_array()[0]
        .as_object()["image"] = "webserver:404";
  });
  Reconcile(d->name());
  api::ObjectPtr second = OtherReplicaSetOf(*d, first);
  ASSERT_TRUE(second);
  EXPECT_EQ(Replicas(second), 3) << "maxSurge 3";
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, first)), 8) << "10 - maxUnavailable 2";
  api::ObjectPtr now = Get(api::Kind::kDeployment, d->name());
  EXPECT_EQ(StatusOf(now, "unavailableReplicas"), 1)
      << "kube counts the replicas the ReplicaSets want (8 + 3) less the available ones (10)";
  for (int i = 0; i < 3; ++i) Reconcile(d->name());
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, first)), 8);
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, second->name())), 5) << "10 + 3 - 8";

  EditSpec(d->name(), [](json::object& spec) { spec["replicas"] = 30; });
  Reconcile(d->name());
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, first)), 20) << "8 + 20·8/13, rounded";
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, second->name())), 13) << "5 + 20·5/13, rounded";
  Reconcile(d->name());
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, first)), 20) << "a scaling event, handled once";
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, second->name())), 13);
}

TEST_F(DeploymentControllerTest, APausedDeploymentScalesButDoesNotRollOut) {
  auto d = Create(api::Kind::kDeployment, DeploymentJson("paused", "p", R"("replicas":2,)"));
  ASSERT_TRUE(d);
  Reconcile(d->name());
  ASSERT_EQ(ReplicaSets().size(), 1u);
  const std::string first = ReplicaSets()[0]->name();
  EditSpec(d->name(), [](json::object& spec) {
    spec["paused"] = true;
    spec["replicas"] = 5;
    spec["template"]
        .as_object()["spec"]
        .as_object()["containers"]
        .as_array()[0]
        .as_object()["image"] = "agnhost:2.41";
  });
  Reconcile(d->name());
  EXPECT_EQ(ReplicaSets().size(), 1u) << "no new ReplicaSet while paused";
  EXPECT_EQ(Replicas(Get(api::Kind::kReplicaSet, first)), 5) << "kubectl scale works while paused";
}

TEST_F(DeploymentControllerTest, AnOrphanReplicaSetCreatedLaterIsAdoptedThroughItsEvent) {
  auto d = Create(api::Kind::kDeployment, DeploymentJson("late", "late-pod", R"("replicas":1,)"));
  ASSERT_TRUE(d);
  controller_->Run();  // workers: the handlers alone must bring the orphan in
  auto wait_for = [](const std::function<bool()>& done) {
    for (int i = 0; i < 5000 && !done(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return done();
  };
  ASSERT_TRUE(wait_for([&] {
    return ReplicaSets().size() == 1 &&
           StatusOf(Get(api::Kind::kDeployment, d->name()), "observedGeneration") == 1;
  }));
  // The syncs its own writes bring about are over: only the orphan's event is left to wake it.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Create(api::Kind::kReplicaSet, OrphanReplicaSet("late-orphan", "late-pod"));
  EXPECT_TRUE(wait_for([&] {
    api::ObjectPtr rs = Get(api::Kind::kReplicaSet, "late-orphan");
    return rs && ControllerUid(*rs, "Deployment") == d->uid();
  })) << "the orphan's creation wakes the Deployment selecting it";
}

}  // namespace
}  // namespace berth::controllers
