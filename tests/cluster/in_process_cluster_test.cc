// A whole cluster in one process, as `berth serve` builds it: a pod created
// through the API is scheduled, bound and run by a simulated kubelet; a pod
// that fits nowhere is reported through the API; controllers are chosen by
// kube's names; the store, metrics and HTTP listener are wired.

#include "cluster/in_process_cluster.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <boost/json.hpp>

#include "client/http_client.h"
#include "cluster/in_process_transport.h"
#include "cluster/sim_fleet.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// Polls `done` for up to ten seconds.
template <typename F>
bool Eventually(F done) {
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

ClusterOptions InMemoryWithSimNodes(int nodes) {
  ClusterOptions o;
  o.api.seed = 7;
  o.scheduler_options.seed = 7;
  if (nodes > 0) {
    SimFleetFlags flags;
    flags.nodes = nodes;
    flags.heartbeat_period = "1s";
    o.controllers.sim = BuildSimFleet(flags).value();
  }
  return o;
}

json::object Pod(const std::string& name, const std::string& cpu) {
  return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                     R"("},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":")" +
                     cpu + R"("}}}]}})")
      .as_object();
}

TEST(InProcessCluster, PodCreatedThroughTheApiRunsOnASimulatedNode) {
  auto cluster = InProcessCluster::Create(InMemoryWithSimNodes(2)).value();
  ASSERT_TRUE(cluster->Start().ok());
  ASSERT_NE(cluster->scheduler(), nullptr);
  ASSERT_NE(cluster->controllers(), nullptr);
  client::RestClient client(InProcessTransport(cluster->api(), "test"));
  ASSERT_TRUE(client.Create(api::Kind::kPod, "default", Pod("web", "100m")).ok());

  api::ObjectPtr pod;
  ASSERT_TRUE(Eventually([&] {
    auto got = client.Get(api::Kind::kPod, "default", "web");
    if (!got.ok()) return false;
    pod = got.value();
    return pod->FieldValue("status.phase") == "Running";
  })) << (pod ? pod->FieldValue("status.phase") : "no pod");
  EXPECT_EQ(pod->FieldValue("spec.nodeName").rfind("sim-node-", 0), 0u) << pod->FieldValue("spec.nodeName");
  cluster->Stop();
  cluster->Stop();  // idempotent
}

TEST(InProcessCluster, PodThatFitsNowhereIsReportedThroughTheApi) {
  auto cluster = InProcessCluster::Create(InMemoryWithSimNodes(1)).value();
  ASSERT_TRUE(cluster->Start().ok());
  client::RestClient client(InProcessTransport(cluster->api(), "test"));
  ASSERT_TRUE(client.Create(api::Kind::kPod, "default", Pod("huge", "640")).ok());

  std::string reason, message;
  ASSERT_TRUE(Eventually([&] {
    auto got = client.Get(api::Kind::kPod, "default", "huge");
    if (!got.ok()) return false;
    const json::object& status = got.value()->json().at("status").as_object();
    auto conditions = status.find("conditions");
    if (conditions == status.end()) return false;
    for (const auto& c : conditions->value().as_array()) {
      if (c.at("type") != "PodScheduled") continue;
      reason = std::string(c.at("reason").as_string());
      message = std::string(c.at("message").as_string());
      // A cycle that ran before the simulated node was in the scheduler's
      // cache says "no nodes available"; the node's arrival retries the pod.
      return c.at("status") == "False" && c.at("lastTransitionTime").is_string() &&
             message.starts_with("0/1 nodes");
    }
    return false;
  }));
  EXPECT_EQ(reason, "Unschedulable");
  EXPECT_EQ(message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
            "victims found for incoming pod..");
  // And the event kube-scheduler records with it.
  ASSERT_TRUE(Eventually([&] {
    auto events = client.List(api::Kind::kEvent, "default");
    if (!events.ok()) return false;
    for (const auto& e : events.value()) {
      if (e->FieldValue("reason") == "FailedScheduling" && e->FieldValue("involvedObject.name") == "huge") return true;
    }
    return false;
  }));
}

