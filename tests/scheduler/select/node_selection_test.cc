// Node selection as a profile setting (berth's pluginConfig entry
// NodeSelection), the NodeLabelWeights score plugin, and both through the
// whole scheduler: WeightedRandom's placements tested against the normalised
// scores by chi-square, two profiles with different strategies in one
// scheduler.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "fake_cluster.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/node_label_weights/node_label_weights.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;
using testing::FakeCluster;
using testing::FakeHandle;
using testing::NodeObject;

Result<std::unique_ptr<Framework>> BuildProfile(const ProfileConfig& profile,
                                                const Handle& handle) {
  return Framework::Build(profile, InTreeRegistry(), handle, "profiles[0]");
}

ProfileConfig WithPluginConfig(std::string name, json::object args) {
  ProfileConfig profile;
  profile.plugin_config.emplace_back(std::move(name), std::move(args));
  return profile;
}

TEST(NodeSelection, TopScoreUnlessTheProfileSaysWeightedRandom) {
  FakeHandle handle;
  auto plain = BuildProfile(ProfileConfig{}, handle);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain.value()->node_selection(), NodeSelectionStrategy::kTopScore);

  auto weighted =
      BuildProfile(WithPluginConfig("NodeSelection", {{"strategy", "WeightedRandom"}}), handle);
  ASSERT_TRUE(weighted.ok()) << weighted.status().message();
  EXPECT_EQ(weighted.value()->node_selection(), NodeSelectionStrategy::kWeightedRandom);

  auto top = BuildProfile(WithPluginConfig("NodeSelection", {{"strategy", "TopScore"}}), handle);
  ASSERT_TRUE(top.ok()) << top.status().message();
  EXPECT_EQ(top.value()->node_selection(), NodeSelectionStrategy::kTopScore);
}

TEST(NodeSelection, MistakesInPluginConfigNameTheirField) {
  struct Case {
    std::string name;
    ProfileConfig profile;
    std::string message;
  };
  std::vector<Case> cases = {
      {"unknown strategy", WithPluginConfig("NodeSelection", {{"strategy", "Best"}}),
       R"(profiles[0].pluginConfig[NodeSelection].args: strategy: Unsupported value: "Best": supported values: )"
       R"("TopScore", "WeightedRandom")"},
      {"strategy not a string", WithPluginConfig("NodeSelection", {{"strategy", 2}}),
       R"(profiles[0].pluginConfig[NodeSelection].args: strategy: Unsupported value: 2: supported values: )"
       R"("TopScore", "WeightedRandom")"},
      {"misspelt field", WithPluginConfig("NodeSelection", {{"stratgy", "WeightedRandom"}}),
       "profiles[0].pluginConfig[NodeSelection].args: stratgy: unknown field"},
      // A misspelt plugin name would otherwise drop its args without a word.
      {"pluginConfig for no plugin",
       WithPluginConfig("NodeSelections", {{"strategy", "WeightedRandom"}}),
       R"(profiles[0].pluginConfig[0].name: plugin "NodeSelections" does not exist)"},
      // Args of a known plugin are checked even when the profile does not enable it (as kube
      // validates them).
      {"bad args of a plugin not enabled",
       WithPluginConfig("NodeLabelWeights", {{"labels", json::array{}}}),
       "profiles[0].pluginConfig[NodeLabelWeights].args: labels: Required value: at least one "
       "label"},
  };
  FakeHandle handle;
  for (const auto& c : cases) {
    auto built = BuildProfile(c.profile, handle);
    ASSERT_FALSE(built.ok()) << c.name;
    EXPECT_EQ(built.status().code(), StatusCode::kBadRequest) << c.name;
    EXPECT_EQ(built.status().message(), c.message) << c.name;
  }
}

TEST(NodeSelection, ASchedulerWithAMistakenProfileIsNotCreated) {
  // The error reaches Scheduler::Create's caller (berth serve / berth
  // scheduler print it and exit 1); the half-made scheduler is destroyed cleanly.
  SchedulerConfig config;
  config.profiles.push_back(WithPluginConfig("NodeSelection", {{"strategy", "Weighted"}}));
  testing::FakeCluster* no_client = nullptr;
  auto made = Scheduler::Create(config, InTreeRegistry(), SchedulerOptions{}, no_client);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(),
            R"(profiles[0].pluginConfig[NodeSelection].args: strategy: Unsupported value: "Weighted": supported )"
            R"(values: "TopScore", "WeightedRandom")");
}

json::object TierArgs() {
  return json::parse(
             R"({"labels":[{"label":"example.com/memory-bandwidth","values":{"high":10,"medium":5}},
                                   {"label":"topology.kubernetes.io/zone","values":{"a":3}}]})")
      .as_object();
}

