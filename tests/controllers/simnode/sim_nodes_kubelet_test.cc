// The simulated kubelets against a real API server: pod statuses written
// through it as time (a FakeClock) passes, pod IPs that stay unique when the
// kubelets start again over pods that already run, and a node taken down
// that stays down when they start again.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <set>
#include <thread>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "controllers/simnode/sim_nodes.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

class SimKubeletTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    SimNodesOptions options;
    options.groups.push_back({.count = 1, .name_prefix = "sim-"});
    options.default_run_duration = std::chrono::seconds(2);
    sim_ = std::make_unique<SimNodes>(ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_}, options);
    ASSERT_TRUE(sim_->Register().ok());
  }
  void TearDown() override {
    informers_->Stop();
    sim_.reset();
  }

  void CreatePod(const std::string& name, const std::string& annotations, const std::string& restart_policy) {
    auto created = client_->Create(
        api::Kind::kPod, "default",
        json::parse(R"({"metadata":{"name":")" + name + R"(","annotations":)" + annotations +
                    R"(},"spec":{"nodeName":"sim-0","restartPolicy":")" + restart_policy +
                    R"(","containers":[{"name":"c","image":"busybox"}]}})")
            .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  // Waits until the informer's copy of the pod satisfies `done`.
  api::ObjectPtr WaitUntil(const std::string& name, const std::function<bool(const api::Object&)>& done) {
    api::ObjectPtr pod;
    for (int i = 0; i < 5000; ++i) {
      pod = informers_->For(api::Kind::kPod).Get("default/" + name);
      if (pod && done(*pod)) return pod;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "timed out waiting for pod " << name;
    return pod;
  }
  static std::string_view Phase(const api::Object& pod) { return api::StringAt(api::StatusOf(pod), "phase"); }
  static std::string PodIp(const api::Object& pod) { return std::string(api::StringAt(api::StatusOf(pod), "podIP")); }
  api::ObjectPtr Reconciled(const std::string& name, const std::function<bool(const api::Object&)>& done) {
    EXPECT_TRUE(sim_->ReconcileForTest("default/" + name).ok());
    return WaitUntil(name, done);
  }

  api::FakeClock clock_;  // outlives the kubelets
  std::unique_ptr<SimNodes> sim_;
};

TEST_F(SimKubeletTest, AFailingNeverPodEndsFailedWithItsExitCode) {
  ASSERT_TRUE(informers_->Start().ok());
  CreatePod("fails", R"({"sim.berth.dev/exit-code":"3","sim.berth.dev/run-duration":"5s"})", "Never");
  WaitUntil("fails", [](const api::Object&) { return true; });
  Reconciled("fails", [](const api::Object& p) { return Phase(p) == "Running"; });
  clock_.Step(std::chrono::seconds(4));
  auto pod = Reconciled("fails", [](const api::Object& p) { return Phase(p) == "Running"; });
  EXPECT_EQ(Phase(*pod), "Running");
  clock_.Step(std::chrono::seconds(2));
  pod = Reconciled("fails", [](const api::Object& p) { return Phase(p) == "Failed"; });
  ASSERT_EQ(Phase(*pod), "Failed");
  const json::object& cs = api::StatusOf(*pod)->at("containerStatuses").as_array().at(0).as_object();
  const json::object* terminated = api::ObjectAt(api::ObjectAt(cs, "state"), "terminated");
  ASSERT_NE(terminated, nullptr);
  EXPECT_EQ(api::IntAt(terminated, "exitCode"), 3);
  EXPECT_EQ(api::StringAt(terminated, "reason"), "Error");
}

TEST_F(SimKubeletTest, APlainNeverPodCompletesAfterTheDefaultRunDuration) {
  ASSERT_TRUE(informers_->Start().ok());
  CreatePod("plain", "{}", "Never");
  WaitUntil("plain", [](const api::Object&) { return true; });
  Reconciled("plain", [](const api::Object& p) { return Phase(p) == "Running"; });
  clock_.Step(std::chrono::seconds(1));
  EXPECT_EQ(Phase(*Reconciled("plain", [](const api::Object&) { return true; })), "Running");
  clock_.Step(std::chrono::seconds(2));
  EXPECT_EQ(Phase(*Reconciled("plain", [](const api::Object& p) { return Phase(p) == "Succeeded"; })),
            "Succeeded");
}

