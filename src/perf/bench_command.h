#pragma once
// `berth bench` from its flags: validates them, runs RunBench once per
// (store, concurrency) pair, prints the runs as a table or a JSON array, and
// returns the exit status (0; 1 when a run failed a check or errored; 2 for a
// bad flag, with a message naming it on `err`).

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "perf/bench_runner.h"

namespace berth::perf {

// The flags as written; defaults are the command's.
struct BenchFlags {
  int nodes = 16;
  int pods = 2000;
  std::string concurrent = "8";                // "4,8,16" sweeps
  std::vector<std::string> stores{"durable"};  // each of durable, memory
  bool json = false;
  std::string etcd_servers;  // for --store etcd
  std::string node_cpu = "16";
  std::string node_memory = "64Gi";
  int node_max_pods = 150;
  std::vector<std::string> pod_sizes{"100m/128Mi"};
  std::string config;  // a KubeSchedulerConfiguration file; "" for kube's default profile
  uint64_t seed = 1;
  bool weighted_random = false;
  int filter_threads = 1;
  int binding_workers = 0;
  int cycle_yield_us = 500;
  int timeout_seconds = 300;
};

int Bench(const BenchFlags& flags, std::FILE* out, std::FILE* err);

// The table `berth bench` prints: the cluster's shape, then one row per run.
std::string BenchTable(const std::vector<BenchRun>& runs);
// One JSON object per run (the shape, the store, the figures, "error" when set).
std::string BenchJson(const std::vector<BenchRun>& runs);

}  // namespace berth::perf
