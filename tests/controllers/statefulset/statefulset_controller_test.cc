// The StatefulSet controller's reconciles against a real API server in
// process (memory store), driven one key at a time with a fake clock:
// ordering (OrderedReady and Parallel), naming and ordinals.start, claims
// before pods, the retention policy, partitions, maxUnavailable, OnDelete,
// revisions and status.

#include "controllers/statefulset/statefulset_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <thread>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "controllers/history.h"
#include "controllers/statefulset/stateful_pod.h"
#include "in_process_api.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

class StatefulSetEnv : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    controller_ = std::make_unique<StatefulSetController>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_});
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override { informers_->Stop(); }

  api::ObjectPtr Create(api::Kind kind, const std::string& text) {
    auto created = client_->Create(kind, "default", json::parse(text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  void Edit(api::Kind kind, const std::string& name, const std::function<void(json::object&)>& edit,
            bool status = false) {
    auto current = client_->Get(kind, "default", name).value();
    json::object next = current->json();
    api::MutableObject(next, "metadata")["resourceVersion"] =
        std::to_string(current->resource_version());
    edit(next);
    auto written = status ? client_->UpdateStatus(kind, next) : client_->Update(kind, next);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  std::vector<api::ObjectPtr> List(api::Kind kind) {
    return client_->List(kind, "default").value();
  }
  // Names of the live pods, sorted.
  std::vector<std::string> PodNames() {
    std::vector<std::string> out;
    for (const auto& p : List(api::Kind::kPod)) {
      if (!api::BeingDeleted(*p)) out.push_back(p->name());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> ClaimNames() {
    std::vector<std::string> out;
    for (const auto& c : List(api::Kind::kPersistentVolumeClaim)) out.push_back(c->name());
    std::sort(out.begin(), out.end());
    return out;
  }
  api::ObjectPtr Get(api::Kind kind, const std::string& name) {
    auto got = client_->Get(kind, "default", name);
    return got.ok() ? got.value() : nullptr;
  }
  void Settle() {
    for (int i = 0; i < 3000; ++i) {
      bool same = true;
      for (api::Kind kind : {api::Kind::kPod, api::Kind::kStatefulSet,
                             api::Kind::kControllerRevision, api::Kind::kPersistentVolumeClaim}) {
        auto stored = client_->List(kind, "default").value();
        auto& informer = informers_->For(kind);
        same = same && informer.Size() == stored.size();
        for (const auto& o : stored) {
          auto cached = informer.Get(client::ObjectKey(*o));
          same = same && cached && cached->resource_version() == o->resource_version();
        }
      }
      if (same) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "informers did not catch up";
  }
  void Reconcile() {
    Settle();
    Status s = controller_->ReconcileForTest("default/web");
    ASSERT_TRUE(s.ok()) << s.message();
    Settle();
  }
  // The pod Running and Ready since now, as a kubelet would report.
  void MakeReady(const std::string& name) {
    std::string since = api::FormatRfc3339(clock_.WallNow());
    Edit(
        api::Kind::kPod, name,
        [&](json::object& o) {
          o["status"] = json::object{
              {"phase", "Running"},
              {"conditions",
               json::array{json::object{
                   {"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", since}}}}};
        },
        true);
  }
  void MakeAllReady() {
    for (const auto& name : PodNames()) {
      auto pod = Get(api::Kind::kPod, name);
      if (api::StringAt(api::StatusOf(*pod), "phase") != "Running") MakeReady(name);
    }
  }
  // Reconciles and marks pods ready until nothing changes (at most `rounds`).
  void Converge(int rounds = 20) {
    for (int i = 0; i < rounds; ++i) {
      Reconcile();
      auto before = PodsWithRevision();
      MakeAllReady();
      Reconcile();
      if (PodsWithRevision() == before && SetStatus().contains("observedGeneration") &&
          StatusInt("readyReplicas") == StatusInt("replicas"))
        return;
    }
  }
  std::vector<std::string> PodsWithRevision() {
    std::vector<std::string> out;
    for (const auto& p : List(api::Kind::kPod)) {
      auto rev = p->labels().Get(kControllerRevisionHashLabel);
      out.push_back(p->name() + "@" + (rev ? std::string(*rev) : "") +
                    (api::BeingDeleted(*p) ? "(deleting)" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  json::object SetStatus() {
    auto set = Get(api::Kind::kStatefulSet, "web");
    const auto* st = api::StatusOf(*set);
    return st ? *st : json::object();
  }
  int64_t StatusInt(const char* field) {
    json::object st = SetStatus();
    return api::IntAt(&st, field);
  }
  std::string StatusString(const char* field) {
    json::object st = SetStatus();
    return std::string(api::StringAt(st, field));
  }
  std::string PodRevision(const std::string& pod) {
    auto p = Get(api::Kind::kPod, pod);
    auto rev = p ? p->labels().Get(kControllerRevisionHashLabel) : std::nullopt;
    return rev ? std::string(*rev) : "";
  }
  std::string PodImage(const std::string& pod) {
    auto p = Get(api::Kind::kPod, pod);
    return std::string(
        api::StringAt(api::Spec(*p)->at("containers").as_array()[0].as_object(), "image"));
  }
  void SetImage(const std::string& image) {
    Edit(api::Kind::kStatefulSet, "web", [&](json::object& o) {
      o["spec"]
          .as_object()["template"]
          .as_object()["spec"]
          .as_object()["containers"]
          .as_array()[0]
          .as_object()["image"] = image;
    });
  }
  void SetSpec(const std::string& field, const std::string& value_json) {
    Edit(api::Kind::kStatefulSet, "web",
         [&](json::object& o) { o["spec"].as_object()[field] = json::parse(value_json); });
  }
  void DeletePod(const std::string& name) {
    ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", name).ok());
  }

  api::FakeClock clock_;  // outlives the controller
  std::unique_ptr<StatefulSetController> controller_;
};

std::string SetJson(int replicas, const std::string& spec_extra = "",
                    const std::string& claims = "") {
  return R"({"metadata":{"name":"web"},"spec":{"replicas":)" + std::to_string(replicas) +
         R"(,"serviceName":"web","selector":{"matchLabels":{"app":"web"}},)" + spec_extra +
         (claims.empty() ? "" : R"("volumeClaimTemplates":)" + claims + ",") +
         R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}}}})";
}

constexpr char kClaims[] =
    R"([{"metadata":{"name":"www"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}])";

using Names = std::vector<std::string>;

TEST_F(StatefulSetEnv, OrderedReadyCreatesOnePodAtATimeWaitingForReadiness) {
  Create(api::Kind::kStatefulSet, SetJson(3));
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  Reconcile();  // web-0 is not Running and Ready: nothing more
  EXPECT_EQ(PodNames(), Names{"web-0"});
  MakeReady("web-0");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  MakeReady("web-1");
  Reconcile();
  MakeReady("web-2");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1", "web-2"}));
  EXPECT_EQ(StatusInt("replicas"), 3);
  EXPECT_EQ(StatusInt("readyReplicas"), 3);
  EXPECT_EQ(StatusInt("availableReplicas"), 3);
  EXPECT_EQ(StatusInt("updatedReplicas"), 3);
  EXPECT_EQ(StatusInt("currentReplicas"), 3);
  EXPECT_EQ(StatusInt("observedGeneration"), 1);
  auto pod = Get(api::Kind::kPod, "web-1");
  EXPECT_EQ(api::StringAt(api::Spec(*pod), "hostname"), "web-1");
  EXPECT_EQ(api::StringAt(api::Spec(*pod), "subdomain"), "web");
  EXPECT_EQ(*pod->labels().Get(kStatefulSetPodNameLabel), "web-1");
  EXPECT_EQ(*pod->labels().Get(kPodIndexLabel), "1");
}

TEST_F(StatefulSetEnv, OrderedReadyScalesDownHighestOrdinalFirstOneAtATime) {
  Create(api::Kind::kStatefulSet, SetJson(3));
  Converge();
  ASSERT_EQ(PodNames(), (Names{"web-0", "web-1", "web-2"}));
  SetSpec("replicas", "1");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  Reconcile();  // as kube, a deletion is counted by the next sync's status
  EXPECT_EQ(StatusInt("replicas"), 1);
}

TEST_F(StatefulSetEnv, ScaleDownWaitsWhileAnyRemainingPodIsUnready) {
  Create(api::Kind::kStatefulSet, SetJson(3));
  Converge();
  Edit(
      api::Kind::kPod, "web-0",
      [](json::object& o) {
        o["status"] = json::object{{"phase", "Pending"}};
      },
      true);
  SetSpec("replicas", "2");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1", "web-2"}));
  MakeReady("web-0");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
}

TEST_F(StatefulSetEnv, ParallelCreatesAndDeletesWithoutWaiting) {
  Create(api::Kind::kStatefulSet, SetJson(5, R"("podManagementPolicy":"Parallel",)"));
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1", "web-2", "web-3", "web-4"}));
  SetSpec("replicas", "2");
  Reconcile();  // none is ready, and all condemned go at once
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
}

TEST_F(StatefulSetEnv, OrdinalsStartAtSpecOrdinalsStart) {
  Create(api::Kind::kStatefulSet,
         SetJson(2, R"("podManagementPolicy":"Parallel","ordinals":{"start":3},)", kClaims));
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-3", "web-4"}));
  EXPECT_EQ(ClaimNames(), (Names{"www-web-3", "www-web-4"}));
  SetSpec("ordinals", R"({"start":4})");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-4", "web-5"}));
}

TEST_F(StatefulSetEnv, ClaimsAreCreatedBeforeTheirPodAndNeverWaitedFor) {
  Create(api::Kind::kStatefulSet, SetJson(2, "", kClaims));
  Reconcile();
  auto claim = Get(api::Kind::kPersistentVolumeClaim, "www-web-0");
  auto pod = Get(api::Kind::kPod, "web-0");
  ASSERT_TRUE(claim);
  ASSERT_TRUE(pod);
  EXPECT_LT(claim->resource_version(), pod->resource_version());
  EXPECT_EQ(*claim->labels().Get("app"), "web");
  // Retain/Retain: the claim has no owner.
  EXPECT_EQ(api::ArrayAt(api::Metadata(*claim), "ownerReferences"), nullptr);
  const auto& volumes = api::Spec(*pod)->at("volumes").as_array();
  ASSERT_EQ(volumes.size(), 1u);
  EXPECT_EQ(
      api::StringAt(api::ObjectAt(volumes[0].as_object(), "persistentVolumeClaim"), "claimName"),
      "www-web-0");
  // The claim stays Pending (nothing binds it) and web-1 still comes.
  MakeReady("web-0");
  Reconcile();
  EXPECT_EQ(ClaimNames(), (Names{"www-web-0", "www-web-1"}));
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  // Scaled down with Retain, the claim stays.
  MakeReady("web-1");
  SetSpec("replicas", "1");
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  EXPECT_EQ(ClaimNames(), (Names{"www-web-0", "www-web-1"}));
}

TEST_F(StatefulSetEnv, RetentionPolicyDeleteSetsTheOwnersTheGarbageCollectorNeeds) {
  auto set = Create(
      api::Kind::kStatefulSet,
      SetJson(
          2,
          R"("persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Delete"},)",
          kClaims));
  Converge();
  ASSERT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  for (const char* name : {"www-web-0", "www-web-1"}) {
    auto claim = Get(api::Kind::kPersistentVolumeClaim, name);
    const auto& refs = *api::ArrayAt(api::Metadata(*claim), "ownerReferences");
    ASSERT_EQ(refs.size(), 1u) << name;
    EXPECT_EQ(api::StringAt(refs[0].as_object(), "uid"), set->uid()) << name;
  }
  auto web1 = Get(api::Kind::kPod, "web-1");
  SetSpec("replicas", "1");
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  // The scaled-down pod's claim now belongs to that pod (and goes with it).
  auto claim = Get(api::Kind::kPersistentVolumeClaim, "www-web-1");
  const auto& refs = *api::ArrayAt(api::Metadata(*claim), "ownerReferences");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(api::StringAt(refs[0].as_object(), "kind"), "Pod");
  EXPECT_EQ(api::StringAt(refs[0].as_object(), "uid"), web1->uid());
  // Scaled up again before the collector removed it: web-1 waits for the old claim.
  SetSpec("replicas", "2");
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolumeClaim, "default", "www-web-1").ok());
  // Terminating (pvc-protection): web-1 still waits.
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  // The protection controller lets it go once no pod uses it.
  ASSERT_TRUE(client_->Patch(api::Kind::kPersistentVolumeClaim, "default", "www-web-1",
                             R"({"metadata":{"finalizers":null}})").ok());
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  EXPECT_EQ(ClaimNames(), (Names{"www-web-0", "www-web-1"}));
}

TEST_F(StatefulSetEnv, RollingUpdateReplacesHighestOrdinalFirstAndCompletes) {
  Create(api::Kind::kStatefulSet, SetJson(3));
  Converge();
  std::string first = StatusString("currentRevision");
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(PodRevision("web-0"), first);
  SetImage("v2");
  Reconcile();
  std::string second = StatusString("updateRevision");
  EXPECT_NE(second, first);
  EXPECT_EQ(StatusString("currentRevision"), first);
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));  // web-2 deleted for the update
  Reconcile();
  EXPECT_EQ(PodRevision("web-2"), second);
  EXPECT_EQ(PodImage("web-2"), "v2");
  EXPECT_EQ(PodImage("web-1"), "v1");  // waits for web-2 to be ready
  Converge();
  for (const char* pod : {"web-0", "web-1", "web-2"}) {
    EXPECT_EQ(PodRevision(pod), second) << pod;
    EXPECT_EQ(PodImage(pod), "v2") << pod;
  }
  EXPECT_EQ(StatusString("currentRevision"), second);
  EXPECT_EQ(StatusInt("currentReplicas"), 3);
  EXPECT_EQ(StatusInt("updatedReplicas"), 3);
  EXPECT_EQ(StatusInt("observedGeneration"), 2);
}

TEST_F(StatefulSetEnv, PartitionKeepsLowerOrdinalsAtTheCurrentRevision) {
  Create(
      api::Kind::kStatefulSet,
      SetJson(3, R"("updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}},)"));
  Converge();
  std::string first = StatusString("currentRevision");
  SetImage("v2");
  Converge();
  EXPECT_EQ(PodImage("web-2"), "v2");
  EXPECT_EQ(PodImage("web-1"), "v1");
  EXPECT_EQ(PodImage("web-0"), "v1");
  EXPECT_EQ(StatusInt("updatedReplicas"), 1);
  EXPECT_EQ(StatusInt("currentReplicas"), 2);
  EXPECT_EQ(StatusString("currentRevision"), first);
  // A pod below the partition deleted by hand comes back at the current revision.
  DeletePod("web-0");
  Converge();
  EXPECT_EQ(PodImage("web-0"), "v1");
  EXPECT_EQ(PodRevision("web-0"), first);
  // Lowering the partition finishes the rollout.
  SetSpec("updateStrategy", R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})");
  Converge();
  for (const char* pod : {"web-0", "web-1", "web-2"}) EXPECT_EQ(PodImage(pod), "v2") << pod;
  EXPECT_EQ(StatusString("currentRevision"), StatusString("updateRevision"));
}

