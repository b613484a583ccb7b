// MinScore tested as berth tests its own plugins: its args, its Filter and
// Score through the framework on hand-made nodes, and the whole plugin in
// a scheduler over a fake API (the group's Permit wait, its metrics).

#include "min_score.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <condition_variable>
#include <set>
#include <thread>

#include "fake_cluster.h"  // berth's tests/scheduler helpers
#include "scheduler/framework/framework.h"
#include "scheduler/framework/waiting_pods.h"

namespace my_scheduler {
namespace {

using berth::scheduler::testing::FakeCluster;
using berth::scheduler::testing::FakeHandle;
using berth::scheduler::testing::Node;
using berth::scheduler::testing::NodeObject;
using berth::scheduler::testing::PodRequesting;
using std::chrono::milliseconds;
using std::chrono::seconds;

boost::json::object Args(const std::string& json) { return boost::json::parse(json).as_object(); }

TEST(MinScoreArgs, ParsesTypedArgsAndNamesTheBadField) {
  struct Case {
    const char* name;
    const char* args;
    const char* error;  // "" when valid
    int64_t min_score, timeout;
  };
  const Case cases[] = {
      {"defaults", "{}", "", 20, 30},
      {"both", R"({"minScore":40,"permitTimeoutSeconds":5})", "", 40, 5},
      {"apiVersion and kind are ignored",
       R"({"apiVersion":"v1","kind":"MinScoreArgs","minScore":0})", "", 0, 30},
      {"too high", R"({"minScore":140})",
       "minScore: Invalid value: 140: not in valid range [0, 100]"},
      {"not a number", R"({"minScore":"high"})",
       R"(minScore: Invalid value: "high": not in valid range [0, 100])"},
      {"timeout beyond kube's 15 minutes", R"({"permitTimeoutSeconds":901})",
       "permitTimeoutSeconds: Invalid value: 901: not in valid range [1, 900]"},
      {"unknown", R"({"minscore":1})", "minscore: unknown field"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseMinScoreArgs(Args(c.args));
    if (*c.error) {
      ASSERT_FALSE(parsed.ok()) << c.name;
      EXPECT_EQ(parsed.status().message(), c.error) << c.name;
      continue;
    }
    ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.status().message();
    EXPECT_EQ(parsed->min_score, c.min_score) << c.name;
    EXPECT_EQ(parsed->permit_timeout_seconds, c.timeout) << c.name;
  }
}

// The default profile with MinScore added (multiPoint) and its args.
sched::ProfileConfig ProfileWithMinScore(const std::string& args) {
  sched::ProfileConfig profile;
  profile.plugins.multi_point.enabled.push_back({"MinScore", 0});
  profile.plugin_config.emplace_back("MinScore", Args(args));
  return profile;
}

sched::Registry RegistryWithMinScore() {
  sched::Registry registry = sched::InTreeRegistry();
  registry.Register(std::string(MinScore::kName), NewMinScore);
  return registry;
}

TEST(MinScore, FilterKeepsMinScorePercentOfTheCpuFree) {
  FakeHandle handle;
  // MinScore alone (with the queue sort and binder every profile needs): no
  // snapshot is needed for its PreFilter, unlike some default plugins'.
  sched::ProfileConfig alone = ProfileWithMinScore(R"({"minScore":50})");
  alone.plugins.multi_point.disabled.push_back({"*", 0});
  alone.plugins.multi_point.enabled.insert(alone.plugins.multi_point.enabled.begin(),
                                           {{"PrioritySort", 0}, {"DefaultBinder", 0}});
  auto fw = sched::Framework::Build(alone, RegistryWithMinScore(), handle);
  ASSERT_TRUE(fw.ok()) << fw.status().message();
  // Bad args fail the build, naming the plugin's args.
  auto bad = sched::Framework::Build(ProfileWithMinScore(R"({"minScore":-1})"),
                                     RegistryWithMinScore(), handle);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "profiles[0].pluginConfig[MinScore].args: minScore: Invalid value: -1: not in valid "
            "range [0, 100]");

  auto pod = PodRequesting("p", "1", "");
  sched::CycleState state;
  ASSERT_TRUE(fw.value()->RunPreFilter(state, *pod).ok());
  struct Case {
    const char* node_cpu;
    bool passes;
  };
  for (const Case& c : {Case{"4", true}, Case{"2", true}, Case{"1500m", false}}) {
    auto node = Node("n", c.node_cpu);
    sched::PluginStatus s = fw.value()->RunFilter(state, *pod, *node);
    EXPECT_EQ(s.ok(), c.passes) << c.node_cpu;
    if (!c.passes) {
      EXPECT_EQ(s.plugin(), "MinScore");
      EXPECT_EQ(s.Message(), "node(s) would keep less than 50% of their cpu free");
    }
  }
}

TEST(MinScore, ScoresTheCpuLeftFreeWithThePodOnTheNode) {
  FakeHandle handle;  // no metrics registry: the plugin counts nothing
  MinScore plugin(handle, MinScoreArgs{});
  auto pod = PodRequesting("p", "1", "");
  sched::CycleState state;
  ASSERT_TRUE(plugin.PreFilter(state, *pod).ok());
  for (auto [cpu, want] :
       {std::pair{"4", 75}, std::pair{"10", 90}, std::pair{"1", 0}, std::pair{"500m", 0}}) {
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(state, *pod, *Node("n", cpu), &score).ok());
    EXPECT_EQ(score, want) << cpu;
  }
  // Without PreFilter's state Score is an error, not a guess.
  sched::CycleState empty;
  int64_t score = 0;
  EXPECT_EQ(plugin.Score(empty, *pod, *Node("n"), &score).code(), sched::Code::kError);
}

berth::api::ObjectPtr GroupPod(const std::string& name, const std::string& group) {
  auto o = berth::api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
      R"(","namespace":"default","uid":"u-)" + name + R"(","labels":{"example.berth.dev/group":")" +
      group +
      R"("}},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m"}}}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

// A fake API whose bindings of the pods named in `held` wait until Release,
// and whose bindings of `failing` pods fail.
class GatedCluster : public FakeCluster {
 public:
  explicit GatedCluster(sched::SchedulerConfig config)
      : FakeCluster(sched::SchedulerOptions{}, std::move(config), RegistryWithMinScore()) {}
  berth::Status BindPod(const berth::api::Object& pod, const std::string& node) override {
    {
      std::unique_lock lock(gate_mu);
      gate_cv.wait(lock, [&] { return !held.count(pod.name()); });
      if (failing.count(pod.name())) return berth::Status::Internal("the API refused");
    }
    return FakeCluster::BindPod(pod, node);
  }
  void Release(const std::string& name) {
    {
      std::lock_guard lock(gate_mu);
      held.erase(name);
    }
    gate_cv.notify_all();
  }
  ~GatedCluster() override {
    {
      std::lock_guard lock(gate_mu);
      held.clear();
    }
    gate_cv.notify_all();
    scheduler->Stop();
  }

