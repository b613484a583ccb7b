// The API server's binding path alone (in memory, no HTTP, no fsync): what
// each scheduler binding costs, how much of it is the edited copy of the pod
// and its encoding, and what the in-process scheduler's way to it adds (a
// Binding posted to pods/NAME/binding through ApiServer::Handle: routing,
// authorization, admission and audit, as a remote scheduler's binding).
//
//   build/binding_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "api/pod_view.h"
#include "apiserver/api_server.h"
#include "cluster/scheduler_clients.h"
#include "store/memory/memory_store.h"

namespace berth {
namespace {

constexpr int kPods = 200'000;

// Pods as `berth bench` makes them.
api::ObjectPtr BenchPod(int i) {
  const std::string name = "pod-" + std::to_string(i);
  auto pod = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
      R"(","namespace":"default","uid":"uid-)" + name + R"(","labels":{"app":"bench"}},)"
      R"("spec":{"schedulerName":"default-scheduler","containers":[{"name":"app",)"
      R"("image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"100m",)"
      R"("memory":"128Mi"}}}]},"status":{"phase":"Pending"}})");
  if (!pod.ok()) std::abort();
  return std::move(pod).value();
}

// ApiServer::BindPod on pods already stored: read, checks, edited copy,
// encoding, compare-and-swap write.
void BM_BindPod(benchmark::State& state) {
  auto store = store::MemoryStore::Open({});
  if (!store.ok()) std::abort();
  apiserver::ApiServer api(**store, {});
  if (!api.Bootstrap().ok()) std::abort();
  for (int i = 0; i < kPods; ++i) {
    if (!(*store)->Create(BenchPod(i)).ok()) std::abort();
  }
  std::vector<std::string> names;
  for (int i = 0; i < kPods; ++i) names.push_back("pod-" + std::to_string(i));
  const std::string node = "node-7";
  size_t i = 0;
  for (auto _ : state) {
    if (!api.BindPod("default", names[i++], node, "", 0, nullptr).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BindPod)->Iterations(kPods)->Unit(benchmark::kNanosecond);

// The in-process scheduler's binding through InProcessSchedulerClient: a
// Binding through ApiServer::Handle to the same BindPod.
void BM_BindThroughPodsBinding(benchmark::State& state) {
  auto store = store::MemoryStore::Open({});
  if (!store.ok()) std::abort();
  apiserver::ApiServer api(**store, {});
  if (!api.Bootstrap().ok()) std::abort();
  std::vector<api::ObjectPtr> pods;
  for (int i = 0; i < kPods; ++i) {
    pods.push_back(BenchPod(i));
    if (!(*store)->Create(pods.back()).ok()) std::abort();
  }
  cluster::InProcessSchedulerClient client(api);
  const std::string node = "node-7";
  size_t i = 0;
  for (auto _ : state) {
    if (!client.BindPod(*pods[i++], node).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BindThroughPodsBinding)->Iterations(kPods)->Unit(benchmark::kNanosecond);

// The edited version alone (what BindPod does to the pod), then its encoding
// (which makes its JSON: the edited copy a durable store pays for).
void BM_EditLazilyAndEncode(benchmark::State& state) {
  auto pod = BenchPod(1);
  (void)pod->Encoded();
  for (auto _ : state) {
    auto view = std::make_shared<api::PodView>(*pod->As<api::PodView>());
    view->node_name = "node-7";
    auto bound = api::Object::EditLazily(
        pod, [](boost::json::object& p) { p["spec"].as_object()["nodeName"] = "node-7"; },
        std::move(view));
    benchmark::DoNotOptimize(bound->EncodeForRevision());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EditLazilyAndEncode)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace berth

BENCHMARK_MAIN();
