// The resource quota controller against a real API server in process:
// status.hard from spec.hard, status.used recounted from the namespace's
// pods, services, claims and other objects as the quota's scopes select them.

#include "controllers/resourcequota/resource_quota_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "api/json_fields.h"
#include "api/time/clock.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

class ResourceQuotaTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    for (const char* ns : {"quota", "elsewhere"}) {
      auto created = client_->Create(api::Kind::kNamespace, "", json::object{{"metadata", {{"name", ns}}}});
      ASSERT_TRUE(created.ok()) << created.status().message();
    }
    controller_ = std::make_unique<ResourceQuotaController>(
        ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_});
    ASSERT_TRUE(informers_->Start().ok());
  }
  // Informers first: their threads call the controller's handlers.
  void TearDown() override {
    informers_->Stop();
    if (controller_) controller_->Stop();
  }

  void Create(api::Kind kind, const std::string& ns, const std::string& text) {
    auto created = client_->Create(kind, ns, json::parse(text).as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  // A pod of one container `c` with `resources`, and `more` fields of its spec.
  void CreatePod(const std::string& ns, const std::string& name, const std::string& resources = "{}",
                 const std::string& more = "") {
    Create(api::Kind::kPod, ns,
           R"({"metadata":{"name":")" + name + R"("},"spec":{"containers":[{"name":"c","image":"i","resources":)" +
               resources + "}]" + more + "}}");
  }
  void CreateQuota(const std::string& name, const std::string& spec) {
    Create(api::Kind::kResourceQuota, "quota", R"({"metadata":{"name":")" + name + R"("},"spec":)" + spec + "}");
  }
  // Plays the kubelet: the pod ends in `phase`.
  void FinishPod(const std::string& ns, const std::string& name, const std::string& phase) {
    auto pod = client_->Get(api::Kind::kPod, ns, name);
    ASSERT_TRUE(pod.ok()) << pod.status().message();
    json::object next = pod.value()->json();
    api::MutableObject(next, "metadata")["resourceVersion"] = std::to_string(pod.value()->resource_version());
    next["status"] = json::object{{"phase", phase}};
    auto written = client_->UpdateStatus(api::Kind::kPod, next);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
  api::ObjectPtr Quota(const std::string& name) {
    auto quota = client_->Get(api::Kind::kResourceQuota, "quota", name);
    EXPECT_TRUE(quota.ok()) << quota.status().message();
    return quota.ok() ? quota.value() : nullptr;
  }
  // The quota's status.<field> ("hard", "used"); empty when absent.
  json::object QuotaStatus(const std::string& name, std::string_view field) {
    api::ObjectPtr quota = Quota(name);
    const json::object* status = quota ? api::StatusOf(*quota) : nullptr;
    const json::object* list = api::ObjectAt(status, field);
    return list ? *list : json::object();
  }
  json::object Used(const std::string& name) { return QuotaStatus(name, "used"); }

  // Waits until the pod informer holds what the API server holds.
  void SettlePods() {
    auto synced = [&] {
      auto listed = client_->List(api::Kind::kPod, "");
      if (!listed.ok()) return false;
      auto& informer = informers_->For(api::Kind::kPod);
      if (informer.Size() != listed.value().size()) return false;
      for (const auto& o : listed.value()) {
        auto cached = informer.Get(client::ObjectKey(*o));
        if (!cached || cached->resource_version() != o->resource_version()) return false;
      }
      return true;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!synced() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(synced()) << "the pod informer did not catch up";
  }
  void Reconcile(const std::string& name) {
    SettlePods();
    Status s = controller_->ReconcileForTest("quota/" + name);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  // Polls (for at most 5s) until the quota's status.used is `want`.
  void EventuallyUsed(const std::string& name, std::string_view want) {
    const json::value expected = json::parse(want);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (json::value(Used(name)) != expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    EXPECT_EQ(json::value(Used(name)), expected);
  }

  api::FakeClock clock_;
  std::unique_ptr<ResourceQuotaController> controller_;
};

TEST_F(ResourceQuotaTest, HardIsTheSpecsAndUsedCountsTheNamespacesObjects) {
  CreatePod("quota", "small", R"({"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}})");
  CreatePod("quota", "big", R"({"requests":{"cpu":"1","memory":"1Gi"}})");
  CreatePod("quota", "done", R"({"requests":{"cpu":"4"}})");
  FinishPod("quota", "done", "Succeeded");  // a finished pod uses nothing
  Create(api::Kind::kConfigMap, "quota", R"({"metadata":{"name":"c1"}})");
  Create(api::Kind::kService, "quota", R"({"metadata":{"name":"np"},"spec":{"type":"NodePort",
      "ports":[{"name":"http","port":80},{"name":"https","port":443}]}})");
  Create(api::Kind::kService, "quota", R"({"metadata":{"name":"plain"},"spec":{"ports":[{"port":80}]}})");
  Create(api::Kind::kPersistentVolumeClaim, "quota", R"({"metadata":{"name":"data"},"spec":{
      "storageClassName":"fast","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  // Another namespace's objects are not counted.
  CreatePod("elsewhere", "other", R"({"requests":{"cpu":"1"}})");
  Create(api::Kind::kConfigMap, "elsewhere", R"({"metadata":{"name":"c2"}})");

  CreateQuota("all", R"({"hard":{"pods":"10","requests.cpu":"4","requests.memory":"4Gi","limits.cpu":"2",
      "configmaps":"5","services":"5","services.nodeports":"4","persistentvolumeclaims":"3",
      "requests.storage":"10Gi","fast.storageclass.storage.k8s.io/requests.storage":"5Gi","secrets":"3"}})");
  Reconcile("all");

  api::ObjectPtr quota = Quota("all");
  ASSERT_NE(quota, nullptr);
  const json::object* spec_hard = api::ObjectAt(api::ObjectAt(quota->json(), "spec"), "hard");
  ASSERT_NE(spec_hard, nullptr);
  EXPECT_EQ(QuotaStatus("all", "hard"), *spec_hard);
  EXPECT_EQ(json::value(Used("all")), json::parse(R"({"pods":"2","requests.cpu":"1100m","requests.memory":"1088Mi",
      "limits.cpu":"200m","configmaps":"1","services":"2","services.nodeports":"2","persistentvolumeclaims":"1",
      "requests.storage":"1Gi","fast.storageclass.storage.k8s.io/requests.storage":"1Gi","secrets":"0"})"));
}

