// Weighted node selection: how long building a sampler over n node scores takes
// (once per scheduling cycle) and how long one draw takes, for the alias method
// and the prefix-sum reference, at n = 16 (a small cluster) and 5000 (kube's
// scalability target); plus SelectTopScore's single pass, and what one
// scheduling cycle's selection costs with each NodeSelection strategy (a
// WeightedRandom cycle builds the sampler over its scored nodes and draws
// once; a TopScore cycle makes its one pass): at 100 and 500 scored nodes too,
// the numbers percentageOfNodesToScore leaves at 100 to 5000 nodes.
//
//   build-<you>/sampler_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "scheduler/select/sampler.h"

namespace berth::scheduler {
namespace {

// Node scores as a cycle produces them: 0..100 per plugin, summed over a few plugins.
std::vector<int64_t> Scores(size_t n) {
  std::mt19937_64 rng(n);
  std::vector<int64_t> scores(n);
  for (auto& s : scores) s = static_cast<int64_t>(rng() % 401);
  return scores;
}

template <typename Sampler>
void BM_Build(benchmark::State& state) {
  auto weights = Scores(static_cast<size_t>(state.range(0)));
  Sampler sampler;
  sampler.Build(weights);  // warm the buffers: steady state reuses them
  for (auto _ : state) {
    sampler.Build(weights);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

template <typename Sampler>
void BM_Sample(benchmark::State& state) {
  auto weights = Scores(static_cast<size_t>(state.range(0)));
  Sampler sampler;
  sampler.Build(weights);
  std::mt19937_64 rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(sampler.Sample(rng));
  state.SetItemsProcessed(state.iterations());
}

void BM_SelectTopScore(benchmark::State& state) {
  auto scores = Scores(static_cast<size_t>(state.range(0)));
  std::mt19937_64 rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(SelectTopScore(scores, rng));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// One cycle's WeightedRandom selection: Build over the scored nodes, one draw.
template <typename Sampler>
void BM_SelectWeighted(benchmark::State& state) {
  auto scores = Scores(static_cast<size_t>(state.range(0)));
  Sampler sampler;
  sampler.Build(scores);  // the worker's sampler keeps its buffers between cycles
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    sampler.Build(scores);
    benchmark::DoNotOptimize(sampler.Sample(rng));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK_TEMPLATE(BM_Build, AliasSampler)->Arg(16)->Arg(5000);
BENCHMARK_TEMPLATE(BM_Build, PrefixSumSampler)->Arg(16)->Arg(5000);
BENCHMARK_TEMPLATE(BM_Sample, AliasSampler)->Arg(16)->Arg(5000);
BENCHMARK_TEMPLATE(BM_Sample, PrefixSumSampler)->Arg(16)->Arg(5000);
BENCHMARK(BM_SelectTopScore)->Arg(16)->Arg(100)->Arg(500)->Arg(5000);
BENCHMARK_TEMPLATE(BM_SelectWeighted, AliasSampler)->Arg(16)->Arg(100)->Arg(500)->Arg(5000);
BENCHMARK_TEMPLATE(BM_SelectWeighted, PrefixSumSampler)->Arg(16)->Arg(100)->Arg(500)->Arg(5000);

}  // namespace
}  // namespace berth::scheduler

BENCHMARK_MAIN();
