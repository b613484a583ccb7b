// berth bench: schedules a synthetic cluster in process through the real
// queue, framework, default plugins and binding path (informers over the
// store, the API server's binding logic), and reports throughput, latency and
// memory. `--concurrent=4,8,16` sweeps; `--json` prints one object per run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>

#include <boost/json.hpp>

#include "api/quantity.h"
#include "apiserver/api_server.h"
#include "cmd/commands.h"
#include "cmd/process_stats.h"
#include "cluster/in_process_cluster.h"

namespace berth::cmd {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int nodes = 16;
  int pods = 2000;
  std::string concurrent = "8";
  bool json_output = false;
  std::string node_cpu = "32";
  std::string node_memory = "128Gi";
  int node_max_pods = 500;
  std::vector<std::string> pod_sizes{"100m/128Mi"};
  std::string config;
  uint64_t seed = 1;
  bool weighted_random = false;
  int filter_threads = 1;
  int binding_workers = 4;
  int cycle_yield_us = static_cast<int>(scheduler::SchedulerOptions{}.cycle_yield_after.count());
  int timeout_seconds = 300;
};

struct RunResult {
  int nodes, pods, concurrent;
  double throughput, latency_avg_ms, latency_p99_ms, attempt_avg_ms, attempt_p99_ms;
  // Process CPU time (every thread, user + system) from Start to the last
  // binding, per bound pod: steadier than throughput on a busy machine.
  double cpu_per_pod_us;
  int64_t peak_rss_bytes;
  int64_t bound;
  std::string error;
};


api::ObjectPtr MustDecode(const json::object& o) {
  auto object = api::Object::FromJson(json::value(o));
  if (!object.ok()) throw std::runtime_error(object.status().message());
  return object.value();
}

