// The controllers' decisions: pure helpers (deletion ranking, template hash,
// maxSurge/maxUnavailable arithmetic, expectations) and reconciles against a
// real API server in process (memory store), driven one key at a time.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <thread>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "in_process_api.h"
#include "cluster/in_process_transport.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/gc/garbage_collector.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/nodelifecycle/node_lifecycle_controller.h"
#include "controllers/owner_references.h"
#include "controllers/replicaset/expectations.h"
#include "controllers/replicaset/replicaset_controller.h"
#include "store/memory/memory_store.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

api::ObjectPtr Pod(const std::string& name, const std::string& node, const std::string& phase, bool ready,
                   const std::string& created, int restarts = 0) {
  json::object status{{"phase", phase}};
  if (ready) {
    status["conditions"] = json::array{json::object{{"type", "Ready"}, {"status", "True"},
                                                    {"lastTransitionTime", created}}};
  }
  status["containerStatuses"] = json::array{json::object{{"name", "c"}, {"restartCount", restarts}}};
  json::object spec{{"containers", json::array{json::object{{"name", "c"}, {"image", "i"}}}}};
  if (!node.empty()) spec["nodeName"] = node;
  auto o = api::Object::FromJson(json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name}, {"namespace", "default"}, {"creationTimestamp", created}}},
      {"spec", spec},
      {"status", status}});
  return o.value();
}

std::vector<std::string> Names(const std::vector<api::ObjectPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->name());
  return out;
}

TEST(ReplicaSetRanking, CheapestPodsFirst) {
  auto ranked = ReplicaSetController::RankForDeletion({
      Pod("running-ready-old", "n", "Running", true, "2026-01-01T00:00:00Z"),
      Pod("running-ready-new", "n", "Running", true, "2026-01-02T00:00:00Z"),
      Pod("running-not-ready", "n", "Running", false, "2026-01-01T00:00:00Z"),
      Pod("pending-assigned", "n", "Pending", false, "2026-01-01T00:00:00Z"),
      Pod("unassigned", "", "Pending", false, "2026-01-01T00:00:00Z"),
      Pod("running-ready-restarts", "n", "Running", true, "2026-01-01T00:00:00Z", 3),
  });
  EXPECT_EQ(Names(ranked), (std::vector<std::string>{"unassigned", "pending-assigned", "running-not-ready",
                                                     "running-ready-new", "running-ready-restarts",
                                                     "running-ready-old"}));
}

TEST(DeploymentMath, IntOrPercentRoundsLikeKube) {
  auto resolve = [](json::value v, int64_t total, bool up) {
    return DeploymentController::ResolveIntOrPercent(&v, total, up, 25).value();
  };
  EXPECT_EQ(resolve("25%", 10, true), 3);   // maxSurge rounds up
  EXPECT_EQ(resolve("25%", 10, false), 2);  // maxUnavailable rounds down
  EXPECT_EQ(resolve("0%", 10, true), 0);
  EXPECT_EQ(resolve(4, 10, false), 4);
  EXPECT_EQ(DeploymentController::ResolveIntOrPercent(nullptr, 4, true, 25).value(), 1);  // default 25%
  json::value bad = "x%";
  EXPECT_FALSE(DeploymentController::ResolveIntOrPercent(&bad, 10, true, 25).ok());
}

TEST(DeploymentMath, PodTemplateHashIsStableAndSafe) {
  json::object a = json::parse(R"({"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}})").as_object();
  json::object reordered = json::parse(R"({"spec":{"containers":[{"image":"nginx","name":"c"}]},"metadata":{"labels":{"app":"web"}}})").as_object();
  json::object other = json::parse(R"({"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:2"}]}})").as_object();
  std::string h = DeploymentController::PodTemplateHash(a, 0);
  EXPECT_EQ(h, DeploymentController::PodTemplateHash(reordered, 0));  // key order does not matter
  EXPECT_NE(h, DeploymentController::PodTemplateHash(other, 0));
  EXPECT_NE(h, DeploymentController::PodTemplateHash(a, 1));  // a collision changes the name
  EXPECT_FALSE(h.empty());
  for (char c : h) EXPECT_NE(std::string_view("bcdfghjklmnpqrstvwxz2456789").find(c), std::string_view::npos) << h;
}

TEST(Expectations, SatisfiedOnlyWhenObserved) {
  Expectations e;
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  e.ExpectCreations("ns/rs", 2);
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  e.CreationObserved("ns/rs");
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  e.CreationObserved("ns/rs");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
  e.ExpectDeletions("ns/rs", {"ns/a", "ns/b"});
  e.DeletionObserved("ns/rs", "ns/a");
  e.DeletionObserved("ns/rs", "ns/a");  // the same pod twice counts once
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  e.DeletionObserved("ns/rs", "ns/b");
  EXPECT_TRUE(e.Satisfied("ns/rs"));
}