TEST(NodeLabelWeights, SumsTheValuesOfTheListedLabelsThenNormalises) {
  FakeHandle handle;
  auto made = NewNodeLabelWeights(TierArgs(), handle);
  ASSERT_TRUE(made.ok()) << made.status().message();
  const auto& plugin = dynamic_cast<const ScorePlugin&>(*made.value());
  using testing::Node;
  auto high_a =
      Node("high-a", "4", "8Gi",
           R"({"example.com/memory-bandwidth":"high","topology.kubernetes.io/zone":"a"})");
  auto medium = Node("medium", "4", "8Gi", R"({"example.com/memory-bandwidth":"medium"})");
  auto low_b = Node("low-b", "4", "8Gi",
                    R"({"example.com/memory-bandwidth":"low","topology.kubernetes.io/zone":"b"})");
  auto bare = Node("bare");
  auto pod = testing::Pod("p");
  CycleState state;
  std::vector<NodeScore> scores;
  for (const auto* node : {high_a.get(), medium.get(), low_b.get(), bare.get()}) {
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(state, *pod, *node, &score).ok());
    scores.push_back({node, score});
  }
  // Raw: high (10) + zone a (3); medium (5); a value not listed and a missing label add nothing.
  EXPECT_EQ(scores[0].score, 13);
  EXPECT_EQ(scores[1].score, 5);
  EXPECT_EQ(scores[2].score, 0);
  EXPECT_EQ(scores[3].score, 0);
  ASSERT_TRUE(plugin.HasNormalizeScore());
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).ok());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 100 * 5 / 13);  // integer division, as kube's DefaultNormalizeScore
  EXPECT_EQ(scores[2].score, 0);
}

TEST(NodeLabelWeights, ArgumentMistakesNameTheirField) {
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {R"({})", "labels: Required value: at least one label"},
      {R"({"labels":"high"})", R"(labels: Invalid value: "high": must be a list)"},
      {R"({"labels":[{"values":{"a":1}}]})", "labels[0].label: Required value"},
      {R"({"labels":[{"label":"x"}]})", "labels[0].values: Required value"},
      {R"({"labels":[{"label":"x","values":{"a":101}}]})",
       "labels[0].values.a: Invalid value: 101: must be between 0 and 100"},
      {R"({"labels":[{"label":"x","values":{"a":-1}}]})",
       "labels[0].values.a: Invalid value: -1: must be between 0 and 100"},
      {R"({"labels":[{"label":"x","values":{"a":"ten"}}]})",
       R"(labels[0].values.a: Invalid value: "ten": must be an integer)"},
      {R"({"labels":[{"label":"x","values":{}},{"label":"x","values":{}}]})",
       R"(labels[1].label: Duplicate value: "x")"},
      {R"({"labels":[{"label":"x","value":{}}]})", "labels[0].value: unknown field"},
      {R"({"label":[]})", "label: unknown field"},
  };
  FakeHandle handle;
  for (const auto& c : cases) {
    auto made = NewNodeLabelWeights(json::parse(c.args).as_object(), handle);
    ASSERT_FALSE(made.ok()) << c.args;
    EXPECT_EQ(made.status().message(), c.message) << c.args;
  }
}

// A profile in which only NodeLabelWeights scores (tiers gold 40, silver 20,
// bronze 10: normalised 100, 50, 25), selecting by `strategy`.
ProfileConfig TierProfile(const std::string& scheduler_name, const std::string& strategy) {
  ProfileConfig profile;
  profile.scheduler_name = scheduler_name;
  profile.plugins.score.disabled = {{"*", 0}};
  profile.plugins.score.enabled = {{"NodeLabelWeights", 1}};
  profile.plugin_config.emplace_back(
      "NodeLabelWeights",
      json::parse(R"({"labels":[{"label":"tier","values":{"gold":40,"silver":20,"bronze":10}}]})")
          .as_object());
  profile.plugin_config.emplace_back("NodeSelection", json::object{{"strategy", strategy}});
  return profile;
}

const std::vector<std::pair<std::string, std::string>> kTierNodes = {
    {"gold-1", "gold"},   {"gold-2", "gold"}, {"silver", "silver"},
    {"bronze", "bronze"}, {"plain", ""},
};

void AddTierNodes(Scheduler& scheduler) {
  for (const auto& [name, tier] : kTierNodes) {
    // Room for every pod, so only the labels tell the nodes apart.
    scheduler.OnNodeAdd(NodeObject(name, "1000", "1000Gi",
                                   tier.empty() ? "{}" : R"({"tier":")" + tier + R"("})", "{}",
                                   "100000"));
  }
}

