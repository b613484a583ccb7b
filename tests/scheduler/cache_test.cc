// The scheduler cache: assumed pods, confirmation, forgetting, optimistic
// reservation, and incremental snapshots.

#include "scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::NodeObject;
using testing::Pod;
using testing::PodRequesting;

PodInfoPtr Bound(const std::string& name, const std::string& node, const std::string& cpu = "1") {
  return Pod(name, R"({"nodeName":")" + node + R"(","containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                       cpu + R"("}}}]})");
}

TEST(Cache, AssumedPodsCountUntilForgotten) {
  Cache cache;
  cache.AddNode(NodeObject("n1"));
  auto pod = PodRequesting("p", "1", "1Gi");
  auto fits = [](const NodeInfo&) { return true; };
  Snapshot s;
  cache.UpdateSnapshot(s);
  ASSERT_EQ(cache.AssumePod(pod, "n1", s.Get("n1")->generation(), fits), Cache::AssumeResult::kAssumed);
  EXPECT_TRUE(cache.IsAssumed("default/p"));
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 1000);
  cache.ForgetPod("default/p");
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 0);
  EXPECT_EQ(cache.PodCount(), 0u);
}

TEST(Cache, BoundEventConfirmsAnAssumedPodWithoutDoubleCounting) {
  Cache cache;
  cache.AddNode(NodeObject("n1"));
  Snapshot s;
  cache.UpdateSnapshot(s);
  ASSERT_EQ(cache.AssumePod(PodRequesting("p", "1", ""), "n1", s.Get("n1")->generation(),
                            [](const NodeInfo&) { return true; }),
            Cache::AssumeResult::kAssumed);
  cache.FinishBinding("default/p");
  cache.AddPod(Bound("p", "n1"));
  EXPECT_FALSE(cache.IsAssumed("default/p"));
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 1000);
  EXPECT_EQ(s.Get("n1")->pods().size(), 1u);
  cache.RemovePod("default/p");
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 0);
}

TEST(Cache, ABindingToAnotherNodeMovesThePod) {
  Cache cache;
  cache.AddNode(NodeObject("n1"));
  cache.AddNode(NodeObject("n2"));
  Snapshot s;
  cache.UpdateSnapshot(s);
  cache.AssumePod(PodRequesting("p", "1", ""), "n1", s.Get("n1")->generation(), [](const NodeInfo&) { return true; });
  cache.AddPod(Bound("p", "n2"));
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.Get("n1")->requested().milli_cpu, 0);
  EXPECT_EQ(s.Get("n2")->requested().milli_cpu, 1000);
}

TEST(Cache, StaleReservationsAreRecheckedAgainstTheCurrentNode) {
  Cache cache;
  cache.AddNode(NodeObject("n1", "2"));
  Snapshot s;
  cache.UpdateSnapshot(s);
  int64_t seen = s.Get("n1")->generation();
  int checks = 0;
  auto fits_cpu = [&](const NodeInfo& n) {
    ++checks;
    return n.requested().milli_cpu + 1500 <= n.allocatable().milli_cpu;
  };
  // Unchanged since the snapshot: no re-check needed.
  ASSERT_EQ(cache.AssumePod(PodRequesting("a", "1500m", ""), "n1", seen, fits_cpu), Cache::AssumeResult::kAssumed);
  EXPECT_EQ(checks, 0);
  // A second cycle that saw the same (now stale) generation is re-checked and refused.
  EXPECT_EQ(cache.AssumePod(PodRequesting("b", "1500m", ""), "n1", seen, fits_cpu), Cache::AssumeResult::kConflict);
  EXPECT_EQ(checks, 1);
  EXPECT_EQ(cache.AssumePod(PodRequesting("c", "1", ""), "gone", 0, fits_cpu), Cache::AssumeResult::kNodeGone);
}

TEST(Cache, SnapshotsAreIncrementalAndNeverChangeUnderAReader) {
  Cache cache;
  for (int i = 0; i < 4; ++i) cache.AddNode(NodeObject("n" + std::to_string(i)));
  Snapshot s;
  cache.UpdateSnapshot(s);
  ASSERT_EQ(s.size(), 4u);
  const NodeInfo* before_n1 = s.Get("n1");
  const NodeInfo* before_n2 = s.Get("n2");
  NodeInfoPtr held = s.nodes()[1];  // a cycle still reading n1
  cache.AddPod(Bound("p", "n1"));
  cache.UpdateSnapshot(s);
  EXPECT_NE(s.Get("n1"), before_n1);       // replaced by a new version
  EXPECT_EQ(s.Get("n2"), before_n2);       // unchanged nodes are shared, not copied
  EXPECT_EQ(held->pods().size(), 0u);      // the old version did not change
  EXPECT_EQ(s.Get("n1")->pods().size(), 1u);
  cache.AddNode(NodeObject("n4"));
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.size(), 5u);
  cache.RemoveNode("n0");
  cache.UpdateSnapshot(s);
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.Get("n0"), nullptr);
}

TEST(Cache, AffinityPodListsFollowChanges) {
  Cache cache;
  cache.AddNode(NodeObject("n1"));
  cache.AddNode(NodeObject("n2"));
  Snapshot s;
  cache.UpdateSnapshot(s);
  EXPECT_TRUE(s.have_pods_with_required_anti_affinity().empty());
  cache.AddPod(Pod("anti", R"({"nodeName":"n2","affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"a":"b"}},"topologyKey":"kubernetes.io/hostname"}]}},"containers":[]})"));
  cache.UpdateSnapshot(s);
  ASSERT_EQ(s.have_pods_with_required_anti_affinity().size(), 1u);
  EXPECT_EQ(s.have_pods_with_required_anti_affinity()[0]->name(), "n2");
  EXPECT_EQ(s.have_pods_with_affinity().size(), 1u);
  cache.RemovePod("default/anti");
  cache.UpdateSnapshot(s);
  EXPECT_TRUE(s.have_pods_with_required_anti_affinity().empty());
}

TEST(Cache, ExpiredAssumedPodsAreForgotten) {
  Cache cache(std::chrono::seconds(30));
  cache.AddNode(NodeObject("n1"));
  Snapshot s;
  cache.UpdateSnapshot(s);
  cache.AssumePod(PodRequesting("p", "1", ""), "n1", s.Get("n1")->generation(), [](const NodeInfo&) { return true; });
  auto t0 = std::chrono::steady_clock::now();
  cache.FinishBinding("default/p", t0);
  cache.CleanupExpiredAssumedPods(t0 + std::chrono::seconds(10));
  EXPECT_TRUE(cache.IsAssumed("default/p"));
  cache.CleanupExpiredAssumedPods(t0 + std::chrono::seconds(31));
  EXPECT_FALSE(cache.IsAssumed("default/p"));
  EXPECT_EQ(cache.PodCount(), 0u);
}

}  // namespace
}  // namespace berth::scheduler
