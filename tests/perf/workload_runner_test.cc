// Each scheduler_perf op run against an in-process berth, on tiny configs
// written by the test: what the op leaves in the cluster, and the measured
// phase's figures.

#include "perf/workload_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "api/kinds.h"
#include "api/pod_view.h"
#include "cluster/in_process_cluster.h"
#include "perf/perf_command.h"
#include "perf/temporary_directory.h"

namespace berth::perf {
namespace {

constexpr char kNode[] = R"(apiVersion: v1
kind: Node
metadata:
  generateName: perf-node-
status:
  capacity: {pods: "110", cpu: "4", memory: 32Gi}
  allocatable: {pods: "110", cpu: "4", memory: 32Gi}
  conditions:
  - {status: "True", type: Ready}
)";
constexpr char kPod[] = R"(apiVersion: v1
kind: Pod
metadata:
  generateName: pod-
spec:
  containers:
  - image: registry.k8s.io/pause:3.9
    name: pause
    resources:
      requests: {cpu: 100m, memory: 100Mi}
)";
constexpr char kLargePod[] = R"(apiVersion: v1
kind: Pod
metadata:
  generateName: large-
spec:
  containers:
  - image: registry.k8s.io/pause:3.9
    name: pause
    resources:
      requests: {cpu: "9", memory: 100Mi}
)";
constexpr char kNamespace[] = R"(apiVersion: v1
kind: Namespace
metadata:
  labels: {team: perf}
)";

class WorkloadRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.emplace(TemporaryDirectory::Create("berth-perf-test-").value());
    Write("config/node-default.yaml", kNode);
    Write("config/pod-default.yaml", kPod);
    Write("config/pod-large-cpu.yaml", kLargePod);
    Write("config/namespace.yaml", kNamespace);
  }

  void Write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(
        std::filesystem::path(dir_->path() + "/" + name).parent_path());
    std::ofstream(dir_->path() + "/" + name) << text;
  }

  // Writes `yaml` as the workload file and runs its only workload.
  WorkloadResult Run(const std::string& yaml, PerfOptions options = {}) {
    options.config = dir_->path() + "/config/performance-config.yaml";
    Write("config/performance-config.yaml", yaml);
    auto loaded = LoadWorkloads(options.config);
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    if (!loaded.ok() || loaded->empty()) return {};
    if (options.timeout == std::chrono::seconds(600)) options.timeout = std::chrono::seconds(20);
    return RunWorkload(options, loaded->front());
  }

  static std::vector<api::ObjectPtr> List(cluster::InProcessCluster& c, api::Kind kind,
                                          const std::string& ns = "") {
    store::ListOptions list;
    list.prefix = api::StoragePrefix(kind, ns);
    return c.store().List(list).value().items;
  }
  static int Bound(cluster::InProcessCluster& c, const std::string& ns) {
    int bound = 0;
    for (const auto& p : List(c, api::Kind::kPod, ns))
      bound += !p->As<api::PodView>()->node_name.empty();
    return bound;
  }

  std::optional<TemporaryDirectory> dir_;
};

TEST_F(WorkloadRunnerTest, CreateNodesNamespacesAndPodsThenMeasure) {
  std::map<int, std::function<void(cluster::InProcessCluster&)>> checks;
  PerfOptions options;
  options.after_op = [&](const Op& op, cluster::InProcessCluster& c) {
    if (op.index == 0) {  // createNodes: 3, each with a unique hostname label
      auto nodes = List(c, api::Kind::kNode);
      ASSERT_EQ(nodes.size(), 3u);
      std::set<std::string> hostnames;
      for (const auto& n : nodes)
        hostnames.insert(std::string(n->labels().Get("kubernetes.io/hostname").value_or("")));
      EXPECT_EQ(hostnames.size(), 3u);
    } else if (op.index == 1) {  // createNamespaces: prefix-0, prefix-1 from the template
      auto namespaces = List(c, api::Kind::kNamespace);
      int made = 0;
      for (const auto& ns : namespaces) {
        if (ns->name().rfind("team-", 0) == 0) {
          ++made;
          EXPECT_EQ(ns->labels().Get("team").value_or(""), "perf");
        }
      }
      EXPECT_EQ(made, 2);
    } else if (op.index == 2) {  // createPods (waits): all bound in namespace-2
      EXPECT_EQ(List(c, api::Kind::kPod, "namespace-2").size(), 20u);
      EXPECT_EQ(Bound(c, "namespace-2"), 20);
    } else if (op.index == 3) {  // createPods in an explicit namespace
      EXPECT_EQ(Bound(c, "team-0"), 5);
    }
  };
  WorkloadResult r = Run(R"(
- name: Ops
  workloadTemplate:
  - opcode: createNodes
    count: 3
    uniqueNodeLabelStrategy: {labelKey: kubernetes.io/hostname}
  - opcode: createNamespaces
    prefix: team
    count: 2
    namespaceTemplatePath: config/namespace.yaml
  - opcode: createPods
    count: 20
  - opcode: createPods
    count: 5
    namespace: team-0
  - opcode: createPods
    count: 30
    collectMetrics: true
  workloads:
  - name: Tiny
)",
                         options);
  EXPECT_EQ(r.name, "Ops/Tiny");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.unsupported, "");
  EXPECT_EQ(r.measured_pods, 30);
  EXPECT_GT(r.phase_throughput, 0);
  EXPECT_GT(r.measured_seconds, 0);
  // 30 pods take far less than the two seconds kube's statistic needs.
  EXPECT_TRUE(r.throughput_windows.empty());
  EXPECT_EQ(r.scheduling_throughput.count, 0u);
  EXPECT_NE(NoWindowNote(r).find("no complete 1 s window"), std::string::npos);
  EXPECT_GT(r.attempt_ms.p99, 0);
  EXPECT_GT(r.pod_scheduling_ms.p99, 0);
  EXPECT_GT(r.peak_rss_bytes, 0);
}

