// PodTopologySpread and InterPodAffinity: filter codes and reasons per node,
// and normalised scores, for kube's documented examples.

#include <gtest/gtest.h>

#include "scheduler/cache/cache.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::FakeHandle;
using testing::Node;
using testing::Pod;

PodInfoPtr PodIn(const std::string& ns, const std::string& name, const std::string& labels,
                 const std::string& spec_members = "") {
  auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                               R"(","namespace":")" + ns + R"(","labels":)" + labels +
                               R"(},"spec":{"containers":[{"name":"c","image":"i"}])" + spec_members + "}}");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return MakePodInfo(o.value());
}

std::shared_ptr<NodeInfo> ZoneNode(const std::string& name, const std::string& zone) {
  std::string labels = R"({"kubernetes.io/hostname":")" + name + "\"";
  if (!zone.empty()) labels += R"(,"zone":")" + zone + "\"";
  return Node(name, "8", "16Gi", labels + "}");
}

struct Expect {
  std::string node;
  Code code;
  std::string reason;
};

// Runs PreFilter then Filter on every node; checks each expectation.
template <typename P>
void CheckFilter(const P& plugin, const PodInfo& pod, const std::vector<std::shared_ptr<NodeInfo>>& nodes,
                 const std::vector<Expect>& expected, const std::string& name) {
  std::vector<NodeInfoPtr> infos(nodes.begin(), nodes.end());
  Snapshot snapshot = Snapshot::FromNodes(infos);
  CycleState state(&snapshot);
  PluginStatus pre = plugin.PreFilter(state, pod);
  ASSERT_TRUE(pre.ok() || pre.IsSkip()) << name << ": " << pre.Message();
  for (const auto& e : expected) {
    const NodeInfo* node = snapshot.Get(e.node);
    ASSERT_NE(node, nullptr) << e.node;
    PluginStatus s = pre.IsSkip() ? PluginStatus() : plugin.Filter(state, pod, *node);
    EXPECT_EQ(s.code(), e.code) << name << " on " << e.node << ": " << s.Message();
    EXPECT_EQ(s.Message(), e.reason) << name << " on " << e.node;
  }
}

// PreScore, Score and NormalizeScore over all nodes; the normalised scores by node.
template <typename P>
std::map<std::string, int64_t> Scores(const P& plugin, const PodInfo& pod,
                                      const std::vector<std::shared_ptr<NodeInfo>>& nodes) {
  std::vector<NodeInfoPtr> infos(nodes.begin(), nodes.end());
  Snapshot snapshot = Snapshot::FromNodes(infos);
  CycleState state(&snapshot);
  std::vector<const NodeInfo*> feasible;
  for (const auto& n : snapshot.nodes()) feasible.push_back(n.get());
  std::map<std::string, int64_t> out;
  PluginStatus pre = plugin.PreScore(state, pod, feasible);
  if (pre.IsSkip()) return out;
  EXPECT_TRUE(pre.ok()) << pre.Message();
  std::vector<NodeScore> scores;
  for (const NodeInfo* n : feasible) {
    int64_t s = 0;
    EXPECT_TRUE(plugin.Score(state, pod, *n, &s).ok());
    scores.push_back({n, s});
  }
  EXPECT_TRUE(plugin.NormalizeScore(state, pod, scores).ok());
  for (const auto& s : scores) out[s.node->name()] = s.score;
  return out;
}

const std::string kSpreadReason = "node(s) didn't match pod topology spread constraints";
const std::string kMissing = "node(s) didn't match pod topology spread constraints (missing required label)";

std::string Spread(int max_skew, const std::string& when, const std::string& extra = "") {
  return R"(,"topologySpreadConstraints":[{"maxSkew":)" + std::to_string(max_skew) +
         R"(,"topologyKey":"zone","whenUnsatisfiable":")" + when +
         R"(","labelSelector":{"matchLabels":{"app":"web"}})" + extra + "}]";
}

