// What the type check of a write costs (decode_check.h): kube's decoder's
// checks over a pod as api-bench creates it, and over kube's fully populated
// Pod (every field set), next to parsing the same JSON text.
//
//   build/decode_check_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "apiserver/schema/decode_check.h"

namespace berth {
namespace {

const char kBenchPod[] =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-1","namespace":"default",)"
    R"("labels":{"app":"bench"}},"spec":{"schedulerName":"default-scheduler","containers":[)"
    R"({"name":"app","image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"100m",)"
    R"("memory":"128Mi"}}}]}})";

// Run from the source directory (the fixtures sit beside it), or name the file
// in BERTH_KUBE_POD.
std::string KubesPod() {
  const char* path = std::getenv("BERTH_KUBE_POD");
  std::ifstream in(path ? path : "../shared/fixtures/k8s-api-testdata/core.v1.Pod.json");
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().empty()) std::abort();
  return text.str();
}

void Check(benchmark::State& state, const std::string& text) {
  const boost::json::value pod = boost::json::parse(text);
  for (auto _ : state) benchmark::DoNotOptimize(apiserver::GoDecodeError(api::Kind::kPod, pod));
}

void Parse(benchmark::State& state, const std::string& text) {
  for (auto _ : state) benchmark::DoNotOptimize(boost::json::parse(text));
}

void BM_CheckBenchPod(benchmark::State& state) { Check(state, kBenchPod); }
void BM_ParseBenchPod(benchmark::State& state) { Parse(state, kBenchPod); }
void BM_CheckKubesPod(benchmark::State& state) { Check(state, KubesPod()); }
void BM_ParseKubesPod(benchmark::State& state) { Parse(state, KubesPod()); }
BENCHMARK(BM_CheckBenchPod);
BENCHMARK(BM_ParseBenchPod);
BENCHMARK(BM_CheckKubesPod);
BENCHMARK(BM_ParseKubesPod);

}  // namespace
}  // namespace berth

BENCHMARK_MAIN();
