// `berth explain`'s dry run: each plugin's "what would make it fit" against
// hand-made nodes, the closest nodes' order, the Score table and the margin,
// preemption's victims without evicting, kube's summary, and the scheduler's
// look-up of pending and placed pods.

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_cluster.h"
#include "scheduler/explain/explanation.h"
#include "scheduler/explain/what_would_fit.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::FakeHandle;
using testing::Node;
using testing::NodeObject;
using testing::Pod;
using testing::PodRequesting;

constexpr const char* kBasicSpec = R"("containers":[{"name":"c","image":"i"}])";

// A pod already on `node` (spec.nodeName), with labels, priority and cpu.
PodInfoPtr PlacedPod(const std::string& name, const std::string& node,
                     const std::string& labels = "{}", int priority = 0,
                     const std::string& cpu = "100m", const std::string& extra = "") {
  return Pod(name,
             R"({"nodeName":")" + node + R"(","priority":)" + std::to_string(priority) +
                 R"(,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" +
                 cpu + R"("}})" + extra + "}]}",
             labels);
}

std::shared_ptr<NodeInfo> NodeWith(std::shared_ptr<NodeInfo> node,
                                   const std::vector<PodInfoPtr>& pods) {
  for (const auto& p : pods) node->AddPod(p);
  return node;
}

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto built = Framework::Build(ProfileConfig{}, InTreeRegistry(), handle_);
    ASSERT_TRUE(built.ok()) << built.status().message();
    fw_ = std::move(built).value();
  }
  Explanation Run(const PodInfoPtr& pod, const std::vector<NodeInfoPtr>& nodes) {
    snapshot_ = Snapshot::FromNodes(nodes);
    auto e = Explain(*fw_, snapshot_, *pod, handle_);
    EXPECT_TRUE(e.ok()) << e.status().message();
    return e.ok() ? std::move(e).value() : Explanation{};
  }
  static const NodeExplanation& NodeOf(const Explanation& e, const std::string& name) {
    auto it =
        std::find_if(e.nodes.begin(), e.nodes.end(), [&](const auto& n) { return n.node == name; });
    EXPECT_NE(it, e.nodes.end()) << name;
    return *it;
  }
  static std::string Hints(const NodeExplanation& n) {
    std::string out;
    for (const auto& h : n.would_fit) out += h + "\n";
    return out;
  }

  FakeHandle handle_;
  std::unique_ptr<Framework> fw_;
  Snapshot snapshot_;
};

TEST_F(ExplainTest, ResourcesShortSayByHowMuchAndRankTheClosestFirst) {
  // n-far has 500m free, n-near 1500m; the pod wants 2 cpu.
  auto far = NodeWith(Node("n-far", "2"), {PlacedPod("a", "n-far", "{}", 0, "1500m")});
  auto near = NodeWith(Node("n-near", "2"), {PlacedPod("b", "n-near", "{}", 0, "500m")});
  Explanation e = Run(PodRequesting("p", "2", ""), {far, near});
  EXPECT_EQ(e.summary, "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(e.feasible, 0u);
  EXPECT_NE(Hints(NodeOf(e, "n-near"))
                .find("cpu: short by 500m (the pod requests 2, 1500m free of 2 allocatable)"),
            std::string::npos)
      << Hints(NodeOf(e, "n-near"));
  EXPECT_NE(Hints(NodeOf(e, "n-far")).find("cpu: short by 1500m"), std::string::npos);
  ASSERT_EQ(e.closest_nodes.size(), 2u);
  EXPECT_EQ(e.closest_nodes[0], "n-near");
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0].rfind("node n-near: cpu: short by 500m", 0), 0u) << e.suggestions[0];
}

TEST_F(ExplainTest, FewerFailingPluginsComeBeforeSmallerShortfall) {
  // n-taint is short of nothing but tainted; n-cpu is only short of cpu; n-both fails both.
  auto tainted = Node("n-taint", "8", "8Gi", "{}",
                      R"({"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]})");
  auto both = Node("n-both", "1", "8Gi", "{}",
                   R"({"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]})");
  auto small = Node("n-cpu", "1");
  Explanation e = Run(PodRequesting("p", "2", ""), {both, tainted, small});
  EXPECT_EQ(NodeOf(e, "n-both").failing_plugins, 2);
  ASSERT_EQ(e.closest_nodes.size(), 3u);
  EXPECT_EQ(e.closest_nodes.back(), "n-both");
}

