// Scheduling cycles alone, without the API server or the store: the scheduler
// over a client that binds at once and feeds the bound pod back as its
// informer would. A cluster of 5000 nodes in 3 zones (kube's standard
// hostname and zone labels) holding 5000 pods of the workload already, then
// each iteration schedules one more pod of it. The workloads are
// scheduler_perf's pod templates: a plain pod, DoNotSchedule spreading over
// zones, required anti-affinity per hostname, required affinity per zone.
//
//   build/scheduler_cycle_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// items_per_second is pods scheduled per second by `concurrent` cycles
// (the argument) with kube's default plugins and percentageOfNodesToScore.

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <boost/json.hpp>

#include "api/object.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;

constexpr int kNodes = 5000;
constexpr int kInitPods = 5000;

class InstantClient : public SchedulerClient {
 public:
  Scheduler* scheduler = nullptr;
  std::atomic<int64_t> bound{0};
  Status BindPod(const api::Object& pod, const std::string& node) override {
    auto updated = pod.Edit([&](json::object& o) { o["spec"].as_object()["nodeName"] = node; });
    if (!updated.ok()) return updated.status();
    scheduler->OnPodUpdate(updated.value());
    bound.fetch_add(1, std::memory_order_relaxed);
    return Status::Ok();
  }
  Status ReportFailure(const api::Object&, std::string_view, const std::string&,
                       const std::optional<std::string>&) override {
    return Status::Ok();
  }
  void ReportScheduled(const api::Object&, const std::string&) override {}
};

api::ObjectPtr NodeObject(int i) {
  std::string name = "node-" + std::to_string(i);
  std::string zone = "zone-" + std::to_string(i % 3);
  auto node = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
      R"(","labels":{"kubernetes.io/hostname":")" + name + R"(","topology.kubernetes.io/zone":")" + zone +
      R"("}},"status":{"capacity":{"cpu":"4","memory":"32Gi","pods":"110"},)"
      R"("allocatable":{"cpu":"4","memory":"32Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})");
  return node.value();
}

// scheduler_perf's templates, by workload.
std::string Affinity(int workload) {
  switch (workload) {
    case 1:
      return R"("topologySpreadConstraints":[{"maxSkew":5,"topologyKey":"topology.kubernetes.io/zone",)"
             R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"color":"blue"}}}],)";
    case 2:
      return R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
             R"("labelSelector":{"matchLabels":{"color":"blue"}},"topologyKey":"kubernetes.io/hostname"}]}},)";
    case 3:
      return R"("affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
             R"("labelSelector":{"matchLabels":{"color":"blue"}},"topologyKey":"topology.kubernetes.io/zone"}]}},)";
    default:
      return "";
  }
}

api::ObjectPtr PodObject(int workload, int64_t i, const std::string& node) {
  std::string spec = "{" + Affinity(workload) +
                     R"("containers":[{"name":"pause","image":"registry.k8s.io/pause:3.9",)"
                     R"("resources":{"requests":{"cpu":"1m","memory":"5Mi"}}}])";
  if (!node.empty()) spec += R"(,"nodeName":")" + node + "\"";
  spec += "}";
  std::string name = "pod-" + std::to_string(i);
  return api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                             R"(","namespace":"default","uid":"uid-)" + name +
                             R"(","labels":{"color":"blue"}},"spec":)" + spec + "}")
      .value();
}

void BM_SchedulingCycle(benchmark::State& state) {
  const int workload = static_cast<int>(state.range(0));
  InstantClient client;
  SchedulerOptions options;
  options.concurrent = static_cast<int>(state.range(1));
  options.seed = 1;
  auto created = Scheduler::Create(SchedulerConfig{}, InTreeRegistry(), options, &client);
  if (!created.ok()) {
    state.SkipWithError(created.status().message().c_str());
    return;
  }
  auto scheduler = std::move(created).value();
  client.scheduler = scheduler.get();
  for (int i = 0; i < kNodes; ++i) scheduler->OnNodeAdd(NodeObject(i));
  // Anti-affinity per hostname allows one pod per node: start half full.
  int init = workload == 2 ? kNodes / 2 : kInitPods;
  int64_t next = 0;
  for (; next < init; ++next) {
    scheduler->OnPodAdd(PodObject(workload, next, "node-" + std::to_string(next % kNodes)));
  }
  scheduler->Start();
  const int64_t batch = 100;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<api::ObjectPtr> pods;
    for (int64_t i = 0; i < batch; ++i) pods.push_back(PodObject(workload, next++, ""));
    int64_t want = client.bound.load() + batch;
    state.ResumeTiming();
    for (auto& p : pods) scheduler->OnPodAdd(p);
    while (client.bound.load() < want) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  scheduler->Stop();
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["unschedulable"] = static_cast<double>(scheduler->stats().unschedulable);
}

// Arguments: workload (0 basic, 1 spread, 2 anti-affinity, 3 affinity), concurrent cycles.
BENCHMARK(BM_SchedulingCycle)
    ->ArgNames({"workload", "concurrent"})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Args({2, 2})
    ->Args({3, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(10);

}  // namespace
}  // namespace berth::scheduler

BENCHMARK_MAIN();
