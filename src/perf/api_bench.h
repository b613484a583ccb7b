#pragma once
// `berth api-bench`: the API server measured over HTTP, as clients see it,
// with the server in its own process — the point is to measure `berth serve`
// as deployed, not a library. Spawns `binary serve` (durable store in a
// scratch directory) on a free loopback port, then measures pod creates/s
// over keep-alive connections (and the server's and this client's CPU per
// create), GET and LIST latency, watch fan-out, and the server's memory per
// pod; with `nodes`, also creation until every pod is bound (by serve's
// scheduler, or a separate `berth scheduler` over HTTP).
//
// Prints one row per figure to `out`; returns 0, or 1 when a request failed
// or a watcher missed events (errors on `err`).

#include <cstdint>
#include <cstdio>
#include <string>

namespace berth::perf {

struct ApiBenchOptions {
  int connections = 16;
  int64_t creates = 100'000;
  int64_t gets = 20'000;
  int watchers = 100;
  int64_t watch_events = 2'000;
  std::string dir = "/tmp/berth-api-bench";  // scratch, removed afterwards
  std::string binary = "/proc/self/exe";     // the berth to spawn
  bool in_memory = false;
  // Non-empty: serve keeps its objects in this etcd (--etcd-servers), which
  // the caller runs; its keys go under a prefix of the run's own.
  std::string etcd_servers;
  // Serve without its scheduler and controllers: the API server and store alone.
  bool api_only = false;
  int64_t nodes = 0;  // > 0: register this many nodes and time creation until every pod is bound
  // Bind with `berth scheduler --server` (bindings over HTTP) instead of serve's own scheduler.
  bool external_scheduler = false;
  // The external scheduler's --kube-api-qps and --kube-api-burst (kube-scheduler's defaults).
  double scheduler_qps = 50;
  int scheduler_burst = 100;
  // Set: serve over TLS with DIR/server.crt and .key, client certificates
  // from DIR/ca.crt; the benchmark and the external scheduler (through a
  // kubeconfig) present DIR/client.crt and .key. scripts/make-test-certs.sh
  // makes the files. Watchers are read over TLS as well.
  std::string tls_dir;
  // > 0: also create this many custom objects of a CustomResourceDefinition
  // with a structural schema (validated, defaulted and pruned on each create).
  int64_t custom_objects = 0;
  // Set: serve writes its audit log (--audit-log-path) here, to measure its cost.
  std::string audit_log_path;
  // Set: serve runs with this --authorization-mode and a token file; the
  // benchmark's requests carry the token of a user bound to cluster-admin.
  std::string authorization_mode;
  // > 0: also create this many Secrets (1 KiB of data each), timed apart.
  int64_t secrets = 0;
  // Set: serve encrypts at rest as this EncryptionConfiguration says (--encryption-provider-config).
  std::string encryption_provider_config;
};

int ApiBench(const ApiBenchOptions& options, std::FILE* out, std::FILE* err);

}  // namespace berth::perf