TEST_F(ExplainTest, TaintNamesTheTolerationNeeded) {
  auto gpu = Node("gpu-1", "4", "8Gi", "{}",
                  R"({"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"},)"
                  R"({"key":"soft","effect":"PreferNoSchedule"}]})");
  Explanation e = Run(Pod("p"), {gpu});
  const NodeExplanation& n = NodeOf(e, "gpu-1");
  EXPECT_EQ(n.status.plugin(), "TaintToleration");
  ASSERT_EQ(n.would_fit.size(), 1u) << Hints(n);
  EXPECT_EQ(n.would_fit[0],
            "add a toleration for taint dedicated=gpu:NoSchedule (or remove the taint)");
  EXPECT_EQ(e.summary,
            "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}.");
}

TEST_F(ExplainTest, NodeSelectorNamesTheMissingOrWrongLabel) {
  auto none = Node("plain");
  auto hdd = Node("hdd", "4", "8Gi", R"({"disktype":"hdd"})");
  Explanation e =
      Run(Pod("p", std::string("{") + R"("nodeSelector":{"disktype":"ssd"},)" + kBasicSpec + "}"),
          {none, hdd});
  EXPECT_EQ(Hints(NodeOf(e, "plain")), "node lacks label disktype=ssd (nodeSelector)\n");
  EXPECT_EQ(Hints(NodeOf(e, "hdd")),
            "nodeSelector wants disktype=ssd, the node has disktype=hdd\n");
}

TEST_F(ExplainTest, RequiredNodeAffinityShowsTheTermClosestToMatching) {
  // Term 1 misses two requirements on the node, term 2 only one.
  std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[{"key":"a","operator":"In","values":["1"]},{"key":"b","operator":"Exists"}]},)"
      R"({"matchExpressions":[{"key":"zone","operator":"In","values":["z1","z2"]}]}]}}},)";
  auto node = Node("n", "4", "8Gi", R"({"zone":"z3"})");
  Explanation e = Run(Pod("p", "{" + affinity + kBasicSpec + "}"), {node});
  EXPECT_EQ(Hints(NodeOf(e, "n")), "node affinity wants zone In [z1 z2], the node has zone=z3\n");
}

TEST_F(ExplainTest, TopologySpreadNamesTheSkewAndTheMissingLabel) {
  const std::string zone = R"({"topology.kubernetes.io/zone":"zone-a"})";
  auto a1 = NodeWith(Node("a1", "8", "8Gi", zone), {PlacedPod("x1", "a1", R"({"app":"x"})"),
                                                    PlacedPod("x2", "a1", R"({"app":"x"})")});
  // zone-b has room by spread but its only node is cordoned.
  auto b1 = Node("b1", "8", "8Gi", R"({"topology.kubernetes.io/zone":"zone-b"})",
                 R"({"unschedulable":true})");
  auto bare = Node("bare");
  std::string spread =
      R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",)"
      R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"x"}}}],)";
  Explanation e = Run(Pod("p", "{" + spread + kBasicSpec + "}", R"({"app":"x"})"), {a1, b1, bare});
  EXPECT_EQ(Hints(NodeOf(e, "a1")),
            "topology topology.kubernetes.io/zone=zone-a has 2 matching pods, "
            "topology.kubernetes.io/zone=zone-b "
            "has 0: placing the pod here makes skew 3 > maxSkew 1 (room in "
            "topology.kubernetes.io/zone=zone-b or "
            "a larger maxSkew would do)\n");
  EXPECT_EQ(Hints(NodeOf(e, "bare")),
            "node lacks label topology.kubernetes.io/zone (a topology spread constraint's "
            "topologyKey)\n");
  EXPECT_NE(Hints(NodeOf(e, "b1")).find("kubectl uncordon b1"), std::string::npos)
      << Hints(NodeOf(e, "b1"));
}