TEST(Expectations, ExpireAfterTheTimeoutOnTheInjectedClock) {
  api::FakeClock clock;
  Expectations e(clock);
  e.ExpectCreations("ns/rs", 1);
  clock.Step(Expectations::kTimeout);
  EXPECT_FALSE(e.Satisfied("ns/rs"));
  clock.Step(std::chrono::seconds(1));
  EXPECT_TRUE(e.Satisfied("ns/rs"));
}

// A real API server over a memory store, informers over the store, and the
// controllers under test (their workers not running: tests call Reconcile).
class ControllerEnv : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
  }
  // Informers first: their threads call the controllers' handlers.
  void TearDown() override { informers_->Stop(); }
  ControllerContext Context() { return {*client_, *informers_, nullptr, events_.get()}; }
  // A controller that lives until after TearDown has stopped the informers.
  template <typename C, typename... Args>
  C& Make(Args&&... args) {
    auto c = std::make_unique<C>(std::forward<Args>(args)...);
    C& ref = *c;
    controllers_.push_back(std::move(c));
    return ref;
  }

  api::ObjectPtr Create(api::Kind kind, const std::string& ns, const std::string& json_text) {
    auto created = client_->Create(kind, ns, json::parse(json_text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  std::vector<api::ObjectPtr> List(api::Kind kind) { return client_->List(kind, "default").value(); }
  // "<source> <type> <reason>: <message>" of every Event recorded so far about `name`, sorted.
  std::vector<std::string> EventsAbout(const std::string& name) {
    events_->Flush();
    std::vector<std::string> out;
    auto events = client_->List(api::Kind::kEvent, "default");
    EXPECT_TRUE(events.ok());
    for (const auto& e : events.value()) {
      const json::object& o = e->json();
      if (o.at("involvedObject").at("name") != json::value(name)) continue;
      out.push_back(std::string(o.at("source").at("component").as_string()) + " " +
                    std::string(o.at("type").as_string()) + " " +
                    std::string(o.at("reason").as_string()) + ": " +
                    std::string(o.at("message").as_string()));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Waits until the informer of `kind` holds `count` objects.
  void Sync(api::Kind kind, size_t count) {
    for (int i = 0; i < 2000 && informers_->For(kind).Size() != count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(informers_->For(kind).Size(), count);
  }

  // Waits until the informer of `kind` holds `key` marked for deletion.
  void WaitUntilBeingDeleted(api::Kind kind, const std::string& key) {
    auto marked = [&] {
      api::ObjectPtr o = informers_->For(kind).Get(key);
      return o && api::BeingDeleted(*o);
    };
    for (int i = 0; i < 2000 && !marked(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(marked()) << key;
  }

  std::unique_ptr<client::EventBroadcaster> events_;
  api::FakeClock fake_clock_;  // for tests that inject it; outlives the controllers
  // A work queue unregisters from its registry when destroyed: the registry
  // outlives the controllers (declared before them).
  metrics::Registry registry_;
  std::vector<std::unique_ptr<Controller>> controllers_;
};

constexpr char kReplicaSet[] = R"({"metadata":{"name":"rs"},"spec":{"replicas":3,
  "selector":{"matchLabels":{"app":"a"}},
  "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})";

TEST_F(ControllerEnv, ReplicaSetCreatesOwnedPodsOnceThenScalesDown) {
  auto& rs_controller = Make<ReplicaSetController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto rs = Create(api::Kind::kReplicaSet, "default", kReplicaSet);
  Sync(api::Kind::kReplicaSet, 1);
  ASSERT_TRUE(rs_controller.ReconcileForTest("default/rs").ok());
  // Expectations: a second sync before the informer saw the pods creates nothing more.
  ASSERT_TRUE(rs_controller.ReconcileForTest("default/rs").ok());
  auto pods = List(api::Kind::kPod);
  ASSERT_EQ(pods.size(), 3u);
  for (const auto& p : pods) {
    EXPECT_EQ(ControllerUid(*p, "ReplicaSet"), rs->uid());
    EXPECT_TRUE(p->name().starts_with("rs-"));
  }
  Sync(api::Kind::kPod, 3);
  ASSERT_TRUE(rs_controller.ReconcileForTest("default/rs").ok());
  EXPECT_EQ(List(api::Kind::kPod).size(), 3u);
  auto status = client_->Get(api::Kind::kReplicaSet, "default", "rs").value();
  EXPECT_EQ(api::IntAt(api::StatusOf(*status), "replicas"), 3);
  EXPECT_EQ(api::IntAt(api::StatusOf(*status), "observedGeneration"), 1);

  // Scale to 1: two pods go.
  auto current = client_->Get(api::Kind::kReplicaSet, "default", "rs").value();
  json::object next = current->json();
  api::MutableObject(next, "spec")["replicas"] = 1;
  ASSERT_TRUE(client_->Update(api::Kind::kReplicaSet, next).ok());
  auto cached_replicas = [&] {
    auto rs_cached = informers_->For(api::Kind::kReplicaSet).Get("default/rs");
    return rs_cached ? api::IntAt(api::Spec(*rs_cached), "replicas") : -1;
  };
  for (int i = 0; i < 2000 && cached_replicas() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(rs_controller.ReconcileForTest("default/rs").ok());
  auto left = List(api::Kind::kPod);
  ASSERT_EQ(left.size(), 1u);
  // kube's events on the ReplicaSet: one per pod created and per pod deleted.
  std::vector<std::string> want;
  for (const auto& p : pods) {
    want.push_back("replicaset-controller Normal SuccessfulCreate: Created pod: " + p->name());
    if (p->name() != left[0]->name()) {
      want.push_back("replicaset-controller Normal SuccessfulDelete: Deleted pod: " + p->name());
    }
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(EventsAbout("rs"), want);
}

TEST_F(ControllerEnv, ReplicaSetAdoptsMatchingOrphans) {
  auto& rs_controller = Make<ReplicaSetController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kPod, "default",
         R"({"metadata":{"name":"orphan","labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto rs = Create(api::Kind::kReplicaSet, "default", kReplicaSet);
  Sync(api::Kind::kReplicaSet, 1);
  Sync(api::Kind::kPod, 1);
  ASSERT_TRUE(rs_controller.ReconcileForTest("default/rs").ok());
  EXPECT_EQ(List(api::Kind::kPod).size(), 3u);  // the orphan counts: two more
  auto orphan = client_->Get(api::Kind::kPod, "default", "orphan").value();
  EXPECT_EQ(ControllerUid(*orphan, "ReplicaSet"), rs->uid());
}

TEST_F(ControllerEnv, DeploymentCreatesHashedReplicaSetAndSurgesWithinLimits) {
  auto& d_controller = Make<DeploymentController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kDeployment, "default", R"({"metadata":{"name":"web"},"spec":{"replicas":4,
    "selector":{"matchLabels":{"app":"web"}},
    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}}}})");
  Sync(api::Kind::kDeployment, 1);
  ASSERT_TRUE(d_controller.ReconcileForTest("default/web").ok());
  auto sets = List(api::Kind::kReplicaSet);
  ASSERT_EQ(sets.size(), 1u);
  api::ObjectPtr first = sets[0];
  std::string hash(api::StringAt(api::ObjectAt(*api::ObjectAt(*api::ObjectAt(*api::Spec(*first), "template"), "metadata"), "labels"),
                            "pod-template-hash"));
  EXPECT_EQ(first->name(), "web-" + hash);
  EXPECT_EQ(api::IntAt(api::Spec(*first), "replicas"), 4);
  EXPECT_EQ(api::Annotation(*first, "deployment.kubernetes.io/revision"), "1");

  // Pretend its four pods are available, then change the template.
  json::object rs_status = first->json();
  api::MutableObject(rs_status, "status") = json::object{{"replicas", 4}, {"readyReplicas", 4}, {"availableReplicas", 4}};
  ASSERT_TRUE(client_->UpdateStatus(api::Kind::kReplicaSet, rs_status).ok());
  auto d = client_->Get(api::Kind::kDeployment, "default", "web").value();
  json::object next = d->json();
  api::MutableObject(api::MutableObject(next, "spec"), "template")["spec"] =
      json::parse(R"({"containers":[{"name":"c","image":"v2"}]})");
  ASSERT_TRUE(client_->Update(api::Kind::kDeployment, next).ok());
  for (int i = 0; i < 2000; ++i) {
    auto cached = informers_->For(api::Kind::kDeployment).Get("default/web");
    auto rs_cached = informers_->For(api::Kind::kReplicaSet).Get("default/" + first->name());
    if (cached && rs_cached && api::Generation(*cached) == 2 && api::IntAt(api::StatusOf(*rs_cached), "availableReplicas") == 4) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(d_controller.ReconcileForTest("default/web").ok());
  sets = List(api::Kind::kReplicaSet);
  ASSERT_EQ(sets.size(), 2u);
  int64_t total = 0;
  for (const auto& rs : sets) {
    total += api::IntAt(api::Spec(*rs), "replicas");
    if (rs->name() != first->name()) {
      EXPECT_EQ(api::IntAt(api::Spec(*rs), "replicas"), 1) << "maxSurge 1: one new pod first";
      EXPECT_EQ(api::Annotation(*rs, "deployment.kubernetes.io/revision"), "2");
    } else {
      EXPECT_EQ(api::IntAt(api::Spec(*rs), "replicas"), 4) << "maxUnavailable 0: no old pod goes before a new one is available";
    }
  }
  EXPECT_EQ(total, 5);
  std::string second = sets[0]->name() == first->name() ? sets[1]->name() : sets[0]->name();
  std::vector<std::string> want{
      "deployment-controller Normal ScalingReplicaSet: Scaled up replica set " + first->name() +
          " to 4",
      "deployment-controller Normal ScalingReplicaSet: Scaled up replica set " + second + " to 1"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(EventsAbout("web"), want);
}

TEST_F(ControllerEnv, DeploymentBehindItsOwnReplicaSetRetriesInsteadOfCountingACollision) {
  auto& d_controller = Make<DeploymentController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kDeployment, "default", R"({"metadata":{"name":"web"},"spec":{"replicas":2,
    "selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}}}})");
  Sync(api::Kind::kDeployment, 1);
  // The cache stops before it sees the ReplicaSet the first reconcile creates.
  informers_->Stop();
  ASSERT_TRUE(d_controller.ReconcileForTest("default/web").ok());
  ASSERT_EQ(List(api::Kind::kReplicaSet).size(), 1u);
  // Again, from the same stale cache: the create finds its own ReplicaSet
  // (AlreadyExists); that is a retry later, not a hash collision.
  Status again = d_controller.ReconcileForTest("default/web");
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.message();
  auto d = client_->Get(api::Kind::kDeployment, "default", "web").value();
  EXPECT_EQ(api::IntAt(api::StatusOf(*d), "collisionCount"), 0)
      << "a collision counted for its own ReplicaSet";
  EXPECT_EQ(List(api::Kind::kReplicaSet).size(), 1u);
}

TEST_F(ControllerEnv, GarbageCollectorDeletesDependentsOfAGoneOwnerOnly) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto rs = Create(api::Kind::kReplicaSet, "default", kReplicaSet);
  std::string owned = R"({"metadata":{"name":"owned","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
    "name":"rs","uid":")" + rs->uid() + R"(","controller":true}]},"spec":{"containers":[{"name":"c","image":"i"}]}})";
  Create(api::Kind::kPod, "default", owned);
  Sync(api::Kind::kPod, 1);
  ASSERT_TRUE(gc.ReconcileForTest("pods|default/owned").ok());
  EXPECT_EQ(List(api::Kind::kPod).size(), 1u) << "the owner lives: the pod stays";
  ASSERT_TRUE(client_->Delete(api::Kind::kReplicaSet, "default", "rs").ok());
  Sync(api::Kind::kReplicaSet, 0);
  ASSERT_TRUE(gc.ReconcileForTest("pods|default/owned").ok());
  EXPECT_TRUE(List(api::Kind::kPod).empty()) << "its owner is gone: collected";
}

