// Concurrent scheduling cycles (run under ThreadSanitizer in CI): with many
// cycles at once and tight nodes, no node's summed requests exceed its
// allocatable and every pod is bound exactly once.

#include <gtest/gtest.h>

#include "fake_cluster.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::NodeObject;

TEST(SchedulerStress, ConcurrentCyclesNeverOvercommitAndBindEachPodOnce) {
  for (int round = 0; round < 3; ++round) {
    SchedulerOptions options;
    options.concurrent = 8;
    options.binding_workers = 4;
    options.seed = 100 + static_cast<uint64_t>(round);
    FakeCluster c(options);
    const int nodes = 6, pods = 300;
    // 6 nodes × 2 cpu = 12 cpu; pods of 100m–400m: about half of them fit.
    for (int i = 0; i < nodes; ++i) c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(i), "2", "64Gi"));
    std::map<std::string, int64_t> request;
    c.scheduler->Start();
    for (int i = 0; i < pods; ++i) {
      std::string name = "p" + std::to_string(i);
      std::string cpu = std::to_string(100 * (1 + i % 4)) + "m";
      auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                   R"(","namespace":"default","uid":"u)" + name +
                                   R"("},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                                   cpu + R"("}}}]}})");
      ASSERT_TRUE(o.ok());
      request["default/" + name] = 100 * (1 + i % 4);
      c.scheduler->OnPodAdd(o.value());
    }
    ASSERT_TRUE(c.WaitIdle());
    std::map<std::string, int64_t> used;
    size_t bound = 0;
    {
      std::lock_guard lock(c.mu);
      for (const auto& [pod, binds] : c.binds) {
        EXPECT_EQ(binds.size(), 1u) << pod << " was bound " << binds.size() << " times";
        used[binds.front()] += request[pod];
        ++bound;
      }
    }
    for (const auto& [node, milli] : used) EXPECT_LE(milli, 2000) << node << " is over-committed";
    // Every pod either bound or reported unschedulable, none lost.
    size_t failed = 0;
    for (const auto& [pod, cpu] : request) {
      if (!c.Placements().count(pod)) {
        EXPECT_FALSE(c.FailureOf(pod).empty()) << pod << " was neither bound nor reported";
        ++failed;
      }
    }
    EXPECT_EQ(bound + failed, static_cast<size_t>(pods));
    // Conflicts are re-evaluated, not given up on: 100m pods keep arriving, so
    // the nodes end (nearly) full.
    int64_t total = 0;
    for (const auto& [node, milli] : used) total += milli;
    EXPECT_GE(total, 11000);
  }
}

}  // namespace
}  // namespace berth::scheduler

namespace berth::scheduler {
namespace {

// Above the parallel threshold Filter runs on the helper pool too, while
// several cycles run at once.
TEST(SchedulerStress, ParallelFilterWithConcurrentCycles) {
  SchedulerOptions options;
  options.concurrent = 4;
  options.filter_threads = 1;
  options.parallel_threshold = 64;
  options.seed = 9;
  testing::FakeCluster c(options);
  const int nodes = 100, pods = 400;
  for (int i = 0; i < nodes; ++i) c.scheduler->OnNodeAdd(testing::NodeObject("n" + std::to_string(i), "1", "8Gi"));
  c.scheduler->Start();
  for (int i = 0; i < pods; ++i) {
    std::string name = "p" + std::to_string(i);
    auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                 R"(","namespace":"default","uid":"u)" + name +
                                 R"("},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"300m"}}}]}})");
    ASSERT_TRUE(o.ok());
    c.scheduler->OnPodAdd(o.value());
  }
  ASSERT_TRUE(c.WaitIdle());
  std::map<std::string, int> per_node;
  std::lock_guard lock(c.mu);
  for (const auto& [pod, binds] : c.binds) {
    EXPECT_EQ(binds.size(), 1u) << pod;
    per_node[binds.front()]++;
  }
  // 1 cpu per node, 300m per pod: at most 3 per node, and every node full.
  for (const auto& [node, count] : per_node) EXPECT_LE(count, 3) << node;
  EXPECT_EQ(c.binds.size(), 300u);
}

}  // namespace
}  // namespace berth::scheduler

namespace berth::scheduler {
namespace {

// Topology-aware plugins under concurrent cycles (their shared caches:
// TopologyIndexes, NodeValueCache, DomainSums): hard zone spreading keeps its
// skew, required anti-affinity keeps one pod per node, and pods of a
// controller get the default soft spreading, all scheduled at once.
TEST(SchedulerStress, TopologyConstraintsHoldUnderConcurrentCycles) {
  SchedulerOptions options;
  options.concurrent = 4;
  options.seed = 21;
  testing::FakeCluster c(options);
  const int nodes = 9;
  for (int i = 0; i < nodes; ++i) {
    std::string name = "n" + std::to_string(i);
    c.scheduler->OnNodeAdd(testing::NodeObject(
        name, "64", "256Gi", R"({"kubernetes.io/hostname":")" + name + R"(","zone":"z)" + std::to_string(i % 3) + "\"}"));
  }
  c.scheduler->Start();
  auto add = [&](const std::string& name, const std::string& labels, const std::string& meta_extra,
                 const std::string& spec_extra) {
    auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                 R"(","namespace":"default","uid":"u)" + name + R"(","labels":)" + labels +
                                 meta_extra + R"(},"spec":{)" + spec_extra +
                                 R"("containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"10m"}}}]}})");
    ASSERT_TRUE(o.ok()) << o.status().message();
    c.scheduler->OnPodAdd(o.value());
  };
  const std::string spread =
      R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",)"
      R"("labelSelector":{"matchLabels":{"app":"spread"}}}],)";
  const std::string anti =
      R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
      R"("labelSelector":{"matchLabels":{"app":"anti"}},"topologyKey":"kubernetes.io/hostname"}]}},)";
  const std::string owned =
      R"(,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"rs-1","controller":true}])";
  for (int i = 0; i < 90; ++i) {
    add("s" + std::to_string(i), R"({"app":"spread"})", "", spread);
    if (i % 10 == 0) add("a" + std::to_string(i / 10), R"({"app":"anti"})", "", anti);
    if (i % 2 == 0) add("o" + std::to_string(i / 2), R"({"app":"owned"})", owned, "");
  }
  ASSERT_TRUE(c.WaitIdle());
  auto placements = c.Placements();
  std::map<std::string, int> spread_per_zone;
  std::map<std::string, int> anti_per_node;
  int owned_bound = 0;
  for (const auto& [pod, node] : placements) {
    std::string zone = "z" + std::to_string(std::stoi(node.substr(1)) % 3);
    if (pod.starts_with("default/s")) spread_per_zone[zone]++;
    if (pod.starts_with("default/a")) anti_per_node[node]++;
    if (pod.starts_with("default/o")) owned_bound++;
  }
  int spread_bound = 0;
  for (const auto& [zone, n] : spread_per_zone) spread_bound += n;
  EXPECT_EQ(spread_bound, 90);
  EXPECT_EQ(spread_per_zone.size(), 3u);
  for (const auto& [zone, n] : spread_per_zone) EXPECT_EQ(n, 30) << zone << ": maxSkew 1 over 90 pods";
  EXPECT_EQ(anti_per_node.size(), 9u) << "9 anti-affinity pods, one per node";
  for (const auto& [node, n] : anti_per_node) EXPECT_EQ(n, 1) << node;
  EXPECT_EQ(owned_bound, 45);
}

}  // namespace
}  // namespace berth::scheduler
