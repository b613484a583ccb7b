#include "perf/embedded_store_bench.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "perf/synthetic.h"
#include "store/memory/memory_store.h"

namespace berth::perf {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<api::ObjectPtr> MakePods(int64_t n, const std::string& prefix) {
  std::vector<api::ObjectPtr> pods;
  pods.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    pods.push_back(SyntheticPod("bench", prefix + std::to_string(i), PodShape{"100m", "128Mi"}));
  }
  return pods;
}

std::unique_ptr<store::MemoryStore> OpenOrDie(store::MemoryStore::Options options) {
  auto store = store::MemoryStore::Open(std::move(options));
  if (!store.ok()) {
    std::fprintf(stderr, "berth: %s\n", store.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(store).value();
}

// Creates `pods` from `threads` threads; returns creates/s.
double CreateAll(store::Store& store, const std::vector<api::ObjectPtr>& pods, int threads) {
  std::atomic<size_t> next{0};
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < pods.size();) {
        if (!store.Create(pods[i]).ok()) std::abort();
      }
    });
  }
  for (auto& w : workers) w.join();
  return static_cast<double>(pods.size()) / Seconds(Clock::now() - start);
}

void Row(const std::string& metric, double value, const std::string& unit) {
  std::printf("%-52s %14.0f %s\n", metric.c_str(), value, unit.c_str());
  std::fflush(stdout);
}

void RowF(const std::string& metric, double value, const std::string& unit) {
  std::printf("%-52s %14.3f %s\n", metric.c_str(), value, unit.c_str());
  std::fflush(stdout);
}

// Runs `berth store check --no-parse` on `dir`; the recovery time it reports.
double RecoveryInNewProcess(const std::string& dir) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command = "'" + self + "' store check --no-parse --data-dir '" + dir + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buf[4096];
  while (pipe != nullptr && std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  const int status = pipe != nullptr ? ::pclose(pipe) : -1;
  const size_t at = out.find("recovery: ");
  if (status != 0 || at == std::string::npos) {
    std::fprintf(stderr, "berth: store check failed:\n%s", out.c_str());
    std::exit(1);
  }
  return std::strtod(out.c_str() + at + 10, nullptr);
}

void DurableSection(const EmbeddedStoreBenchOptions& o) {
  namespace fs = std::filesystem;
  for (int writers : o.writers) {
    fs::remove_all(o.dir);
    store::MemoryStore::Options options;
    options.data_dir = o.dir;
    auto store = OpenOrDie(options);
    auto pods = MakePods(o.durable_creates, "d");
    Row("durable creates, " + std::to_string(writers) + " writers", CreateAll(*store, pods, writers),
        "creates/s");
  }
}

void MemorySection(const EmbeddedStoreBenchOptions& o) {
  auto pods = MakePods(o.memory_ops / 2, "m");
  auto store = OpenOrDie({});
  Row("in-memory creates, 1 thread", CreateAll(*store, pods, 1), "creates/s");
  auto store2 = OpenOrDie({});
  Row("in-memory creates, 2 threads", CreateAll(*store2, pods, 2), "creates/s");
  std::vector<std::string> keys;
  for (const auto& p : pods) keys.push_back(p->StorageKey());
  std::atomic<size_t> next{0};
  auto start = Clock::now();
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < keys.size();) {
        if (!store2->Get(keys[i]).ok()) std::abort();
      }
    });
  }
  for (auto& r : readers) r.join();
  Row("in-memory gets, 2 threads", static_cast<double>(keys.size()) / Seconds(Clock::now() - start),
      "gets/s");
}