// A StatefulSet's claims (core group) go with the pod or set that owns them
// (persistentVolumeClaimRetentionPolicy Delete).
TEST_F(ControllerEnv, GarbageCollectorCollectsClaimsOfAGonePodOrStatefulSet) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto pod = Create(api::Kind::kPod, "default",
                    R"({"metadata":{"name":"web-1"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto set = Create(api::Kind::kStatefulSet, "default", R"({"metadata":{"name":"web"},"spec":{
    "selector":{"matchLabels":{"app":"w"}},
    "template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  auto claim = [&](const std::string& name, const std::string& kind, const std::string& api_version,
                   const std::string& owner, const std::string& uid) {
    Create(api::Kind::kPersistentVolumeClaim, "default",
           R"({"metadata":{"name":")" + name + R"(","ownerReferences":[{"apiVersion":")" +
               api_version + R"(","kind":")" + kind + R"(","name":")" + owner + R"(","uid":")" +
               uid + R"(","controller":true}]},
               "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  };
  claim("www-web-1", "Pod", "v1", "web-1", pod->uid());
  claim("www-web-0", "StatefulSet", "apps/v1", "web", set->uid());
  Sync(api::Kind::kPersistentVolumeClaim, 2);
  ASSERT_TRUE(gc.ReconcileForTest("persistentvolumeclaims|default/www-web-1").ok());
  EXPECT_EQ(List(api::Kind::kPersistentVolumeClaim).size(), 2u) << "owners live: claims stay";
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "web-1").ok());
  ASSERT_TRUE(client_->Delete(api::Kind::kStatefulSet, "default", "web").ok());
  Sync(api::Kind::kPod, 0);
  Sync(api::Kind::kStatefulSet, 0);
  ASSERT_TRUE(gc.ReconcileForTest("persistentvolumeclaims|default/www-web-1").ok());
  ASSERT_TRUE(gc.ReconcileForTest("persistentvolumeclaims|default/www-web-0").ok());
  // Deleted; the kubernetes.io/pvc-protection finalizer (added at admission)
  // keeps them Terminating until the protection controller lets them go.
  auto claims = List(api::Kind::kPersistentVolumeClaim);
  EXPECT_EQ(claims.size(), 2u);
  for (const auto& c : claims) EXPECT_TRUE(api::BeingDeleted(*c)) << c->name() << ": their owners are gone";
}