TEST_F(StatefulSetEnv, MaxUnavailableReplacesSeveralPodsAtOnce) {
  Create(
      api::Kind::kStatefulSet,
      SetJson(
          4,
          R"("podManagementPolicy":"Parallel","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0,"maxUnavailable":2}},)"));
  Converge();
  SetImage("v2");
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));  // web-3 and web-2 together
}

TEST_F(StatefulSetEnv, OnDeleteReplacesOnlyPodsUsersDelete) {
  Create(api::Kind::kStatefulSet, SetJson(2, R"("updateStrategy":{"type":"OnDelete"},)"));
  Converge();
  std::string first = StatusString("currentRevision");
  SetImage("v2");
  Converge();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  EXPECT_EQ(PodImage("web-0"), "v1");
  EXPECT_EQ(PodImage("web-1"), "v1");
  EXPECT_EQ(StatusInt("updatedReplicas"), 0);
  EXPECT_EQ(StatusString("currentRevision"), first);
  DeletePod("web-0");
  Converge();
  EXPECT_EQ(PodImage("web-0"), "v2");
  EXPECT_EQ(PodImage("web-1"), "v1");
  EXPECT_EQ(StatusInt("updatedReplicas"), 1);
}

TEST_F(StatefulSetEnv, RevisionsAreReusedOnRollbackAndTrimmedToTheHistoryLimit) {
  Create(api::Kind::kStatefulSet, SetJson(1, R"("revisionHistoryLimit":1,)"));
  Converge();
  std::string v1 = StatusString("currentRevision");
  SetImage("v2");
  Converge();
  std::string v2 = StatusString("currentRevision");
  ASSERT_NE(v1, v2);
  // Back to v1: its revision returns as the newest (number 3), not a new one.
  SetImage("v1");
  Converge();
  EXPECT_EQ(StatusString("currentRevision"), v1);
  auto r1 = Get(api::Kind::kControllerRevision, v1);
  ASSERT_TRUE(r1);
  EXPECT_EQ(RevisionNumber(*r1), 3);
  EXPECT_EQ(
      RevisionTemplate(*r1)["spec"].as_object()["containers"].as_array()[0].as_object()["image"],
      "v1");
  EXPECT_EQ(List(api::Kind::kControllerRevision).size(), 2u);
  SetImage("v3");
  Converge();
  SetImage("v4");
  Converge();
  Reconcile();  // history is trimmed against the revision current when the sync began
  // The live revision and one of history.
  auto revisions = List(api::Kind::kControllerRevision);
  EXPECT_EQ(revisions.size(), 2u);
  std::string live = StatusString("currentRevision");
  EXPECT_TRUE(std::any_of(revisions.begin(), revisions.end(),
                          [&](const auto& r) { return r->name() == live; }));
  for (const auto& r : revisions) EXPECT_NE(r->name(), v1);
}