TEST_F(WorkloadRunnerTest, SkipWaitPodsThatCannotFitDoNotHoldBackTheMeasuredPhase) {
  // kube's Unschedulable workload: pods too large for any node are created
  // without waiting, and the measured pods are scheduled while they are attempted.
  PerfOptions options;
  options.measure_scale = 2;
  options.after_op = [&](const Op& op, cluster::InProcessCluster& c) {
    if (op.index == 1) {
      EXPECT_EQ(List(c, api::Kind::kPod, "namespace-1").size(), 4u);
    }
    if (op.index == 2) {
      EXPECT_EQ(Bound(c, "namespace-1"), 0);
      EXPECT_EQ(Bound(c, "namespace-2"), 20);
    }
  };
  WorkloadResult r = Run(R"(
- name: Unschedulable
  workloadTemplate:
  - opcode: createNodes
    count: 2
  - opcode: createPods
    count: 4
    podTemplatePath: config/pod-large-cpu.yaml
    skipWaitToCompletion: true
  - opcode: createPods
    count: 10
    podTemplatePath: config/pod-default.yaml
    collectMetrics: true
  workloads:
  - name: Tiny
)",
                         options);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.measured_pods, 20);  // 10 × --measure-scale 2
}

TEST_F(WorkloadRunnerTest, BarrierWaitsForSkipWaitPodsAndSleepSleeps) {
  PerfOptions options;
  options.after_op = [&](const Op& op, cluster::InProcessCluster& c) {
    if (op.opcode == "barrier") {
      EXPECT_EQ(Bound(c, "namespace-1"), 15);
    }
  };
  auto start = std::chrono::steady_clock::now();
  WorkloadResult r = Run(R"(
- name: Barrier
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createPods
    count: 15
    skipWaitToCompletion: true
  - opcode: barrier
  - opcode: sleep
    duration: 300ms
  workloads:
  - name: Tiny
)",
                         options);
  EXPECT_EQ(r.error, "");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
}

TEST_F(WorkloadRunnerTest, BarrierOnPodsThatCannotFitTimesOutNamingTheNamespace) {
  PerfOptions options;
  options.timeout = std::chrono::seconds(1);
  WorkloadResult r = Run(R"(
- name: Stuck
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: createPods
    count: 2
    podTemplatePath: config/pod-large-cpu.yaml
    skipWaitToCompletion: true
  - opcode: barrier
  workloads:
  - name: Tiny
)",
                         options);
  EXPECT_NE(r.error.find("barrier: pods still unbound after 1 s"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("namespace-1: 0 of 2"), std::string::npos) << r.error;
}

TEST_F(WorkloadRunnerTest, UnsupportedOpsAndFeatureGatesAreRefusedWithoutRunning) {
  bool ran = false;
  PerfOptions options;
  options.after_op = [&](const Op&, cluster::InProcessCluster&) { ran = true; };
  WorkloadResult r = Run(R"(
- name: Churn
  workloadTemplate:
  - opcode: createNodes
    count: 1
  - opcode: churn
    mode: recreate
  workloads:
  - name: Tiny
)",
                         options);
  EXPECT_EQ(r.unsupported, "op churn");
  EXPECT_FALSE(ran);
  r = Run(R"(
- name: Gated
  featureGates:
    DynamicResourceAllocation: true
  workloadTemplate:
  - opcode: createNodes
    count: 1
  workloads:
  - name: Tiny
)",
          options);
  EXPECT_EQ(r.unsupported, "featureGates DynamicResourceAllocation=true (berth has no such gate)");
  EXPECT_FALSE(ran);
}

