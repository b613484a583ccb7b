// DefaultPreemption, kube's rules one at a time: which pods are victims (and
// which are reprieved, PDB-violating ones first), which node is chosen (each
// tie-break), who may preempt, how many candidates are looked for, the
// nominated pods' room, and the whole path through the scheduler with kube's
// messages.

#include <gtest/gtest.h>

#include "fake_cluster.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::FakeHandle;
using testing::Node;
using testing::NodeObject;

// A pod with a priority, cpu request, start time and labels.
PodInfoPtr PrioPod(const std::string& name, int priority, const std::string& cpu,
                   const std::string& started = "", const std::string& labels = "{}",
                   const std::string& node = "") {
  std::string spec = R"({"priority":)" + std::to_string(priority) +
                     (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") +
                     R"(,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                     cpu + R"("}}}]})";
  std::string status = started.empty() ? "{}" : R"({"startTime":")" + started + "\"}";
  auto object =
      api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                          R"(","namespace":"default","uid":"uid-)" + name + R"(","labels":)" +
                          labels + R"(},"spec":)" + spec + R"(,"status":)" + status + "}");
  EXPECT_TRUE(object.ok()) << object.status().message();
  return MakePodInfo(object.value());
}

std::vector<std::string> Names(const std::vector<PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->name());
  return out;
}

// The default profile over a few nodes, to run the dry-run steps directly.
class DryRun : public ::testing::Test {
 protected:
  void Build() {
    auto fw = Framework::Build(ProfileConfig{}, InTreeRegistry(), handle_);
    ASSERT_TRUE(fw.ok()) << fw.status().message();
    fw_ = std::move(fw).value();
  }
  // PreFilter for `pod` on a snapshot of `nodes`, as a cycle would.
  std::unique_ptr<CycleState> Prepare(const PodInfo& pod, const std::vector<NodeInfoPtr>& nodes) {
    snapshot_ = Snapshot::FromNodes(nodes);
    auto state = std::make_unique<CycleState>(&snapshot_);
    EXPECT_TRUE(fw_->RunPreFilter(*state, pod).ok());
    return state;
  }
  FakeHandle handle_;
  std::unique_ptr<Framework> fw_;
  Snapshot snapshot_;
};

TEST_F(DryRun, ReprievesTheMostImportantPodsThatStillLeaveRoom) {
  Build();
  auto node = Node("n", "4");
  node->AddPod(PrioPod("mid", 5, "1", "2026-01-01T00:00:03Z"));
  node->AddPod(PrioPod("old-low", 0, "1", "2026-01-01T00:00:01Z"));
  node->AddPod(PrioPod("new-low", 0, "1", "2026-01-01T00:00:02Z"));
  node->AddPod(PrioPod("higher", 20, "1"));  // never a victim: not lower than the preemptor
  auto pod = PrioPod("p", 10, "2");
  auto state = Prepare(*pod, {node});
  NodeInfo copy = *snapshot_.Get("n");
  PreemptionVictims victims;
  ASSERT_TRUE(DefaultPreemption::SelectVictimsOnNode(*state, *pod, copy, {}, *fw_, &victims).ok());
  // 4 cpu: higher (1) + p (2) leave 1: mid is reprieved first, then no low pod fits.
  EXPECT_EQ(Names(victims.pods), (std::vector<std::string>{"old-low", "new-low"}));
  EXPECT_EQ(victims.pdb_violations, 0);
  EXPECT_EQ(copy.pods().size(), 2u);  // the copy holds what would remain: higher and mid
}