TEST_F(ExplainTest, AntiAffinityNamesThePodInTheWay) {
  const std::string host1 = R"({"kubernetes.io/hostname":"h1"})";
  auto h1 = NodeWith(Node("h1", "8", "8Gi", host1), {PlacedPod("db", "h1", R"({"app":"db"})")});
  std::string anti =
      R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname"}]}},)";
  Explanation e = Run(Pod("p", "{" + anti + kBasicSpec + "}"), {h1});
  EXPECT_EQ(NodeOf(e, "h1").status.plugin(), "InterPodAffinity");
  EXPECT_EQ(Hints(NodeOf(e, "h1")),
            "pod(s) default/db in kubernetes.io/hostname=h1 match the pod's anti-affinity: they "
            "would have to go, "
            "or the term be relaxed\n");
}

TEST_F(ExplainTest, ExistingPodsAntiAffinityNamesThatPod) {
  std::string anti =
      R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}})";
  auto h1 = NodeWith(Node("h1", "8", "8Gi", R"({"kubernetes.io/hostname":"h1"})"),
                     {Pod("loner", R"({"nodeName":"h1")" + anti + "," + kBasicSpec + "}")});
  Explanation e = Run(Pod("p", std::string("{") + kBasicSpec + "}", R"({"app":"web"})"), {h1});
  EXPECT_EQ(Hints(NodeOf(e, "h1")),
            "the anti-affinity of pod(s) default/loner (kubernetes.io/hostname=h1) keeps this pod "
            "away\n");
}

TEST_F(ExplainTest, HostPortNamesThePodHoldingIt) {
  const std::string port = R"(,"ports":[{"containerPort":80,"hostPort":8080}])";
  auto n = NodeWith(Node("n"), {PlacedPod("web", "n", "{}", 0, "100m", port)});
  Explanation e = Run(
      Pod("p",
          R"({"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"hostPort":8080}]}]})"),
      {n});
  EXPECT_EQ(Hints(NodeOf(e, "n")), "host port 8080/TCP is taken by default/web\n");
}

TEST_F(ExplainTest, PreemptionNamesItsVictimsAndEvictsNothing) {
  auto n1 = NodeWith(Node("n1", "4"), {PlacedPod("low", "n1", "{}", 1, "3")});
  auto n2 = NodeWith(Node("n2", "4"), {PlacedPod("high", "n2", "{}", 100, "3")});
  auto pod = Pod(
      "p",
      R"({"priority":50,"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"2"}}}]})");
  Explanation e = Run(pod, {n1, n2});
  ASSERT_TRUE(e.preemption.considered);
  EXPECT_TRUE(e.preemption.helps) << e.preemption.reason;
  EXPECT_EQ(e.preemption.node, "n1");
  EXPECT_EQ(e.preemption.victims, std::vector<std::string>{"default/low"});
  EXPECT_EQ(e.preemption.candidates, 1u);
  EXPECT_EQ(e.suggestions.back(), "preemption would make room on node n1 by evicting default/low");
  // A dry run: the nodes still hold their pods.
  EXPECT_EQ(snapshot_.Get("n1")->pods().size(), 1u);
  EXPECT_EQ(n1->pods().size(), 1u);
}

TEST_F(ExplainTest, PreemptionPolicyNeverSaysWhy) {
  auto n1 = NodeWith(Node("n1", "4"), {PlacedPod("low", "n1", "{}", 1, "3")});
  Explanation e = Run(
      Pod("p", R"({"priority":50,"preemptionPolicy":"Never","containers":[{"name":"c","image":"i",)"
               R"("resources":{"requests":{"cpu":"2"}}}]})"),
      {n1});
  EXPECT_FALSE(e.preemption.helps);
  EXPECT_EQ(e.preemption.reason, "not eligible due to preemptionPolicy=Never.");
}

