// The ReplicaSet controller over both kinds it serves, ReplicaSets and
// ReplicationControllers (kube's ReplicationManager), against a real API
// server in process: pods created, orphans adopted and released, scale-down,
// status and the ReplicaFailure condition; and kube's calculateStatus rules
// (replica_status.h) and a ReplicationController's map selector on their own.

#include "controllers/replicaset/replicaset_controller.h"

#include <gtest/gtest.h>

#include "api/time/rfc3339.h"

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "controllers/owner_references.h"
#include "controllers/replicaset/replica_status.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

// How a test writes an owner of each kind: the selector is the only part
// whose shape differs.
struct OwnerCase {
  const char* name;  // the test's suffix
  const ReplicatedKind* kind;
  std::string (*selector)(const std::string& labels);
};

void PrintTo(const OwnerCase& c, std::ostream* os) { *os << c.name; }

std::string LabelSelectorOf(const std::string& labels) { return R"({"matchLabels":)" + labels + "}"; }
std::string LabelMapOf(const std::string& labels) { return labels; }

const OwnerCase kCases[] = {
    {"ReplicaSet", &kReplicaSets, LabelSelectorOf},
    {"ReplicationController", &kReplicationControllers, LabelMapOf},
};

constexpr char kSelected[] = R"({"app":"web"})";
constexpr char kTemplateLabels[] = R"({"app":"web","tier":"front"})";

