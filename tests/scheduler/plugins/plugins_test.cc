// The small in-tree plugins and NodeResourcesFit / NodeAffinity: filter codes
// and reasons, raw and normalised scores, from kube-scheduler's documented
// behaviour. Tables: name → input → expected.

#include <gtest/gtest.h>

#include "scheduler/plugins/basic/basic_plugins.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_resources/node_resources_fit.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::Node;
using testing::Pod;
using testing::PodRequesting;

struct FilterCase {
  std::string name;
  PodInfoPtr pod;
  std::shared_ptr<NodeInfo> node;
  Code code;
  std::vector<std::string> reasons;
};

void RunFilterCases(const FilterPlugin& plugin, const std::vector<FilterCase>& cases,
                    const PreFilterPlugin* pre_filter = nullptr) {
  for (const auto& c : cases) {
    Snapshot snapshot = Snapshot::FromNodes({c.node});
    CycleState state(&snapshot);
    if (pre_filter) {
      PluginStatus pre = pre_filter->PreFilter(state, *c.pod);
      if (pre.IsSkip()) {
        EXPECT_EQ(c.code, Code::kSuccess) << c.name << ": PreFilter skipped";
        continue;
      }
      ASSERT_TRUE(pre.ok()) << c.name << ": " << pre.Message();
    }
    PluginStatus s = plugin.Filter(state, *c.pod, *c.node);
    EXPECT_EQ(s.code(), c.code) << c.name << ": " << s.Message();
    EXPECT_EQ(s.reasons(), c.reasons) << c.name;
  }
}

TEST(NodeResourcesFit, FiltersLikeKube) {
  auto full = Node("full", "2", "4Gi", "{}", "{}", "2");
  full->AddPod(PodRequesting("a", "1500m", "1Gi"));
  full->AddPod(PodRequesting("b", "", ""));
  auto busy = Node("busy", "2", "4Gi");
  busy->AddPod(PodRequesting("a", "1500m", "3Gi"));
  auto gpu = Node("gpu", "2", "4Gi");
  // Pods bound by nodeName past the node's cpu (the kubelet admits them).
  auto overcommitted = Node("over", "2", "4Gi");
  overcommitted->AddPod(PodRequesting("a", "3", "1Gi"));
  std::vector<FilterCase> cases = {
      {"fits an empty node", PodRequesting("p", "1", "1Gi"), Node("n"), Code::kSuccess, {}},
      {"exact fit", PodRequesting("p", "4", "8Gi"), Node("n"), Code::kSuccess, {}},
      {"too much cpu", PodRequesting("p", "5", "1Gi"), Node("n"), Code::kUnschedulable, {"Insufficient cpu"}},
      {"cpu and memory both short", PodRequesting("p", "1", "2Gi"), busy, Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory"}},
      {"pod count is checked even for best-effort pods", Pod("p"), full, Code::kUnschedulable, {"Too many pods"}},
      // kube >= 1.27 (kubernetes#116408) checks only the resources a pod asks
      // for: no "Insufficient cpu" for a pod asking no cpu on a node past its
      // cpu. (kube <= 1.26 said "Insufficient cpu" there.)
      {"a resource the pod does not ask for is not checked", PodRequesting("p", "", "1Gi"), overcommitted,
       Code::kSuccess, {}},
      {"only the resource asked for is short", PodRequesting("p", "", "4Gi"), overcommitted, Code::kUnschedulable,
       {"Insufficient memory"}},
      {"extended resource missing on the node",
       Pod("p", R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"example.com/gpu":"1"}}}]})"), gpu,
       Code::kUnschedulable, {"Insufficient example.com/gpu"}},
      {"init container larger than the node",
       Pod("p", R"({"initContainers":[{"name":"i","image":"i","resources":{"requests":{"cpu":"5"}}}],"containers":[{"name":"c","image":"i"}]})"),
       Node("n"), Code::kUnschedulable, {"Insufficient cpu"}},
      {"overhead counts", Pod("p", R"({"overhead":{"cpu":"1"},"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"3500m"}}}]})"),
       Node("n"), Code::kUnschedulable, {"Insufficient cpu"}},
  };
  NodeResourcesFit fit;
  RunFilterCases(fit, cases);
}

