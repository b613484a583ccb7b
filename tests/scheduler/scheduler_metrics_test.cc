// kube-scheduler's metrics as the scheduler records them: the plugin
// durations of a sampled share of cycles, the unschedulable pods by plugin,
// the cache sizes and the queue's incoming pods by event.

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "fake_cluster.h"
#include "scheduler/framework/plugin_durations.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::NodeObject;

api::ObjectPtr Pod(const std::string& name, const std::string& cpu = "100m") {
  auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                               R"(","namespace":"default","uid":"u-)" + name +
                               R"("},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                               cpu + R"("}}}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

// The value of the one sample `series` (name and labels, as rendered); -1 if absent.
double Sample(const std::string& text, const std::string& series) {
  const std::string prefix = series + " ";
  for (size_t pos = 0; (pos = text.find(prefix, pos)) != std::string::npos; pos += prefix.size()) {
    if (pos == 0 || text[pos - 1] == '\n') return std::stod(text.substr(pos + prefix.size()));
  }
  return -1;
}

TEST(SchedulerMetrics, PluginDurationsAreRecordedInATenthOfTheCycles) {
  FakeCluster c;
  constexpr int kNodes = 64;  // fewer than 100: every node is filtered and scored
  for (int i = 0; i < kNodes; ++i) c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(i), "8"));
  c.scheduler->Start();
  constexpr int kPods = 20;
  for (int i = 0; i < kPods; ++i) c.scheduler->OnPodAdd(Pod("p" + std::to_string(i)));
  ASSERT_TRUE(c.WaitIdle());
  ASSERT_EQ(c.Placements().size(), static_cast<size_t>(kPods));

  const std::string m = c.scheduler->RenderMetrics();
  // Twenty cycles, each placing its pod at once: cycles 0 and 10 are sampled.
  const int sampled = kPods * kPluginMetricsSamplePercent / 100;
  EXPECT_EQ(Sample(m, R"(scheduler_plugin_execution_duration_seconds_count{plugin="DefaultBinder",extension_point="Bind",status="Success"})"),
            sampled)
      << m;
  // Filter and Score run once per plugin and node; in the k-th sampled cycle
  // the nodes whose slot (0..63, in the order they were added) plus k is a
  // multiple of kNodeSampleEvery are timed.
  int per_node = 0;
  for (int k = 0; k < sampled; ++k) {
    for (int slot = 0; slot < kNodes; ++slot) per_node += (slot + k) % kNodeSampleEvery == 0;
  }
  ASSERT_EQ(per_node, 4);  // slots 0 and 32, then 31 and 63
  EXPECT_EQ(Sample(m, R"(scheduler_plugin_execution_duration_seconds_count{plugin="NodeResourcesFit",extension_point="Filter",status="Success"})"),
            per_node)
      << m;
  EXPECT_EQ(Sample(m, R"(scheduler_plugin_execution_duration_seconds_count{plugin="NodeResourcesFit",extension_point="Score",status="Success"})"),
            per_node)
      << m;
  EXPECT_EQ(Sample(m, R"(scheduler_plugin_execution_duration_seconds_count{plugin="NodeResourcesFit",extension_point="PreFilter",status="Success"})"),
            sampled)
      << m;
  // kube's buckets: 10 µs × 1.5^i, twenty of them.
  EXPECT_NE(m.find(R"(scheduler_plugin_execution_duration_seconds_bucket{plugin="DefaultBinder",extension_point="Bind",status="Success",le="1e-05"})"),
            std::string::npos);
  EXPECT_EQ(Sample(m, R"(scheduler_queue_incoming_pods_total{queue="active",event="PodAdd"})"), kPods);
  EXPECT_EQ(Sample(m, R"(scheduler_scheduler_cache_size{type="nodes"})"), kNodes);
  EXPECT_EQ(Sample(m, R"(scheduler_scheduler_cache_size{type="pods"})"), kPods);
  EXPECT_EQ(Sample(m, R"(scheduler_pod_scheduling_attempts_count)"), kPods);
  EXPECT_EQ(Sample(m, R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"})"), kPods);
}

TEST(SchedulerMetrics, UnschedulablePodsAreCountedByPluginAndProfile) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(Pod("big", "4"));
  ASSERT_TRUE(c.WaitIdle());
  std::string m = c.scheduler->RenderMetrics();
  EXPECT_EQ(Sample(m, R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="default-scheduler"})"), 1)
      << m;
  EXPECT_EQ(Sample(m, R"(scheduler_queue_incoming_pods_total{queue="unschedulable",event="ScheduleAttemptFailure"})"),
            1);
  EXPECT_EQ(Sample(m, R"(scheduler_pending_pods{queue="unschedulable"})"), 1);

  // A node that fits moves it out: the gauge drops to nothing.
  c.scheduler->OnNodeAdd(NodeObject("big", "8"));
  ASSERT_TRUE(c.WaitIdle());
  ASSERT_EQ(c.Placements()["default/big"], "big");
  m = c.scheduler->RenderMetrics();
  EXPECT_EQ(m.find("scheduler_unschedulable_pods{"), std::string::npos) << m;
}

}  // namespace
}  // namespace berth::scheduler
