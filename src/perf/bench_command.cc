#include "perf/bench_command.h"

#include <boost/json.hpp>
#include <sstream>

#include "api/quantity.h"
#include "cluster/scheduler_runner.h"

namespace berth::perf {
namespace {

namespace json = boost::json;

Result<std::vector<int>> ParseLevels(const std::string& text) {
  std::vector<int> levels;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    int level = 0;
    try {
      level = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || level < 1) {
      return Status::BadRequest("--concurrent=" + text +
                                ": expected positive integers separated by commas");
    }
    levels.push_back(level);
  }
  if (levels.empty())
    return Status::BadRequest("--concurrent=" + text + ": expected at least one level");
  return levels;
}

std::string ShapeLine(const BenchOptions& o) {
  std::string sizes;
  for (const auto& s : o.pod_sizes) sizes += (sizes.empty() ? "" : ", ") + s.cpu + "/" + s.memory;
  return std::to_string(o.nodes) + " nodes of " + o.node.cpu + " CPU, " + o.node.memory + ", " +
         std::to_string(o.node.max_pods) + " pods; " + std::to_string(o.pods) + " pods of " + sizes;
}

}  // namespace

std::string BenchTable(const std::vector<BenchRun>& runs) {
  std::string text;
  char line[512];
  if (!runs.empty()) text += "cluster: " + ShapeLine(runs.front().options) + "\n";
  text +=
      "throughput: bound pods / (first pop → last binding); cycle: pop → reserve; binding: reserve "
      "→ bound;\n"
      "queue-to-bound: first enqueue → bound; CPU: the process's, every thread, per bound pod\n";
  std::snprintf(line, sizeof line, "%-8s %10s %7s %9s %9s %9s %9s %9s %9s %9s %9s %8s %9s %8s\n",
                "store", "concurrent", "bound", "pods/s", "window s", "cycle", "cycle", "binding",
                "binding", "q-to-bnd", "q-to-bnd", "CPU/pod", "peak RSS", "unbound");
  text += line;
  std::snprintf(line, sizeof line, "%-8s %10s %7s %9s %9s %9s %9s %9s %9s %9s %9s %8s %9s %8s\n",
                "", "", "", "", "", "p50 ms", "p99 ms", "p50 ms", "p99 ms", "p50 ms", "p99 ms",
                "us", "MiB", "");
  text += line;
  for (const auto& r : runs) {
    std::snprintf(
        line, sizeof line,
        "%-8s %10d %7lld %9.0f %9.3f %9.3f %9.3f %9.3f %9.3f %9.1f %9.1f %8.1f %9.1f %8lld\n",
        std::string(StoreName(r.options.store)).c_str(), r.options.concurrent,
        static_cast<long long>(r.bound), r.throughput, r.window_seconds, r.cycle_ms.p50,
        r.cycle_ms.p99, r.binding_ms.p50, r.binding_ms.p99, r.queue_to_bound_ms.p50,
        r.queue_to_bound_ms.p99, r.cpu_per_pod_us,
        static_cast<double>(r.peak_rss_bytes) / (1 << 20), static_cast<long long>(r.unbound));
    text += line;
  }
  return text;
}

std::string BenchJson(const std::vector<BenchRun>& runs) {
  json::array out;
  for (const auto& r : runs) {
    json::array sizes;
    for (const auto& s : r.options.pod_sizes) sizes.push_back(json::string(s.cpu + "/" + s.memory));
    json::object o{{"nodes", r.options.nodes},
                   {"pods", r.options.pods},
                   {"node_cpu", r.options.node.cpu},
                   {"node_memory", r.options.node.memory},
                   {"node_max_pods", r.options.node.max_pods},
                   {"pod_sizes", std::move(sizes)},
                   {"store", std::string(StoreName(r.options.store))},
                   {"concurrent", r.options.concurrent},
                   {"bound", r.bound},
                   {"unbound", r.unbound},
                   {"window", "first pop to last binding"},
                   {"window_seconds", r.window_seconds},
                   {"throughput_pods_per_sec", r.throughput},
                   {"cycle_p50_ms", r.cycle_ms.p50},
                   {"cycle_p99_ms", r.cycle_ms.p99},
                   {"binding_p50_ms", r.binding_ms.p50},
                   {"binding_p99_ms", r.binding_ms.p99},
                   {"queue_to_bound_p50_ms", r.queue_to_bound_ms.p50},
                   {"queue_to_bound_p99_ms", r.queue_to_bound_ms.p99},
                   {"cpu_per_pod_us", r.cpu_per_pod_us},
                   {"peak_rss_bytes", r.peak_rss_bytes},
                   {"unschedulable_attempts", r.stats.unschedulable}};
    if (!r.error.empty()) o["error"] = r.error;
    out.push_back(std::move(o));
  }
  return json::serialize(out);
}