TEST(NodeResourcesFit, HeadroomKeepsAMarginFree) {
  NodeResourcesFit fit;
  fit.headroom_percent = 20;  // 4 cpus → 3.2 usable
  auto node = Node("n");
  Snapshot snapshot = Snapshot::FromNodes({node});
  CycleState state(&snapshot);
  EXPECT_TRUE(fit.Filter(state, *PodRequesting("p", "3200m", "1Gi"), *node).ok());
  PluginStatus s = fit.Filter(state, *PodRequesting("p", "3300m", "1Gi"), *node);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient cpu"});
  node->AddPod(PodRequesting("a", "3", "1Gi"));
  EXPECT_FALSE(fit.Filter(state, *PodRequesting("p", "300m", "1Gi"), *node).ok());
  EXPECT_TRUE(fit.Filter(state, *PodRequesting("p", "200m", "1Gi"), *node).ok());
}

TEST(NodeResourcesFit, ArgumentsAreCheckedNamingTheField) {
  testing::FakeHandle handle;
  struct Case {
    std::string args, error;
  } cases[] = {
      {R"({"headroomPercent":100})", "headroomPercent: Invalid value: 100: must be an integer between 0 and 99"},
      {R"({"scoringStrategy":{"type":"Random"}})",
       "scoringStrategy.type: Unsupported value: \"Random\": supported values: \"LeastAllocated\", "
       "\"MostAllocated\", \"RequestedToCapacityRatio\""},
      {R"({"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":101}]}})",
       "scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"},
      {R"({"scoringStrategy":{"type":"RequestedToCapacityRatio"}})",
       "scoringStrategy.requestedToCapacityRatio.shape: Required value"},
      {R"({"nonsense":1})", "nonsense: unknown field"},
  };
  for (const auto& c : cases) {
    auto plugin = NewNodeResourcesFit(boost::json::parse(c.args).as_object(), handle);
    ASSERT_FALSE(plugin.ok()) << c.args;
    EXPECT_EQ(plugin.status().message(), c.error);
  }
  EXPECT_TRUE(NewNodeResourcesFit(boost::json::parse(R"({"headroomPercent":10})").as_object(), handle).ok());
}

int64_t ScoreOf(const ScorePlugin& plugin, const PodInfo& pod, const NodeInfo& node) {
  Snapshot snapshot = Snapshot::FromNodes({});
  CycleState state(&snapshot);
  int64_t score = -1;
  EXPECT_TRUE(plugin.Score(state, pod, node, &score).ok());
  return score;
}

TEST(NodeResourcesFit, ScoringStrategies) {
  // Node 4 cpu / 8Gi with 1 cpu / 2Gi used; pod 1 cpu / 2Gi → 50% of both after placement.
  auto node = Node("n");
  node->AddPod(PodRequesting("a", "1", "2Gi"));
  auto pod = PodRequesting("p", "1", "2Gi");
  NodeResourcesFit least;
  EXPECT_EQ(ScoreOf(least, *pod, *node), 50);
  NodeResourcesFit most;
  most.strategy = NodeResourcesFit::Strategy::kMostAllocated;
  EXPECT_EQ(ScoreOf(most, *pod, *node), 50);
  // cpu 75% used after placement, memory 25%: least = (25+75)/2, most = (75+25)/2; weighted cpu×3.
  auto pod2 = PodRequesting("q", "2", "0");
  NodeResourcesFit weighted;
  weighted.resources = {{"cpu", 3}, {"memory", 1}};
  EXPECT_EQ(ScoreOf(weighted, *pod2, *node), (25 * 3 + 75 * 1) / 4);
  // The same with the fields resolved (as parsed arguments and the defaults are).
  weighted.resources = {{"cpu", 3, api::CommonResourceField("cpu")},
                        {"memory", 1, api::CommonResourceField("memory")}};
  ASSERT_EQ(weighted.resources[0].field, &api::ResourceList::milli_cpu);
  EXPECT_EQ(ScoreOf(weighted, *pod2, *node), (25 * 3 + 75 * 1) / 4);
  EXPECT_EQ(api::CommonResourceField("nvidia.com/gpu"), nullptr);
  // A pod without requests counts as 100m / 200Mi for scoring (kube's non-zero rule).
  auto empty = Node("e", "1", "1000Mi");
  EXPECT_EQ(ScoreOf(least, *Pod("none"), *empty), (90 + 80) / 2);
  // RequestedToCapacityRatio: shape 0→0, 100→10 (×10): utilisation 50% → 50.
  auto ratio = NewNodeResourcesFit(
      boost::json::parse(
          R"({"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}})")
          .as_object(),
      testing::FakeHandle());
  ASSERT_TRUE(ratio.ok()) << ratio.status().message();
  EXPECT_EQ(ScoreOf(*std::dynamic_pointer_cast<ScorePlugin>(ratio.value()), *pod, *node), 50);
}