TEST_F(SimKubeletTest, PodIpsStayUniqueOverPodsThatAlreadyRun) {
  // Pods a restarted server finds: two running, one finished.
  auto with_status = [&](const std::string& name, const std::string& phase, const std::string& ip) {
    CreatePod(name, "{}", "Always");
    auto pod = client_->Get(api::Kind::kPod, "default", name);
    ASSERT_TRUE(pod.ok());
    json::object next = pod.value()->json();
    next["status"] = json::object{{"phase", phase}, {"podIP", ip}, {"startTime", "2026-01-01T00:00:00Z"},
                                  {"podIPs", json::array{json::object{{"ip", ip}}}}};
    ASSERT_TRUE(client_->UpdateStatus(api::Kind::kPod, next).ok());
  };
  with_status("old-1", "Running", "10.244.0.1");
  with_status("old-2", "Running", "10.244.0.3");
  with_status("done", "Succeeded", "10.244.0.5");
  ASSERT_TRUE(informers_->Start().ok());
  std::set<std::string> ips{"10.244.0.1", "10.244.0.3", "10.244.0.5"};
  for (const std::string name : {"new-1", "new-2", "new-3"}) {
    CreatePod(name, "{}", "Always");
    WaitUntil(name, [](const api::Object&) { return true; });
    auto pod = Reconciled(name, [](const api::Object& p) { return Phase(p) == "Running"; });
    std::string ip = PodIp(*pod);
    EXPECT_TRUE(ips.insert(ip).second) << name << " got " << ip << ", already in use";
  }
  // New addresses continue after the highest one handed out.
  EXPECT_EQ(PodIp(*informers_->For(api::Kind::kPod).Get("default/new-1")), "10.244.0.6");
}