TEST_F(DryRun, BudgetViolatingPodsAreReprievedFirst) {
  Build();
  auto node = Node("n", "3");
  node->AddPod(PrioPod("guarded", 0, "1", "2026-01-01T00:00:05Z", R"({"app":"db"})"));
  node->AddPod(PrioPod("free", 0, "1", "2026-01-01T00:00:01Z", R"({"app":"web"})"));
  auto pod = PrioPod("p", 10, "2");
  DisruptionBudget budget;
  budget.namespace_name = "default";
  budget.name = "db";
  budget.selector = api::LabelSelector::Parse("app=db").value();
  budget.disruptions_allowed = 0;
  auto state = Prepare(*pod, {node});
  NodeInfo copy = *snapshot_.Get("n");
  PreemptionVictims victims;
  ASSERT_TRUE(
      DefaultPreemption::SelectVictimsOnNode(*state, *pod, copy, {budget}, *fw_, &victims).ok());
  // "free" started earlier (more important), but the guarded pod is reprieved first.
  EXPECT_EQ(Names(victims.pods), (std::vector<std::string>{"free"}));
  EXPECT_EQ(victims.pdb_violations, 0);

  // With room for neither, the guarded pod is a victim that violates its budget.
  auto small = Node("s", "2");
  small->AddPod(PrioPod("guarded", 0, "1", "", R"({"app":"db"})"));
  small->AddPod(PrioPod("free", 0, "1", "", R"({"app":"web"})"));
  state = Prepare(*pod, {small});
  NodeInfo small_copy = *snapshot_.Get("s");
  ASSERT_TRUE(
      DefaultPreemption::SelectVictimsOnNode(*state, *pod, small_copy, {budget}, *fw_, &victims)
          .ok());
  EXPECT_EQ(victims.pods.size(), 2u);
  EXPECT_EQ(victims.pdb_violations, 1);
}

TEST_F(DryRun, NoLowerPriorityPodsMeansNoVictims) {
  Build();
  auto node = Node("n", "1");
  node->AddPod(PrioPod("same", 10, "1"));
  auto pod = PrioPod("p", 10, "1");
  auto state = Prepare(*pod, {node});
  NodeInfo copy = *snapshot_.Get("n");
  PreemptionVictims victims;
  PluginStatus s = DefaultPreemption::SelectVictimsOnNode(*state, *pod, copy, {}, *fw_, &victims);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "No preemption victims found for incoming pod");
}

TEST_F(DryRun, ANodeThatCannotFitEvenEmptiedIsNoCandidate) {
  Build();
  auto node = Node("n", "2");
  node->AddPod(PrioPod("low", 0, "1"));
  auto pod = PrioPod("p", 10, "3");
  auto state = Prepare(*pod, {node});
  NodeInfo copy = *snapshot_.Get("n");
  PreemptionVictims victims;
  PluginStatus s = DefaultPreemption::SelectVictimsOnNode(*state, *pod, copy, {}, *fw_, &victims);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "Insufficient cpu");
}

// PodTopologySpread keeps its counts true as the dry run removes and returns
// pods (its PreFilter extensions): without them the removed pods would still
// count and no node would look like a candidate.
TEST_F(DryRun, SpreadCountsFollowTheRemovedVictims) {
  Build();
  auto n1 = Node("n1", "3", "8Gi", R"({"kubernetes.io/hostname":"n1"})");
  auto n2 = Node("n2", "2", "8Gi", R"({"kubernetes.io/hostname":"n2"})");
  n1->AddPod(PrioPod("x-a", 0, "1", "", R"({"app":"x"})"));
  n1->AddPod(PrioPod("x-b", 0, "1", "", R"({"app":"x"})"));
  n2->AddPod(PrioPod("y-a", 0, "1", "", R"({"app":"y"})"));
  n2->AddPod(PrioPod("y-b", 0, "1", "", R"({"app":"y"})"));
  auto object = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"uid-p",
          "labels":{"app":"x"}},"spec":{"priority":10,
          "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname",
            "whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"x"}}}],
          "containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}})");
  ASSERT_TRUE(object.ok()) << object.status().message();
  auto pod = MakePodInfo(object.value());
  auto state = Prepare(*pod, {n1, n2});
  // As it is, n1 has room but is too skewed (2 + 1 - 0 > 1).
  const std::string skewed = std::string(PodTopologySpread::kReason);
  EXPECT_EQ(fw_->RunFilter(*state, *pod, *snapshot_.Get("n1")).Message(), skewed);
  NodeInfo copy = *snapshot_.Get("n1");
  std::unique_ptr<CycleState> trial = state->Clone();  // as PostFilter does
  PreemptionVictims victims;
  PluginStatus s = DefaultPreemption::SelectVictimsOnNode(*trial, *pod, copy, {}, *fw_, &victims);
  ASSERT_TRUE(s.ok()) << s.Message();
  // Either x pod returned would make the skew 2 again: both go.
  EXPECT_EQ(Names(victims.pods), (std::vector<std::string>{"x-a", "x-b"}));
  // The dry run changed its clone only.
  EXPECT_EQ(fw_->RunFilter(*state, *pod, *snapshot_.Get("n1")).Message(), skewed);
}