TEST(NodeResourcesBalancedAllocation, FavoursEvenUsage) {
  NodeResourcesBalancedAllocation balanced;
  auto node = Node("n");  // 4 cpu / 8Gi
  // cpu 2/4 = .5, memory 4Gi/8Gi = .5 → std 0 → 100.
  EXPECT_EQ(ScoreOf(balanced, *PodRequesting("p", "2", "4Gi"), *node), 100);
  // cpu .75, memory .25 → std .25 → 75.
  EXPECT_EQ(ScoreOf(balanced, *PodRequesting("p", "3", "2Gi"), *node), 75);
}

TEST(NodeAffinity, FiltersOnSelectorAndRequiredTerms) {
  NodeAffinity plugin;
  auto ssd = Node("ssd", "4", "8Gi", R"({"disk":"ssd","zone":"a"})");
  auto hdd = Node("hdd", "4", "8Gi", R"({"disk":"hdd","zone":"b"})");
  const std::string reason = "node(s) didn't match Pod's node affinity/selector";
  auto selector = Pod("p", R"({"nodeSelector":{"disk":"ssd"},"containers":[{"name":"c","image":"i"}]})");
  auto affinity = Pod("p", R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"NotIn","values":["a"]}]}]}}},"containers":[{"name":"c","image":"i"}]})");
  std::vector<FilterCase> cases = {
      {"no constraints", Pod("p"), ssd, Code::kSuccess, {}},
      {"selector matches", selector, ssd, Code::kSuccess, {}},
      {"selector does not match", selector, hdd, Code::kUnschedulableAndUnresolvable, {reason}},
      {"NotIn excludes zone a", affinity, ssd, Code::kUnschedulableAndUnresolvable, {reason}},
      {"NotIn admits zone b", affinity, hdd, Code::kSuccess, {}},
  };
  RunFilterCases(plugin, cases, &plugin);
}

TEST(NodeAffinity, ScoresPreferredTermsAndNormalises) {
  NodeAffinity plugin;
  auto pod = Pod("p", R"({"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
      {"weight":2,"preference":{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}},
      {"weight":6,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}}]}},
      "containers":[{"name":"c","image":"i"}]})");
  auto both = Node("both", "4", "8Gi", R"({"disk":"ssd","zone":"a"})");
  auto one = Node("one", "4", "8Gi", R"({"disk":"ssd","zone":"b"})");
  auto none = Node("none", "4", "8Gi", R"({"disk":"hdd"})");
  EXPECT_EQ(ScoreOf(plugin, *pod, *both), 8);
  EXPECT_EQ(ScoreOf(plugin, *pod, *one), 2);
  EXPECT_EQ(ScoreOf(plugin, *pod, *none), 0);
  std::vector<NodeScore> scores = {{both.get(), 8}, {one.get(), 2}, {none.get(), 0}};
  Snapshot snapshot;
  CycleState state(&snapshot);
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).ok());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 25);
  EXPECT_EQ(scores[2].score, 0);
}

TEST(NodeAffinity, AddedAffinityAppliesToEveryPod) {
  auto plugin = NewNodeAffinity(boost::json::parse(R"({"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["batch"]}]}]}}})").as_object(),
                                testing::FakeHandle());
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  const auto& na = dynamic_cast<const NodeAffinity&>(*plugin.value());
  RunFilterCases(na,
                 {{"pool matches", Pod("p"), Node("a", "4", "8Gi", R"({"pool":"batch"})"), Code::kSuccess, {}},
                  {"pool differs", Pod("p"), Node("b", "4", "8Gi", R"({"pool":"web"})"),
                   Code::kUnschedulableAndUnresolvable,
                   {"node(s) didn't match scheduler-enforced node affinity"}}},
                 &na);
  auto bad = NewNodeAffinity(boost::json::parse(R"({"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":7}})").as_object(),
                             testing::FakeHandle());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: expected an object");
}