TEST_F(StatefulSetEnv, FailedPodsAreDeletedAndCreatedAgain) {
  Create(api::Kind::kStatefulSet, SetJson(1));
  Converge();
  auto old = Get(api::Kind::kPod, "web-0");
  Edit(
      api::Kind::kPod, "web-0",
      [](json::object& o) {
        o["status"] = json::object{{"phase", "Failed"}};
      },
      true);
  Reconcile();
  Reconcile();
  auto fresh = Get(api::Kind::kPod, "web-0");
  ASSERT_TRUE(fresh);
  EXPECT_NE(fresh->uid(), old->uid());
}

TEST_F(StatefulSetEnv, MinReadySecondsHoldsTheNextPodOnTheClock) {
  Create(api::Kind::kStatefulSet, SetJson(2, R"("minReadySeconds":10,)"));
  Reconcile();
  MakeReady("web-0");
  Reconcile();
  EXPECT_EQ(PodNames(), Names{"web-0"});
  EXPECT_EQ(StatusInt("readyReplicas"), 1);
  EXPECT_EQ(StatusInt("availableReplicas"), 0);
  clock_.Step(std::chrono::seconds(11));
  Reconcile();
  EXPECT_EQ(PodNames(), (Names{"web-0", "web-1"}));
  EXPECT_EQ(StatusInt("availableReplicas"), 1);
}

TEST_F(StatefulSetEnv, OrphanPodsWithTheSetsNamesAreAdopted) {
  Create(
      api::Kind::kPod,
      R"({"metadata":{"name":"web-0","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}})");
  Create(
      api::Kind::kPod,
      R"({"metadata":{"name":"other","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"v1"}]}})");
  auto set = Create(api::Kind::kStatefulSet, SetJson(1));
  Reconcile();
  auto web0 = Get(api::Kind::kPod, "web-0");
  auto other = Get(api::Kind::kPod, "other");
  EXPECT_FALSE(api::ArrayAt(api::Metadata(*web0), "ownerReferences") == nullptr);
  EXPECT_EQ(api::ArrayAt(api::Metadata(*other), "ownerReferences"), nullptr);
  EXPECT_EQ(StatusInt("replicas"), 1);
}

}  // namespace
}  // namespace berth::controllers