TEST_F(ExplainTest, ScoreTableSumsWeightedScoresAndGivesTheMargin) {
  auto busy = NodeWith(Node("busy", "4"), {PlacedPod("x", "busy", "{}", 0, "3")});
  auto idle = Node("idle", "4");
  Explanation e = Run(PodRequesting("p", "500m", "100Mi"), {busy, idle});
  ASSERT_EQ(e.scores.size(), 2u);
  EXPECT_EQ(e.scores[0].node, "idle");
  for (const auto& row : e.scores) {
    int64_t sum = 0;
    for (const auto& c : row.cells) {
      EXPECT_EQ(c.weighted, c.normalized * c.weight) << c.plugin;
      EXPECT_EQ(c.weight, fw_->ScoreWeight(c.plugin)) << c.plugin;
      sum += c.weighted;
    }
    EXPECT_EQ(row.total, sum);
  }
  EXPECT_EQ(e.chosen, "idle");
  EXPECT_EQ(e.runner_up, "busy");
  EXPECT_EQ(e.margin, e.scores[0].total - e.scores[1].total);
  EXPECT_GT(e.margin, 0);
  EXPECT_FALSE(e.random_decides);
  EXPECT_EQ(e.tied, 1u);
  EXPECT_TRUE(e.suggestions.empty());
  EXPECT_EQ(
      e.summary.rfind("2/2 nodes fit the pod now; the scheduler would choose idle (score ", 0), 0u)
      << e.summary;
}

TEST_F(ExplainTest, EqualNodesAreARandomTieBreak) {
  Explanation e = Run(PodRequesting("p", "500m", ""), {Node("a"), Node("b"), Node("c")});
  EXPECT_EQ(e.tied, 3u);
  EXPECT_TRUE(e.random_decides);
  EXPECT_EQ(e.margin, 0);
  EXPECT_DOUBLE_EQ(e.chosen_probability, 1.0 / 3);
}

TEST_F(ExplainTest, LeavesTheSchedulersMetricsAlone) {
  metrics::Registry registry;
  auto& family = registry.AddHistogram("scheduler_framework_extension_point_duration_seconds",
                                       "help", metrics::ExponentialBuckets(0.000001, 2, 20),
                                       {"extension_point", "status", "profile"});
  auto timed = Framework::Build(ProfileConfig{}, InTreeRegistry(), handle_, "profiles[0]",
                                {&family, nullptr});
  ASSERT_TRUE(timed.ok());
  const std::string before = registry.Render();
  snapshot_ = Snapshot::FromNodes({Node("a"), Node("b")});
  ASSERT_TRUE(Explain(*timed.value(), snapshot_, *PodRequesting("p", "1", ""), handle_).ok());
  EXPECT_EQ(registry.Render(), before);
}

TEST_F(ExplainTest, JsonCarriesTheContractFields) {
  Explanation e = Run(PodRequesting("p", "16", ""), {Node("a")});
  boost::json::object o = ExplanationToJson(e);
  EXPECT_EQ(o.at("summary").as_string(), "0/1 nodes are available: 1 Insufficient cpu.");
  ASSERT_TRUE(o.at("suggestions").is_array());
  EXPECT_EQ(o.at("suggestions").as_array().size(), 1u);
  EXPECT_EQ(o.at("reasonCounts").as_object().at("Insufficient cpu").as_int64(), 1);
  const auto& filters = o.at("nodes").as_array()[0].as_object().at("filters").as_array();
  EXPECT_EQ(filters.size(), fw_->PluginNames("filter").size());
}