TEST(PodTopologySpread, FilterKeepsSkewWithinMaxSkew) {
  PodTopologySpread plugin;
  auto a1 = ZoneNode("a1", "a"), a2 = ZoneNode("a2", "a"), b1 = ZoneNode("b1", "b"), bare = ZoneNode("bare", "");
  a1->AddPod(PodIn("default", "w1", R"({"app":"web"})"));
  a2->AddPod(PodIn("default", "w2", R"({"app":"web"})"));
  a2->AddPod(PodIn("other", "w3", R"({"app":"web"})"));   // another namespace: not counted
  b1->AddPod(PodIn("default", "x", R"({"app":"other"})"));  // not selected
  auto pod = PodIn("default", "new", R"({"app":"web"})", Spread(1, "DoNotSchedule"));
  CheckFilter(plugin, *pod, {a1, a2, b1, bare},
              {{"a1", Code::kUnschedulable, kSpreadReason},  // 2 + 1 - 0 > 1
               {"a2", Code::kUnschedulable, kSpreadReason},
               {"b1", Code::kSuccess, ""},
               {"bare", Code::kUnschedulableAndUnresolvable, kMissing}},
              "two in zone a, none in b");
  // A pod that does not match its own selector does not add itself.
  auto outsider = PodIn("default", "new", R"({"app":"batch"})", Spread(2, "DoNotSchedule"));
  CheckFilter(plugin, *outsider, {a1, a2, b1}, {{"a1", Code::kSuccess, ""}}, "skew 2 - 0 <= 2");
  // ScheduleAnyway constraints never filter.
  auto soft = PodIn("default", "new", R"({"app":"web"})", Spread(1, "ScheduleAnyway"));
  CheckFilter(plugin, *soft, {a1, a2, b1}, {{"a1", Code::kSuccess, ""}}, "soft");
}

TEST(PodTopologySpread, MinDomainsTreatsMissingDomainsAsEmpty) {
  PodTopologySpread plugin;
  auto a1 = ZoneNode("a1", "a"), b1 = ZoneNode("b1", "b");
  a1->AddPod(PodIn("default", "w1", R"({"app":"web"})"));
  b1->AddPod(PodIn("default", "w2", R"({"app":"web"})"));
  auto plain = PodIn("default", "new", R"({"app":"web"})", Spread(1, "DoNotSchedule"));
  CheckFilter(plugin, *plain, {a1, b1}, {{"b1", Code::kSuccess, ""}}, "1 + 1 - 1 <= 1");
  auto min3 = PodIn("default", "new", R"({"app":"web"})", Spread(1, "DoNotSchedule", R"(,"minDomains":3)"));
  CheckFilter(plugin, *min3, {a1, b1}, {{"b1", Code::kUnschedulable, kSpreadReason}}, "2 domains < minDomains 3");
}

TEST(PodTopologySpread, NodeAffinityPolicyDecidesWhichDomainsCount) {
  PodTopologySpread plugin;
  auto a1 = ZoneNode("a1", "a"), c1 = ZoneNode("c1", "c");
  a1->AddPod(PodIn("default", "w1", R"({"app":"web"})"));
  // The pod may only go to zone a; zone c (empty) counts only with nodeAffinityPolicy Ignore.
  std::string selector = R"(,"nodeSelector":{"zone":"a"})";
  auto honor = PodIn("default", "new", R"({"app":"web"})", Spread(1, "DoNotSchedule") + selector);
  CheckFilter(plugin, *honor, {a1, c1}, {{"a1", Code::kSuccess, ""}}, "Honor: min over zone a only");
  auto ignore = PodIn("default", "new", R"({"app":"web"})",
                      Spread(1, "DoNotSchedule", R"(,"nodeAffinityPolicy":"Ignore")") + selector);
  CheckFilter(plugin, *ignore, {a1, c1}, {{"a1", Code::kUnschedulable, kSpreadReason}}, "Ignore: zone c counts");
}