class ReplicatedKindTest : public InProcessApiTest, public ::testing::WithParamInterface<OwnerCase> {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
    controller_ = std::make_unique<ReplicaSetController>(
        ControllerContext{*client_, *informers_, nullptr, events_.get(), &clock_}, *GetParam().kind);
    ASSERT_TRUE(informers_->Start().ok());
  }
  // Informers first: their threads call the controller's handlers. Then the
  // workers (a test may have started them), while the controller is whole.
  void TearDown() override {
    informers_->Stop();
    controller_->Stop();
  }

  api::Kind kind() const { return GetParam().kind->kind; }
  std::string source() const { return std::string(GetParam().kind->event_source); }

  api::ObjectPtr Create(api::Kind kind, const std::string& text) {
    auto created = client_->Create(kind, "default", json::parse(text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  // An owner named `name` of `replicas` selecting kSelected, its template
  // labelled kTemplateLabels.
  api::ObjectPtr CreateOwner(const std::string& name, int replicas) {
    return Create(kind(), R"({"metadata":{"name":")" + name + R"("},"spec":{"replicas":)" + std::to_string(replicas) +
                              R"(,"selector":)" + GetParam().selector(kSelected) +
                              R"(,"template":{"metadata":{"labels":)" + kTemplateLabels +
                              R"(},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  }
  api::ObjectPtr Get(api::Kind kind, const std::string& name) {
    auto got = client_->Get(kind, "default", name);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? got.value() : nullptr;
  }
  // Writes the stored object (read fresh) changed by `edit`.
  void Edit(api::Kind kind, const std::string& name, const std::function<void(json::object&)>& edit,
            bool status = false) {
    api::ObjectPtr current = Get(kind, name);
    ASSERT_TRUE(current);
    json::object next = current->json();
    api::MutableObject(next, "metadata")["resourceVersion"] = std::to_string(current->resource_version());
    edit(next);
    auto written = status ? client_->UpdateStatus(kind, next) : client_->Update(kind, next);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  std::vector<api::ObjectPtr> Pods() {
    auto pods = client_->List(api::Kind::kPod, "default");
    EXPECT_TRUE(pods.ok()) << pods.status().message();
    return pods.ok() ? pods.value() : std::vector<api::ObjectPtr>{};
  }
  std::vector<api::ObjectPtr> OwnedPods(const api::Object& owner) {
    std::vector<api::ObjectPtr> owned;
    for (const auto& p : Pods()) {
      if (ControllerUid(*p, owner.info().name) == owner.uid()) owned.push_back(p);
    }
    return owned;
  }
  const json::object* StatusOf(const std::string& name) {
    owner_ = Get(kind(), name);
    return owner_ ? api::StatusOf(*owner_) : nullptr;
  }

  // Waits until the informers show what the store holds of pods and owners.
  void Settle() {
    auto same = [&] {
      for (api::Kind k : {api::Kind::kPod, kind()}) {
        auto stored = client_->List(k, "default");
        if (!stored.ok()) return false;
        auto& informer = informers_->For(k);
        if (informer.Size() != stored.value().size()) return false;
        for (const auto& o : stored.value()) {
          auto cached = informer.Get(client::ObjectKey(*o));
          if (!cached || cached->resource_version() != o->resource_version()) return false;
        }
      }
      return true;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!same() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(same()) << "the informers did not catch up";
  }
  Status Sync(const std::string& name) {
    Settle();
    return controller_->ReconcileForTest("default/" + name);
  }
  void SyncOk(const std::string& name) {
    Status s = Sync(name);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  // "<source> <type> <reason>: <message>" of every Event about `name`, sorted.
  std::vector<std::string> EventsAbout(const std::string& name) {
    events_->Flush();
    std::vector<std::string> out;
    auto events = client_->List(api::Kind::kEvent, "default");
    EXPECT_TRUE(events.ok()) << events.status().message();
    if (!events.ok()) return out;
    for (const auto& e : events.value()) {
      const json::object& o = e->json();
      if (o.at("involvedObject").at("name") != json::value(name)) continue;
      out.push_back(std::string(o.at("source").at("component").as_string()) + " " +
                    std::string(o.at("type").as_string()) + " " + std::string(o.at("reason").as_string()) + ": " +
                    std::string(o.at("message").as_string()));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // A quota of no pods, counted as the quota controller would leave it, so
  // the ResourceQuota admission plugin refuses every pod.
  void ForbidPods() {
    Create(api::Kind::kResourceQuota, R"({"metadata":{"name":"no-pods"},"spec":{"hard":{"pods":"0"}}})");
    Edit(
        api::Kind::kResourceQuota, "no-pods",
        [](json::object& q) { q["status"] = json::parse(R"({"hard":{"pods":"0"},"used":{"pods":"0"}})"); },
        /*status=*/true);
  }

  api::FakeClock clock_;
  std::unique_ptr<client::EventBroadcaster> events_;
  std::unique_ptr<ReplicaSetController> controller_;
  api::ObjectPtr owner_;  // keeps what StatusOf returned alive
};

TEST_P(ReplicatedKindTest, CreatesItsPodsFromTheTemplateAndReportsStatus) {
  auto owner = CreateOwner("web", 2);
  ASSERT_TRUE(owner);
  SyncOk("web");
  auto pods = OwnedPods(*owner);
  ASSERT_EQ(pods.size(), 2u);
  std::vector<std::string> want_events;
  for (const auto& p : pods) {
    EXPECT_TRUE(p->name().starts_with("web-")) << p->name();
    EXPECT_EQ(p->labels().Get("tier").value_or(""), "front");
    const auto& ref = api::ArrayAt(api::Metadata(*p), "ownerReferences")->at(0).as_object();
    EXPECT_EQ(ref.at("apiVersion").as_string(), owner->info().ApiVersion());
    EXPECT_EQ(ref.at("kind").as_string(), owner->info().name);
    want_events.push_back(source() + " Normal SuccessfulCreate: Created pod: " + p->name());
  }
  std::sort(want_events.begin(), want_events.end());
  EXPECT_EQ(EventsAbout("web"), want_events);

  // One pod becomes ready: the next sync counts it.
  Edit(
      api::Kind::kPod, pods[0]->name(),
      [&](json::object& p) {
        p["status"] =
            json::object{{"phase", "Running"},
                         {"conditions",
                          json::array{json::object{
                              {"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
      },
      /*status=*/true);
  SyncOk("web");
  EXPECT_EQ(Pods().size(), 2u);  // expectations met: nothing more created
  const json::object* status = StatusOf("web");
  EXPECT_EQ(api::IntAt(status, "replicas"), 2);
  EXPECT_EQ(api::IntAt(status, "fullyLabeledReplicas"), 2);
  EXPECT_EQ(api::IntAt(status, "readyReplicas"), 1);
  EXPECT_EQ(api::IntAt(status, "availableReplicas"), 1);
  EXPECT_EQ(api::IntAt(status, "observedGeneration"), 1);
  EXPECT_FALSE(status && status->contains("conditions"));
}

// A pod seen ready while its owner had no minReadySeconds, the owner then
// given some: no pod event comes again, yet the replica is counted
// available once it has been ready that long (kube's requeue after
// minReadySeconds when every replica is ready but not all available).
TEST_P(ReplicatedKindTest, ReadyReplicasBecomeAvailableAfterMinReadySecondsWithoutAnotherEvent) {
  auto owner = CreateOwner("web", 1);
  ASSERT_TRUE(owner);
  SyncOk("web");
  auto pods = OwnedPods(*owner);
  ASSERT_EQ(pods.size(), 1u);
  const std::string now = api::FormatRfc3339(clock_.WallNow());
  Edit(
      api::Kind::kPod, pods[0]->name(),
      [&](json::object& p) {
        p["status"] = json::object{{"phase", "Running"},
                                   {"conditions", json::array{json::object{
                                                      {"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", now}}}}};
      },
      /*status=*/true);
  Edit(kind(), "web", [](json::object& o) { o["spec"].as_object()["minReadySeconds"] = 5; });
  Settle();
  controller_->Run();
  auto available = [&] { return api::IntAt(StatusOf("web"), "availableReplicas"); };
  auto ready = [&] { return api::IntAt(StatusOf("web"), "readyReplicas"); };
  for (int i = 0; i < 5000 && ready() != 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(ready(), 1);
  EXPECT_EQ(available(), 0);  // ready for less than 5 s
  clock_.Step(std::chrono::seconds(6));
  for (int i = 0; i < 5000 && available() != 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(available(), 1);
  controller_->Stop();
}

TEST_P(ReplicatedKindTest, AdoptsAMatchingOrphanAndReleasesAPodWhoseLabelsStopMatching) {
  Create(api::Kind::kPod,
         R"({"metadata":{"name":"orphan","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto owner = CreateOwner("web", 2);
  ASSERT_TRUE(owner);
  SyncOk("web");
  EXPECT_EQ(Pods().size(), 2u);  // the orphan counts: one more
  EXPECT_EQ(ControllerUid(*Get(api::Kind::kPod, "orphan"), owner->info().name), owner->uid());
  SyncOk("web");
  // The orphan lacks the template's tier label: not fully labeled.
  EXPECT_EQ(api::IntAt(StatusOf("web"), "replicas"), 2);
  EXPECT_EQ(api::IntAt(StatusOf("web"), "fullyLabeledReplicas"), 1);

  Edit(api::Kind::kPod, "orphan", [](json::object& p) {
    api::MutableObject(p, "metadata")["labels"] = json::object{{"app", "other"}};
  });
  SyncOk("web");
  api::ObjectPtr released = Get(api::Kind::kPod, "orphan");
  ASSERT_TRUE(released);
  EXPECT_FALSE(HasControllerRef(*released));
  EXPECT_EQ(Pods().size(), 3u);  // a replacement for the released pod
  EXPECT_EQ(OwnedPods(*owner).size(), 2u);
}

TEST_P(ReplicatedKindTest, ScalesDownToSpecReplicas) {
  auto owner = CreateOwner("web", 3);
  ASSERT_TRUE(owner);
  SyncOk("web");
  ASSERT_EQ(Pods().size(), 3u);
  Edit(kind(), "web", [](json::object& o) { api::MutableObject(o, "spec")["replicas"] = 1; });
  SyncOk("web");
  auto left = Pods();
  ASSERT_EQ(left.size(), 1u);
  size_t deleted = 0;
  for (const auto& e : EventsAbout("web")) {
    if (e.starts_with(source() + " Normal SuccessfulDelete: Deleted pod: web-")) ++deleted;
  }
  EXPECT_EQ(deleted, 2u);
  SyncOk("web");
  EXPECT_EQ(api::IntAt(StatusOf("web"), "replicas"), 1);
  EXPECT_EQ(api::IntAt(StatusOf("web"), "observedGeneration"), 2);
}

TEST_P(ReplicatedKindTest, ReportsReplicaFailureWhileCreatesAreRefusedAndClearsItAfter) {
  ForbidPods();
  ASSERT_TRUE(CreateOwner("web", 2));
  Status refused = Sync("web");
  ASSERT_EQ(refused.code(), StatusCode::kForbidden) << refused.message();
  EXPECT_NE(refused.message().find("exceeded quota: no-pods, requested: pods=1, used: pods=0, limited: pods=0"),
            std::string::npos)
      << refused.message();
  EXPECT_TRUE(Pods().empty());

  const json::object* status = StatusOf("web");
  EXPECT_EQ(api::IntAt(status, "replicas", -1), 0);
  const json::object* failure = api::FindCondition(status, "ReplicaFailure");
  ASSERT_TRUE(failure);
  std::vector<std::string> fields;
  for (const auto& [k, v] : *failure) fields.emplace_back(k);
  // kube's ReplicaSetCondition, in its field order.
  EXPECT_EQ(fields, (std::vector<std::string>{"type", "status", "lastTransitionTime", "reason", "message"}));
  EXPECT_EQ(failure->at("status").as_string(), "True");
  EXPECT_EQ(failure->at("reason").as_string(), "FailedCreate");
  EXPECT_EQ(failure->at("message").as_string(), refused.message());
  EXPECT_EQ(EventsAbout("web"),
            (std::vector<std::string>{source() + " Warning FailedCreate: Error creating: " + refused.message()}));

  // Still refused later: the condition stays as first written.
  const json::object first = *failure;
  clock_.Step(std::chrono::minutes(1));
  EXPECT_FALSE(Sync("web").ok());
  failure = api::FindCondition(StatusOf("web"), "ReplicaFailure");
  ASSERT_TRUE(failure);
  EXPECT_EQ(*failure, first);

  // The quota gone, the next sync creates the pods and drops the condition.
  ASSERT_TRUE(client_->Delete(api::Kind::kResourceQuota, "default", "no-pods").ok());
  SyncOk("web");
  EXPECT_EQ(Pods().size(), 2u);
  status = StatusOf("web");
  EXPECT_FALSE(api::FindCondition(status, "ReplicaFailure"));
  EXPECT_FALSE(status && status->contains("conditions"));
}

INSTANTIATE_TEST_SUITE_P(BothKinds, ReplicatedKindTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<OwnerCase>& info) { return info.param.name; });

class ReplicationControllerTest : public ReplicatedKindTest {};

TEST_P(ReplicationControllerTest, WithoutASelectorSelectsItsTemplateLabels) {
  Create(api::Kind::kPod, R"({"metadata":{"name":"orphan","labels":{"app":"web","tier":"front"}},)"
                          R"("spec":{"containers":[{"name":"c","image":"i"}]}})");
  auto rc = Create(api::Kind::kReplicationController,
                   R"({"metadata":{"name":"web"},"spec":{"replicas":2,"template":{"metadata":{"labels":)" +
                       std::string(kTemplateLabels) + R"(},"spec":{"containers":[{"name":"c","image":"i"}]}}}})");
  ASSERT_TRUE(rc);
  SyncOk("web");
  EXPECT_EQ(OwnedPods(*rc).size(), 2u);
  EXPECT_EQ(ControllerUid(*Get(api::Kind::kPod, "orphan"), "ReplicationController"), rc->uid());
}

INSTANTIATE_TEST_SUITE_P(ReplicationControllerOnly, ReplicationControllerTest, ::testing::Values(kCases[1]),
                         [](const ::testing::TestParamInfo<OwnerCase>& info) { return info.param.name; });

// ---- Without an API server ----

api::ObjectPtr Parse(const std::string& text) { return api::Object::FromJson(json::parse(text).as_object()).value(); }

// A ReplicaSet of `replicas` at generation 3 selecting app=a, with `status`.
api::ObjectPtr Owner(int replicas, const std::string& status = "{}") {
  const std::string spec = R"({"replicas":)" + std::to_string(replicas) +
                           R"(,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}}}})";
  return Parse(R"({"apiVersion":"apps/v1","kind":"ReplicaSet",)"
               R"("metadata":{"name":"rs","namespace":"default","generation":3},"spec":)" +
               spec + R"(,"status":)" + status + "}");
}

api::ObjectPtr ActivePod(const std::string& name) {
  return Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
               R"(","namespace":"default","labels":{"app":"a"}},"spec":{},"status":{"phase":"Pending"}})");
}

const auto kNow = std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 56));  // early 2026

TEST(ReplicaStatus, AFailureWithTooManyPodsIsFailedDelete) {
  auto status =
      CalculateStatus(*Owner(1), {ActivePod("a"), ActivePod("b")}, Status(StatusCode::kInternal, "etcd is down"), kNow);
  const json::object* failure = api::FindCondition(&status, "ReplicaFailure");
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->at("reason").as_string(), "FailedDelete");
  EXPECT_EQ(failure->at("message").as_string(), "etcd is down");
  EXPECT_EQ(api::IntAt(&status, "replicas"), 2);
  EXPECT_EQ(api::IntAt(&status, "fullyLabeledReplicas"), 2);
  EXPECT_FALSE(status.contains("readyReplicas"));  // zero: left out
  EXPECT_EQ(api::IntAt(&status, "observedGeneration"), 3);
}

TEST(ReplicaStatus, AnExistingFailureIsKeptWhileErrorsGoOnAndDroppedAfterASuccess) {
  const std::string failing =
      R"({"replicas":0,"observedGeneration":3,"conditions":[{"type":"ReplicaFailure","status":"True",
    "lastTransitionTime":"2026-01-01T00:00:00Z","reason":"FailedCreate","message":"first"}]})";
  auto owner = Owner(1, failing);
  auto kept = CalculateStatus(*owner, {}, Status(StatusCode::kForbidden, "second"), kNow);
  EXPECT_EQ(kept.at("conditions"), api::StatusOf(*owner)->at("conditions"));
  EXPECT_FALSE(StatusDiffers(api::StatusOf(*owner), kept));

  auto cleared = CalculateStatus(*owner, {}, Status::Ok(), kNow);
  EXPECT_FALSE(cleared.contains("conditions"));
  EXPECT_TRUE(StatusDiffers(api::StatusOf(*owner), cleared));
}

TEST(ReplicationControllerSelector, IsAMapOfEqualitiesOrElseTheTemplateLabels) {
  auto rc = [](const std::string& spec) {
    return Parse(R"({"apiVersion":"v1","kind":"ReplicationController",)"
                 R"("metadata":{"name":"rc","namespace":"default"},"spec":)" +
                 spec + "}");
  };
  api::LabelSelector by_map = OwnerSelector(*rc(R"({"selector":{"app":"web"}})"));
  EXPECT_TRUE(by_map.Matches({{"app", "web"}, {"tier", "front"}}));
  EXPECT_FALSE(by_map.Matches({{"app", "db"}}));
  EXPECT_FALSE(by_map.Matches({}));

  // Absent, as kube's defaulting would have filled it in.
  api::LabelSelector by_template =
      OwnerSelector(*rc(R"({"template":{"metadata":{"labels":{"app":"web","tier":"front"}}}})"));
  EXPECT_TRUE(by_template.Matches({{"app", "web"}, {"tier", "front"}}));
  EXPECT_FALSE(by_template.Matches({{"app", "web"}}));

  EXPECT_TRUE(OwnerSelector(*rc("{}")).SelectsNothing());
  // Its keys are labels, even one named like a LabelSelector's field.
  EXPECT_TRUE(OwnerSelector(*rc(R"({"selector":{"matchLabels":"x"}})")).Matches({{"matchLabels", "x"}}));
}

}  // namespace
}  // namespace berth::controllers
