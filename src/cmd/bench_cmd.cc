// berth bench: flags → perf::BenchFlags → perf::Bench (src/perf/bench_command.h).

#include <cstdio>

#include "cmd/commands.h"
#include "perf/bench_command.h"

namespace berth::cmd {

void AddBenchCommand(CLI::App& app) {
  static perf::BenchFlags f;
  auto* bench = app.add_subcommand("bench",
                                   "Schedule a synthetic cluster in process (the real queue, "
                                   "plugins and binding path) and measure it");
  bench->add_option("--nodes", f.nodes, "Nodes in the cluster")->capture_default_str();
  bench->add_option("--pods", f.pods, "Pods to schedule")->capture_default_str();
  bench
      ->add_option("--concurrent", f.concurrent,
                   "Scheduling cycles at once; a list (4,8,16) sweeps")
      ->capture_default_str();
  bench
      ->add_option(
          "--store", f.stores,
          "The store under the API server: durable (a write-ahead log in a fresh temporary "
          "directory, "
          "removed afterwards; every binding writes the bound pod as a real store does), memory, or etcd "
          "(with --etcd-servers); "
          "durable,memory runs both")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_flag("--json", f.json, "Print a JSON array, one object per run");
  bench->add_option("--etcd-servers", f.etcd_servers, "The etcd of --store etcd (one you run)");
  bench->add_option("--node-cpu", f.node_cpu, "Each node's CPU (allocatable and capacity)")
      ->capture_default_str();
  bench->add_option("--node-memory", f.node_memory, "Each node's memory (allocatable and capacity)")
      ->capture_default_str();
  bench->add_option("--node-max-pods", f.node_max_pods, "Each node's pod capacity")
      ->capture_default_str();
  bench
      ->add_option("--pod-size", f.pod_sizes,
                   "Pod requests CPU/MEMORY; repeat for a mix, used in turn")
      ->capture_default_str();
  bench->add_option("--config", f.config,
                    "A KubeSchedulerConfiguration file (default: kube's default profile)");
  bench->add_option("--seed", f.seed, "Seed for every random choice")->capture_default_str();
  bench->add_flag("--weighted-random", f.weighted_random,
                  "Every profile selects nodes with probability proportional to score (NodeSelection: WeightedRandom)");
  bench
      ->add_option("--filter-threads", f.filter_threads,
                   "Helper threads for Filter/Score of large clusters")
      ->capture_default_str();
  bench
      ->add_option("--binding-workers", f.binding_workers,
                   "Binding cycles at once (0: 16 on the durable store, whose bindings wait for "
                   "fsync; 4 in memory)")
      ->capture_default_str();
  bench
      ->add_option(
          "--cycle-yield-us", f.cycle_yield_us,
          "With more cycles than CPUs, a cycle thread yields between cycles after this many "
          "microseconds (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  bench
      ->add_option("--timeout", f.timeout_seconds,
                   "Give up after this many seconds (a run also ends as soon as only unschedulable "
                   "pods are left)")
      ->capture_default_str();
  bench->callback([] { SetExitCode(perf::Bench(f, stdout, stderr)); });
}

}  // namespace berth::cmd
