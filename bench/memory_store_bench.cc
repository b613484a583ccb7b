// The in-memory store's write and read paths alone: creates, updates and gets
// of already decoded pods, with no log (what `berth store bench` calls
// in-memory operations, here per operation and without the decoding), and the
// encoding a durable write adds.
//
//   build/memory_store_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "store/memory/memory_store.h"

namespace berth::store {
namespace {

// Pods as `berth store bench` makes them: ~600 bytes of JSON each.
const std::vector<api::ObjectPtr>& Pods() {
  static const std::vector<api::ObjectPtr> pods = [] {
    std::vector<api::ObjectPtr> out;
    constexpr int kPods = 500'000;
    out.reserve(kPods);
    for (int i = 0; i < kPods; ++i) {
      const std::string name = "pod-" + std::to_string(i);
      auto pod = api::Object::Decode(
          R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
          R"(","namespace":"bench","labels":{"app":"sample","tier":"web"}},)"
          R"("spec":{"schedulerName":"default-scheduler","containers":[{"name":"app",)"
          R"("image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"100m",)"
          R"("memory":"128Mi"}}}]},"status":{"phase":"Pending"}})");
      if (!pod.ok()) std::abort();
      out.push_back(std::move(pod).value());
    }
    return out;
  }();
  return pods;
}

std::unique_ptr<MemoryStore> Fresh() {
  auto store = MemoryStore::Open({});
  if (!store.ok()) std::abort();
  return std::move(store).value();
}

// Creates into a store that grows to 500,000 pods, then starts over.
void BM_Create(benchmark::State& state) {
  const auto& pods = Pods();
  auto store = Fresh();
  size_t i = 0;
  for (auto _ : state) {
    if (i == pods.size()) {
      state.PauseTiming();
      store = Fresh();
      i = 0;
      state.ResumeTiming();
    }
    if (!store->Create(pods[i++]).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Create)->Iterations(1'000'000)->Unit(benchmark::kNanosecond);

// Updates (guarded by resourceVersion) of pods in a store of 100,000.
void BM_Update(benchmark::State& state) {
  const auto& pods = Pods();
  constexpr size_t kStored = 100'000;
  auto store = Fresh();
  std::vector<int64_t> revisions(kStored);
  for (size_t i = 0; i < kStored; ++i) revisions[i] = store->Create(pods[i]).value()->resource_version();
  size_t i = 0;
  for (auto _ : state) {
    auto updated = store->Update(pods[i], revisions[i]);
    if (!updated.ok()) std::abort();
    revisions[i] = updated.value()->resource_version();
    i = i + 1 == kStored ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Update)->Unit(benchmark::kNanosecond);

// Gets from a store of 500,000 pods.
void BM_Get(benchmark::State& state) {
  static const std::unique_ptr<MemoryStore> store = [] {
    auto s = Fresh();
    for (const auto& pod : Pods()) (void)s->Create(pod);
    return s;
  }();
  const auto& pods = Pods();
  size_t i = static_cast<size_t>(state.thread_index()) * 7919;
  for (auto _ : state) {
    i = (i + 104'729) % pods.size();
    benchmark::DoNotOptimize(store->Get(pods[i]->StorageKey()));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Get)->Threads(1)->Threads(2)->UseRealTime()->Unit(benchmark::kNanosecond);

// The text a durable write logs and serves: encoded before the store's lock,
// the revision put in under it.
void BM_EncodeForRevision(benchmark::State& state) {
  const auto& pods = Pods();
  size_t i = 0;
  int64_t revision = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(pods[i]->EncodeForRevision().At(revision++));
    i = i + 1 == 1000 ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeForRevision)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace berth::store

BENCHMARK_MAIN();