json::object NodeJson(const BenchOptions& o, int i) {
  std::string name = "node-" + std::to_string(i);
  json::object resources{{"cpu", o.node_cpu}, {"memory", o.node_memory}, {"pods", std::to_string(o.node_max_pods)}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           json::object{{"name", name},
                        {"uid", "uid-" + name},
                        {"labels", json::object{{"kubernetes.io/hostname", name},
                                                {"topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3)}}}}},
          {"spec", json::object{}},
          {"status", json::object{{"capacity", resources},
                                  {"allocatable", resources},
                                  {"conditions", json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}}}};
}

json::object PodJson(const BenchOptions& o, int i) {
  const std::string& size = o.pod_sizes[static_cast<size_t>(i) % o.pod_sizes.size()];
  auto slash = size.find('/');
  std::string name = "pod-" + std::to_string(i);
  json::object requests{{"cpu", size.substr(0, slash)}, {"memory", size.substr(slash + 1)}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", json::object{{"name", name},
                                    {"namespace", "default"},
                                    {"uid", "uid-" + name},
                                    {"labels", json::object{{"app", "bench"}}}}},
          {"spec", json::object{{"schedulerName", "default-scheduler"},
                                {"containers", json::array{json::object{
                                                   {"name", "app"},
                                                   {"image", "registry.k8s.io/pause:3.9"},
                                                   {"resources", json::object{{"requests", requests}}}}}}}},
          {"status", json::object{{"phase", "Pending"}}}};
}

RunResult RunOnce(const BenchOptions& o, const scheduler::SchedulerConfig& config, int concurrent) {
  RunResult r{o.nodes, o.pods, concurrent, 0, 0, 0, 0, 0, 0, 0, 0, ""};
  cluster::ClusterOptions cluster_options;  // in memory
  cluster_options.watch_history = std::max<int64_t>(100'000, 4LL * o.pods);
  cluster_options.api.seed = o.seed;
  cluster_options.controllers.controllers.clear();
  cluster_options.scheduler_config = config;
  scheduler::SchedulerOptions& options = cluster_options.scheduler_options;
  options.concurrent = concurrent;
  options.seed = o.seed;
  options.weighted_random = o.weighted_random;
  options.filter_threads = o.filter_threads;
  options.binding_workers = o.binding_workers;
  options.cycle_yield_after = std::chrono::microseconds(o.cycle_yield_us);
  auto created = cluster::InProcessCluster::Create(std::move(cluster_options));
  if (!created.ok()) {
    r.error = created.status().message();
    return r;
  }
  cluster::InProcessCluster& runtime = *created.value();
  store::Store& store = runtime.store();
  for (int i = 0; i < o.nodes + o.pods; ++i) {
    auto made = store.Create(MustDecode(i < o.nodes ? NodeJson(o, i) : PodJson(o, i - o.nodes)));
    if (!made.ok()) {
      r.error = made.status().message();
      return r;
    }
  }
  Clock::time_point start = Clock::now();
  const double cpu_start = ProcessCpuSeconds();
  if (Status s = runtime.Start(); !s.ok()) {
    r.error = s.message();
    return r;
  }
  auto deadline = start + std::chrono::seconds(o.timeout_seconds);
  auto& sched = *runtime.scheduler();
  // Sleeps until the last binding (or 20 ms, to notice pods that cannot be
  // placed), rather than polling: a poller waking every few hundred
  // microseconds preempts scheduling cycles and shows in their latency.
  while (Clock::now() < deadline) {
    auto wake = std::min(deadline, Clock::now() + std::chrono::milliseconds(20));
    if (sched.WaitForScheduled(static_cast<uint64_t>(o.pods), wake)) break;
    if (sched.stats().unschedulable > 0 && sched.WaitForIdle(Clock::now())) {
      break;  // nothing more will bind
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu_seconds = ProcessCpuSeconds() - cpu_start;
  auto stats = sched.stats();
  r.bound = static_cast<int64_t>(stats.scheduled);
  r.throughput = static_cast<double>(stats.scheduled) / seconds;
  if (stats.scheduled > 0)
    r.cpu_per_pod_us = 1e6 * cpu_seconds / static_cast<double>(stats.scheduled);
  auto summarize = [](std::vector<double> latencies, double* avg_ms, double* p99_ms) {
    if (latencies.empty()) return;
    std::sort(latencies.begin(), latencies.end());
    *avg_ms = 1000 * std::accumulate(latencies.begin(), latencies.end(), 0.0) / static_cast<double>(latencies.size());
    *p99_ms = 1000 * latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)];
  };
  summarize(sched.TakeCycleLatencies(), &r.latency_avg_ms, &r.latency_p99_ms);
  summarize(sched.TakeAttemptLatencies(), &r.attempt_avg_ms, &r.attempt_p99_ms);
  r.peak_rss_bytes = PeakRssBytes();

  // Check the result as a user would: every pod bound once, no node over-committed.
  store::ListOptions list;
  list.prefix = api::StoragePrefix(api::Kind::kPod, "");
  auto pods = store.List(list);
  std::map<std::string, std::pair<int64_t, int64_t>> used;  // node → (milli-cpu, memory)
  int64_t bound = 0;
  for (const auto& p : pods.value().items) {
    const auto* v = p->As<api::PodView>();
    if (v->node_name.empty()) continue;
    ++bound;
    used[v->node_name].first += v->requests.milli_cpu;
    used[v->node_name].second += v->requests.memory;
  }
  auto cpu = api::Quantity::Parse(o.node_cpu).value().MilliValue();
  auto memory = api::Quantity::Parse(o.node_memory).value().Value();
  for (const auto& [node, amounts] : used) {
    if (amounts.first > cpu || amounts.second > memory) r.error = "node " + node + " is over-committed";
  }
  if (bound != r.bound) {
    r.error = "the scheduler counted " + std::to_string(r.bound) + " bindings, the store has " + std::to_string(bound);
  }
  runtime.Stop();
  if (bound < o.pods && r.error.empty()) {
    r.error = std::to_string(o.pods - bound) + " pods were not bound (" + std::to_string(stats.unschedulable) +
              " unschedulable attempts)";
  }
  return r;
}

int Bench(const BenchOptions& o) {
  if (o.nodes < 1 || o.pods < 1) {
    std::fprintf(stderr, "berth bench: --nodes and --pods must be at least 1\n");
    return 2;
  }
  std::vector<int> levels;
  std::stringstream ss(o.concurrent);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      int level = std::stoi(item, &used);
      if (used != item.size() || level < 1) throw std::invalid_argument(item);
      levels.push_back(level);
    } catch (const std::exception&) {
      std::fprintf(stderr, "berth bench: --concurrent=%s: expected positive integers separated by commas\n",
                   o.concurrent.c_str());
      return 2;
    }
  }
  for (const auto& size : o.pod_sizes) {
    auto slash = size.find('/');
    if (slash == std::string::npos || !api::Quantity::Parse(size.substr(0, slash)).ok() ||
        !api::Quantity::Parse(size.substr(slash + 1)).ok()) {
      std::fprintf(stderr, "berth bench: --pod-size %s: expected CPU/MEMORY such as 100m/128Mi\n", size.c_str());
      return 2;
    }
  }
  for (const auto& [flag, value] : {std::pair{"--node-cpu", o.node_cpu}, {"--node-memory", o.node_memory}}) {
    if (!api::Quantity::Parse(value).ok()) {
      std::fprintf(stderr, "berth bench: %s %s: not a quantity\n", flag, value.c_str());
      return 2;
    }
  }
  scheduler::SchedulerConfig config;
  if (!o.config.empty()) {
    auto loaded = cluster::LoadSchedulerConfig(o.config);
    if (!loaded.ok()) {
      std::fprintf(stderr, "berth bench: %s\n", loaded.status().message().c_str());
      return 2;
    }
    config = std::move(loaded).value();
  }
  std::vector<RunResult> results;
  for (int level : levels) {
    try {
      results.push_back(RunOnce(o, config, level));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "berth bench: %s\n", e.what());
      return 1;
    }
  }
  int status = 0;
  if (o.json_output) {
    json::array out;
    for (const auto& r : results) {
      json::object obj{{"nodes", r.nodes},
                       {"pods", r.pods},
                       {"concurrent", r.concurrent},
                       {"throughput_pods_per_sec", r.throughput},
                       {"latency_avg_ms", r.latency_avg_ms},
                       {"latency_p99_ms", r.latency_p99_ms},
                       {"peak_rss_bytes", r.peak_rss_bytes},
                       {"attempt_latency_avg_ms", r.attempt_avg_ms},
                       {"attempt_latency_p99_ms", r.attempt_p99_ms},
                       {"cpu_per_pod_us", r.cpu_per_pod_us}};
      if (!r.error.empty()) obj["error"] = r.error;
      out.push_back(std::move(obj));
    }
    std::printf("%s\n", json::serialize(out).c_str());
  } else {
    // Latency: the scheduling cycle (pop to reserve); "with binding": to the
    // end of the asynchronous binding, queueing for a binding worker included.
    // CPU per pod: the process's CPU time over the run (every thread) per bound pod.
    std::printf("%-11s %7s %6s %17s %15s %15s %21s %13s %16s\n", "concurrency", "pods", "nodes",
                "throughput pods/s", "latency avg ms", "latency p99 ms", "with binding p99 ms",
                "peak RSS MiB", "CPU per pod us");
    for (const auto& r : results) {
      std::printf("%-11d %7d %6d %17.0f %15.3f %15.3f %21.3f %13.1f %16.1f\n", r.concurrent, r.pods,
                  r.nodes, r.throughput, r.latency_avg_ms, r.latency_p99_ms, r.attempt_p99_ms,
                  static_cast<double>(r.peak_rss_bytes) / (1 << 20), r.cpu_per_pod_us);
    }
  }
  for (const auto& r : results) {
    if (!r.error.empty()) {
      std::fprintf(stderr, "berth bench: concurrency %d: %s\n", r.concurrent, r.error.c_str());
      status = 1;
    }
  }
  return status;
}

}  // namespace

