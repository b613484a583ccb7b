// `berth bench`'s runner on tiny clusters: every pod bound and counted, the
// figures named for what they time, an early end when only unschedulable
// pods are left, and the over-commit check.

#include "perf/bench_runner.h"

#include <gtest/gtest.h>

#include "perf/bench_command.h"
#include "perf/synthetic.h"
#include "store/memory/memory_store.h"

namespace berth::perf {
namespace {

using namespace std::chrono_literals;

BenchOptions Tiny(StoreKind store) {
  BenchOptions o;
  o.nodes = 2;
  o.pods = 40;
  o.node = NodeShape{"4", "4Gi", 30};  // 30 pod slots, 40 of the default pods' CPU
  o.store = store;
  o.concurrent = 2;
  o.timeout = 20s;
  return o;
}

TEST(RunBench, BindsEveryPodOnEitherStoreAndTimesEachStep) {
  for (StoreKind store : {StoreKind::kMemory, StoreKind::kDurable}) {
    SCOPED_TRACE(std::string(StoreName(store)));
    BenchRun r = RunBench(Tiny(store));
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.bound, 40);
    EXPECT_EQ(r.unbound, 0);
    EXPECT_EQ(r.stats.scheduled, 40u);
    EXPECT_FALSE(r.stopped_on_unschedulable);
    EXPECT_EQ(r.cycle_ms.count, 40u);
    EXPECT_EQ(r.binding_ms.count, 40u);
    EXPECT_EQ(r.queue_to_bound_ms.count, 40u);
    // Queue-to-bound covers the cycle and the binding.
    EXPECT_GE(r.queue_to_bound_ms.p99, r.binding_ms.p50);
    EXPECT_GT(r.window_seconds, 0);
    EXPECT_NEAR(r.throughput, 40 / r.window_seconds, 1e-6);
    EXPECT_GT(r.cpu_per_pod_us, 0);
  }
}

TEST(RunBench, StopsAsSoonAsOnlyUnschedulablePodsAreLeftAndSaysHowMany) {
  BenchOptions o = Tiny(StoreKind::kMemory);
  o.pods = 70;  // 2 nodes × 30 pod slots: 10 cannot fit
  o.timeout = 60s;
  auto start = std::chrono::steady_clock::now();
  BenchRun r = RunBench(o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // not the 60 s timeout
  EXPECT_TRUE(r.stopped_on_unschedulable);
  EXPECT_EQ(r.bound, 60);
  EXPECT_EQ(r.unbound, 10);
  EXPECT_NE(r.error.find("10 of 70 pods were left unbound"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("only unschedulable pods"), std::string::npos) << r.error;
}

TEST(RunBench, CpuIsAFilterToo) {
  BenchOptions o = Tiny(StoreKind::kMemory);
  o.pod_sizes = {PodShape{"300m", "64Mi"}};  // 4 CPUs hold 13 such pods per node
  o.pods = 30;
  BenchRun r = RunBench(o);
  EXPECT_EQ(r.bound, 26);
  EXPECT_EQ(r.unbound, 4);
  EXPECT_TRUE(r.stopped_on_unschedulable);
}

api::ObjectPtr BoundPod(const std::string& name, const std::string& node, const PodShape& shape) {
  return SyntheticPod("default", name, shape)
      ->Edit([&](boost::json::object& o) { o["spec"].as_object()["nodeName"] = node; })
      .value();
}

TEST(CheckBoundPods, NamesTheNodeAndTheResourceOverCommitted) {
  struct Case {
    const char* name;
    std::vector<PodShape> pods;  // all on node-0
    std::string expected;        // "" when it fits
  };
  const NodeShape shape{"1", "1Gi", 3};
  const std::vector<Case> cases = {
      {"Fits", {{"500m", "512Mi"}, {"500m", "512Mi"}}, ""},
      {"TooManyPods",
       {{"1m", "1Mi"}, {"1m", "1Mi"}, {"1m", "1Mi"}, {"1m", "1Mi"}},
       "4 pods, it has room for 3"},
      {"TooMuchCpu", {{"600m", "1Mi"}, {"600m", "1Mi"}}, "1200m CPU requested of 1000m"},
      {"TooMuchMemory",
       {{"1m", "1Gi"}, {"1m", "1Mi"}},
       "1074790400 bytes of memory requested of 1073741824"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto store = store::MemoryStore::Open(store::MemoryStore::Options{}).value();
    int i = 0;
    for (const auto& p : c.pods)
      ASSERT_TRUE(store->Create(BoundPod("p" + std::to_string(i++), "node-0", p)).ok());
    ASSERT_TRUE(store->Create(SyntheticPod("default", "pending", PodShape{})).ok());
    int64_t bound = 0;
    Status s = CheckBoundPods(*store, shape, &bound);
    EXPECT_EQ(bound, static_cast<int64_t>(c.pods.size()));
    if (c.expected.empty()) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_NE(s.message().find("node node-0 is over-committed: " + c.expected), std::string::npos)
          << s.message();
    }
  }
}

TEST(Bench, ReportsTheShapeAndTheStoreAndRefusesBadFlags) {
  BenchFlags f;
  f.nodes = 2;
  f.pods = 20;
  f.concurrent = "1,2";
  f.stores = {"memory"};
  f.node_cpu = "2";
  f.node_memory = "4Gi";
  f.node_max_pods = 30;
  f.json = true;
  char* out_text = nullptr;
  size_t out_size = 0;
  std::FILE* out = open_memstream(&out_text, &out_size);
  std::FILE* err = std::tmpfile();
  EXPECT_EQ(Bench(f, out, err), 0);
  std::fclose(out);
  const std::string json(out_text, out_size);
  std::free(out_text);
  EXPECT_NE(json.find("\"node_cpu\":\"2\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"node_max_pods\":30"), std::string::npos) << json;
  EXPECT_NE(json.find("\"store\":\"memory\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"queue_to_bound_p99_ms\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"window\":\"first pop to last binding\""), std::string::npos) << json;

  f.stores = {"disk"};
  EXPECT_EQ(Bench(f, err, err), 2);
  f.stores = {"memory"};
  f.concurrent = "0";
  EXPECT_EQ(Bench(f, err, err), 2);
  f.concurrent = "1";
  f.pod_sizes = {"100m"};
  EXPECT_EQ(Bench(f, err, err), 2);
  std::fclose(err);
}

TEST(BenchTable, StatesTheClusterAndWhatEachColumnTimes) {
  BenchRun r;
  r.options = Tiny(StoreKind::kDurable);
  r.bound = 40;
  const std::string table = BenchTable({r});
  EXPECT_NE(table.find("cluster: 2 nodes of 4 CPU, 4Gi, 30 pods; 40 pods of 100m/128Mi"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("first pop → last binding"), std::string::npos);
  EXPECT_NE(table.find("durable"), std::string::npos);
}

}  // namespace
}  // namespace berth::perf
