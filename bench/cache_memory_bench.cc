// The scheduler cache's memory per pod: what Cache::AddPod allocates for a
// bound pod beyond the pod object itself (which the informer and the store
// already hold): its PodInfo and key, its entry in the cache's pod map, its
// place in its NodeInfo, and the copies of NodeInfos that snapshots force.
// Measured with glibc's allocator statistics around adding 100,000 pods to a
// cache of 5,000 nodes, with a snapshot refreshed every 100 pods as
// scheduling cycles do.
//
//   build/cache_memory_bench
//
// The bytes_per_pod counter is the figure (issue 4's target: ≤ 2 KiB).

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "api/object.h"
#include "scheduler/cache/cache.h"

namespace berth::scheduler {
namespace {

size_t HeapInUse() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

api::ObjectPtr Node(int i) {
  std::string name = "node-" + std::to_string(i);
  return api::Object::Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                             R"(","labels":{"kubernetes.io/hostname":")" + name +
                             R"("}},"status":{"allocatable":{"cpu":"64","memory":"256Gi","pods":"110"}}})")
      .value();
}

api::ObjectPtr Pod(int i, int nodes) {
  std::string name = "pod-" + std::to_string(i);
  return api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                             R"(","namespace":"default","uid":"uid-)" + name +
                             R"(","labels":{"app":"web"}},"spec":{"nodeName":"node-)" + std::to_string(i % nodes) +
                             R"(","containers":[{"name":"c","image":"nginx",)"
                             R"("resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]}})")
      .value();
}

void BM_CacheBytesPerPod(benchmark::State& state) {
  const int nodes = 5000, pods = 100'000;
  double bytes_per_pod = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Cache cache;
    for (int i = 0; i < nodes; ++i) cache.AddNode(Node(i));
    std::vector<api::ObjectPtr> objects;  // held outside the cache, as the store holds them
    objects.reserve(pods);
    for (int i = 0; i < pods; ++i) objects.push_back(Pod(i, nodes));
    Snapshot snapshot;
    cache.UpdateSnapshot(snapshot);
    malloc_trim(0);
    size_t before = HeapInUse();
    state.ResumeTiming();
    for (int i = 0; i < pods; ++i) {
      cache.AddPod(MakePodInfo(objects[static_cast<size_t>(i)]));
      if (i % 100 == 99) cache.UpdateSnapshot(snapshot);
    }
    state.PauseTiming();
    bytes_per_pod = static_cast<double>(HeapInUse() - before) / pods;
    state.ResumeTiming();
  }
  state.counters["bytes_per_pod"] = bytes_per_pod;
  state.SetItemsProcessed(state.iterations() * pods);
}

BENCHMARK(BM_CacheBytesPerPod)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace berth::scheduler

BENCHMARK_MAIN();