// InterPodAffinity's counts follow the dry run too: a low-priority pod whose
// anti-affinity keeps the preemptor away is a victim that frees the node.
TEST_F(DryRun, AVictimsAntiAffinityStopsCountingOnceRemoved) {
  Build();
  auto n1 = Node("n1", "4", "8Gi", R"({"kubernetes.io/hostname":"n1"})");
  auto guard = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"guard","namespace":"default","uid":"uid-guard"},
          "spec":{"priority":0,"nodeName":"n1","affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
            {"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"web"}}}]}},
          "containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}})");
  ASSERT_TRUE(guard.ok()) << guard.status().message();
  n1->AddPod(MakePodInfo(guard.value()));
  n1->AddPod(PrioPod("bystander", 0, "1"));
  auto pod = PrioPod("web", 10, "1", "", R"({"app":"web"})");
  auto state = Prepare(*pod, {n1});
  EXPECT_EQ(fw_->RunFilter(*state, *pod, *snapshot_.Get("n1")).Message(),
            "node(s) didn't satisfy existing pods anti-affinity rules");
  NodeInfo copy = *snapshot_.Get("n1");
  std::unique_ptr<CycleState> trial = state->Clone();
  PreemptionVictims victims;
  PluginStatus s = DefaultPreemption::SelectVictimsOnNode(*trial, *pod, copy, {}, *fw_, &victims);
  ASSERT_TRUE(s.ok()) << s.Message();
  // Only the guard goes: the bystander returns without breaking anything.
  EXPECT_EQ(Names(victims.pods), (std::vector<std::string>{"guard"}));
}

// Nominated pods of equal or higher priority hold their room; lower ones do not.
TEST_F(DryRun, NominatedPodsHoldTheirRoomAgainstLowerPriority) {
  struct NominatingHandle : FakeHandle {
    std::vector<PodInfoPtr> nominated;
    std::vector<PodInfoPtr> NominatedPodsForNode(const std::string&) const override {
      return nominated;
    }
    bool HasNominatedPods() const override { return !nominated.empty(); }
  } handle;
  auto fw = Framework::Build(ProfileConfig{}, InTreeRegistry(), handle).value();
  auto node = Node("n", "4");
  handle.nominated = {PrioPod("waiting", 10, "3")};
  for (auto [priority, fits] : {std::pair{5, false}, std::pair{10, false}, std::pair{20, true}}) {
    auto pod = PrioPod("p" + std::to_string(priority), priority, "2");
    Snapshot snapshot = Snapshot::FromNodes({node});
    CycleState state(&snapshot);
    ASSERT_TRUE(fw->RunPreFilter(state, *pod).ok());
    PluginStatus s = fw->RunFilterWithNominatedPods(state, *pod, *snapshot.Get("n"));
    // Equal or higher priority nominated pods count (10 ≥ 5, 10 ≥ 10); for 20 the nominee does not.
    EXPECT_EQ(s.ok(), fits) << priority << ": " << s.Message();
  }
}