void WatchSection(const EmbeddedStoreBenchOptions& o) {
  auto store = OpenOrDie({.history = std::max<int64_t>(o.watch_events * 2, 1000)});
  std::vector<std::unique_ptr<store::Watch>> watches;
  for (int i = 0; i < o.watchers; ++i) {
    watches.push_back(std::move(store->WatchFrom({.prefix = "/core/pods/"})).value());
  }
  auto pods = MakePods(o.watch_events, "w");
  std::atomic<int64_t> delivered{0};
  auto start = Clock::now();
  std::vector<std::thread> consumers;
  // Two consumer threads serve all watchers, as an event loop would.
  for (int c = 0; c < 2; ++c) {
    consumers.emplace_back([&, c] {
      std::vector<int64_t> seen(watches.size(), 0);
      int64_t mine = 0, target = 0;
      for (size_t i = c; i < watches.size(); i += 2) target += o.watch_events;
      while (mine < target) {
        for (size_t i = c; i < watches.size(); i += 2) {
          auto events = watches[i]->Poll(4096);
          seen[i] += static_cast<int64_t>(events.size());
          mine += static_cast<int64_t>(events.size());
        }
      }
      delivered += mine;
    });
  }
  double write_rate = CreateAll(*store, pods, 2);
  for (auto& c : consumers) c.join();
  double elapsed = Seconds(Clock::now() - start);
  Row("creates/s with " + std::to_string(o.watchers) + " watchers", write_rate, "creates/s");
  Row("watch fan-out: events delivered (" + std::to_string(o.watchers) + " watchers)",
      static_cast<double>(delivered.load()) / elapsed, "events/s");
}

void ListSection(const EmbeddedStoreBenchOptions& o) {
  auto store = OpenOrDie({});
  auto pods = MakePods(o.list_pods, "l");
  CreateAll(*store, pods, 2);
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    auto start = Clock::now();
    auto list = store->List({.prefix = "/core/pods/"});
    times.push_back(Seconds(Clock::now() - start) * 1000);
    if (!list.ok() || static_cast<int64_t>(list->items.size()) != o.list_pods) std::abort();
  }
  std::sort(times.begin(), times.end());
  RowF("list of " + std::to_string(o.list_pods) + " pods (median of 5)", times[2], "ms");
  store::ListOptions selective{.prefix = "/core/pods/"};
  selective.predicate = [](const api::Object& obj) { return obj.labels().Get("app") == "none"; };
  auto start = Clock::now();
  (void)store->List(selective);
  RowF("list of " + std::to_string(o.list_pods) + " pods, selector matching none",
       Seconds(Clock::now() - start) * 1000, "ms");
}

void RecoverySection(const EmbeddedStoreBenchOptions& o) {
  std::filesystem::remove_all(o.dir);
  store::MemoryStore::Options options;
  options.data_dir = o.dir;
  options.sync = false;  // setup only: recovery is what is measured
  options.snapshot_every = 0;
  {
    auto store = OpenOrDie(options);
    auto pods = MakePods(o.recovery_records, "r");
    CreateAll(*store, pods, 2);
  }
  // The log was written without fsync (setup speed); a durable store's files
  // are synced when it restarts, so recovery is timed with nothing left to write back.
  ::sync();
  // A restart is a new process: `berth store check --no-parse` times the
  // recovery alone there. The same again in this process, whose heap the
  // million objects above have been through.
  RowF("recovery of " + std::to_string(o.recovery_records) + " log records (new process)",
       RecoveryInNewProcess(o.dir), "s");
  auto start = Clock::now();
  auto store = OpenOrDie(options);
  RowF("recovery of " + std::to_string(o.recovery_records) + " log records (this process)",
       Seconds(Clock::now() - start), "s");
  if (!store->Snapshot().ok()) std::abort();
  store->Close();
  store.reset();
  ::sync();
  RowF("recovery from a snapshot of " + std::to_string(o.recovery_records) + " objects (new process)",
       RecoveryInNewProcess(o.dir), "s");
  start = Clock::now();
  auto from_snapshot = OpenOrDie(options);
  RowF("recovery from a snapshot of " + std::to_string(o.recovery_records) + " objects (this process)",
       Seconds(Clock::now() - start), "s");
}

}  // namespace

int EmbeddedStoreBench(const EmbeddedStoreBenchOptions& o) {
  std::printf("%-52s %14s %s\n", "metric", "value", "unit");
  if (o.Runs("durable")) DurableSection(o);
  if (o.Runs("memory")) MemorySection(o);
  if (o.Runs("watch")) WatchSection(o);
  if (o.Runs("list")) ListSection(o);
  if (o.Runs("recovery")) RecoverySection(o);
  if (!o.keep_data) std::filesystem::remove_all(o.dir);

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  Row("peak RSS", static_cast<double>(usage.ru_maxrss) / 1024, "MiB");
  return 0;
}

}  // namespace berth::perf
