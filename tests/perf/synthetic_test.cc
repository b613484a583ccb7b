// The one builder of synthetic nodes and pods.

#include "perf/synthetic.h"

#include <gtest/gtest.h>

#include "api/node_view.h"
#include "api/pod_view.h"

namespace berth::perf {
namespace {

TEST(SyntheticNode, ReadyWithTheShapesCapacityAndKubesLabels) {
  auto node = SyntheticNode(SyntheticNodeName(4), 4, NodeShape{"16", "64Gi", 150});
  EXPECT_EQ(node->name(), "node-4");
  EXPECT_EQ(node->labels().Get("kubernetes.io/hostname").value_or(""), "node-4");
  EXPECT_EQ(node->labels().Get("topology.kubernetes.io/zone").value_or(""), "zone-1");
  EXPECT_EQ(node->FieldValue("status.allocatable.cpu"), "16");
  EXPECT_EQ(node->FieldValue("status.allocatable.pods"), "150");
  EXPECT_EQ(node->FieldValue("status.capacity.memory"), "64Gi");
}

TEST(SyntheticPod, PendingWithTheShapesRequests) {
  auto pod = SyntheticPod("bench", "p1", PodShape{"250m", "1Gi"});
  const auto* view = pod->As<api::PodView>();
  EXPECT_EQ(pod->name(), "p1");
  EXPECT_EQ(view->requests.milli_cpu, 250);
  EXPECT_EQ(view->requests.memory, 1LL << 30);
  EXPECT_TRUE(view->node_name.empty());
  EXPECT_EQ(view->scheduler_name, "default-scheduler");
}

TEST(ParsePodShape, CpuSlashMemory) {
  auto shape = ParsePodShape("100m/128Mi");
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->cpu, "100m");
  EXPECT_EQ(shape->memory, "128Mi");
  EXPECT_FALSE(ParsePodShape("100m").ok());
  EXPECT_FALSE(ParsePodShape("lots/128Mi").ok());
  EXPECT_NE(ParsePodShape("x/y").status().message().find("x/y: expected CPU/MEMORY"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::perf