api::ObjectPtr TierPod(const std::string& name, const std::string& scheduler_name) {
  auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                               R"(","namespace":"default","uid":"u-)" + name +
                               R"("},"spec":{"schedulerName":")" + scheduler_name +
                               R"(","containers":[{"name":"c","image":"i"}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

std::map<std::string, int> CountByNode(FakeCluster& c) {
  std::map<std::string, int> counts;
  for (const auto& [pod, node] : c.Placements()) counts[node]++;
  return counts;
}

// Pearson's chi-square of `counts` against probabilities proportional to `weights`.
double ChiSquare(const std::map<std::string, int>& counts,
                 const std::map<std::string, double>& weights, int n) {
  double total_weight = 0;
  for (const auto& [node, w] : weights) total_weight += w;
  double chi2 = 0;
  for (const auto& [node, w] : weights) {
    const double expected = n * w / total_weight;
    auto it = counts.find(node);
    const double observed = it == counts.end() ? 0 : it->second;
    chi2 += (observed - expected) * (observed - expected) / expected;
  }
  return chi2;
}

TEST(NodeSelection, WeightedRandomDrawsInProportionToTheNormalisedScores) {
  constexpr int kPods = 3000;
  // Pods without requests leave every node's labels the only difference,
  // so each pod sees the same totals: gold 100, silver 50, bronze 25, plain 0.
  const std::map<std::string, double> expected = {
      {"gold-1", 100}, {"gold-2", 100}, {"silver", 50}, {"bronze", 25}};
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SchedulerOptions options;
    options.seed = seed;
    SchedulerConfig config;
    config.profiles.push_back(TierProfile("default-scheduler", "WeightedRandom"));
    FakeCluster c(options, config);
    AddTierNodes(*c.scheduler);
    c.scheduler->Start();
    for (int i = 0; i < kPods; ++i)
      c.scheduler->OnPodAdd(TierPod("p" + std::to_string(i), "default-scheduler"));
    ASSERT_TRUE(c.WaitIdle());
    std::map<std::string, int> counts = CountByNode(c);
    // A node scoring 0 is never drawn while another scores more.
    EXPECT_EQ(counts.count("plain"), 0u);
    int placed = 0;
    for (const auto& [node, n] : counts) placed += n;
    ASSERT_EQ(placed, kPods);
    // 3 degrees of freedom: P(chi2 > 16.27) = 0.001 when the draw is right.
    // (The seed fixes every draw, so this never flakes; a biased sampler
    // fails it by far: drawing uniformly gives chi2 near 600.)
    EXPECT_LT(ChiSquare(counts, expected, kPods), 16.27)
        << "gold-1 " << counts["gold-1"] << ", gold-2 " << counts["gold-2"] << ", silver "
        << counts["silver"] << ", bronze " << counts["bronze"];
  }
}

TEST(NodeSelection, TwoProfilesInOneSchedulerEachWithItsOwnStrategy) {
  SchedulerOptions options;
  options.seed = 5;
  SchedulerConfig config;
  config.profiles.push_back(TierProfile("top-scheduler", "TopScore"));
  config.profiles.push_back(TierProfile("weighted-scheduler", "WeightedRandom"));
  FakeCluster c(options, config);
  ASSERT_NE(c.scheduler->Profile("top-scheduler"), nullptr);
  EXPECT_EQ(c.scheduler->Profile("weighted-scheduler")->node_selection(),
            NodeSelectionStrategy::kWeightedRandom);
  AddTierNodes(*c.scheduler);
  c.scheduler->Start();
  for (int i = 0; i < 200; ++i) {
    c.scheduler->OnPodAdd(TierPod("top-" + std::to_string(i), "top-scheduler"));
    c.scheduler->OnPodAdd(TierPod("weighted-" + std::to_string(i), "weighted-scheduler"));
  }
  ASSERT_TRUE(c.WaitIdle());
  std::map<std::string, int> top, weighted;
  for (const auto& [pod, node] : c.Placements())
    (pod.starts_with("default/top-") ? top : weighted)[node]++;
  // TopScore: only the two gold nodes (the highest total), ties broken at random so both get some.
  EXPECT_EQ(top.size(), 2u);
  EXPECT_GT(top["gold-1"], 50);
  EXPECT_GT(top["gold-2"], 50);
  // WeightedRandom: silver and bronze too, never the node scoring 0.
  EXPECT_GT(weighted["silver"], 0);
  EXPECT_GT(weighted["bronze"], 0);
  EXPECT_EQ(weighted.count("plain"), 0u);
  EXPECT_EQ(top["gold-1"] + top["gold-2"], 200);
}

TEST(NodeSelection, WithoutScorePluginsEveryFeasibleNodeIsEquallyLikely) {
  // kube scores every node 1 when no plugin scores, so the choice is random
  // among all feasible nodes rather than the first one filtered.
  SchedulerOptions options;
  options.seed = 9;
  SchedulerConfig config;
  ProfileConfig& profile = config.profiles.emplace_back();
  profile.plugins.score.disabled = {{"*", 0}};
  FakeCluster c(options, config);
  AddTierNodes(*c.scheduler);
  c.scheduler->Start();
  constexpr int kPods = 1000;
  for (int i = 0; i < kPods; ++i)
    c.scheduler->OnPodAdd(TierPod("p" + std::to_string(i), "default-scheduler"));
  ASSERT_TRUE(c.WaitIdle());
  std::map<std::string, int> counts = CountByNode(c);
  std::map<std::string, double> uniform;
  for (const auto& [name, tier] : kTierNodes) uniform[name] = 1;
  // 4 degrees of freedom: P(chi2 > 18.47) = 0.001.
  EXPECT_LT(ChiSquare(counts, uniform, kPods), 18.47);
}

}  // namespace
}  // namespace berth::scheduler