// kube's e2e "should orphan pods created by rc if delete options say so".
TEST_F(ControllerEnv, GarbageCollectorOrphansAReplicationControllersPods) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto rc = Create(api::Kind::kReplicationController, "default", R"({"metadata":{"name":"rc"},"spec":{"replicas":1,
    "selector":{"app":"a"},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  Create(api::Kind::kPod, "default", R"({"metadata":{"name":"owned","ownerReferences":[{"apiVersion":"v1",
    "kind":"ReplicationController","name":"rc","uid":")" + rc->uid() +
    R"(","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  Sync(api::Kind::kPod, 1);
  ASSERT_TRUE(client_->Delete(api::Kind::kReplicationController, "default", "rc", {.propagation_policy = "Orphan"}).ok());
  WaitUntilBeingDeleted(api::Kind::kReplicationController, "default/rc");
  ASSERT_TRUE(gc.ReconcileForTest("replicationcontrollers|default/rc").ok());
  EXPECT_TRUE(List(api::Kind::kReplicationController).empty()) << "the orphan finalizer done, the rc goes";
  auto pods = List(api::Kind::kPod);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_FALSE(pods[0]->json().at("metadata").as_object().contains("ownerReferences"));
}

// kube's e2e "should not delete dependents that have both valid owner and
// owner that's waiting for dependents to be deleted".
TEST_F(ControllerEnv, GarbageCollectorInTheForegroundKeepsWhatAnotherOwnerHolds) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto rs = Create(api::Kind::kReplicaSet, "default", kReplicaSet);
  auto other = Create(api::Kind::kReplicaSet, "default", R"({"metadata":{"name":"other"},"spec":{"replicas":0,
    "selector":{"matchLabels":{"app":"b"}},
    "template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  auto ref = [](const api::ObjectPtr& o, bool controller) {
    return R"({"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + o->name() + R"(","uid":")" + o->uid() +
           R"(","controller":)" + (controller ? "true" : "false") + R"(,"blockOwnerDeletion":true})";
  };
  Create(api::Kind::kPod, "default", R"({"metadata":{"name":"shared","ownerReferences":[)" + ref(rs, true) + "," +
                                         ref(other, false) + R"(]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  Create(api::Kind::kPod, "default", R"({"metadata":{"name":"alone","ownerReferences":[)" + ref(rs, true) +
                                         R"(]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  Sync(api::Kind::kPod, 2);
  ASSERT_TRUE(client_->Delete(api::Kind::kReplicaSet, "default", "rs", {.propagation_policy = "Foreground"}).ok());
  WaitUntilBeingDeleted(api::Kind::kReplicaSet, "default/rs");
  ASSERT_TRUE(gc.ReconcileForTest("replicasets|default/rs").ok());
  auto pods = List(api::Kind::kPod);
  ASSERT_EQ(Names(pods), (std::vector<std::string>{"alone", "shared"}));
  EXPECT_TRUE(api::BeingDeleted(*pods[0])) << "the pod only rs owned is deleted";
  EXPECT_FALSE(api::BeingDeleted(*pods[1])) << "the pod other keeps stays";
  const json::array& refs = pods[1]->json().at("metadata").at("ownerReferences").as_array();
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].at("name"), "other");
}

// kube's e2e "should not be blocked by dependency circle".
TEST_F(ControllerEnv, GarbageCollectorBreaksAForegroundCycle) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  std::vector<api::ObjectPtr> pods;
  for (const char* name : {"pod1", "pod2", "pod3"}) {
    pods.push_back(Create(api::Kind::kPod, "default", std::string(R"({"metadata":{"name":")") + name +
                                                          R"("},"spec":{"containers":[{"name":"c","image":"i"}]}})"));
  }
  // pod1 is owned by pod3, pod2 by pod1, pod3 by pod2: all blocking.
  for (int i = 0; i < 3; ++i) {
    const api::ObjectPtr& owner = pods[(i + 2) % 3];
    json::object next = pods[i]->json();
    next["metadata"].as_object()["ownerReferences"] = json::array{json::object{
        {"apiVersion", "v1"}, {"kind", "Pod"}, {"name", owner->name()}, {"uid", owner->uid()},
        {"controller", true}, {"blockOwnerDeletion", true}}};
    ASSERT_TRUE(client_->Update(api::Kind::kPod, next).ok());
  }
  Sync(api::Kind::kPod, 3);
  gc.Run();
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "pod1",
                              {.propagation_policy = "Foreground", .uid_precondition = pods[0]->uid()})
                  .ok());
  for (int i = 0; i < 5000 && !List(api::Kind::kPod).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(Names(List(api::Kind::kPod)), std::vector<std::string>{}) << "every pod of the cycle goes";
  gc.Stop();
}

