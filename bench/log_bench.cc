// The cost of a log line on the scheduling path: a disabled level (the
// default verbosity is 0, and kube-scheduler's per-attempt lines are at 3, 4
// and 10) must cost a level check only, its arguments unevaluated.
//
//   ninja -C build log_bench && build/log_bench

#include <benchmark/benchmark.h>

#include <string>

#include "log/log.h"

namespace {

using berth::log::KObj;

const std::string kNamespace = "default";
const std::string kName = "web-7d4b9c-x2x4z";
const std::string kNode = "node-00042";

// The loop alone, for comparison.
void BM_NoLog(benchmark::State& state) {
  int64_t n = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(++n);
  }
}
BENCHMARK(BM_NoLog);

// A V(4) line at verbosity 0: the hot path's case.
void BM_DisabledV4(benchmark::State& state) {
  berth::log::Configure({.verbosity = 0});
  int64_t n = 0;
  for (auto _ : state) {
    BERTH_VLOG(4, "About to try and schedule pod", {"pod", KObj(kNamespace, kName)}, {"node", kNode},
               {"attempt", ++n});
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_DisabledV4);

// The same line written (text and JSON) to a sink that drops it: what -v 4 costs.
void BM_EnabledV4(benchmark::State& state) {
  berth::log::Configure({.verbosity = 4, .format = state.range(0) ? berth::log::Format::kJson
                                                                     : berth::log::Format::kText});
  berth::log::SetSinkForTesting([](std::string_view line) { benchmark::DoNotOptimize(line.data()); });
  int64_t n = 0;
  for (auto _ : state) {
    BERTH_VLOG(4, "About to try and schedule pod", {"pod", KObj(kNamespace, kName)}, {"node", kNode},
               {"attempt", ++n});
  }
  berth::log::SetSinkForTesting(nullptr);
  berth::log::Configure({.verbosity = 0});
}
BENCHMARK(BM_EnabledV4)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
