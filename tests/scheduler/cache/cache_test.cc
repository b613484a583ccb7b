// The scheduler cache: assumed pods, confirmation, forgetting, optimistic
// reservation, and incremental snapshots.

#include "scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include <set>

#include "scheduler/framework/domain_sums.h"
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

namespace berth::scheduler {
namespace {

// Pods per zone, as DomainSums keeps them for two workers whose snapshots
// are refreshed at different times: each answer must be its own snapshot's.
TEST(DomainSums, EachSnapshotGetsItsOwnSumsWhileFollowingChanges) {
  Cache cache;
  for (int i = 0; i < 6; ++i) {
    cache.AddNode(testing::NodeObject("n" + std::to_string(i), "64", "64Gi",
                                      R"({"zone":")" + std::string(i % 2 ? "b" : "a") + R"("})"));
  }
  DomainSums sums;
  auto zone_counts = [&](const Snapshot& s) {
    auto topology = s.Topology("zone");
    auto r = sums.Sum("pods", s, *topology, [](const NodeInfo&) { return true; },
                      [](const NodeInfo& n) { return static_cast<int64_t>(n.pods().size()); });
    return std::make_pair(r.counts[static_cast<size_t>(topology->Find("a"))],
                          r.counts[static_cast<size_t>(topology->Find("b"))]);
  };
  Snapshot older, newer;
  cache.UpdateSnapshot(older);
  cache.UpdateSnapshot(newer);
  int pod = 0;
  auto add = [&](const std::string& node) { cache.AddPod(Bound("p" + std::to_string(pod++), node)); };
  add("n0");
  add("n1");
  cache.UpdateSnapshot(newer);
  EXPECT_EQ(zone_counts(newer), std::make_pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(zone_counts(older), std::make_pair(int64_t{0}, int64_t{0})) << "an older snapshot is summed afresh";
  add("n2");
  add("n4");
  cache.UpdateSnapshot(newer);
  EXPECT_EQ(zone_counts(newer), std::make_pair(int64_t{3}, int64_t{1}));
  cache.UpdateSnapshot(older);  // catches up from where it was
  EXPECT_EQ(zone_counts(older), std::make_pair(int64_t{3}, int64_t{1}));
  cache.RemovePod("default/p0");
  add("n3");
  cache.UpdateSnapshot(newer);
  EXPECT_EQ(zone_counts(newer), std::make_pair(int64_t{2}, int64_t{2}));
  // Many changes: the change log is trimmed and its floor rises; a state older
  // than the floor is summed afresh, still right.
  int64_t floor = newer.changes_floor();
  for (int i = 0; i < 9000; ++i) {
    add("n" + std::to_string(i % 6));
    cache.UpdateSnapshot(newer);
  }
  EXPECT_GT(newer.changes_floor(), floor);
  EXPECT_LE(newer.changes().size(), 8192u);
  EXPECT_EQ(zone_counts(newer), std::make_pair(int64_t{2 + 4500}, int64_t{2 + 4500}));
}

}  // namespace
}  // namespace berth::scheduler

namespace berth::scheduler {
namespace {

std::set<std::string> Names(const std::vector<const NodeInfo*>& nodes) {
  std::set<std::string> out;
  for (const NodeInfo* n : nodes) out.insert(n->name());
  return out;
}

// The lists of nodes holding pods with (anti-)affinity follow every snapshot
// update, and point at the snapshot's own versions of those nodes.
TEST(Cache, SnapshotAffinityListsFollowUpdates) {
  Cache cache;
  for (const char* n : {"n1", "n2", "n3"}) cache.AddNode(NodeObject(n));
  const std::string anti =
      R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
      R"("labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"kubernetes.io/hostname"}]}},)";
  auto with_anti = [&](const std::string& name, const std::string& node) {
    return Pod(name, R"({)" + anti + R"("nodeName":")" + node + R"(","containers":[{"name":"c","image":"i"}]})");
  };
  Snapshot snapshot;
  cache.UpdateSnapshot(snapshot);
  EXPECT_TRUE(snapshot.have_pods_with_affinity().empty());
  cache.AddPod(with_anti("a", "n1"));
  cache.AddPod(with_anti("b", "n2"));
  cache.AddPod(with_anti("c", "n3"));
  cache.UpdateSnapshot(snapshot);
  EXPECT_EQ(Names(snapshot.have_pods_with_required_anti_affinity()), (std::set<std::string>{"n1", "n2", "n3"}));
  cache.RemovePod("default/a");
  cache.AddPod(Bound("plain", "n2"));
  cache.UpdateSnapshot(snapshot);
  EXPECT_EQ(Names(snapshot.have_pods_with_affinity()), (std::set<std::string>{"n2", "n3"}));
  for (const NodeInfo* n : snapshot.have_pods_with_affinity()) {
    EXPECT_EQ(n, snapshot.Get(n->name())) << "the snapshot's own version of " << n->name();
  }
  EXPECT_EQ(snapshot.Get("n2")->pods().size(), 2u);
  cache.RemovePod("default/b");
  cache.RemovePod("default/c");
  cache.UpdateSnapshot(snapshot);
  EXPECT_TRUE(snapshot.have_pods_with_required_anti_affinity().empty());
}

}  // namespace
}  // namespace berth::scheduler
