// Preemption with concurrent scheduling cycles (run under ThreadSanitizer in
// CI): high-priority pods arriving from several threads evict low-priority
// ones; no pod is evicted twice, no node ends over-committed, every
// high-priority pod is bound once.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "fake_cluster.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::NodeObject;

api::ObjectPtr PrioPod(const std::string& name, int priority, const std::string& cpu, const std::string& node = "") {
  auto object = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" +
      name + R"("},"spec":{"priority":)" + std::to_string(priority) +
      (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") +
      R"(,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" + cpu + R"("}}}]}})");
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.value();
}

TEST(PreemptionStress, ConcurrentPreemptorsNeverShareVictimsOrOvercommit) {
  SchedulerOptions options;
  options.concurrent = 4;
  options.seed = 11;
  FakeCluster cluster(options);
  auto& s = *cluster.scheduler;
  constexpr int kNodes = 8;
  std::map<std::string, std::string> low_node;  // low pod → its node
  for (int n = 0; n < kNodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    s.OnNodeAdd(NodeObject(node, "4"));
    for (int i = 0; i < 4; ++i) {
      const std::string name = "low-" + std::to_string(n) + "-" + std::to_string(i);
      s.OnPodAdd(PrioPod(name, 0, "1", node));
      low_node["default/" + name] = node;
    }
  }
  s.Start();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) s.OnPodAdd(PrioPod("high-" + std::to_string(t) + "-" + std::to_string(i), 10, "2"));
    });
  }
  for (auto& t : threads) t.join();
  // Preemptors wait out their backoff (1 s) after evicting; wait for all 16.
  for (int i = 0; i < 200 && cluster.Placements().size() < 16; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(cluster.WaitIdle());

  std::map<std::string, std::string> placements = cluster.Placements();
  std::string unplaced;  // what a failure shows: each pod left and its last failure
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 4; ++i) {
      const std::string key = "default/high-" + std::to_string(t) + "-" + std::to_string(i);
      if (!placements.count(key)) unplaced += key + " (" + cluster.FailureOf(key) + ") ";
    }
  }
  ASSERT_EQ(placements.size(), 16u) << "left: " << unplaced;
  std::map<std::string, int> high_per_node;
  for (const auto& [pod, node] : placements) high_per_node[node]++;
  std::lock_guard lock(cluster.mu);
  for (const auto& [pod, binds] : cluster.binds) EXPECT_EQ(binds.size(), 1u) << pod << " bound more than once";
  std::set<std::string> victims;
  std::map<std::string, int> evicted_per_node;
  for (const auto& line : cluster.preempted) {
    const std::string victim = line.substr(0, line.find(' '));
    EXPECT_TRUE(victims.insert(victim).second) << victim << " was evicted twice";
    evicted_per_node[low_node[victim]]++;
  }
  for (int n = 0; n < kNodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    // What stays on the node: its low pods not evicted (1 cpu each) and its high pods (2 each).
    const int used = (4 - evicted_per_node[node]) + 2 * high_per_node[node];
    EXPECT_LE(used, 4) << node << " is over-committed";
  }
}

}  // namespace
}  // namespace berth::scheduler