TEST_F(ControllerEnv, GarbageCollectorDeletesOnlyTheVersionItJudged) {
  auto& gc = Make<GarbageCollector>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  auto rs = Create(api::Kind::kReplicaSet, "default", kReplicaSet);
  std::string owned =
      R"({"metadata":{"name":"owned","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
    "name":"rs","uid":")" +
      rs->uid() + R"(","controller":true}]},"spec":{"containers":[{"name":"c","image":"i"}]}})";
  auto pod = Create(api::Kind::kPod, "default", owned);
  Sync(api::Kind::kPod, 1);
  ASSERT_TRUE(client_->Delete(api::Kind::kReplicaSet, "default", "rs").ok());
  Sync(api::Kind::kReplicaSet, 0);
  // The cache stops here: it still holds the pod with its owner reference.
  informers_->Stop();
  // Meanwhile the pod was orphaned (its reference removed, as the owner's
  // orphan finalizer does): it must survive the collector's stale view.
  json::object orphaned = pod->json();
  orphaned["metadata"].as_object().erase("ownerReferences");
  orphaned["metadata"].as_object()["resourceVersion"] = std::to_string(pod->resource_version());
  ASSERT_TRUE(client_->Update(api::Kind::kPod, orphaned).ok());
  ASSERT_TRUE(gc.ReconcileForTest("pods|default/owned").ok());
  EXPECT_EQ(List(api::Kind::kPod).size(), 1u)
      << "deleted on the strength of a stale owner reference";
}

