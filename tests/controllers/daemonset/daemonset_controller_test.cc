// The DaemonSet controller's reconciles against a real API server in
// process (memory store), driven one key at a time: pods per eligible node,
// expectations, revisions and history, RollingUpdate and OnDelete, taints.

#include "controllers/daemonset/daemonset_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <thread>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/daemonset/daemon_pod.h"
#include "controllers/owner_references.h"
#include "in_process_api.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

class DaemonSetEnv : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    controller_ = std::make_unique<DaemonSetController>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_});
    ASSERT_TRUE(informers_->Start().ok());
  }
  void TearDown() override { informers_->Stop(); }

  api::ObjectPtr Create(api::Kind kind, const std::string& ns, const std::string& text) {
    auto created = client_->Create(kind, ns, json::parse(text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  void AddNode(const std::string& name, const std::string& labels = "{}",
               const std::string& taints = "[]") {
    Create(api::Kind::kNode, "",
           R"({"metadata":{"name":")" + name + R"(","labels":)" + labels +
               R"(},"spec":{"taints":)" + taints + "}}");
  }
  // Edits the stored object (read fresh) with `edit`.
  void Edit(api::Kind kind, const std::string& ns, const std::string& name,
            const std::function<void(json::object&)>& edit, bool status = false) {
    auto current = client_->Get(kind, ns, name).value();
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
  std::vector<api::ObjectPtr> LivePods() {
    std::vector<api::ObjectPtr> out;
    for (const auto& p : List(api::Kind::kPod)) {
      if (!api::BeingDeleted(*p)) out.push_back(p);
    }
    return out;
  }
  // Waits until the informers show what the store has (every kind the controller reads).
  void Settle() {
    for (int i = 0; i < 3000; ++i) {
      bool same = true;
      for (api::Kind kind : {api::Kind::kPod, api::Kind::kNode, api::Kind::kDaemonSet,
                             api::Kind::kControllerRevision}) {
        auto stored = client_->List(kind, kind == api::Kind::kNode ? "" : "default").value();
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
    Status s = controller_->ReconcileForTest("default/ds");
    ASSERT_TRUE(s.ok()) << s.message();
  }
  // Every live pod Running and Ready, as a kubelet would report.
  void MakeReady() {
    for (const auto& p : LivePods()) {
      if (api::IsPodReady(*p)) continue;
      Edit(
          api::Kind::kPod, "default", p->name(),
          [](json::object& o) {
            o["status"] = json::object{
                {"phase", "Running"},
                {"conditions",
                 json::array{json::object{{"type", "Ready"},
                                          {"status", "True"},
                                          {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
          },
          true);
    }
  }
  void SetImage(const std::string& image) {
    Edit(api::Kind::kDaemonSet, "default", "ds", [&](json::object& o) {
      o["spec"]
          .as_object()["template"]
          .as_object()["spec"]
          .as_object()["containers"]
          .as_array()[0]
          .as_object()["image"] = image;
    });
  }
  json::object DaemonSetStatus() {
    auto ds = client_->Get(api::Kind::kDaemonSet, "default", "ds").value();
    const auto* st = api::StatusOf(*ds);
    return st ? *st : json::object();
  }
  int64_t StatusField(const char* field) {
    json::object st = DaemonSetStatus();
    return api::IntAt(&st, field);
  }
  std::vector<std::string> PodNodes() {
    std::vector<std::string> out;
    for (const auto& p : LivePods()) out.push_back(TargetNodeName(*p));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::pair<std::string, int64_t>> Revisions() {
    std::vector<std::pair<std::string, int64_t>> out;
    for (const auto& r : List(api::Kind::kControllerRevision))
      out.emplace_back(r->name(), api::IntAt(&r->json(), "revision"));
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
  }

  api::FakeClock clock_;  // outlives the controller
  std::unique_ptr<DaemonSetController> controller_;
};

std::string DaemonSetJson(const std::string& pod_spec_extra = "",
                          const std::string& spec_extra = "") {
  return R"({"metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"app":"d"}},)" +
         spec_extra +
         R"("template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"v1"}])" +
         pod_spec_extra + "}}}}";
}

TEST_F(DaemonSetEnv, OnePinnedPodPerEligibleNodeCreatedOnce) {
  AddNode("edge-1", R"({"role":"edge"})");
  AddNode("edge-2", R"({"role":"edge"})", R"([{"key":"gpu","effect":"NoSchedule"}])");
  AddNode("core-1", R"({"role":"core"})");
  auto ds =
      Create(api::Kind::kDaemonSet, "default", DaemonSetJson(R"(,"nodeSelector":{"role":"edge"})"));
  Reconcile();
  // Expectations: a second sync before the informer shows the pod creates nothing more.
  ASSERT_TRUE(controller_->ReconcileForTest("default/ds").ok());
  auto pods = LivePods();
  ASSERT_EQ(pods.size(), 1u);
  const api::Object& pod = *pods[0];
  EXPECT_EQ(TargetNodeName(pod), "edge-1");
  EXPECT_TRUE(pod.As<api::PodView>()->node_name.empty());  // the scheduler places it
  EXPECT_EQ(ControllerUid(pod, "DaemonSet"), ds->uid());
  EXPECT_TRUE(pod.name().starts_with("ds-"));
  auto revisions = Revisions();
  ASSERT_EQ(revisions.size(), 1u);
  EXPECT_EQ(revisions[0].second, 1);
  auto hash = pod.labels().Get(kControllerRevisionHashLabel);
  ASSERT_TRUE(hash);
  EXPECT_EQ(revisions[0].first, "ds-" + std::string(*hash));
  EXPECT_EQ(pod.labels().Get(kPodTemplateGenerationLabel), "1");
  bool tolerates_not_ready = false;
  for (const auto& t : pod.As<api::PodView>()->tolerations)
    tolerates_not_ready |= t.key == "node.kubernetes.io/not-ready";
  EXPECT_TRUE(tolerates_not_ready);
  auto revision =
      client_->Get(api::Kind::kControllerRevision, "default", revisions[0].first).value();
  EXPECT_EQ(revision->json().at("data").at("spec").at("template").at("$patch"), "replace");
  EXPECT_EQ(ControllerUid(*revision, "DaemonSet"), ds->uid());

  Reconcile();
  EXPECT_EQ(LivePods().size(), 1u);
  json::object st = DaemonSetStatus();
  EXPECT_EQ(api::IntAt(&st, "desiredNumberScheduled"), 1);
  EXPECT_EQ(api::IntAt(&st, "currentNumberScheduled"), 1);
  EXPECT_EQ(api::IntAt(&st, "numberReady"), 0);
  EXPECT_EQ(api::IntAt(&st, "numberUnavailable"), 1);
  EXPECT_EQ(api::IntAt(&st, "updatedNumberScheduled"), 1);
  EXPECT_EQ(api::IntAt(&st, "observedGeneration"), 1);

  // A node that joins gets one; a NoExecute taint the pods do not tolerate removes it.
  AddNode("edge-3", R"({"role":"edge"})");
  Reconcile();
  EXPECT_EQ(PodNodes(), (std::vector<std::string>{"edge-1", "edge-3"}));
  Edit(api::Kind::kNode, "", "edge-1", [](json::object& o) {
    o["spec"].as_object()["taints"] =
        json::parse(R"([{"key":"evict","value":"x","effect":"NoExecute"}])");
  });
  Reconcile();
  EXPECT_EQ(PodNodes(), (std::vector<std::string>{"edge-3"}));
  // A node whose labels stop matching: its pod is misscheduled and deleted.
  Edit(api::Kind::kNode, "", "edge-3", [](json::object& o) {
    o["metadata"].as_object()["labels"] = json::object{{"role", "core"}};
  });
  Reconcile();
  EXPECT_TRUE(PodNodes().empty());
  Reconcile();
  st = DaemonSetStatus();
  EXPECT_EQ(api::IntAt(&st, "desiredNumberScheduled"), 0);
  EXPECT_EQ(api::IntAt(&st, "numberMisscheduled"), 0);
}

TEST_F(DaemonSetEnv, RollingUpdateReplacesAtMostMaxUnavailableAtATime) {
  for (const char* n : {"n1", "n2", "n3", "n4"}) AddNode(n);
  Create(api::Kind::kDaemonSet, "default",
         DaemonSetJson(
             "",
             R"("updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":2}},)"));
  Reconcile();
  ASSERT_EQ(LivePods().size(), 4u);
  MakeReady();
  Reconcile();
  EXPECT_EQ(StatusField("numberAvailable"), 4);

  SetImage("v2");
  Reconcile();
  EXPECT_EQ(LivePods().size(), 2u);  // two old pods deleted, no more
  auto revisions = Revisions();
  ASSERT_EQ(revisions.size(), 2u);
  EXPECT_EQ(revisions[1].second, 2);
  std::string new_hash = revisions[1].first.substr(3);
  Reconcile();  // the two nodes without a pod get new ones
  int updated = 0;
  for (const auto& p : LivePods())
    updated += p->labels().Get(kControllerRevisionHashLabel) == new_hash;
  EXPECT_EQ(updated, 2);
  EXPECT_EQ(LivePods().size(), 4u);
  Reconcile();
  EXPECT_EQ(LivePods().size(), 4u);  // the new pods are not available yet: nothing more goes
  MakeReady();
  Reconcile();
  Reconcile();
  MakeReady();
  Reconcile();
  for (const auto& p : LivePods())
    EXPECT_EQ(p->labels().Get(kControllerRevisionHashLabel), new_hash) << p->name();
  json::object st = DaemonSetStatus();
  EXPECT_EQ(api::IntAt(&st, "updatedNumberScheduled"), 4);
  EXPECT_EQ(api::IntAt(&st, "numberAvailable"), 4);
  EXPECT_EQ(api::IntAt(&st, "observedGeneration"), 2);

  // Back to v1 (what `kubectl rollout undo` does): the first revision is reused and renumbered.
  std::string old_name = revisions[0].first;
  SetImage("v1");
  Reconcile();
  revisions = Revisions();
  ASSERT_EQ(revisions.size(), 2u);
  EXPECT_EQ(revisions[1], std::make_pair(old_name, int64_t{3}));
}

TEST_F(DaemonSetEnv, OnDeleteReplacesOnlyPodsTheUserDeletes) {
  AddNode("n1");
  AddNode("n2");
  Create(api::Kind::kDaemonSet, "default",
         DaemonSetJson("", R"("updateStrategy":{"type":"OnDelete"},)"));
  Reconcile();
  MakeReady();
  auto before = LivePods();
  ASSERT_EQ(before.size(), 2u);
  SetImage("v2");
  Reconcile();
  Reconcile();
  ASSERT_EQ(LivePods().size(), 2u);
  EXPECT_EQ(StatusField("updatedNumberScheduled"), 0);
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", before[0]->name()).ok());
  Reconcile();
  auto after = LivePods();
  ASSERT_EQ(after.size(), 2u);
  int v2 = 0;
  for (const auto& p : after) {
    v2 += p->json().at("spec").at("containers").at(0).at("image") == "v2";
  }
  EXPECT_EQ(v2, 1);
}

TEST_F(DaemonSetEnv, OldRevisionsBeyondTheHistoryLimitAreDeletedUnlessPodsUseThem) {
  AddNode("n1");
  Create(api::Kind::kDaemonSet, "default",
         DaemonSetJson("", R"("revisionHistoryLimit":1,"updateStrategy":{"type":"OnDelete"},)"));
  Reconcile();  // revision 1; its pod stays (OnDelete)
  for (const char* image : {"v2", "v3", "v4"}) {
    SetImage(image);
    Reconcile();
  }
  Reconcile();
  // Revisions 2 and 3 are gone: 1 is still run by the pod, 4 is current.
  std::vector<int64_t> numbers;
  for (const auto& [name, number] : Revisions()) numbers.push_back(number);
  EXPECT_EQ(numbers, (std::vector<int64_t>{1, 4}));
}

TEST_F(DaemonSetEnv, FailedPodsAreReplacedWithABackoffPerNode) {
  AddNode("n1");
  Create(api::Kind::kDaemonSet, "default", DaemonSetJson());
  auto fail = [&]() -> std::string {
    auto pods = LivePods();
    EXPECT_EQ(pods.size(), 1u);
    if (pods.empty()) return "";
    Edit(
        api::Kind::kPod, "default", pods[0]->name(),
        [](json::object& o) {
          o["status"] = json::object{{"phase", "Failed"}};
        },
        true);
    return pods[0]->name();
  };
  Reconcile();
  std::string first = fail();
  Reconcile();  // deleted at once
  Reconcile();  // and created again
  auto pods = LivePods();
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_NE(pods[0]->name(), first);
  std::string second = fail();
  Reconcile();  // within a second of the last deletion: left alone
  ASSERT_EQ(LivePods().size(), 1u);
  EXPECT_EQ(LivePods()[0]->name(), second);
  clock_.Step(DaemonSetController::kFailedPodBackoffInitial + std::chrono::milliseconds(1));
  Reconcile();
  EXPECT_TRUE(LivePods().empty());
}

TEST_F(DaemonSetEnv, NodeEventsWakeTheDaemonSetsTheyConcern) {
  controller_->Run();  // workers: the handlers alone must bring each change in
  Create(api::Kind::kDaemonSet, "default", DaemonSetJson(R"(,"nodeSelector":{"role":"edge"})"));
  auto eventually = [&](const std::vector<std::string>& want) {
    for (int i = 0; i < 5000 && PodNodes() != want; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(PodNodes(), want);
  };
  AddNode("n1", R"({"role":"edge"})");
  AddNode("n2", R"({"role":"core"})");
  eventually({"n1"});
  Edit(api::Kind::kNode, "", "n2", [](json::object& o) {
    o["metadata"].as_object()["labels"] = json::object{{"role", "edge"}};
  });
  eventually({"n1", "n2"});
  Edit(api::Kind::kNode, "", "n1", [](json::object& o) {
    o["spec"].as_object()["taints"] = json::parse(R"([{"key":"evict","effect":"NoExecute"}])");
  });
  eventually({"n2"});
  controller_->Stop();
}

}  // namespace
}  // namespace berth::controllers
