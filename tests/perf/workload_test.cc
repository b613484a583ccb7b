// scheduler_perf's workload files: parsing, selection, and what berth
// refuses to run (by name) instead of running differently.

#include "perf/workload.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace berth::perf {
namespace {

namespace fs = std::filesystem;

constexpr char kTiny[] = R"(
- name: Basic
  defaultPodTemplatePath: pod.yaml
  workloadTemplate:
  - opcode: createNodes
    countParam: $nodes
  - opcode: createPods
    countParam: $pods
    collectMetrics: true
  workloads:
  - name: 3Nodes
    params: {nodes: 3, pods: 10}
  - name: 3Nodes/Big
    params: {nodes: 3, pods: 100}
- name: Gated
  featureGates:
    PodAffinityNamespaceSelector: true
  workloadTemplate:
  - opcode: sleep
    duration: 10ms
  workloads:
  - name: One
)";

TEST(ParseWorkloads, OneWorkloadPerTestCaseAndSize) {
  auto parsed = ParseWorkloads(kTiny, "tiny.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const auto& w = parsed.value();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].Name(), "Basic/3Nodes");
  EXPECT_EQ(w[1].Name(), "Basic/3Nodes/Big");
  EXPECT_EQ(w[0].default_pod_template, "pod.yaml");
  ASSERT_EQ(w[0].ops.size(), 2u);
  EXPECT_EQ(w[0].ops[1].opcode, "createPods");
  EXPECT_EQ(w[0].ops[1].index, 1);
  EXPECT_EQ(w[1].params.at("pods"), 100);
  EXPECT_EQ(w[2].feature_gates.at("PodAffinityNamespaceSelector"), true);
  EXPECT_TRUE(w[2].params.empty());
}

TEST(ParseWorkloads, ErrorsNameTheSourceAndLine) {
  auto parsed = ParseWorkloads("- name: X\n  workloads: []\n", "bad.yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("bad.yaml:1: a test case needs"), std::string::npos)
      << parsed.status().message();
  parsed =
      ParseWorkloads("- name: X\n  workloadTemplate:\n  - count: 1\n  workloads: []\n", "bad.yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("bad.yaml:3: an op needs an opcode"), std::string::npos)
      << parsed.status().message();
  EXPECT_FALSE(ParseWorkloads("{a: 1}", "map.yaml").ok());
  EXPECT_EQ(LoadWorkloads("/nonexistent.yaml").status().code(), StatusCode::kNotFound);
}

TEST(LoadWorkloads, KubesPerformanceConfigParses) {
  const std::string path =
      std::string(BERTH_SOURCE_DIR) + "/../shared/scheduler_perf/performance-config.yaml";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not here";
  auto loaded = LoadWorkloads(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::set<std::string> names;
  for (const auto& w : loaded.value()) names.insert(w.Name());
  EXPECT_TRUE(names.count("SchedulingBasic/500Nodes"));
  EXPECT_TRUE(names.count("SchedulingBasic/5000Nodes"));
  EXPECT_TRUE(names.count("Unschedulable/5000Nodes/2000InitPods"));
  // What berth says about some of them, by name.
  Templates templates(path);
  std::map<std::string, std::string> reasons;
  for (const auto& w : loaded.value()) reasons[w.Name()] = Unsupported(w, templates);
  EXPECT_EQ(reasons["SchedulingBasic/500Nodes"], "");
  EXPECT_EQ(reasons["Unschedulable/500Nodes/200InitPods"], "");
  EXPECT_EQ(reasons["SchedulingWithMixedChurn/1000Nodes"], "op churn");
  // Volumes run: pre-bound claims, CSINodes, the CSI migration gates.
  EXPECT_EQ(reasons["SchedulingInTreePVs/500Nodes"], "");
  EXPECT_EQ(reasons["SchedulingCSIPVs/5000Nodes"], "");
  EXPECT_EQ(reasons["SchedulingMigratedInTreePVs/500Nodes"], "");
  EXPECT_EQ(reasons["PreemptionBasic/500Nodes"], "");  // preemption runs
  // A gate berth honours passes on to the next reason.
  EXPECT_EQ(reasons["SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes"],
            "op createPodSets");
}

TEST(Selects, TestCaseOrSizePrefix) {
  auto w = ParseWorkloads(kTiny, "tiny.yaml").value();
  EXPECT_TRUE(Selects("Basic", w[1]));
  EXPECT_TRUE(Selects("Basic/3Nodes", w[1]));  // a size prefix
  EXPECT_TRUE(Selects("Basic/3Nodes/Big", w[1]));
  EXPECT_FALSE(Selects("Basic/5Nodes", w[1]));
  EXPECT_FALSE(Selects("Bas", w[0]));
}

TEST(Unsupported, FeatureGatesBerthCannotHonourAreRefused) {
  auto w = ParseWorkloads(kTiny, "tiny.yaml").value()[2];
  Templates templates("tiny.yaml");
  EXPECT_EQ(Unsupported(w, templates), "");  // honoured: always on in berth
  w.feature_gates["PodAffinityNamespaceSelector"] = false;
  EXPECT_EQ(Unsupported(w, templates).rfind("featureGates PodAffinityNamespaceSelector=false", 0),
            0u);
  w.feature_gates = {{"SomethingNew", true}};
  EXPECT_EQ(Unsupported(w, templates), "featureGates SomethingNew=true (berth has no such gate)");
}

TEST(Unsupported, UnknownOpsAndFieldsAreNamed) {
  auto w = ParseWorkloads(
               "- name: X\n  workloadTemplate:\n  - opcode: churn\n  workloads:\n  - name: A\n",
               "x.yaml")
               .value()[0];
  Templates templates("x.yaml");
  EXPECT_EQ(Unsupported(w, templates), "op churn");
  w = ParseWorkloads(
          "- name: X\n  workloadTemplate:\n  - opcode: sleep\n    frobnicate: 1\n  workloads:\n  - "
          "name: A\n",
          "x.yaml")
          .value()[0];
  EXPECT_EQ(Unsupported(w, templates), "sleep.frobnicate");
}

}  // namespace
}  // namespace berth::perf