TEST(TaintToleration, FiltersUntoleratedHardTaints) {
  TaintToleration plugin;
  auto tainted = Node("t", "4", "8Gi", "{}", R"({"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]})");
  auto soft = Node("s", "4", "8Gi", "{}", R"({"taints":[{"key":"spot","value":"true","effect":"PreferNoSchedule"}]})");
  auto tolerating = Pod("p", R"({"tolerations":[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}],"containers":[{"name":"c","image":"i"}]})");
  RunFilterCases(plugin, {
                             {"untolerated NoSchedule", Pod("p"), tainted, Code::kUnschedulableAndUnresolvable,
                              {"node(s) had untolerated taint {dedicated: gpu}"}},
                             {"tolerated", tolerating, tainted, Code::kSuccess, {}},
                             {"PreferNoSchedule does not filter", Pod("p"), soft, Code::kSuccess, {}},
                         });
}

TEST(TaintToleration, ScoresFewerPreferNoScheduleTaintsHigher) {
  TaintToleration plugin;
  auto clean = Node("clean");
  auto one = Node("one", "4", "8Gi", "{}", R"({"taints":[{"key":"a","effect":"PreferNoSchedule"}]})");
  auto two = Node("two", "4", "8Gi", "{}",
                  R"({"taints":[{"key":"a","effect":"PreferNoSchedule"},{"key":"b","effect":"PreferNoSchedule"}]})");
  auto pod = Pod("p");
  Snapshot snapshot = Snapshot::FromNodes({clean, one, two});
  CycleState state(&snapshot);
  std::vector<const NodeInfo*> nodes{clean.get(), one.get(), two.get()};
  ASSERT_TRUE(plugin.PreScore(state, *pod, nodes).ok());
  std::vector<NodeScore> scores;
  for (const auto* n : nodes) {
    int64_t s = 0;
    ASSERT_TRUE(plugin.Score(state, *pod, *n, &s).ok());
    scores.push_back({n, s});
  }
  EXPECT_EQ(scores[2].score, 2);
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).ok());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 50);
  EXPECT_EQ(scores[2].score, 0);
}

TEST(BasicPlugins, NodeNameUnschedulableAndPorts) {
  NodeName node_name;
  RunFilterCases(node_name,
                 {{"no nodeName", Pod("p"), Node("a"), Code::kSuccess, {}},
                  {"nodeName matches", Pod("p", R"({"nodeName":"a","containers":[]})"), Node("a"), Code::kSuccess, {}},
                  {"nodeName differs", Pod("p", R"({"nodeName":"b","containers":[]})"), Node("a"),
                   Code::kUnschedulableAndUnresolvable, {"node(s) didn't match the requested node name"}}});
  NodeUnschedulable unschedulable;
  auto cordoned = Node("c", "4", "8Gi", "{}", R"({"unschedulable":true})");
  RunFilterCases(unschedulable,
                 {{"schedulable", Pod("p"), Node("a"), Code::kSuccess, {}},
                  {"cordoned", Pod("p"), cordoned, Code::kUnschedulableAndUnresolvable, {"node(s) were unschedulable"}},
                  {"cordoned but tolerated",
                   Pod("p", R"({"tolerations":[{"key":"node.kubernetes.io/unschedulable","operator":"Exists","effect":"NoSchedule"}],"containers":[]})"),
                   cordoned, Code::kSuccess, {}}});
  NodePorts ports;
  auto used = Node("u");
  used->AddPod(Pod("web", R"({"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"hostPort":8080}]}]})"));
  auto wants = [](const std::string& port, const std::string& ip = "", const std::string& protocol = "") {
    std::string p = R"({"containerPort":80,"hostPort":)" + port;
    if (!ip.empty()) p += R"(,"hostIP":")" + ip + "\"";
    if (!protocol.empty()) p += R"(,"protocol":")" + protocol + "\"";
    return Pod("p", R"({"containers":[{"name":"c","image":"i","ports":[)" + p + "}]}]}");
  };
  const std::string reason = "node(s) didn't have free ports for the requested pod ports";
  RunFilterCases(ports,
                 {{"no host ports: skipped", Pod("p"), used, Code::kSuccess, {}},
                  {"same port", wants("8080"), used, Code::kUnschedulable, {reason}},
                  {"same port on a specific IP conflicts with 0.0.0.0", wants("8080", "10.0.0.1"), used,
                   Code::kUnschedulable, {reason}},
                  {"other protocol", wants("8080", "", "UDP"), used, Code::kSuccess, {}},
                  {"other port", wants("9090"), used, Code::kSuccess, {}}},
                 &ports);
}

