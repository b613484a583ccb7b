// The kube-scheduler metrics counted per plugin, per operation and per
// cluster event: scheduler_plugin_evaluation_total, scheduler_goroutines,
// scheduler_queue_incoming_pods_total's event labels and the volume binding
// metrics; and the cluster events' labels (cluster_events.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fake_cluster.h"
#include "scheduler/cluster_events.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::NodeObject;

api::ObjectPtr Pod(const std::string& name, const std::string& cpu = "1") {
  auto o = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
      R"(","namespace":"default","uid":"u-)" + name +
      R"("},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" + cpu +
      R"("}}}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

api::ObjectPtr Decode(const std::string& json) {
  auto o = api::Object::Decode(json);
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

std::string Evaluations(const std::string& plugin, const std::string& point) {
  return R"(scheduler_plugin_evaluation_total{plugin=")" + plugin + R"(",extension_point=")" +
         point + R"(",profile="default-scheduler"})";
}

TEST(SchedulerKubeMetrics, PluginEvaluationsCountWhereEachPluginRan) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("a", "8"));
  c.scheduler->OnNodeAdd(NodeObject("b", "8"));
  // TaintToleration turns this one away before NodeResourcesFit sees it.
  c.scheduler->OnNodeAdd(
      NodeObject("tainted", "8", "8Gi", "{}",
                 R"({"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]})"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(Pod("p"));
  ASSERT_TRUE(c.WaitIdle());
  ASSERT_EQ(c.Placements().size(), 1u);

  const std::string m = c.scheduler->RenderMetrics();
  // Filter: once per node each plugin ran on.
  EXPECT_EQ(Sample(m, Evaluations("NodeName", "Filter")), 3) << m;
  EXPECT_EQ(Sample(m, Evaluations("TaintToleration", "Filter")), 3) << m;
  EXPECT_EQ(Sample(m, Evaluations("NodeResourcesFit", "Filter")), 2) << m;
  // A plugin whose PreFilter skipped the pod (no affinity) runs nowhere,
  // and its PreFilter's Skip is not counted; the series is there at 0.
  EXPECT_EQ(Sample(m, Evaluations("NodeAffinity", "Filter")), 0) << m;
  EXPECT_EQ(Sample(m, Evaluations("NodeAffinity", "PreFilter")), 0) << m;
  EXPECT_EQ(Sample(m, Evaluations("NodeResourcesFit", "PreFilter")), 1) << m;
  // Score: once per feasible node.
  EXPECT_EQ(Sample(m, Evaluations("NodeResourcesFit", "Score")), 2) << m;
  EXPECT_NE(m.find("# TYPE scheduler_plugin_evaluation_total counter"), std::string::npos);
}

TEST(SchedulerKubeMetrics, BindingGoroutinesReturnToZero) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("a", "8"));
  c.scheduler->Start();
  for (int i = 0; i < 5; ++i) c.scheduler->OnPodAdd(Pod("p" + std::to_string(i)));
  ASSERT_TRUE(c.WaitIdle());
  ASSERT_EQ(c.Placements().size(), 5u);
  const std::string m = c.scheduler->RenderMetrics();
  EXPECT_EQ(Sample(m, R"(scheduler_goroutines{operation="binding"})"), 0) << m;
  EXPECT_NE(m.find("# TYPE scheduler_goroutines gauge"), std::string::npos);
}

TEST(SchedulerKubeMetrics, IncomingPodsCarryTheClusterEventsLabel) {
  FakeCluster c;
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(Pod("big", "4"));
  ASSERT_TRUE(c.WaitIdle());
  // A heartbeat-like update (nothing kube reads changed) moves nothing.
  c.scheduler->OnNodeUpdate(NodeObject("small", "1"));
  ASSERT_TRUE(c.WaitIdle());
  std::string m = c.scheduler->RenderMetrics();
  EXPECT_EQ(Sample(m, R"(scheduler_pending_pods{queue="unschedulable"})"), 1) << m;
  // More allocatable: NodeAllocatableChange moves it, and it fits.
  c.scheduler->OnNodeUpdate(NodeObject("small", "8"));
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_EQ(c.Placements()["default/big"], "small");
  m = c.scheduler->RenderMetrics();
  // To active or (still backing off from its attempt) to backoff.
  double moved = 0;
  for (const char* queue : {"active", "backoff"}) {
    moved += std::max(0.0, Sample(m, std::string(R"(scheduler_queue_incoming_pods_total{queue=")") +
                                         queue + R"(",event="NodeAllocatableChange"})"));
  }
  EXPECT_EQ(moved, 1) << m;
  EXPECT_EQ(m.find(R"(event="ClusterEvent")"), std::string::npos) << m;
}

TEST(SchedulerKubeMetrics, VolumeBindingMetricsAreRegistered) {
  FakeCluster c;
  const std::string m = c.scheduler->RenderMetrics();
  EXPECT_NE(m.find("# TYPE scheduler_volume_binder_cache_requests_total counter"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("# TYPE scheduler_volume_scheduling_stage_error_total counter"),
            std::string::npos)
      << m;
}

api::ObjectPtr NodeWith(const std::string& metadata_extra, const std::string& spec,
                        const std::string& status) {
  return Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n")" + metadata_extra +
                R"(},"spec":)" + spec + R"(,"status":)" + status + "}");
}

TEST(ClusterEvents, NodeUpdatesAreLabelledByTheirFirstChangeInKubesOrder) {
  const std::string ready =
      R"({"allocatable":{"cpu":"4"},"conditions":[{"type":"Ready","status":"True"}]})";
  auto base = NodeWith("", "{}", ready);
  struct Case {
    const char* name;
    api::ObjectPtr before, after;
    std::string_view want;
  };
  const Case cases[] = {
      {"nothing read changed (a heartbeat)", base,
       NodeWith(
           "", "{}",
           R"({"allocatable":{"cpu":"4"},"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"x"}]})"),
       ""},
      {"uncordoned", NodeWith("", R"({"unschedulable":true})", ready), base,
       events::kNodeSpecUnschedulableChange},
      {"cordoned (no pod can fit better)", base, NodeWith("", R"({"unschedulable":true})", ready),
       ""},
      {"allocatable", base,
       NodeWith("", "{}",
                R"({"allocatable":{"cpu":"8"},"conditions":[{"type":"Ready","status":"True"}]})"),
       events::kNodeAllocatableChange},
      {"labels", base, NodeWith(R"(,"labels":{"a":"b"})", "{}", ready), events::kNodeLabelChange},
      {"taints", NodeWith("", R"({"taints":[{"key":"k","effect":"NoSchedule"}]})", ready), base,
       events::kNodeTaintChange},
      {"conditions", base,
       NodeWith("", "{}",
                R"({"allocatable":{"cpu":"4"},"conditions":[{"type":"Ready","status":"False"}]})"),
       events::kNodeConditionChange},
      {"annotations", base, NodeWith(R"(,"annotations":{"a":"b"})", "{}", ready),
       events::kNodeAnnotationChange},
      {"labels and taints: labels first", base,
       NodeWith(R"(,"labels":{"a":"b"})", R"({"taints":[{"key":"k","effect":"NoSchedule"}]})",
                ready),
       events::kNodeLabelChange},
  };
  for (const Case& tc : cases) {
    EXPECT_EQ(events::NodeUpdateEvent(*tc.before, *tc.after), tc.want) << tc.name;
  }
}

}  // namespace
}  // namespace berth::scheduler