  std::mutex gate_mu;
  std::condition_variable gate_cv;
  std::set<std::string> held;     // guarded by gate_mu
  std::set<std::string> failing;  // guarded by gate_mu
};

template <typename Done>
bool Eventually(Done done) {
  auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

sched::SchedulerConfig ConfigWithMinScore() {
  sched::SchedulerConfig config;
  config.profiles.push_back(ProfileWithMinScore(R"({"minScore":10})"));
  return config;
}

TEST(MinScore, SiblingsWaitAtPermitUntilTheFirstOfTheirGroupIsBound) {
  GatedCluster c(ConfigWithMinScore());
  c.held.insert("a");
  c.scheduler->OnNodeAdd(NodeObject("n1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(GroupPod("a", "g"));
  // a went on and its binding is held by the API; its siblings wait.
  ASSERT_TRUE(Eventually([&] { return c.scheduler->cache().IsAssumed("default/a"); }));
  c.scheduler->OnPodAdd(GroupPod("b", "g"));
  c.scheduler->OnPodAdd(GroupPod("c", "g"));
  ASSERT_TRUE(Eventually([&] { return c.scheduler->handle().GetWaitingPod("u-c") != nullptr; }));
  ASSERT_TRUE(Eventually([&] { return c.scheduler->handle().GetWaitingPod("u-b") != nullptr; }));
  EXPECT_EQ(c.scheduler->handle().GetWaitingPod("u-b")->GetPendingPlugins(),
            std::vector<std::string>{"MinScore"});
  EXPECT_TRUE(c.Placements().empty());

  c.Release("a");  // a is bound; its PostBind allows b and c
  ASSERT_TRUE(Eventually([&] { return c.Placements().size() == 3; }));
  // The last binding's PostBind (which releases its reservation) may still
  // be running when its placement is recorded.
  const std::vector<std::string> lines = {R"(min_score_permit_total{result="allowed"} 1)",
                                          R"(min_score_permit_total{result="waited"} 2)",
                                          "min_score_reserved_pods 0"};
  auto all_there = [&] {
    const std::string metrics = c.scheduler->RenderMetrics();
    return std::all_of(lines.begin(), lines.end(),
                       [&](const std::string& line) { return metrics.find(line) != std::string::npos; });
  };
  EXPECT_TRUE(Eventually(all_there)) << c.scheduler->RenderMetrics();
}

TEST(MinScore, WhenTheFirstFailsAWaitingSiblingTakesItsTurn) {
  GatedCluster c(ConfigWithMinScore());
  c.held.insert("a");
  c.scheduler->OnNodeAdd(NodeObject("n1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(GroupPod("a", "g"));
  ASSERT_TRUE(Eventually([&] { return c.scheduler->cache().IsAssumed("default/a"); }));
  c.scheduler->OnPodAdd(GroupPod("b", "g"));
  ASSERT_TRUE(Eventually([&] { return c.scheduler->handle().GetWaitingPod("u-b") != nullptr; }));
  {
    std::lock_guard lock(c.gate_mu);
    c.failing.insert("a");
  }
  c.Release("a");  // a's binding fails: Unreserve hands the turn to b
  ASSERT_TRUE(Eventually([&] { return c.Placements().count("default/b") == 1; }));
  EXPECT_EQ(c.Placements().count("default/a"), 0u);
}

TEST(MinScore, RejectedNodesAreCountedOnTheSchedulersMetrics) {
  FakeCluster c(sched::SchedulerOptions{}, ConfigWithMinScore(), RegistryWithMinScore());
  c.scheduler->OnNodeAdd(NodeObject("small", "1"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodRequesting("big", "950m", "")->object);
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_EQ(c.FailureOf("default/big")
                .rfind("Unschedulable: 0/1 nodes are available: 1 node(s) would keep less than 10% "
                       "of their cpu free.",
                       0),
            0u)
      << c.FailureOf("default/big");
  EXPECT_NE(c.scheduler->RenderMetrics().find("min_score_rejected_nodes_total 1"),
            std::string::npos)
      << c.scheduler->RenderMetrics();
}

}  // namespace
}  // namespace my_scheduler
