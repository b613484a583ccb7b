// What one scrape of `berth serve`'s /metrics costs (rendering the API
// server's, store's, scheduler's, controllers' and process metrics) in a
// cluster of 5,000 nodes with 10,000 pods placed on them by the scheduler,
// after a request of every verb the metrics count on every resource.
// Target: < 5 ms a scrape.
//
//   build/scrape_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "api/kinds.h"
#include "api/object.h"
#include "client/http_client.h"
#include "cluster/in_process_cluster.h"

namespace berth {
namespace {

constexpr int kNodes = 5'000;
constexpr int kPods = 10'000;

api::ObjectPtr Decode(const std::string& json) {
  auto o = api::Object::Decode(json);
  if (!o.ok()) std::abort();
  return std::move(o).value();
}

api::ObjectPtr Node(int i) {
  const std::string name = "node-" + std::to_string(i);
  return Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                R"(","labels":{"kubernetes.io/hostname":")" + name + R"(","topology.kubernetes.io/zone":"zone-)" +
                std::to_string(i % 3) +
                R"("}},"status":{"capacity":{"cpu":"32","memory":"128Gi","pods":"110"},)"
                R"("allocatable":{"cpu":"32","memory":"128Gi","pods":"110"},)"
                R"("conditions":[{"type":"Ready","status":"True"}]}})");
}

api::ObjectPtr Pod(int i) {
  const std::string name = "pod-" + std::to_string(i);
  return Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                R"(","namespace":"default","uid":"uid-)" + name + R"(","labels":{"app":"bench"}},)"
                R"("spec":{"schedulerName":"default-scheduler","containers":[{"name":"app","image":"pause",)"
                R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]},"status":{"phase":"Pending"}})");
}

struct Fixture {
  std::unique_ptr<cluster::InProcessCluster> cluster;

  Fixture() {
    cluster::ClusterOptions options;
    options.http = apiserver::HttpServer::Options{.port = 0};
    auto created = cluster::InProcessCluster::Create(std::move(options));
    if (!created.ok()) std::abort();
    cluster = std::move(created).value();
    for (int i = 0; i < kNodes; ++i) {
      if (!cluster->store().Create(Node(i)).ok()) std::abort();
    }
    if (!cluster->Start().ok()) std::abort();
    for (int i = 0; i < kPods; ++i) {
      if (!cluster->store().Create(Pod(i)).ok()) std::abort();
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (cluster->scheduler()->stats().scheduled < static_cast<uint64_t>(kPods)) {
      if (std::chrono::steady_clock::now() > deadline) std::abort();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Requests over HTTP: a LIST and a GET of a missing object of every
    // resource, so that the request metrics have their usual breadth.
    auto client = client::HttpClient::Connect("http://127.0.0.1:" + std::to_string(cluster->http()->port()));
    if (!client.ok()) std::abort();
    for (const auto& info : api::AllKinds()) {
      std::string base = info.group.empty() ? "/api/v1" : "/apis/" + std::string(info.group) + "/" +
                                                               std::string(info.version);
      std::string path = base + (info.namespaced ? "/namespaces/default/" : "/") + std::string(info.resource);
      (void)(*client)->Request("GET", path);
      (void)(*client)->Request("GET", path + "/missing");
    }
  }
};

Fixture& Cluster() {
  static Fixture* fixture = new Fixture();  // kept for the process's life
  return *fixture;
}

void BM_ScrapeServe(benchmark::State& state) {
  auto& c = *Cluster().cluster;
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = c.RenderMetrics();
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["nodes"] = kNodes;
  state.counters["pods"] = kPods;
}
BENCHMARK(BM_ScrapeServe)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace berth

BENCHMARK_MAIN();
