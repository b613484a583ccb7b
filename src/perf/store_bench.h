#pragma once
// The store under the API server measured alone: pod creates through
// Store::CreateAsync on an etcd store in this process, `in_flight` at a
// time, no HTTP. What it gives is the ceiling etcd and berth's etcd client
// put under `berth api-bench`'s creates over HTTP on the same etcd (the
// pods are the benchmark's as sent: no defaults or managedFields).

#include <cstdint>
#include <string>

#include "api/status.h"

namespace berth::perf {

struct StoreBenchResult {
  double creates_per_second = 0;
  double cpu_us_per_create = 0;  // this process's CPU (the client and its cache)
  double latency_p50_ms = 0;
  double latency_p99_ms = 0;
  int64_t failures = 0;
};

// `servers`: --etcd-servers' value (comma-separated); objects go under `prefix`.
Result<StoreBenchResult> EtcdStoreCreates(const std::string& servers, const std::string& prefix, int in_flight,
                                          int64_t creates);

}  // namespace berth::perf