TEST_F(SimKubeletTest, ANodeTakenDownStaysDownWhenTheKubeletsStartAgain) {
  ASSERT_TRUE(informers_->Start().ok());
  // The node as a previous server left it: down, and NotReady.
  auto node = client_->Get(api::Kind::kNode, "", "sim-0");
  ASSERT_TRUE(node.ok());
  json::object down = node.value()->json();
  api::MutableObject(api::MutableObject(down, "metadata"), "annotations")[kSimDownAnnotation] = "true";
  auto updated = client_->Update(api::Kind::kNode, down);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  json::object unknown = updated.value()->json();
  api::SetCondition(api::MutableObject(unknown, "status"), {"Ready", "Unknown", "NodeStatusUnknown", ""}, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(client_->UpdateStatus(api::Kind::kNode, unknown).ok());
  ASSERT_TRUE(client_->Delete(api::Kind::kLease, "kube-node-lease", "sim-0").ok());

  SimNodesOptions options;
  options.groups.push_back({.count = 1, .name_prefix = "sim-"});
  SimNodes again(ControllerContext{*client_, *informers_, nullptr, nullptr, &clock_}, options);
  ASSERT_TRUE(again.Register().ok());
  auto after = client_->Get(api::Kind::kNode, "", "sim-0");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(api::StringAt(api::FindCondition(api::StatusOf(*after.value()), "Ready"), "status"), "Unknown");
  EXPECT_EQ(client_->Get(api::Kind::kLease, "kube-node-lease", "sim-0").status().code(), StatusCode::kNotFound);
}

TEST_F(SimKubeletTest, ANodeCreatedWithTheSimulatedLabelGetsAKubeletOfItsOwn) {
  ASSERT_TRUE(informers_->Start().ok());
  sim_->Start();
  SimNodeGroup group{.cpu = "4"};
  ASSERT_TRUE(client_->Create(api::Kind::kNode, "", SimNodeObject(group, "joined", 0, "10.1.0.1")).ok());
  // Another node without the label stays without a kubelet.
  json::object plain = SimNodeObject(group, "plain", 0, "10.1.0.2");
  plain["metadata"].as_object()["labels"].as_object().erase(kSimManagedLabel);
  ASSERT_TRUE(client_->Create(api::Kind::kNode, "", plain).ok());
  auto ready = [&](const std::string& name) {
    auto node = informers_->For(api::Kind::kNode).Get(name);
    return node && api::StringAt(api::FindCondition(api::StatusOf(*node), "Ready"), "status") == "True";
  };
  for (int i = 0; i < 5000 && !ready("joined"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(ready("joined"));
  EXPECT_TRUE(client_->Get(api::Kind::kLease, "kube-node-lease", "joined").ok());
  EXPECT_EQ(sim_->size(), 2);
  // Its pods run.
  ASSERT_TRUE(client_->Create(api::Kind::kPod, "default",
                              json::parse(R"({"metadata":{"name":"p"},"spec":{"nodeName":"joined",
                                  "containers":[{"name":"c","image":"busybox"}]}})").as_object())
                  .ok());
  WaitUntil("p", [](const api::Object& p) { return Phase(p) == "Running"; });
  EXPECT_FALSE(ready("plain"));
  EXPECT_EQ(client_->Get(api::Kind::kLease, "kube-node-lease", "plain").status().code(), StatusCode::kNotFound);
  // Deleted: the kubelet goes with it.
  ASSERT_TRUE(client_->Delete(api::Kind::kNode, "", "joined").ok());
  for (int i = 0; i < 5000 && sim_->size() != 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(sim_->size(), 1);
}

TEST_F(SimKubeletTest, APodWhoseHostPortIsTakenIsRejectedAsKubesKubeletRejectsIt) {
  ASSERT_TRUE(informers_->Start().ok());
  sim_->Start();
  auto with_port = [&](const std::string& name) {
    auto created = client_->Create(api::Kind::kPod, "default",
                                   json::parse(R"({"metadata":{"name":")" + name + R"("},"spec":{"nodeName":"sim-0",
                                       "containers":[{"name":"c","image":"busybox",
                                       "ports":[{"containerPort":80,"hostPort":8080}]}]}})")
                                       .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  };
  with_port("first");
  WaitUntil("first", [](const api::Object& p) { return Phase(p) == "Running"; });
  with_port("second");
  auto second = WaitUntil("second", [](const api::Object& p) { return Phase(p) == "Failed"; });
  ASSERT_EQ(Phase(*second), "Failed");
  const json::object* status = api::StatusOf(*second);
  EXPECT_EQ(api::StringAt(status, "reason"), "NodePorts");
  EXPECT_EQ(api::StringAt(status, "message"),
            "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports");
  EXPECT_TRUE(api::StringAt(status, "podIP").empty());  // never started
}

TEST_F(SimKubeletTest, AnExtendedResourcePatchedIntoTheCapacityBecomesAllocatable) {
  ASSERT_TRUE(informers_->Start().ok());
  sim_->Start();
  auto allocatable = [&](std::string_view resource) -> std::string {
    auto node = informers_->For(api::Kind::kNode).Get("sim-0");
    const json::object* a = node ? api::ObjectAt(api::StatusOf(*node), "allocatable") : nullptr;
    const json::value* v = a ? a->if_contains(resource) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : "";
  };
  auto set_capacity = [&](const std::function<void(json::object&)>& edit) {
    auto node = client_->Get(api::Kind::kNode, "", "sim-0");
    ASSERT_TRUE(node.ok());
    json::object next = node.value()->json();
    edit(api::MutableObject(api::MutableObject(next, "status"), "capacity"));
    auto written = client_->UpdateStatus(api::Kind::kNode, next);
    ASSERT_TRUE(written.ok()) << written.status().message();
  };
  const std::string cpu = allocatable("cpu");
  set_capacity([](json::object& capacity) { capacity["example.com/fakecpu"] = "5"; });
  for (int i = 0; i < 5000 && allocatable("example.com/fakecpu").empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(allocatable("example.com/fakecpu"), "5");
  EXPECT_EQ(allocatable("cpu"), cpu);  // what the kubelet reserves is kept
  // Removed from the capacity: no longer allocatable.
  set_capacity([](json::object& capacity) { capacity.erase("example.com/fakecpu"); });
  for (int i = 0; i < 5000 && !allocatable("example.com/fakecpu").empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(allocatable("example.com/fakecpu"), "");
}

}  // namespace
}  // namespace berth::controllers