void AddBenchCommand(CLI::App& app) {
  static BenchOptions o;
  auto* bench = app.add_subcommand("bench", "Schedule a synthetic cluster in process and measure it");
  bench->add_option("--nodes", o.nodes, "Nodes in the cluster")->capture_default_str();
  bench->add_option("--pods", o.pods, "Pods to schedule")->capture_default_str();
  bench->add_option("--concurrent", o.concurrent, "Scheduling cycles at once; a list (4,8,16) sweeps")
      ->capture_default_str();
  bench->add_flag("--json", o.json_output, "Print a JSON array, one object per run");
  bench->add_option("--node-cpu", o.node_cpu, "Each node's CPU")->capture_default_str();
  bench->add_option("--node-memory", o.node_memory, "Each node's memory")->capture_default_str();
  bench->add_option("--node-max-pods", o.node_max_pods, "Each node's pod capacity")->capture_default_str();
  bench->add_option("--pod-size", o.pod_sizes, "Pod requests CPU/MEMORY; several are used in turn (a mix)")
      ->capture_default_str();
  bench->add_option("--config", o.config, "A KubeSchedulerConfiguration file (default: kube's default profile)");
  bench->add_option("--seed", o.seed, "Seed for every random choice")->capture_default_str();
  bench->add_flag("--weighted-random", o.weighted_random, "Select nodes with probability proportional to score");
  bench->add_option("--filter-threads", o.filter_threads, "Helper threads for Filter/Score of large clusters")
      ->capture_default_str();
  bench->add_option("--binding-workers", o.binding_workers, "Binding cycles at once")->capture_default_str();
  bench
      ->add_option(
          "--cycle-yield-us", o.cycle_yield_us,
          "With more cycles than CPUs, a cycle thread yields between cycles after this many "
          "microseconds (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  bench->add_option("--timeout", o.timeout_seconds, "Give up after this many seconds")->capture_default_str();
  bench->callback([] { SetExitCode(Bench(o)); });
}

}  // namespace berth::cmd