TEST(InProcessCluster, ControllersAreChosenByKubesNames) {
  EXPECT_EQ(KnownControllers(),
            (std::vector<std::string>{"replicaset-controller", "deployment-controller", "daemonset-controller",
                                      "statefulset-controller", "replicationcontroller-controller",
                                      "garbage-collector-controller", "namespace-controller", "serviceaccount-controller",
                                      "serviceaccount-token-controller", "root-ca-certificate-publisher-controller",
                                      "node-lifecycle-controller", "disruption-controller",
                                      "pod-garbage-collector-controller", "cronjob-controller",
                                      "endpointslice-controller", "endpoints-controller", "resourcequota-controller",
                                      "job-controller", "ttl-after-finished-controller",
                                      "persistentvolume-binder-controller", "persistentvolume-protection-controller",
                                      "persistentvolumeclaim-protection-controller", "sim-csi-provisioner"}));
  EXPECT_EQ(SelectControllers({"*"}).value(), KnownControllers());
  EXPECT_EQ(SelectControllers({"*", "-nodelifecycle", "-podgc", "-cronjob"}).value(),
            (std::vector<std::string>{"replicaset-controller", "deployment-controller", "daemonset-controller",
                                      "statefulset-controller", "replicationcontroller-controller",
                                      "garbage-collector-controller", "namespace-controller", "serviceaccount-controller",
                                      "serviceaccount-token-controller", "root-ca-certificate-publisher-controller",
                                      "disruption-controller", "endpointslice-controller", "endpoints-controller",
                                      "resourcequota-controller", "job-controller", "ttl-after-finished-controller",
                                      "persistentvolume-binder-controller", "persistentvolume-protection-controller",
                                      "persistentvolumeclaim-protection-controller", "sim-csi-provisioner"}));
  EXPECT_EQ(SelectControllers({"ttlafterfinished", "job"}).value(),
            (std::vector<std::string>{"job-controller", "ttl-after-finished-controller"}));
  EXPECT_EQ(SelectControllers({"replicaset", "deployment-controller"}).value(),
            (std::vector<std::string>{"replicaset-controller", "deployment-controller"}));
  EXPECT_TRUE(SelectControllers({}).value().empty());
  auto unknown = SelectControllers({"*", "-bogus"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "--controllers: \"bogus\" is not in the list of known controllers");

  ClusterOptions o = InMemoryWithSimNodes(0);
  o.controllers.controllers = {"*", "-node-lifecycle-controller", "-garbagecollector"};
  auto cluster = InProcessCluster::Create(std::move(o)).value();
  ASSERT_TRUE(cluster->Start().ok());
  ASSERT_NE(cluster->controllers(), nullptr);
  EXPECT_EQ(cluster->controllers()->running(),
            (std::vector<std::string>{"replicaset-controller", "deployment-controller", "daemonset-controller",
                                      "statefulset-controller", "replicationcontroller-controller",
                                      "namespace-controller", "serviceaccount-controller",
                                      // No service account key here: the tokens controller is skipped, as kube skips it.
                                      "root-ca-certificate-publisher-controller", "disruption-controller",
                                      "pod-garbage-collector-controller", "cronjob-controller",
                                      "endpointslice-controller", "endpoints-controller", "resourcequota-controller",
                                      "job-controller", "ttl-after-finished-controller",
                                      "persistentvolume-binder-controller", "persistentvolume-protection-controller",
                                      "persistentvolumeclaim-protection-controller", "sim-csi-provisioner"}));

  ClusterOptions none = InMemoryWithSimNodes(0);
  none.controllers.controllers.clear();
  auto bare = InProcessCluster::Create(std::move(none)).value();
  ASSERT_TRUE(bare->Start().ok());
  EXPECT_EQ(bare->controllers(), nullptr);
}

TEST(InProcessCluster, DurableStoreKeepsWhatWasWrittenAcrossARestart) {
  auto dir = std::filesystem::temp_directory_path() /
             ("berth-cluster-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  {
    ClusterOptions o = InMemoryWithSimNodes(0);
    o.data_dir = dir.string();
    auto cluster = InProcessCluster::Create(std::move(o)).value();
    ASSERT_TRUE(cluster->Start().ok());
    client::RestClient client(InProcessTransport(cluster->api(), "test"));
    ASSERT_TRUE(client.Create(api::Kind::kNamespace, "",
                              json::parse(R"({"metadata":{"name":"kept"}})").as_object())
                    .ok());
  }
  {
    ClusterOptions o = InMemoryWithSimNodes(0);
    o.data_dir = dir.string();
    auto cluster = InProcessCluster::Create(std::move(o)).value();
    client::RestClient client(InProcessTransport(cluster->api(), "test"));
    EXPECT_TRUE(client.Get(api::Kind::kNamespace, "", "kept").ok());
  }
  std::filesystem::remove_all(dir);
}

TEST(InProcessCluster, ServesHttpWithMetricsOfEveryComponent) {
  ClusterOptions o = InMemoryWithSimNodes(1);
  apiserver::HttpServer::Options http;
  http.address = "127.0.0.1";
  http.port = 0;  // any free port
  o.http = http;
  auto cluster = InProcessCluster::Create(std::move(o)).value();
  ASSERT_TRUE(cluster->Start().ok());
  ASSERT_NE(cluster->http(), nullptr);
  auto http_client =
      client::HttpClient::Connect("http://127.0.0.1:" + std::to_string(cluster->http()->port())).value();
  auto nodes = http_client->Request("GET", "/api/v1/nodes");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes.value().status, 200);
  // A request is counted once answered, so the count may trail the answer.
  std::string text;
  EXPECT_TRUE(Eventually([&] {
    auto metrics = http_client->Request("GET", "/metrics");
    text = metrics.ok() ? metrics.value().body : "";
    return text.find("apiserver_request_total{verb=\"LIST\",dry_run=\"\",group=\"\",version=\"v1\","
                     "resource=\"nodes\",subresource=\"\",scope=\"cluster\",component=\"apiserver\","
                     "code=\"200\"}") != std::string::npos;
  })) << text.substr(0, 2000);
  EXPECT_NE(text.find("scheduler_schedule_attempts_total"), std::string::npos);
  EXPECT_NE(text.find("workqueue_adds_total"), std::string::npos);
  cluster->Stop();
  EXPECT_EQ(cluster->http(), nullptr);
}

}  // namespace
}  // namespace berth::cluster