TEST(PickOneNode, FollowsKubesOrderOfTieBreaks) {
  auto victims = [](std::vector<PodInfoPtr> pods, int64_t violations = 0) {
    PreemptionVictims v;
    v.pods = std::move(pods);
    v.pdb_violations = violations;
    return v;
  };
  using Candidates = std::vector<std::pair<std::string, PreemptionVictims>>;
  // 1. fewest PDB violations
  EXPECT_EQ(DefaultPreemption::PickOneNode(Candidates{{"a", victims({PrioPod("x", 0, "1")}, 1)},
                                                      {"b", victims({PrioPod("y", 5, "1")}, 0)}}),
            1u);
  // 2. lowest highest-victim priority
  EXPECT_EQ(DefaultPreemption::PickOneNode(
                Candidates{{"a", victims({PrioPod("x", 5, "1")})},
                           {"b", victims({PrioPod("y", 3, "1"), PrioPod("z", 3, "1")})}}),
            1u);
  // 3. smallest sum of priorities (shifted: more pods of priority -5 still sum higher)
  EXPECT_EQ(DefaultPreemption::PickOneNode(
                Candidates{{"a", victims({PrioPod("x", 3, "1"), PrioPod("w", 2, "1")})},
                           {"b", victims({PrioPod("y", 3, "1"), PrioPod("z", 1, "1")})}}),
            1u);
  EXPECT_EQ(DefaultPreemption::PickOneNode(
                Candidates{{"a", victims({PrioPod("x", -5, "1"), PrioPod("w", -5, "1")})},
                           {"b", victims({PrioPod("y", -5, "1")})}}),
            1u);
  // 4. fewest victims (equal sums need equal priorities: covered by 3's shift); 5. latest start
  //    of the highest-priority victims
  EXPECT_EQ(DefaultPreemption::PickOneNode(
                Candidates{{"a", victims({PrioPod("x", 3, "1", "2026-01-01T00:00:01Z")})},
                           {"b", victims({PrioPod("y", 3, "1", "2026-01-01T00:00:09Z")})}}),
            1u);
  // 6. then the first
  EXPECT_EQ(DefaultPreemption::PickOneNode(
                Candidates{{"a", victims({PrioPod("x", 3, "1", "2026-01-01T00:00:01Z")})},
                           {"b", victims({PrioPod("y", 3, "1", "2026-01-01T00:00:01Z")})}}),
            0u);
}

TEST(EligibleToPreempt, NeverAndATerminatingVictimOnTheNominatedNode) {
  Snapshot empty;
  auto never = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"n","namespace":"default"},
          "spec":{"priority":10,"preemptionPolicy":"Never","containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(DefaultPreemption::EligibleToPreempt(*MakePodInfo(never.value()), empty, nullptr),
            "not eligible due to preemptionPolicy=Never.");

  auto node = Node("n1", "4");
  auto victim = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"v","namespace":"default",
          "deletionTimestamp":"2026-01-01T00:00:00Z"},
          "spec":{"priority":0,"nodeName":"n1","containers":[{"name":"c","image":"i"}]},
          "status":{"conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}]}})");
  node->AddPod(MakePodInfo(victim.value()));
  Snapshot snapshot = Snapshot::FromNodes({node});
  auto waiting = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"default"},
          "spec":{"priority":10,"containers":[{"name":"c","image":"i"}]},"status":{"nominatedNodeName":"n1"}})");
  auto info = MakePodInfo(waiting.value());
  EXPECT_EQ(DefaultPreemption::EligibleToPreempt(*info, snapshot, nullptr),
            "not eligible due to a terminating pod on the nominated node.");
  // The nomination this scheduler made counts before the pod's status shows it.
  struct Nominating : FakeHandle {
    std::string NominatedNodeOf(const std::string&) const override { return "n1"; }
  } nominating;
  auto unwritten = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"u","namespace":"default"},
          "spec":{"priority":10,"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_EQ(DefaultPreemption::EligibleToPreempt(*MakePodInfo(unwritten.value()), snapshot, nullptr, &nominating),
            "not eligible due to a terminating pod on the nominated node.");
  EXPECT_EQ(DefaultPreemption::EligibleToPreempt(*MakePodInfo(unwritten.value()), snapshot, nullptr, nullptr), "");
  // Its nominated node can no longer take it at all: it may preempt elsewhere.
  PluginStatus unresolvable =
      PluginStatus::Unresolvable("node(s) didn't match Pod's node affinity/selector");
  EXPECT_EQ(DefaultPreemption::EligibleToPreempt(*info, snapshot, &unresolvable), "");
}