// A custom resource's deletion sends the collector no event (it watches
// built-in kinds only): a dependent of one is judged again on a timer, so it
// goes soon after its owner does.
TEST_F(ControllerEnv, GarbageCollectorCollectsDependentsOfADeletedCustomResource) {
  ControllerContext context = Context();
  context.clock = &fake_clock_;
  context.registry = &registry_;
  auto& gc = Make<GarbageCollector>(context);
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kCustomResourceDefinition, "", R"({"metadata":{"name":"widgets.gc.example.com"},
    "spec":{"group":"gc.example.com","scope":"Namespaced",
      "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})");
  std::optional<api::Kind> widget;
  for (int i = 0; i < 2000 && !(widget = api::KindFromApiVersion("gc.example.com/v1", "Widget")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(widget) << "the definition was not served";
  auto owner = Create(*widget, "default", R"({"apiVersion":"gc.example.com/v1","kind":"Widget",
    "metadata":{"name":"w"}})");
  ASSERT_TRUE(owner);
  Create(api::Kind::kPod, "default", R"({"metadata":{"name":"owned","ownerReferences":[{
    "apiVersion":"gc.example.com/v1","kind":"Widget","name":"w","uid":")" + owner->uid() +
    R"(","controller":true}]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  gc.Run();
  // Judged once, owner alive: kept, and a look again scheduled.
  auto& rechecks = registry_.AddCounter("workqueue_retries_total", "", {"name"}).WithLabels({"garbagecollector"});
  for (int i = 0; i < 2000 && rechecks.value() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_GE(rechecks.value(), 1);
  EXPECT_EQ(List(api::Kind::kPod).size(), 1u) << "the owner lives: the pod stays";

  ASSERT_TRUE(client_->Delete(*widget, "default", "w").ok());
  fake_clock_.Step(std::chrono::seconds(5));
  for (int i = 0; i < 2000 && !List(api::Kind::kPod).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(List(api::Kind::kPod).empty()) << "its custom owner is gone: collected";
  gc.Stop();
  // Kinds are registered process-wide; the next test's server does not serve this one.
  api::UnregisterKind(*widget);
}

TEST_F(ControllerEnv, NamespaceControllerPurgesATerminatingNamespaceOnceItsContentIsGone) {
  auto& namespaces = Make<NamespaceController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kNamespace, "", R"({"metadata":{"name":"scratch"}})");
  Create(api::Kind::kPod, "scratch",
         R"({"metadata":{"name":"held","finalizers":["example.com/hold"]},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  Create(api::Kind::kPod, "scratch", R"({"metadata":{"name":"free"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  ASSERT_TRUE(client_->Delete(api::Kind::kNamespace, "", "scratch").ok());
  // The DELETE drained what it could; a finalizer holds one pod, so the namespace waits, Terminating.
  auto ns = client_->Get(api::Kind::kNamespace, "", "scratch");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(api::StringAt(api::StatusOf(*ns.value()), "phase"), "Terminating");
  auto pods = client_->List(api::Kind::kPod, "scratch").value();
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0]->name(), "held");
  auto refused = client_->Create(api::Kind::kPod, "scratch",
                                 json::parse(R"({"metadata":{"name":"late"},"spec":{"containers":[{"name":"c","image":"i"}]}})").as_object());
  EXPECT_EQ(refused.status().code(), StatusCode::kForbidden);

  ASSERT_TRUE(namespaces.ReconcileForTest("scratch").ok());
  EXPECT_TRUE(client_->Get(api::Kind::kNamespace, "", "scratch").ok()) << "a pod remains: the namespace stays";
  ASSERT_TRUE(client_->Patch(api::Kind::kPod, "scratch", "held", R"({"metadata":{"finalizers":null}})").ok());
  ASSERT_TRUE(client_->List(api::Kind::kPod, "scratch").value().empty());
  ASSERT_TRUE(namespaces.ReconcileForTest("scratch").ok());
  EXPECT_EQ(client_->Get(api::Kind::kNamespace, "", "scratch").status().code(), StatusCode::kNotFound);
}

TEST_F(ControllerEnv, NodeLifecycleMarksSilentNodesAndEvictsIntolerantPods) {
  auto& lifecycle = Make<NodeLifecycleController>(Context(), NodeLifecycleOptions{.monitor_period = std::chrono::hours(1),
                                                .grace_period = std::chrono::seconds(40)});
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kNode, "", R"({"metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  // Its kubelet last renewed two minutes ago.
  std::string stale = api::FormatMicroTime(std::chrono::system_clock::now() - std::chrono::minutes(2));
  Create(api::Kind::kLease, "kube-node-lease",
         R"({"metadata":{"name":"n1"},"spec":{"holderIdentity":"n1","renewTime":")" + stale + R"("}})");
  Create(api::Kind::kPod, "default",
         R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}})");
  // The default 300 s tolerations are added by admission; this one tolerates nothing.
  Create(api::Kind::kPod, "default",
         R"({"metadata":{"name":"tolerant"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}],
            "tolerations":[{"operator":"Exists"}]}})");
  // This one tolerates the unreachable taint for no time at all.
  Create(
      api::Kind::kPod, "default",
      R"({"metadata":{"name":"brief"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}],
            "tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",
                            "tolerationSeconds":0}]}})");
  Sync(api::Kind::kLease, 1);
  Sync(api::Kind::kPod, 3);
  Sync(api::Kind::kNode, 1);
  ASSERT_TRUE(lifecycle.ReconcileForTest("n1").ok());
  auto node = client_->Get(api::Kind::kNode, "", "n1").value();
  EXPECT_EQ(api::StringAt(*api::FindCondition(api::StatusOf(*node), "Ready"), "status"), "Unknown");
  std::vector<std::string> taints;
  for (const auto& t : *api::ArrayAt(*api::Spec(*node), "taints")) {
    taints.push_back(std::string(api::StringAt(t.as_object(), "key")) + ":" + std::string(api::StringAt(t.as_object(), "effect")));
  }
  EXPECT_EQ(taints, (std::vector<std::string>{"node.kubernetes.io/unreachable:NoSchedule",
                                              "node.kubernetes.io/unreachable:NoExecute"}));
  // Pods are evicted once the taint is seen: "brief" at once, "p" tolerates
  // it for 300 s (not yet), "tolerant" forever.
  auto cached_taints = [&] {
    auto node_cached = informers_->For(api::Kind::kNode).Get("n1");
    return node_cached && api::Spec(*node_cached) && api::ArrayAt(*api::Spec(*node_cached), "taints");
  };
  for (int i = 0; i < 2000 && !cached_taints(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(lifecycle.ReconcileForTest("n1").ok());
  // A bound pod's deletion is graceful: it stays, marked, until its kubelet lets go.
  for (const auto& pod : List(api::Kind::kPod))
    EXPECT_EQ(api::BeingDeleted(*pod), pod->name() == "brief") << pod->name();
  // Registered once (two reconciles), then not ready.
  EXPECT_EQ(EventsAbout("n1"),
            (std::vector<std::string>{
                "node-controller Normal NodeNotReady: Node n1 status is now: NodeNotReady",
                "node-controller Normal RegisteredNode: Node n1 event: Registered Node n1 in "
                "Controller"}));
  EXPECT_EQ(EventsAbout("brief"),
            std::vector<std::string>{"taint-eviction-controller Normal TaintManagerEviction: "
                                     "Marking for deletion Pod default/brief"});
  EXPECT_TRUE(EventsAbout("p").empty());
}

// The grace period is counted on the context's clock: a FakeClock decides
// when the kubelet has been silent too long.
TEST_F(ControllerEnv, NodeLifecycleCountsTheGracePeriodOnTheInjectedClock) {
  api::FakeClock& clock = fake_clock_;
  ControllerContext context = Context();
  context.clock = &clock;
  auto& lifecycle = Make<NodeLifecycleController>(
      context, NodeLifecycleOptions{.monitor_period = std::chrono::hours(1),
                                    .grace_period = std::chrono::seconds(40)});
  ASSERT_TRUE(informers_->Start().ok());
  Create(api::Kind::kNode, "",
         R"({"metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  Create(api::Kind::kLease, "kube-node-lease",
         R"({"metadata":{"name":"n1"},"spec":{"holderIdentity":"n1","renewTime":")" +
             api::FormatMicroTime(clock.WallNow()) + R"("}})");
  Sync(api::Kind::kLease, 1);
  Sync(api::Kind::kNode, 1);
  auto ready = [&] {
    auto node = client_->Get(api::Kind::kNode, "", "n1").value();
    return std::string(api::StringAt(api::FindCondition(api::StatusOf(*node), "Ready"), "status"));
  };
  clock.Step(std::chrono::seconds(30));
  ASSERT_TRUE(lifecycle.ReconcileForTest("n1").ok());
  EXPECT_EQ(ready(), "True");
  clock.Step(std::chrono::seconds(11));
  ASSERT_TRUE(lifecycle.ReconcileForTest("n1").ok());
  EXPECT_EQ(ready(), "Unknown");
}

