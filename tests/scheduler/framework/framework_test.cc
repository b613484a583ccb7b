// The framework on its own: Filter over nodes (rotation, the number wanted,
// rejections) and the extension-point durations it records.

#include "scheduler/framework/framework.h"

#include <gtest/gtest.h>

#include "api/time/clock.h"
#include "metrics/metrics.h"
#include "scheduler/framework/registry.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::FakeHandle;
using testing::Node;
using testing::PodRequesting;

constexpr const char* kDurationName = "scheduler_framework_extension_point_duration_seconds";

struct DefaultProfile {
  explicit DefaultProfile(const FrameworkMetrics& metrics = {}) {
    auto built =
        Framework::Build(ProfileConfig{}, InTreeRegistry(), handle, "profiles[0]", metrics);
    EXPECT_TRUE(built.ok()) << built.status().message();
    framework = std::move(built).value();
  }
  FakeHandle handle;
  std::unique_ptr<Framework> framework;
};

std::string CountLine(const std::string& point, const std::string& status, int count) {
  return std::string(kDurationName) + "_count{extension_point=\"" + point + "\",status=\"" +
         status + "\",profile=\"default-scheduler\"} " + std::to_string(count);
}

TEST(Framework, FiltersOverNodesFromTheStartUntilEnoughPass) {
  DefaultProfile profile;
  // n1 is too small; the others fit.
  Snapshot snapshot = Snapshot::FromNodes({Node("n0"), Node("n1", "1"), Node("n2"), Node("n3")});
  auto pod = PodRequesting("p", "2", "");
  CycleState state(&snapshot);
  ASSERT_TRUE(profile.framework->RunPreFilter(state, *pod).ok());
  std::vector<const NodeInfo*> feasible;
  std::vector<NodeStatus> rejected;

  // From n3, wanting two: n3 and n0 pass and the search stops before n1.
  size_t found = profile.framework->RunFilterOverNodes(state, *pod, snapshot.nodes(), 3, 2, nullptr,
                                                       feasible, rejected);
  EXPECT_EQ(found, 2u);
  ASSERT_EQ(feasible.size(), 2u);
  EXPECT_EQ(feasible[0]->name(), "n3");
  EXPECT_EQ(feasible[1]->name(), "n0");
  EXPECT_TRUE(rejected.empty());

  // From n1, wanting all four: n1 is rejected with its plugin's reason.
  found = profile.framework->RunFilterOverNodes(state, *pod, snapshot.nodes(), 1, 4, nullptr,
                                                feasible, rejected);
  EXPECT_EQ(found, 3u);
  EXPECT_EQ(feasible.size(), 3u);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].node->name(), "n1");
  EXPECT_EQ(rejected[0].status.plugin(), "NodeResourcesFit");
  EXPECT_EQ(rejected[0].status.reasons(), std::vector<std::string>{"Insufficient cpu"});
}

TEST(Framework, RecordsEachExtensionPointOncePerRunOnItsClock) {
  metrics::Registry registry;
  auto& durations =
      registry.AddHistogram(kDurationName, "help", metrics::ExponentialBuckets(0.000001, 2, 20),
                            {"extension_point", "status", "profile"});
  api::FakeClock clock;
  DefaultProfile profile({&durations, &clock});
  Snapshot snapshot = Snapshot::FromNodes({Node("n0", "1"), Node("n1", "1")});
  auto pod = PodRequesting("p", "2", "");
  CycleState state(&snapshot);
  ASSERT_TRUE(profile.framework->RunPreFilter(state, *pod).ok());
  std::vector<const NodeInfo*> feasible;
  std::vector<NodeStatus> rejected;
  profile.framework->RunFilterOverNodes(state, *pod, snapshot.nodes(), 0, 2, nullptr, feasible,
                                        rejected);
  EXPECT_TRUE(feasible.empty());

  std::string text = registry.Render();
  // Once for the whole Filter over both nodes, Unschedulable as no node passed.
  for (const std::string& line :
       {CountLine("PreFilter", "Success", 1), CountLine("Filter", "Unschedulable", 1),
        CountLine("Filter", "Success", 0)}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // The clock did not move, so every duration is zero.
  EXPECT_NE(
      text.find(
          std::string(kDurationName) +
          "_sum{extension_point=\"PreFilter\",status=\"Success\",profile=\"default-scheduler\"} 0"),
      std::string::npos)
      << text;
}

TEST(Framework, BuildNamesTheFieldOfAMistakeInKubesWords) {
  struct Case {
    std::string name;
    ProfileConfig profile;
    std::string message;
  };
  std::vector<Case> cases(3);
  cases[0].name = "negative weight";
  cases[0].profile.plugins.score.enabled = {{"NodeAffinity", 1}, {"ImageLocality", -1}};
  cases[0].message =
      "profiles[0].plugins.score.enabled[1].weight: Invalid value: -1: must not be negative";
  cases[1].name = "no bind plugin";
  cases[1].profile.plugins.bind.disabled = {{"*", 0}};
  cases[1].message = "profiles[0].plugins.bind: Required value: at least one bind plugin";
  cases[2].name = "two queueSort plugins";
  cases[2].profile.plugins.queue_sort.enabled = {{"PrioritySort", 0}, {"PrioritySort", 0}};
  cases[2].message =
      R"(profiles[0].plugins.queueSort.enabled[1]: Invalid value: "PrioritySort": only one queueSort plugin can be enabled)";
  FakeHandle handle;
  for (const auto& c : cases) {
    auto built = Framework::Build(c.profile, InTreeRegistry(), handle);
    ASSERT_FALSE(built.ok()) << c.name;
    EXPECT_EQ(built.status().code(), StatusCode::kBadRequest) << c.name;
    EXPECT_EQ(built.status().message(), c.message) << c.name;
  }
}

}  // namespace
}  // namespace berth::scheduler