TEST(DefaultPreemptionArgs, CandidatesAndValidation) {
  FakeHandle handle;
  auto plugin = [&](const std::string& args) {
    return NewDefaultPreemption(boost::json::parse(args).as_object(), handle);
  };
  auto defaults = std::dynamic_pointer_cast<DefaultPreemption>(plugin("{}").value());
  EXPECT_EQ(defaults->NumCandidates(50), 50u);     // fewer than 100: all
  EXPECT_EQ(defaults->NumCandidates(5000), 500u);  // 10%
  EXPECT_EQ(defaults->NumCandidates(500), 100u);   // at least 100
  auto custom = std::dynamic_pointer_cast<DefaultPreemption>(
      plugin(R"({"minCandidateNodesPercentage":50,"minCandidateNodesAbsolute":1})").value());
  EXPECT_EQ(custom->NumCandidates(10), 5u);
  EXPECT_EQ(plugin(R"({"minCandidateNodesPercentage":101})").status().message(),
            "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]");
  EXPECT_EQ(plugin(R"({"minCandidateNodesAbsolute":-1})").status().message(),
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)");
  EXPECT_FALSE(plugin(R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0})").ok());
  EXPECT_EQ(plugin(R"({"minCandidates":1})").status().message(), "minCandidates: unknown field");
}