TEST(BasicPlugins, PrioritySortAndSchedulingGates) {
  PrioritySort sort;
  auto now = std::chrono::steady_clock::now();
  QueuedPodInfo high{Pod("h", R"({"priority":100,"containers":[]})"), now, now};
  QueuedPodInfo low_early{Pod("l1", R"({"priority":1,"containers":[]})"), now - std::chrono::seconds(1), now};
  QueuedPodInfo low_late{Pod("l2", R"({"priority":1,"containers":[]})"), now, now};
  EXPECT_TRUE(sort.Less(high, low_early));
  EXPECT_FALSE(sort.Less(low_early, high));
  EXPECT_TRUE(sort.Less(low_early, low_late));
  EXPECT_FALSE(sort.Less(low_late, low_early));
  // Its sort key gives the same order, for every pair (ties included).
  ASSERT_TRUE(sort.HasSortKey());
  std::vector<QueuedPodInfo> pods;
  for (int priority : {-2000000000, -1, 0, 1, 2000000000}) {
    for (int seconds : {-1, 0, 1}) {
      auto pod = Pod("p", R"({"priority":)" + std::to_string(priority) + R"(,"containers":[]})");
      pods.push_back({pod, now + std::chrono::seconds(seconds), now});
    }
  }
  for (const auto& a : pods) {
    for (const auto& b : pods) {
      EXPECT_EQ(sort.Less(a, b), sort.SortKey(a) < sort.SortKey(b))
          << a.pod->view->priority << " vs " << b.pod->view->priority;
    }
  }

  SchedulingGates gates;
  EXPECT_TRUE(gates.PreEnqueue(*Pod("p")).ok());
  PluginStatus gated = gates.PreEnqueue(*Pod("p", R"({"schedulingGates":[{"name":"a"},{"name":"b"}],"containers":[]})"));
  EXPECT_FALSE(gated.ok());
  EXPECT_EQ(gated.Message(), "waiting for scheduling gates: [a b]");
}

TEST(ImageLocality, PrefersNodesWithTheImage) {
  ImageLocality plugin;
  auto with = Node("with", "4", "8Gi", "{}", "{}");
  auto with_obj = api::Object::Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"with"},
      "status":{"allocatable":{"cpu":"4"},"images":[{"names":["big:1"],"sizeBytes":524288000}]}})");
  ASSERT_TRUE(with_obj.ok());
  auto with_image = std::make_shared<NodeInfo>(with_obj.value());
  auto without = Node("without");
  Snapshot snapshot = Snapshot::FromNodes({with_image, without});
  CycleState state(&snapshot);
  auto pod = Pod("p", R"({"containers":[{"name":"c","image":"big:1"}]})");
  int64_t a = -1, b = -1;
  ASSERT_TRUE(plugin.Score(state, *pod, *with_image, &a).ok());
  ASSERT_TRUE(plugin.Score(state, *pod, *without, &b).ok());
  // 500MiB spread over half the nodes → 250MiB; (250 - 23) / (1000 - 23) × 100 = 23.
  EXPECT_EQ(a, 23);
  EXPECT_EQ(b, 0);
  EXPECT_EQ(NormalizedImageName("nginx"), "nginx:latest");
  EXPECT_EQ(NormalizedImageName("registry:5000/app"), "registry:5000/app:latest");
  EXPECT_EQ(NormalizedImageName("nginx@sha256:abc"), "nginx@sha256:abc");
}

}  // namespace
}  // namespace berth::scheduler