TEST_F(ExplainTest, NodesLeftOutByPreFilterCarryKubesReason) {
  // Required node affinity naming node n2 by metadata.name: NodeAffinity's
  // PreFilter restricts the pod to n2, which is too small.
  std::string affinity =
      R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
      R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",)"
      R"("values":["n2"]}]}]}}},"containers":[{"name":"c","image":"i","resources":)"
      R"({"requests":{"cpu":"2"}}}]})";
  Explanation e = Run(Pod("p", affinity), {Node("n1", "8"), Node("n2", "1")});
  EXPECT_EQ(NodeOf(e, "n1").status.Message(), "node(s) didn't satisfy plugin(s) [NodeAffinity]");
  EXPECT_TRUE(NodeOf(e, "n1").filters.empty());
  EXPECT_EQ(NodeOf(e, "n2").status.plugin(), "NodeResourcesFit");
  EXPECT_EQ(e.summary,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
  // n2 is the closest: only its cpu is short.
  ASSERT_FALSE(e.closest_nodes.empty());
  EXPECT_EQ(e.closest_nodes.front(), "n2");
}

TEST_F(ExplainTest, NoNodesSaysSo) {
  Explanation e = Run(Pod("p"), {});
  EXPECT_EQ(e.summary, "0/0 nodes are available: no nodes available to schedule pods.");
  EXPECT_EQ(e.suggestions, std::vector<std::string>{"add a node"});
}

TEST(FormatAmount, UsesKubernetesQuantities) {
  EXPECT_EQ(FormatAmount("cpu", 1500), "1500m");
  EXPECT_EQ(FormatAmount("cpu", 2000), "2");
  EXPECT_EQ(FormatAmount("memory", int64_t{512} << 20), "512Mi");
  EXPECT_EQ(FormatAmount("example.com/gpu", 3), "3");
}

// ---- the scheduler's look-up ----

TEST(SchedulerExplain, PendingPodComesFromTheQueue) {
  FakeCluster cluster;
  cluster.scheduler->OnNodeAdd(NodeObject("n1", "1"));
  cluster.scheduler->OnPodAdd(PodRequesting("big", "2", "")->object);
  auto e = cluster.scheduler->Explain("default", "big");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->summary, "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_TRUE(e->bound_node.empty());
  auto missing = cluster.scheduler->Explain("default", "nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "pods \"nope\" not found");
}

TEST(SchedulerExplain, PlacedPodIsExplainedWithoutItself) {
  FakeCluster cluster;
  cluster.scheduler->OnNodeAdd(NodeObject("n1", "2"));
  cluster.scheduler->OnNodeAdd(NodeObject("n2", "1"));
  // It takes most of n1: counted, it would not fit there again.
  cluster.scheduler->OnPodAdd(PlacedPod("placed", "n1", "{}", 0, "1500m")->object);
  auto e = cluster.scheduler->Explain("default", "placed");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->bound_node, "n1");
  EXPECT_EQ(e->feasible, 1u);
  ASSERT_EQ(e->scores.size(), 1u);
  EXPECT_EQ(e->scores[0].node, "n1");
  EXPECT_EQ(e->summary.rfind("bound to n1; it still fits there", 0), 0u) << e->summary;
  // The cache is unchanged: the pod is still on n1.
  EXPECT_EQ(cluster.scheduler->cache().NodeOf("default/placed"), "n1");
}

TEST(SchedulerExplain, PlacedPodIsNotHeldToItsOwnNodeName) {
  FakeCluster cluster;
  cluster.scheduler->OnNodeAdd(NodeObject("n1", "2"));
  cluster.scheduler->OnNodeAdd(NodeObject("n2", "4"));
  cluster.scheduler->OnPodAdd(PlacedPod("placed", "n1", "{}", 0, "1500m")->object);
  auto e = cluster.scheduler->Explain("default", "placed");
  ASSERT_TRUE(e.ok()) << e.status().message();
  // spec.nodeName is the outcome being explained, not a constraint: n2 fits too.
  EXPECT_EQ(e->feasible, 2u);
  EXPECT_EQ(e->chosen, "n2");
  EXPECT_NE(e->summary.find("the scheduler would now choose n2"), std::string::npos) << e->summary;
}

TEST(SchedulerExplain, PlacedPodShowsTheDecisionThatPlacedIt) {
  FakeCluster cluster;
  cluster.scheduler->OnNodeAdd(NodeObject("small", "2"));
  cluster.scheduler->OnNodeAdd(NodeObject("large", "16"));
  cluster.scheduler->Start();
  cluster.scheduler->OnPodAdd(PodRequesting("web", "1", "")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  ASSERT_EQ(cluster.Placements()["default/web"], "large");
  auto d = cluster.scheduler->LastDecision("default/web");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->node, "large");
  EXPECT_EQ(d->runner_up, "small");
  EXPECT_EQ(d->feasible, 2u);
  EXPECT_EQ(d->tied, 1u);
  EXPECT_GT(d->margin, 0);
  auto e = cluster.scheduler->Explain("default", "web");
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_TRUE(e->decision.has_value());
  EXPECT_EQ(e->decision->runner_up, "small");
  EXPECT_EQ(e->decision->margin, d->margin);
  // The dry run now, with the pod taken off its node, agrees with the record.
  EXPECT_EQ(e->chosen, "large");
  EXPECT_EQ(e->margin, d->margin);
  EXPECT_FALSE(cluster.scheduler->LastDecision("default/other").has_value());
}

}  // namespace
}  // namespace berth::scheduler