// Through the scheduler's cache: counts remembered per node version and
// topology indexes per label epoch must follow every change.
TEST(PodTopologySpread, CountsFollowTheCacheAcrossSnapshots) {
  PodTopologySpread plugin;
  Cache cache;
  cache.AddNode(testing::NodeObject("a1", "4", "8Gi", R"({"zone":"a"})"));
  cache.AddNode(testing::NodeObject("b1", "4", "8Gi", R"({"zone":"b"})"));
  cache.AddNode(testing::NodeObject("c1", "4", "8Gi", R"({"zone":"c"})"));
  auto bound = [](const std::string& name, const std::string& node) {
    return PodIn("default", name, R"({"app":"web"})", R"(,"nodeName":")" + node + "\"");
  };
  auto pod = PodIn("default", "new", R"({"app":"web"})", Spread(1, "DoNotSchedule"));
  auto verdicts = [&](Snapshot& snapshot) {
    cache.UpdateSnapshot(snapshot);
    CycleState state(&snapshot);
    EXPECT_TRUE(plugin.PreFilter(state, *pod).ok());
    std::map<std::string, Code> out;
    for (const auto& n : snapshot.nodes()) out[n->name()] = plugin.Filter(state, *pod, *n).code();
    return out;
  };
  Snapshot snapshot;
  EXPECT_EQ(verdicts(snapshot)["a1"], Code::kSuccess);
  cache.AddPod(bound("w1", "a1"));
  EXPECT_EQ(verdicts(snapshot)["a1"], Code::kUnschedulable) << "1 + 1 - 0 > 1";
  cache.AddPod(bound("w2", "b1"));
  cache.AddPod(bound("w3", "c1"));
  EXPECT_EQ(verdicts(snapshot)["a1"], Code::kSuccess) << "every zone has one";
  cache.RemovePod("default/w3");
  EXPECT_EQ(verdicts(snapshot)["a1"], Code::kUnschedulable) << "zone c empty again";
  // c1 moves to zone b: zone c is gone, so the minimum is 1 again.
  cache.UpdateNode(testing::NodeObject("c1", "4", "8Gi", R"({"zone":"b"})"));
  auto moved = verdicts(snapshot);
  EXPECT_EQ(moved["a1"], Code::kSuccess);
  EXPECT_EQ(moved["c1"], Code::kSuccess) << "zone b: 1 + 1 - 1 <= 1";
  // A node removed and another added may reuse its slot: still counted right.
  cache.RemoveNode("c1");
  cache.AddNode(testing::NodeObject("d1", "4", "8Gi", R"({"zone":"d"})"));
  auto replaced = verdicts(snapshot);
  EXPECT_EQ(replaced.count("c1"), 0u);
  EXPECT_EQ(replaced["d1"], Code::kSuccess);
  EXPECT_EQ(replaced["a1"], Code::kUnschedulable) << "zone d is empty";
}

TEST(PodTopologySpread, ScorePrefersEmptierDomains) {
  PodTopologySpread plugin;
  auto a1 = ZoneNode("a1", "a"), b1 = ZoneNode("b1", "b"), bare = ZoneNode("bare", "");
  a1->AddPod(PodIn("default", "w1", R"({"app":"web"})"));
  a1->AddPod(PodIn("default", "w2", R"({"app":"web"})"));
  auto pod = PodIn("default", "new", R"({"app":"web"})", Spread(1, "ScheduleAnyway"));
  auto scores = Scores(plugin, *pod, {a1, b1, bare});
  // weight log(2 + 2); a1: 2·1.386 + 0 → 3, b1: 0 → 0; normalised 100·(3 + 0 − s)/3.
  EXPECT_EQ(scores["b1"], 100);
  EXPECT_EQ(scores["a1"], 0);
  EXPECT_EQ(scores["bare"], 0);  // missing the key: ignored
  // No constraints and no controller: nothing to score.
  EXPECT_TRUE(Scores(plugin, *PodIn("default", "p", "{}"), {a1, b1}).empty());
}

TEST(PodTopologySpread, ArgumentsAreChecked) {
  FakeHandle handle;
  auto bad = NewPodTopologySpread(boost::json::parse(R"({"defaultingType":"Sometimes"})").as_object(), handle);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "defaultingType: Unsupported value: \"Sometimes\": supported values: \"System\", \"List\"");
  auto list = NewPodTopologySpread(boost::json::parse(R"({"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]})").as_object(), handle);
  ASSERT_TRUE(list.ok()) << list.status().message();
}

const std::string kAffinity = "node(s) didn't match pod affinity rules";
const std::string kAnti = "node(s) didn't match pod anti-affinity rules";
const std::string kExistingAnti = "node(s) didn't satisfy existing pods anti-affinity rules";

std::string Term(const std::string& kind, const std::string& app, const std::string& key,
                 const std::string& extra = "") {
  return R"(,"affinity":{")" + kind + R"(":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":")" +
         app + R"("}},"topologyKey":")" + key + "\"" + extra + "}]}}";
}

TEST(InterPodAffinity, RequiredAffinityNeedsAMatchingPodInTheDomain) {
  FakeHandle handle;
  InterPodAffinity plugin(handle);
  auto a1 = ZoneNode("a1", "a"), a2 = ZoneNode("a2", "a"), b1 = ZoneNode("b1", "b"), bare = ZoneNode("bare", "");
  a1->AddPod(PodIn("default", "db", R"({"app":"db"})"));
  auto pod = PodIn("default", "web", R"({"app":"web"})", Term("podAffinity", "db", "zone"));
  CheckFilter(plugin, *pod, {a1, a2, b1, bare},
              {{"a1", Code::kSuccess, ""},
               {"a2", Code::kSuccess, ""},
               {"b1", Code::kUnschedulableAndUnresolvable, kAffinity},
               {"bare", Code::kUnschedulableAndUnresolvable, kAffinity}},
              "db in zone a");
  // The first pod of a self-affine group may go anywhere with the key.
  auto first = PodIn("default", "cache", R"({"app":"cache"})", Term("podAffinity", "cache", "zone"));
  CheckFilter(plugin, *first, {a1, b1, bare},
              {{"b1", Code::kSuccess, ""}, {"bare", Code::kUnschedulableAndUnresolvable, kAffinity}}, "first");
}