// A controller writes what it read plus its change, guarded by the version
// it read: a change made since (here a cordon) makes the write fail with
// Conflict, to be retried from a fresher cache, instead of being undone.
TEST_F(ControllerEnv, NodeLifecycleDoesNotUndoAConcurrentCordon) {
  auto& lifecycle = Make<NodeLifecycleController>(
      Context(), NodeLifecycleOptions{.monitor_period = std::chrono::hours(1),
                                      .grace_period = std::chrono::seconds(40)});
  ASSERT_TRUE(informers_->Start().ok());
  Create(
      api::Kind::kNode, "",
      R"({"metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}})");
  std::string stale =
      api::FormatMicroTime(std::chrono::system_clock::now() - std::chrono::minutes(2));
  Create(api::Kind::kLease, "kube-node-lease",
         R"({"metadata":{"name":"n1"},"spec":{"holderIdentity":"n1","renewTime":")" + stale +
             R"("}})");
  Sync(api::Kind::kLease, 1);
  Sync(api::Kind::kNode, 1);
  // The cache stops here: it holds the node before the cordon below.
  informers_->Stop();
  ASSERT_TRUE(
      client_->Patch(api::Kind::kNode, "", "n1", R"({"spec":{"unschedulable":true}})").ok());

  Status s = lifecycle.ReconcileForTest("n1");
  EXPECT_EQ(s.code(), StatusCode::kConflict) << s.message();
  auto node = client_->Get(api::Kind::kNode, "", "n1").value();
  ASSERT_NE(api::Spec(*node), nullptr);
  const json::value* unschedulable = api::Spec(*node)->if_contains("unschedulable");
  EXPECT_TRUE(unschedulable && unschedulable->is_bool() && unschedulable->get_bool())
      << "the cordon was overwritten from a stale cache: " << json::serialize(node->json());
}

}  // namespace
}  // namespace berth::controllers