int Bench(const BenchFlags& f, std::FILE* out, std::FILE* err) {
  auto fail = [&](const std::string& message) {
    std::fprintf(err, "berth bench: %s\n", message.c_str());
    return 2;
  };
  if (f.nodes < 1 || f.pods < 1) return fail("--nodes and --pods must be at least 1");
  auto levels = ParseLevels(f.concurrent);
  if (!levels.ok()) return fail(levels.status().message());
  BenchOptions base;
  base.nodes = f.nodes;
  base.pods = f.pods;
  for (const auto& [flag, value] :
       {std::pair{"--node-cpu", f.node_cpu}, {"--node-memory", f.node_memory}}) {
    if (!api::Quantity::Parse(value).ok())
      return fail(std::string(flag) + " " + value + ": not a quantity");
  }
  if (f.node_max_pods < 1) return fail("--node-max-pods must be at least 1");
  base.node = NodeShape{f.node_cpu, f.node_memory, f.node_max_pods};
  base.pod_sizes.clear();
  for (const auto& size : f.pod_sizes) {
    auto shape = ParsePodShape(size);
    if (!shape.ok()) return fail("--pod-size " + shape.status().message());
    base.pod_sizes.push_back(shape.value());
  }
  if (base.pod_sizes.empty()) return fail("--pod-size: at least one is needed");
  std::vector<StoreKind> stores;
  for (const auto& s : f.stores) {
    if (s == "durable") {
      stores.push_back(StoreKind::kDurable);
    } else if (s == "memory") {
      stores.push_back(StoreKind::kMemory);
    } else if (s == "etcd") {
      if (f.etcd_servers.empty()) return fail("--store etcd needs --etcd-servers");
      stores.push_back(StoreKind::kEtcd);
    } else {
      return fail("--store " + s + ": expected durable, memory or etcd");
    }
  }
  if (stores.empty()) return fail("--store: expected durable, memory or both");
  if (!f.config.empty()) {
    auto loaded = cluster::LoadSchedulerConfig(f.config);
    if (!loaded.ok()) return fail(loaded.status().message());
    base.config = std::move(loaded).value();
  }
  if (f.weighted_random) {
    // The profiles' own setting, as a config file would say it.
    if (base.config.profiles.empty()) base.config.profiles.emplace_back();
    for (auto& profile : base.config.profiles) {
      std::erase_if(profile.plugin_config, [](const auto& entry) { return entry.first == scheduler::kNodeSelection; });
      profile.plugin_config.emplace_back(std::string(scheduler::kNodeSelection),
                                         boost::json::object{{"strategy", "WeightedRandom"}});
    }
  }
  base.seed = f.seed;
  base.filter_threads = f.filter_threads;
  base.binding_workers = f.binding_workers;
  base.cycle_yield_after = std::chrono::microseconds(f.cycle_yield_us);
  base.timeout = std::chrono::seconds(f.timeout_seconds);

  std::vector<BenchRun> runs;
  for (StoreKind store : stores) {
    for (int level : levels.value()) {
      BenchOptions o = base;
      o.store = store;
      o.etcd_servers = f.etcd_servers;
      o.concurrent = level;
      try {
        runs.push_back(RunBench(o));
      } catch (const std::exception& e) {
        std::fprintf(err, "berth bench: %s\n", e.what());
        return 1;
      }
    }
  }
  std::fputs(f.json ? (BenchJson(runs) + "\n").c_str() : BenchTable(runs).c_str(), out);
  int status = 0;
  for (const auto& r : runs) {
    if (r.error.empty()) continue;
    std::fprintf(err, "berth bench: %s store, concurrency %d: %s\n",
                 std::string(StoreName(r.options.store)).c_str(), r.options.concurrent,
                 r.error.c_str());
    status = 1;
  }
  return status;
}

}  // namespace berth::perf