TEST(InterPodAffinity, AntiAffinityBothWays) {
  FakeHandle handle;
  InterPodAffinity plugin(handle);
  auto n1 = ZoneNode("n1", "a"), n2 = ZoneNode("n2", "a");
  n1->AddPod(PodIn("default", "web-1", R"({"app":"web"})"));
  auto pod = PodIn("default", "web-2", R"({"app":"web"})", Term("podAntiAffinity", "web", "kubernetes.io/hostname"));
  CheckFilter(plugin, *pod, {n1, n2}, {{"n1", Code::kUnschedulable, kAnti}, {"n2", Code::kSuccess, ""}}, "own");
  // An existing pod's anti-affinity keeps matching pods out of its zone.
  auto guarded = ZoneNode("g1", "z"), same_zone = ZoneNode("g2", "z"), elsewhere = ZoneNode("h1", "y");
  guarded->AddPod(PodIn("default", "loner", R"({"app":"loner"})", Term("podAntiAffinity", "web", "zone")));
  auto web = PodIn("default", "web-3", R"({"app":"web"})");
  CheckFilter(plugin, *web, {guarded, same_zone, elsewhere},
              {{"g1", Code::kUnschedulable, kExistingAnti},
               {"g2", Code::kUnschedulable, kExistingAnti},
               {"h1", Code::kSuccess, ""}},
              "existing");
  auto other = PodIn("default", "batch", R"({"app":"batch"})");
  CheckFilter(plugin, *other, {guarded}, {{"g1", Code::kSuccess, ""}}, "not selected");
}

TEST(InterPodAffinity, NamespacesAndNamespaceSelectors) {
  FakeHandle handle;
  handle.namespaces["team-x"] = api::Labels{{"team", "x"}};
  handle.namespaces["team-y"] = api::Labels{{"team", "y"}};
  InterPodAffinity plugin(handle);
  auto n1 = ZoneNode("n1", "a"), n2 = ZoneNode("n2", "b");
  n1->AddPod(PodIn("team-x", "db", R"({"app":"db"})"));
  n2->AddPod(PodIn("team-y", "db", R"({"app":"db"})"));
  auto own_ns = PodIn("default", "web", "{}", Term("podAffinity", "db", "zone"));
  CheckFilter(plugin, *own_ns, {n1, n2}, {{"n1", Code::kUnschedulableAndUnresolvable, kAffinity}}, "own namespace");
  auto by_selector = PodIn("default", "web", "{}",
                           Term("podAffinity", "db", "zone", R"(,"namespaceSelector":{"matchLabels":{"team":"x"}})"));
  CheckFilter(plugin, *by_selector, {n1, n2},
              {{"n1", Code::kSuccess, ""}, {"n2", Code::kUnschedulableAndUnresolvable, kAffinity}}, "team x");
  auto all = PodIn("default", "web", "{}", Term("podAffinity", "db", "zone", R"(,"namespaceSelector":{})"));
  CheckFilter(plugin, *all, {n1, n2}, {{"n1", Code::kSuccess, ""}, {"n2", Code::kSuccess, ""}}, "all namespaces");
  auto listed = PodIn("default", "web", "{}", Term("podAffinity", "db", "zone", R"(,"namespaces":["team-y"])"));
  CheckFilter(plugin, *listed, {n1, n2}, {{"n1", Code::kUnschedulableAndUnresolvable, kAffinity}, {"n2", Code::kSuccess, ""}},
              "listed");
}

TEST(InterPodAffinity, PreferredTermsScoreDomainsAndNormaliseMinMax) {
  FakeHandle handle;
  InterPodAffinity plugin(handle);
  auto a1 = ZoneNode("a1", "a"), a2 = ZoneNode("a2", "a"), b1 = ZoneNode("b1", "b");
  a1->AddPod(PodIn("default", "db", R"({"app":"db"})"));
  b1->AddPod(PodIn("default", "noisy", R"({"app":"noisy"})"));
  std::string preferred =
      R"(,"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"zone"}}]},)"
      R"("podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"noisy"}},"topologyKey":"zone"}}]}})";
  auto pod = PodIn("default", "web", "{}", preferred);
  auto scores = Scores(plugin, *pod, {a1, a2, b1});
  // Raw: zone a +10, zone b −5 → min-max to 100 and 0.
  EXPECT_EQ(scores["a1"], 100);
  EXPECT_EQ(scores["a2"], 100);
  EXPECT_EQ(scores["b1"], 0);
  // Nothing preferred anywhere: skipped.
  EXPECT_TRUE(Scores(plugin, *PodIn("default", "p", "{}"), {a1, b1}).empty());
}

