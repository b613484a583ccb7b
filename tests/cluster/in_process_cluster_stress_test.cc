// The in-process cluster under concurrent use (run under ThreadSanitizer in
// CI): clients on several threads create pods while the scheduler, the
// controllers and the simulated kubelets work; every pod ends bound and
// Running, no node holds more pods than it allows, and Stop is clean while
// work may still be queued.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include <boost/json.hpp>

#include "api/pod_view.h"
#include "cluster/in_process_cluster.h"
#include "cluster/in_process_transport.h"
#include "cluster/sim_fleet.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(InProcessClusterStress, PodsCreatedFromManyThreadsAllRun) {
  ClusterOptions o;
  o.api.seed = 3;
  o.scheduler_options.seed = 3;
  o.scheduler_options.concurrent = 4;
  SimFleetFlags fleet;
  fleet.nodes = 4;
  fleet.pods = 20;
  fleet.heartbeat_period = "1s";
  o.controllers.sim = BuildSimFleet(fleet).value();
  auto cluster = InProcessCluster::Create(std::move(o)).value();
  ASSERT_TRUE(cluster->Start().ok());

  constexpr int kThreads = 4, kPodsEach = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      client::RestClient client(InProcessTransport(cluster->api(), "stress"));
      for (int i = 0; i < kPodsEach; ++i) {
        std::string name = "p-" + std::to_string(t) + "-" + std::to_string(i);
        auto pod = json::parse(R"({"metadata":{"name":")" + name +
                               R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})")
                       .as_object();
        if (!client.Create(api::Kind::kPod, "default", pod).ok()) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);

  client::RestClient client(InProcessTransport(cluster->api(), "stress"));
  std::map<std::string, int> per_node;
  int running = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
    auto pods = client.List(api::Kind::kPod, "default").value();
    per_node.clear();
    running = 0;
    for (const auto& p : pods) {
      if (p->FieldValue("status.phase") == "Running") ++running;
      const std::string node = p->FieldValue("spec.nodeName");
      if (!node.empty()) per_node[node]++;
    }
    if (running == kThreads * kPodsEach) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(running, kThreads * kPodsEach);
  for (const auto& [node, count] : per_node) EXPECT_LE(count, 20) << node;
  cluster->Stop();
}

TEST(InProcessClusterStress, StopsCleanlyWhileWorkIsQueued) {
  ClusterOptions o;
  SimFleetFlags fleet;
  fleet.nodes = 2;
  fleet.heartbeat_period = "1s";
  o.controllers.sim = BuildSimFleet(fleet).value();
  auto cluster = InProcessCluster::Create(std::move(o)).value();
  ASSERT_TRUE(cluster->Start().ok());
  client::RestClient client(InProcessTransport(cluster->api(), "stress"));
  auto deployment = json::parse(R"({"metadata":{"name":"web"},"spec":{"replicas":30,
      "selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
                        .as_object();
  ASSERT_TRUE(client.Create(api::Kind::kDeployment, "default", deployment).ok());
  std::this_thread::sleep_for(5ms);  // controllers, scheduler and kubelets mid-way
  cluster->Stop();
  EXPECT_EQ(cluster->http(), nullptr);
}

}  // namespace
}  // namespace berth::cluster