// The whole path: a full node, a pod of higher priority, the victim evicted,
// the node nominated, the pod held until the victim is gone, then bound there.
TEST(Preemption, AHigherPriorityPodEvictsAndIsBoundOnTheNominatedNode) {
  SchedulerOptions options;
  options.seed = 1;
  FakeCluster cluster(options);
  cluster.hold_evictions = true;  // the API server takes its time to delete
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "2"));
  s.OnPodAdd(PrioPod("low-a", 0, "1", "2026-01-01T00:00:01Z", "{}", "n1")->object);
  s.OnPodAdd(PrioPod("low-b", 0, "1", "2026-01-01T00:00:02Z", "{}", "n1")->object);
  s.Start();
  s.OnPodAdd(PrioPod("high", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  {
    std::lock_guard lock(cluster.mu);
    // The later-started of the two equal victims goes (the earlier one is more important).
    EXPECT_EQ(cluster.preempted,
              (std::vector<std::string>{"default/low-b for default/high on n1"}));
    EXPECT_EQ(cluster.nominations["default/high"], "n1");  // written with the failure
  }
  // Held while its victim is still there: one attempt, no second eviction.
  EXPECT_EQ(s.queue().counts().gated, 1u);
  EXPECT_EQ(s.stats().unschedulable, 1u);
  EXPECT_TRUE(s.handle().BeingEvicted("default/low-b"));
  EXPECT_TRUE(cluster.Placements().empty());

  cluster.DeliverEvictions();
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_FALSE(s.handle().BeingEvicted("default/low-b"));
  EXPECT_EQ(cluster.Placements()["default/high"], "n1");
  EXPECT_EQ(s.stats().unschedulable, 1u);
  std::lock_guard lock(cluster.mu);
  EXPECT_EQ(cluster.preempted.size(), 1u);
}

// A victim already terminating (a deletionTimestamp) is evicted again but not
// waited for: kube counts such a preemption as done. The preemptor is not
// held; it waits in the unschedulable pool for the victim's deletion, as any
// pod nominated to a node with a terminating victim.
TEST(Preemption, ATerminatingVictimIsNotWaitedFor) {
  SchedulerOptions options;
  options.seed = 1;
  FakeCluster cluster(options);
  cluster.hold_evictions = true;
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "1"));
  auto terminating = PrioPod("low", 0, "1", "2026-01-01T00:00:01Z", "{}", "n1")
                         ->object->Edit([](boost::json::object& o) {
                           o["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:01:00Z";
                         });
  ASSERT_TRUE(terminating.ok());
  s.OnPodAdd(terminating.value());
  s.Start();
  s.OnPodAdd(PrioPod("high", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  {
    std::lock_guard lock(cluster.mu);
    EXPECT_EQ(cluster.preempted, (std::vector<std::string>{"default/low for default/high on n1"}));
  }
  EXPECT_FALSE(s.handle().BeingEvicted("default/low"));
  EXPECT_EQ(s.queue().counts().gated, 0u);
  EXPECT_EQ(s.queue().counts().unschedulable + s.queue().counts().backoff, 1u);
  cluster.DeliverEvictions();
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.Placements()["default/high"], "n1");
}

// While one preemptor's victims are being evicted, another preemptor counts
// them as gone and the first one as already there: it evicts only what it
// needs itself, never the same pods again.
TEST(Preemption, AVictimBeingEvictedIsNotChosenAgain) {
  SchedulerOptions options;
  options.seed = 1;
  FakeCluster cluster(options);
  cluster.hold_evictions = true;
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "4"));
  for (int i = 0; i < 4; ++i) {
    s.OnPodAdd(PrioPod("low-" + std::to_string(i), 0, "1",
                       "2026-01-01T00:00:0" + std::to_string(i) + "Z", "{}", "n1")
                   ->object);
  }
  s.Start();
  s.OnPodAdd(PrioPod("high-a", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  s.OnPodAdd(PrioPod("high-b", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  {
    std::lock_guard lock(cluster.mu);
    // Latest-started first: low-3 for high-a, then low-2 (not low-3 again) for high-b.
    EXPECT_EQ(cluster.preempted,
              (std::vector<std::string>{"default/low-3 for default/high-a on n1",
                                        "default/low-2 for default/high-b on n1"}));
  }
  cluster.DeliverEvictions();
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.Placements()["default/high-a"], "n1");
  EXPECT_EQ(cluster.Placements()["default/high-b"], "n1");
}

// A nominated pod holds its node's room against pods of lower priority; once
// it is deleted they are retried at once (kube moves them on that delete),
// not after the unschedulable pool's five minutes.
TEST(Preemption, ANominatedPodsDeletionRetriesThePodsItKeptOut) {
  FakeCluster cluster;
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "2"));
  // A pod on the node terminating because of a preemption: the nominee may
  // not preempt more, it waits for it.
  auto terminating = PrioPod("old", 0, "1", "2026-01-01T00:00:01Z", "{}", "n1")
                         ->object->Edit([](boost::json::object& o) {
                           o["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:01:00Z";
                           o["status"].as_object()["conditions"] = boost::json::array{
                               {{"type", "DisruptionTarget"}, {"status", "True"}, {"reason", "PreemptionByScheduler"}}};
                         });
  ASSERT_TRUE(terminating.ok());
  s.OnPodAdd(terminating.value());
  auto nominee = PrioPod("nominee", 10, "2")->object->Edit([](boost::json::object& o) {
    o["status"].as_object()["nominatedNodeName"] = "n1";
  });
  ASSERT_TRUE(nominee.ok());
  s.Start();
  s.OnPodAdd(nominee.value());
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.FailureOf("default/nominee"),
            "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due "
            "to a terminating pod on the nominated node..");
  s.OnPodAdd(PrioPod("low", 5, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(s.handle().NominatedPodsForNode("n1").size(), 1u);
  EXPECT_EQ(s.queue().counts().unschedulable, 2u);
  EXPECT_TRUE(cluster.Placements().empty());

  s.OnPodDelete(nominee.value());
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.Placements()["default/low"], "n1");
}

TEST(Preemption, MessagesAreKubes) {
  FakeCluster cluster;
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "1"));
  s.OnNodeAdd(NodeObject("n2", "1", "8Gi", R"({"disk":"hdd"})"));
  s.OnPodAdd(PrioPod("same-1", 10, "1", "", "{}", "n1")->object);
  s.OnPodAdd(PrioPod("same-2", 10, "1", "", "{}", "n2")->object);
  s.Start();
  s.OnPodAdd(PrioPod("peer", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.FailureOf("default/peer"),
            "Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are "
            "available: "
            "2 No preemption victims found for incoming pod..");

  auto never = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"never","namespace":"default","uid":"u-never"},
          "spec":{"priority":100,"preemptionPolicy":"Never",
                  "containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}})");
  s.OnPodAdd(never.value());
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(
      cluster.FailureOf("default/never"),
      "Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to "
      "preemptionPolicy=Never..");

  auto selective = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"picky","namespace":"default","uid":"u-picky"},
          "spec":{"priority":100,"nodeSelector":{"disk":"ssd"},
                  "containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}})");
  s.OnPodAdd(selective.value());
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.FailureOf("default/picky"),
            "Unschedulable: 0/2 nodes are available: 2 node(s) didn't match Pod's node "
            "affinity/selector. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..");
}

}  // namespace
}  // namespace berth::scheduler