TEST_F(ResourceQuotaTest, ScopesAndScopeSelectorsChooseThePodsCounted) {
  Create(api::Kind::kPriorityClass, "", R"({"metadata":{"name":"high"},"value":1000})");
  CreatePod("quota", "be");
  CreatePod("quota", "burst", R"({"requests":{"cpu":"100m"}})");
  CreatePod("quota", "deadline", "{}", R"(,"activeDeadlineSeconds":60)");
  CreatePod("quota", "urgent", R"({"requests":{"cpu":"200m","memory":"64Mi"}})", R"(,"priorityClassName":"high")");

  CreateQuota("best-effort", R"({"scopes":["BestEffort"],"hard":{"pods":"10"}})");
  CreateQuota("not-best-effort", R"({"scopes":["NotBestEffort"],"hard":{"pods":"10","requests.cpu":"2"}})");
  CreateQuota("terminating", R"({"scopes":["Terminating"],"hard":{"pods":"10"}})");
  CreateQuota("lasting-best-effort", R"({"scopes":["NotTerminating","BestEffort"],"hard":{"pods":"10"}})");
  CreateQuota("high", R"({"scopeSelector":{"matchExpressions":[
      {"scopeName":"PriorityClass","operator":"In","values":["high"]}]},"hard":{"pods":"10","requests.memory":"1Gi"}})");
  CreateQuota("not-high", R"({"scopeSelector":{"matchExpressions":[
      {"scopeName":"PriorityClass","operator":"NotIn","values":["high"]}]},"hard":{"pods":"10"}})");
  for (const char* name :
       {"best-effort", "not-best-effort", "terminating", "lasting-best-effort", "high", "not-high"}) {
    Reconcile(name);
  }

  EXPECT_EQ(json::value(Used("best-effort")), json::parse(R"({"pods":"2"})"));
  EXPECT_EQ(json::value(Used("not-best-effort")), json::parse(R"({"pods":"2","requests.cpu":"300m"})"));
  EXPECT_EQ(json::value(Used("terminating")), json::parse(R"({"pods":"1"})"));
  EXPECT_EQ(json::value(Used("lasting-best-effort")), json::parse(R"({"pods":"1"})"));
  EXPECT_EQ(json::value(Used("high")), json::parse(R"({"pods":"1","requests.memory":"64Mi"})"));
  EXPECT_EQ(json::value(Used("not-high")), json::parse(R"({"pods":"3"})"));
}

