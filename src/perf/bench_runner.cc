#include "perf/bench_runner.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unistd.h>

#include "api/kinds.h"
#include "api/pod_view.h"
#include "api/quantity.h"
#include "cluster/in_process_cluster.h"
#include "perf/process_stats.h"
#include "perf/temporary_directory.h"
#include "store/store.h"

namespace berth::perf {
namespace {

using Clock = std::chrono::steady_clock;

double Millis(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Only pods the scheduler found unschedulable are left: nothing active,
// backing off, in a cycle or binding.
bool OnlyUnschedulableLeft(scheduler::Scheduler& sched) {
  const auto counts = sched.queue().counts();
  if (counts.unschedulable == 0 || counts.active != 0 || counts.backoff != 0 ||
      counts.in_flight != 0)
    return false;
  return sched.WaitForIdle(Clock::now() + std::chrono::milliseconds(2));
}

}  // namespace

Status CheckBoundPods(store::Store& store, const NodeShape& shape, int64_t* bound) {
  store::ListOptions list;
  list.prefix = api::StoragePrefix(api::Kind::kPod, "");
  auto pods = store.List(list);
  if (!pods.ok()) return Status::Internal("listing pods: " + pods.status().message());
  struct Used {
    int64_t pods = 0, milli_cpu = 0, memory = 0;
  };
  std::map<std::string, Used> used;
  *bound = 0;
  for (const auto& p : pods.value().items) {
    const auto* view = p->As<api::PodView>();
    if (view->node_name.empty()) continue;
    ++*bound;
    Used& u = used[view->node_name];
    u.pods++;
    u.milli_cpu += view->requests.milli_cpu;
    u.memory += view->requests.memory;
  }
  const int64_t cpu = api::Quantity::Parse(shape.cpu).value().MilliValue();
  const int64_t memory = api::Quantity::Parse(shape.memory).value().Value();
  for (const auto& [node, u] : used) {
    if (u.pods > shape.max_pods) {
      return Status::Internal("node " + node + " is over-committed: " + std::to_string(u.pods) +
                              " pods, it has room for " + std::to_string(shape.max_pods));
    }
    if (u.milli_cpu > cpu) {
      return Status::Internal("node " + node +
                              " is over-committed: " + std::to_string(u.milli_cpu) +
                              "m CPU requested of " + std::to_string(cpu) + "m");
    }
    if (u.memory > memory) {
      return Status::Internal("node " + node + " is over-committed: " + std::to_string(u.memory) +
                              " bytes of memory requested of " + std::to_string(memory));
    }
  }
  return Status::Ok();
}

std::string_view StoreName(StoreKind kind) {
  switch (kind) {
    case StoreKind::kDurable:
      return "durable";
    case StoreKind::kMemory:
      return "memory";
    case StoreKind::kEtcd:
      return "etcd";
  }
  return "durable";
}

namespace {

// The in-process cluster a run measures: its store (a temporary directory
// for the durable one, kept in `dir`), the scheduler alone, its options.
Result<cluster::ClusterOptions> BenchClusterOptions(const BenchOptions& o, std::optional<TemporaryDirectory>& dir) {
  cluster::ClusterOptions cluster_options;
  if (o.store == StoreKind::kDurable) {
    auto made = TemporaryDirectory::Create("berth-bench-");
    if (!made.ok()) return made.status();
    dir.emplace(std::move(made).value());
    cluster_options.data_dir = dir->path();
  }
  if (o.store == StoreKind::kEtcd) {
    store::EtcdStore::Options etcd;
    etcd.client.endpoints = {o.etcd_servers};
    etcd.prefix = "/berth-bench-" + std::to_string(::getpid()) + "-" +
                  std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
    cluster_options.etcd = std::move(etcd);
  }
  cluster_options.watch_history = std::max<int64_t>(100'000, 4LL * o.pods);
  cluster_options.api.seed = o.seed;
  cluster_options.controllers.controllers.clear();  // the scheduler alone
  // No serviceaccount controller makes the accounts ServiceAccount admission
  // requires (scheduler_perf runs kube-apiserver without it too).
  cluster_options.api.admission.disable.push_back("ServiceAccount");
  cluster_options.scheduler_config = o.config;
  scheduler::SchedulerOptions& options = cluster_options.scheduler_options;
  options.concurrent = o.concurrent;
  options.seed = o.seed;
  options.filter_threads = o.filter_threads;
  options.binding_workers =
      o.binding_workers > 0 ? o.binding_workers : (o.store != StoreKind::kMemory ? 16 : 4);
  options.cycle_yield_after = o.cycle_yield_after;
  options.record_bound_pods = true;
  return cluster_options;
}

// The synthetic nodes and pending pods, written straight to the store.
Status CreateObjects(store::Store& store, const BenchOptions& o) {
  for (int i = 0; i < o.nodes; ++i) {
    auto made = store.Create(SyntheticNode(SyntheticNodeName(i), i, o.node));
    if (!made.ok()) {
      return Status(made.status().code(), "creating node " + std::to_string(i) + ": " + made.status().message());
    }
  }
  for (int i = 0; i < o.pods; ++i) {
    const PodShape& size = o.pod_sizes[static_cast<size_t>(i) % o.pod_sizes.size()];
    auto made = store.Create(SyntheticPod("default", "pod-" + std::to_string(i), size));
    if (!made.ok()) {
      return Status(made.status().code(), "creating pod " + std::to_string(i) + ": " + made.status().message());
    }
  }
  return Status::Ok();
}

// Sleeps until the last binding, waking every 20 ms to notice when only
// unschedulable pods are left, rather than polling: a poller waking every
// few hundred microseconds preempts scheduling cycles and shows in their
// latency. Returns whether every pod was bound.
bool WaitForBindings(scheduler::Scheduler& sched, const BenchOptions& o, Clock::time_point deadline, BenchRun& r) {
  while (Clock::now() < deadline) {
    if (sched.WaitForScheduled(static_cast<uint64_t>(o.pods),
                               std::min(deadline, Clock::now() + std::chrono::milliseconds(20)))) {
      return true;
    }
    if (OnlyUnschedulableLeft(sched)) {
      r.stopped_on_unschedulable = true;
      return false;
    }
  }
  return false;
}

// The latencies, the throughput over the window from the first pop to the
// last binding, and the CPU per pod bound.
void SummarizeBindings(std::vector<scheduler::Scheduler::BoundPod> bound, double cpu_seconds, const BenchOptions& o,
                       BenchRun& r) {
  std::vector<double> cycle, binding, queue_to_bound;
  Clock::time_point first_pop = Clock::time_point::max(), last_bound = Clock::time_point::min();
  for (const auto& b : bound) {
    cycle.push_back(Millis(b.reserved - b.popped));
    binding.push_back(Millis(b.bound - b.reserved));
    queue_to_bound.push_back(Millis(b.bound - b.queued));
    first_pop = std::min(first_pop, b.popped);
    last_bound = std::max(last_bound, b.bound);
  }
  r.cycle_ms = Summarize(std::move(cycle));
  r.binding_ms = Summarize(std::move(binding));
  r.queue_to_bound_ms = Summarize(std::move(queue_to_bound));
  r.bound = static_cast<int64_t>(bound.size());
  r.unbound = o.pods - r.bound;
  if (!bound.empty()) {
    r.window_seconds = std::chrono::duration<double>(last_bound - first_pop).count();
    if (r.window_seconds > 0) r.throughput = static_cast<double>(r.bound) / r.window_seconds;
    r.cpu_per_pod_us = 1e6 * cpu_seconds / static_cast<double>(r.bound);
  }
}

// What the store shows, checked against the scheduler's count: an error
// when a binding is missing or pods were left unbound.
std::string CheckOutcome(const Status& checked, int64_t stored_bound, bool all_bound, const BenchOptions& o,
                         BenchRun& r) {
  if (!checked.ok()) return checked.message();
  if (stored_bound != static_cast<int64_t>(r.stats.scheduled)) {
    return "the scheduler counted " + std::to_string(r.stats.scheduled) + " bindings, the store has " +
           std::to_string(stored_bound);
  }
  if (all_bound) return "";
  r.unbound = o.pods - stored_bound;
  return std::to_string(r.unbound) + " of " + std::to_string(o.pods) + " pods were left unbound" +
         (r.stopped_on_unschedulable
              ? " (the queue held only unschedulable pods; " + std::to_string(r.stats.unschedulable) +
                    " unschedulable attempts)"
              : " after the " + std::to_string(o.timeout.count()) + " s timeout");
}

}  // namespace

BenchRun RunBench(const BenchOptions& o) {
  BenchRun r;
  r.options = o;
  std::optional<TemporaryDirectory> dir;
  auto cluster_options = BenchClusterOptions(o, dir);
  if (!cluster_options.ok()) {
    r.error = cluster_options.status().message();
    return r;
  }
  ResetPeakRss();
  auto created = cluster::InProcessCluster::Create(std::move(cluster_options).value());
  if (!created.ok()) {
    r.error = created.status().message();
    return r;
  }
  cluster::InProcessCluster& cluster = *created.value();
  store::Store& store = cluster.store();
  if (Status made = CreateObjects(store, o); !made.ok()) {
    r.error = made.message();
    return r;
  }

  const Clock::time_point start = Clock::now();
  const double cpu_start = ProcessCpuSeconds();
  if (Status s = cluster.Start(); !s.ok()) {
    r.error = s.message();
    return r;
  }
  scheduler::Scheduler& sched = *cluster.scheduler();
  const bool all_bound = WaitForBindings(sched, o, start + o.timeout, r);
  const double cpu_seconds = ProcessCpuSeconds() - cpu_start;
  r.peak_rss_bytes = PeakRssBytes();
  SummarizeBindings(sched.TakeBoundPods(), cpu_seconds, o, r);

  // Check the result as a user would, before the store closes.
  int64_t stored_bound = 0;
  const Status checked = CheckBoundPods(store, o.node, &stored_bound);
  r.stats = sched.stats();
  cluster.Stop();
  r.error = CheckOutcome(checked, stored_bound, all_bound, o, r);
  return r;
}

}  // namespace berth::perf