TEST_F(WorkloadRunnerTest, AMissingTemplateIsNamed) {
  WorkloadResult r = Run(R"(
- name: Missing
  workloadTemplate:
  - opcode: createPods
    count: 1
    podTemplatePath: config/nope.yaml
  workloads:
  - name: Tiny
)");
  EXPECT_EQ(r.unsupported, "");  // not a limit of berth's: an error of the file
  EXPECT_NE(r.error.find("template config/nope.yaml not found"), std::string::npos) << r.error;
}

TEST_F(WorkloadRunnerTest, ASleepThatIsNotADurationIsNamed) {
  WorkloadResult r = Run(R"(
- name: Sleepy
  workloadTemplate:
  - opcode: sleep
    duration: a while
  workloads:
  - name: Tiny
)");
  EXPECT_NE(r.error.find("sleep.duration a while: expected a duration"), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace berth::perf

namespace berth::perf {
namespace {

constexpr char kCsiVolume[] = R"(apiVersion: v1
kind: PersistentVolume
spec:
  accessModes: [ReadOnlyMany]
  capacity: {storage: 1Gi}
  csi: {driver: ebs.csi.aws.com}
  persistentVolumeReclaimPolicy: Retain
)";
constexpr char kClaim[] = R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  annotations: {pv.kubernetes.io/bind-completed: "true"}
spec:
  accessModes: [ReadOnlyMany]
  resources: {requests: {storage: 1Gi}}
)";

TEST_F(WorkloadRunnerTest, PodsWithPreBoundCSIVolumesKeepToTheNodesVolumeLimits) {
  Write("config/pv-csi.yaml", kCsiVolume);
  Write("config/pvc.yaml", kClaim);
  PerfOptions options;
  options.after_op = [&](const Op& op, cluster::InProcessCluster& c) {
    if (op.index == 0) {  // a CSINode per node, with the driver's count
      auto csi_nodes = List(c, api::Kind::kCSINode);
      ASSERT_EQ(csi_nodes.size(), 2u);
      for (const auto& n : csi_nodes) {
        const auto& driver = n->json().at("spec").at("drivers").at(0).as_object();
        EXPECT_EQ(driver.at("name").as_string(), "ebs.csi.aws.com");
        EXPECT_EQ(driver.at("allocatable").at("count").as_int64(), 2);
      }
      for (const auto& n : List(c, api::Kind::kNode)) {
        EXPECT_TRUE(n->json().at("status").at("allocatable").as_object().contains(
            "attachable-volumes-csi-ebs.csi.aws.com"));
      }
    } else if (op.index == 1) {  // claims and volumes pre-bound; the limit holds
      auto claims = List(c, api::Kind::kPersistentVolumeClaim, "namespace-1");
      ASSERT_EQ(claims.size(), 4u);
      for (const auto& claim : claims) {
        EXPECT_EQ(claim->json().at("spec").at("volumeName").as_string(),
                  "namespace-1-vol-" + claim->name().substr(4));
      }
      auto volumes = List(c, api::Kind::kPersistentVolume);
      ASSERT_EQ(volumes.size(), 4u);
      for (const auto& v : volumes) {
        EXPECT_EQ(v->json().at("spec").at("claimRef").at("namespace").as_string(), "namespace-1");
        EXPECT_EQ(v->json().at("status").at("phase").as_string(), "Bound");
      }
      std::map<std::string, int> per_node;
      for (const auto& p : List(c, api::Kind::kPod, "namespace-1")) per_node[p->As<api::PodView>()->node_name]++;
      EXPECT_EQ(per_node.size(), 2u);
      for (const auto& [node, pods] : per_node) EXPECT_EQ(pods, 2) << node;
    }
  };
  WorkloadResult r = Run(R"(
- name: CSIPVs
  workloadTemplate:
  - opcode: createNodes
    count: 2
    nodeAllocatableStrategy:
      nodeAllocatable: {attachable-volumes-csi-ebs.csi.aws.com: "2"}
      csiNodeAllocatable: {ebs.csi.aws.com: {count: 2}}
  - opcode: createPods
    count: 4
    persistentVolumeTemplatePath: config/pv-csi.yaml
    persistentVolumeClaimTemplatePath: config/pvc.yaml
    collectMetrics: true
  workloads:
  - name: 2Nodes
)", options);
  EXPECT_EQ(r.unsupported, "");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.measured_pods, 4);
}

}  // namespace
}  // namespace berth::perf
