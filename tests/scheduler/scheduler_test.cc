// The scheduler end to end over a fake API: placements, kube's
// FailedScheduling messages, default-profile behaviour and reproducibility.

#include "scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "api/time/clock.h"
#include "fake_cluster.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::NodeObject;

api::ObjectPtr PodObject(const std::string& name, const std::string& spec_members = "",
                         const std::string& labels = "{}", const std::string& cpu = "100m") {
  auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                               R"(","namespace":"default","uid":"u-)" + name + R"(","labels":)" + labels +
                               R"(},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                               cpu + R"("}}}])" + spec_members + "}}");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

TEST(Scheduler, PlacesPodsOnNodesThatFit) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->OnNodeAdd(NodeObject("big", "8"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("p", "", "{}", "2"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_EQ(c.Placements()["default/p"], "big");
  {
    // The binding is reported once, for the event Scheduled.
    std::lock_guard lock(c.mu);
    EXPECT_EQ(c.scheduled_reports["default/p"], std::vector<std::string>{"big"});
  }
  // kube-scheduler's metric names, so existing dashboards work.
  std::string metrics = c.scheduler->RenderMetrics();
  for (const char* line : {
           R"(scheduler_schedule_attempts_total{result="scheduled",profile="default-scheduler"} 1)",
           R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Bind",status="Success",profile="default-scheduler"} 1)",
           R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Filter",status="Success",profile="default-scheduler"} 1)",
           R"(scheduler_pod_scheduling_duration_seconds_count{attempts="1"} 1)",
           R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"} 1)",
           R"(scheduler_pod_scheduling_attempts_bucket{le="1"} 1)",
           R"(scheduler_scheduler_cache_size{type="nodes"} 2)",
           R"(scheduler_scheduling_algorithm_duration_seconds_count 1)",
           R"(scheduler_pending_pods{queue="active"} 0)",
           R"(scheduler_queue_incoming_pods_total{queue="active",event="PodAdd"} 1)",
       }) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
  }
}

TEST(Scheduler, ExplainsWhyAPodFitsNowhereInKubesWords) {
  FakeCluster c;
  for (int i = 0; i < 3; ++i) c.scheduler->OnNodeAdd(NodeObject("cpu" + std::to_string(i), "1", "8Gi", R"({"disk":"ssd"})"));
  for (int i = 0; i < 13; ++i) c.scheduler->OnNodeAdd(NodeObject("hdd" + std::to_string(i), "8", "8Gi", R"({"disk":"hdd"})"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("p", R"(,"nodeSelector":{"disk":"ssd"})", "{}", "2"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_TRUE(c.Placements().empty());
  // Reasons are sorted as strings, as kube's FitError does; preemption's
  // answer follows (kube 1.32 ends it with two periods).
  EXPECT_EQ(c.FailureOf("default/p"),
            "Unschedulable: 0/16 nodes are available: 13 node(s) didn't match Pod's node affinity/selector, "
            "3 Insufficient cpu. preemption: 0/16 nodes are available: 13 Preemption is not helpful for "
            "scheduling, 3 No preemption victims found for incoming pod..");
  EXPECT_EQ(c.scheduler->queue().counts().unschedulable, 1u);
}

TEST(Scheduler, NoNodesMeansNoNodesAvailable) {
  FakeCluster c;
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("p"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_EQ(c.FailureOf("default/p"), "Unschedulable: no nodes available to schedule pods");
  std::lock_guard lock(c.mu);
  EXPECT_TRUE(c.scheduled_reports.empty());
}

TEST(Scheduler, AnUnschedulablePodIsRetriedWhenANodeArrives) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("p", "", "{}", "2"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_TRUE(c.Placements().empty());
  c.scheduler->OnNodeAdd(NodeObject("big", "4"));
  // The pod goes through backoff (1 s) before it is tried again.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (c.Placements().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(c.Placements()["default/p"], "big");
}

TEST(Scheduler, OtherSchedulersPodsAreLeftAlone) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("n"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("mine"));
  c.scheduler->OnPodAdd(PodObject("theirs", R"(,"schedulerName":"other")"));
  ASSERT_TRUE(c.WaitIdle());
  auto placements = c.Placements();
  EXPECT_EQ(placements.count("default/mine"), 1u);
  EXPECT_EQ(placements.count("default/theirs"), 0u);
}

TEST(Scheduler, SpreadsPodsWithLeastAllocatedAndHonoursAntiAffinity) {
  FakeCluster c;
  for (int i = 0; i < 3; ++i) {
    c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(i), "4", "8Gi",
                                      R"({"kubernetes.io/hostname":"n)" + std::to_string(i) + "\"}"));
  }
  c.scheduler->Start();
  const std::string anti =
      R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname"}]}})";
  for (int i = 0; i < 4; ++i) c.scheduler->OnPodAdd(PodObject("db" + std::to_string(i), anti, R"({"app":"db"})"));
  ASSERT_TRUE(c.WaitIdle());
  auto placements = c.Placements();
  ASSERT_EQ(placements.size(), 3u);  // one per node; the fourth cannot fit anywhere
  std::set<std::string> nodes;
  for (const auto& [pod, node] : placements) nodes.insert(node);
  EXPECT_EQ(nodes.size(), 3u);
  std::string failed;
  for (int i = 0; i < 4; ++i) {
    if (!placements.count("default/db" + std::to_string(i))) failed = "default/db" + std::to_string(i);
  }
  EXPECT_EQ(c.FailureOf(failed),
            "Unschedulable: 0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: "
            "0/3 nodes are available: 3 No preemption victims found for incoming pod..");
}

TEST(Scheduler, TheSameSeedGivesTheSamePlacements) {
  auto run = [](uint64_t seed) {
    SchedulerOptions options;
    options.seed = seed;
    FakeCluster c(options);
    // Identical nodes: every choice is a tie broken by the random source.
    for (int i = 0; i < 8; ++i) c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(i), "64", "64Gi"));
    for (int i = 0; i < 40; ++i) c.scheduler->OnPodAdd(PodObject("p" + std::to_string(i), "", "{}", "0"));
    c.scheduler->Start();
    EXPECT_TRUE(c.WaitIdle());
    return c.Placements();
  };
  auto a = run(7), b = run(7), other = run(8);
  EXPECT_EQ(a.size(), 40u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
}