// Through the scheduler's cache: answers remembered per node version must
// follow pods coming and going, for the pod's own terms, for existing pods'
// terms, and for scoring.
TEST(InterPodAffinity, RememberedCountsFollowTheCache) {
  FakeHandle handle;
  InterPodAffinity plugin(handle);
  Cache cache;
  for (const char* name : {"n1", "n2"}) {
    cache.AddNode(testing::NodeObject(name, "8", "16Gi",
                                      std::string(R"({"kubernetes.io/hostname":")") + name + R"(","zone":"a"})"));
  }
  cache.AddNode(testing::NodeObject("n3", "8", "16Gi", R"({"kubernetes.io/hostname":"n3","zone":"b"})"));
  std::string anti = Term("podAntiAffinity", "web", "kubernetes.io/hostname");
  auto on = [](const std::string& name, const std::string& labels, const std::string& spec, const std::string& node) {
    return PodIn("default", name, labels, spec + R"(,"nodeName":")" + node + "\"");
  };
  Snapshot snapshot;
  auto filter = [&](const PodInfo& pod) {
    cache.UpdateSnapshot(snapshot);
    CycleState state(&snapshot);
    std::map<std::string, Code> out;
    PluginStatus pre = plugin.PreFilter(state, pod);
    for (const auto& n : snapshot.nodes()) {
      out[n->name()] = pre.IsSkip() ? Code::kSuccess : plugin.Filter(state, pod, *n).code();
    }
    return out;
  };
  auto web = PodIn("default", "web-new", R"({"app":"web"})", anti);
  EXPECT_EQ(filter(*web)["n1"], Code::kSuccess);
  cache.AddPod(on("web-1", R"({"app":"web"})", anti, "n1"));
  EXPECT_EQ(filter(*web)["n1"], Code::kUnschedulable) << "own term now matches web-1";
  cache.AddPod(on("web-2", R"({"app":"web"})", "", "n2"));
  EXPECT_EQ(filter(*web)["n2"], Code::kUnschedulable);
  // A plain web pod is kept off n1 by web-1's own anti-affinity (existing pods' terms).
  auto plain = PodIn("default", "plain", R"({"app":"web"})");
  EXPECT_EQ(filter(*plain)["n1"], Code::kUnschedulable);
  cache.RemovePod("default/web-1");
  auto after = filter(*web);
  EXPECT_EQ(after["n1"], Code::kSuccess) << "web-1 gone";
  EXPECT_EQ(after["n2"], Code::kUnschedulable);
  EXPECT_EQ(filter(*plain)["n1"], Code::kSuccess);

  // Scoring from an existing pod's preferred affinity to web pods, per zone.
  auto scores = [&](const PodInfo& pod) {
    cache.UpdateSnapshot(snapshot);
    CycleState state(&snapshot);
    std::vector<const NodeInfo*> nodes;
    for (const auto& n : snapshot.nodes()) nodes.push_back(n.get());
    std::map<std::string, int64_t> out;
    if (plugin.PreScore(state, pod, nodes).IsSkip()) return out;
    for (const NodeInfo* n : nodes) EXPECT_TRUE(plugin.Score(state, pod, *n, &out[n->name()]).ok());
    return out;
  };
  EXPECT_TRUE(scores(*plain).empty());
  std::string likes_web =
      R"(,"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":7,)"
      R"("podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"zone"}}]}})";
  cache.AddPod(on("fan", R"({"app":"fan"})", likes_web, "n3"));
  auto raw = scores(*plain);
  EXPECT_EQ(raw["n3"], 7);
  EXPECT_EQ(raw["n1"], 0);
  cache.AddPod(on("fan-2", R"({"app":"fan"})", likes_web, "n1"));
  raw = scores(*plain);
  EXPECT_EQ(raw["n1"], 7);
  EXPECT_EQ(raw["n2"], 7) << "same zone as n1";
  EXPECT_EQ(raw["n3"], 7);
  cache.RemovePod("default/fan");
  EXPECT_EQ(scores(*plain)["n3"], 0);
}

TEST(InterPodAffinity, ArgumentsAreChecked) {
  FakeHandle handle;
  auto bad = NewInterPodAffinity(boost::json::parse(R"({"hardPodAffinityWeight":101})").as_object(), handle);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]");
}

}  // namespace
}  // namespace berth::scheduler
