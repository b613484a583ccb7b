#pragma once
// `berth bench`'s measurement: a synthetic cluster (N identical nodes, M
// pending pods) built through cluster::InProcessCluster and scheduled by the
// real scheduler — queue, framework, default plugins and the in-process
// binding path, over the durable store by default (a fresh temporary
// directory, removed afterwards) so that each binding pays what a real store
// charges: the bound pod encoded and written to the log.
//
// What a run reports, and what each figure times:
//   cycle            pop → reserve, per bound pod (the scheduling cycle)
//   binding          reserve → bound (the asynchronous binding: waiting for a
//                    binding worker, the API's binding, the store's write)
//   queue-to-bound   first enqueue → bound, per pod
//   throughput       bound pods / the window from the first pop to the last
//                    binding (informer start and seeding are outside it)
//   CPU per pod      the process's CPU time (every thread) from Start to the
//                    end of the run, per bound pod
// and then checks the result as a user would: the store holds as many bound
// pods as the scheduler counted, and no node holds more pods, CPU or memory
// than it has.
//
// The run ends when every pod is bound; as soon as the queue holds only
// unschedulable pods (nothing active, backing off, in a cycle or binding);
// or at the timeout. Pods left unbound make the run an error that says how
// many.
//
// Thread-safety: RunBench may be called from any thread, one run at a time
// per process (it resets the process's peak RSS).

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perf/summary.h"
#include "perf/synthetic.h"
#include "scheduler/framework/config.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace berth::perf {

enum class StoreKind { kDurable, kMemory, kEtcd };
std::string_view StoreName(StoreKind kind);  // "durable", "memory", "etcd"

struct BenchOptions {
  int nodes = 16;
  int pods = 2000;
  // Nodes the default 2,000 pods nearly fill: 16 × 16 CPUs and 16 × 150 pod
  // slots hold 2,000 pods of 100m at ~80% of CPU and of slots.
  NodeShape node{"16", "64Gi", 150};
  // Pod i requests pod_sizes[i % size]. REQUIRES: not empty.
  std::vector<PodShape> pod_sizes{PodShape{"100m", "128Mi"}};
  StoreKind store = StoreKind::kDurable;
  // kEtcd: the etcd to use (one the caller runs); the run's keys go under a
  // prefix of its own.
  std::string etcd_servers;
  int concurrent = 8;
  scheduler::SchedulerConfig config;
  uint64_t seed = 1;
  int filter_threads = 1;
  // 0: 16 on the durable store (a binding waits for its fsync, so the
  // workers mostly sleep), 4 in memory.
  int binding_workers = 0;
  std::chrono::microseconds cycle_yield_after{500};
  std::chrono::seconds timeout{300};
};

struct BenchRun {
  BenchOptions options;  // what ran
  int64_t bound = 0;
  int64_t unbound = 0;
  // The run ended because only unschedulable pods were left.
  bool stopped_on_unschedulable = false;
  double window_seconds = 0;  // first pop → last binding
  double throughput = 0;      // bound / window_seconds
  Summary cycle_ms, binding_ms, queue_to_bound_ms;
  double cpu_per_pod_us = 0;
  int64_t peak_rss_bytes = 0;
  scheduler::Scheduler::Stats stats;
  // Set when the run failed or a check did not hold (pods left unbound,
  // over-commit, counts that disagree); the figures are still filled in.
  std::string error;
};

BenchRun RunBench(const BenchOptions& options);

// The check RunBench makes after a run: counts the bound pods in `store`
// (into *bound), and returns Internal naming the node and the resource when
// any node holds more pods, CPU or memory than `shape` gives it.
Status CheckBoundPods(store::Store& store, const NodeShape& shape, int64_t* bound);

}  // namespace berth::perf