TEST(Scheduler, WeightedRandomSelectionIsReproducibleToo) {
  auto run = [](uint64_t seed) {
    SchedulerOptions options;
    options.seed = seed;
    SchedulerConfig config;
    config.profiles.emplace_back().plugin_config.emplace_back("NodeSelection",
                                                              boost::json::object{{"strategy", "WeightedRandom"}});
    FakeCluster c(options, config);
    for (int i = 0; i < 8; ++i) c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(i), std::to_string(8 + i), "64Gi"));
    for (int i = 0; i < 40; ++i) c.scheduler->OnPodAdd(PodObject("p" + std::to_string(i)));
    c.scheduler->Start();
    EXPECT_TRUE(c.WaitIdle());
    return c.Placements();
  };
  auto a = run(3), b = run(3);
  EXPECT_EQ(a.size(), 40u);
  EXPECT_EQ(a, b);
}

TEST(Scheduler, QueueTimeoutsAndLatenciesFollowTheGivenClock) {
  api::FakeClock clock;
  SchedulerOptions options;
  options.clock = &clock;
  FakeCluster c(options);
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodObject("big", "", "{}", "2"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_EQ(c.scheduler->stats().unschedulable, 1u);
  EXPECT_EQ(c.scheduler->queue().counts().unschedulable, 1u);

  // With no cluster event, the pod is retried after five minutes on the
  // scheduler's clock, not the machine's.
  clock.Step(std::chrono::minutes(5) + std::chrono::seconds(1));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (c.scheduler->stats().unschedulable < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(c.scheduler->stats().unschedulable, 2u);

  // The clock stood still during both attempts: they took no time.
  std::string metrics = c.scheduler->RenderMetrics();
  for (const char* line : {
           R"(scheduler_schedule_attempts_total{result="unschedulable",profile="default-scheduler"} 2)",
           R"(scheduler_scheduling_attempt_duration_seconds_sum{result="unschedulable",profile="default-scheduler"} 0)",
           R"(scheduler_framework_extension_point_duration_seconds_sum{extension_point="PreFilter",status="Success",profile="default-scheduler"} 0)",
       }) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
  }
}

}  // namespace
}  // namespace berth::scheduler