TEST_F(ResourceQuotaTest, RecountsWhatAdmissionChargedAndWritesOnlyChanges) {
  CreateQuota("objects", R"({"hard":{"configmaps":"10","services":"10"}})");
  Reconcile("objects");
  EXPECT_EQ(json::value(Used("objects")), json::parse(R"({"configmaps":"0","services":"0"})"));
  const int64_t counted = Quota("objects")->resource_version();
  Reconcile("objects");
  EXPECT_EQ(Quota("objects")->resource_version(), counted);  // nothing changed: nothing written

  Create(api::Kind::kConfigMap, "quota", R"({"metadata":{"name":"c1"}})");
  Create(api::Kind::kConfigMap, "quota", R"({"metadata":{"name":"c2"}})");
  Create(api::Kind::kService, "quota", R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}})");
  // Deletes give nothing back at admission: the recount does.
  ASSERT_TRUE(client_->Delete(api::Kind::kConfigMap, "quota", "c1").ok());
  Reconcile("objects");
  EXPECT_EQ(json::value(Used("objects")), json::parse(R"({"configmaps":"1","services":"1"})"));
}

TEST_F(ResourceQuotaTest, AQuotaThatIsGoneIsNoError) {
  EXPECT_TRUE(controller_->ReconcileForTest("quota/gone").ok());
}

TEST_F(ResourceQuotaTest, RunningItFollowsPodsThatFinishOrGoAndSpecChanges) {
  CreatePod("quota", "a");
  CreatePod("quota", "b");
  CreatePod("elsewhere", "c");
  Create(api::Kind::kConfigMap, "quota", R"({"metadata":{"name":"cm"}})");
  SettlePods();
  controller_->Run();
  CreateQuota("pods", R"({"hard":{"pods":"5"}})");
  EventuallyUsed("pods", R"({"pods":"2"})");

  FinishPod("quota", "a", "Succeeded");
  EventuallyUsed("pods", R"({"pods":"1"})");
  client::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "quota", "b", now).ok());
  EventuallyUsed("pods", R"({"pods":"0"})");

  // The spec changes; retried should the controller have written status meanwhile.
  Status written = Status::Conflict("not written yet");
  for (int attempt = 0; attempt < 10 && written.code() == StatusCode::kConflict; ++attempt) {
    api::ObjectPtr quota = Quota("pods");
    ASSERT_NE(quota, nullptr);
    json::object next = quota->json();
    api::MutableObject(next, "metadata")["resourceVersion"] = std::to_string(quota->resource_version());
    api::MutableObject(next, "spec")["hard"] = json::object{{"pods", "5"}, {"configmaps", "4"}};
    auto updated = client_->Update(api::Kind::kResourceQuota, next);
    written = updated.ok() ? Status::Ok() : updated.status();
  }
  ASSERT_TRUE(written.ok()) << written.message();
  EventuallyUsed("pods", R"({"pods":"0","configmaps":"1"})");
  EXPECT_EQ(json::value(QuotaStatus("pods", "hard")), json::parse(R"({"pods":"5","configmaps":"4"})"));
}

// A pod's update that frees nothing (bound, started) is not recounted, as
// kube's replenishment: admission may have charged a create whose pod is not
// stored yet, and a recount would give its share back early (the quota then
// admits one pod too many).
TEST_F(ResourceQuotaTest, AnUpdateThatFreesNothingLeavesAdmissionsChargesAlone) {
  CreatePod("quota", "a");
  SettlePods();
  controller_->Run();
  CreateQuota("pods", R"({"hard":{"pods":"5"}})");
  EventuallyUsed("pods", R"({"pods":"1"})");
  // Admission charges a create still in flight.
  api::ObjectPtr quota = Quota("pods");
  ASSERT_NE(quota, nullptr);
  json::object charged = quota->json();
  api::MutableObject(charged, "metadata")["resourceVersion"] = std::to_string(quota->resource_version());
  api::MutableObject(api::MutableObject(charged, "status"), "used")["pods"] = "2";
  ASSERT_TRUE(client_->UpdateStatus(api::Kind::kResourceQuota, charged).ok());
  FinishPod("quota", "a", "Running");
  SettlePods();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(json::value(Used("pods")), json::parse(R"({"pods":"2"})"));
  // A pod that finishes gives its share back: the recount.
  FinishPod("quota", "a", "Succeeded");
  EventuallyUsed("pods", R"({"pods":"0"})");
}

}  // namespace
}  // namespace berth::controllers
