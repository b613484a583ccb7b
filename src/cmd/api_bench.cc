// berth api-bench: flags → perf::ApiBenchOptions → perf::ApiBench (src/perf/api_bench.h).

#include "perf/api_bench.h"

#include <cstdio>

#include "cmd/commands.h"

namespace berth::cmd {

void AddApiBenchCommand(CLI::App& app) {
  static perf::ApiBenchOptions o;
  auto* bench =
      app.add_subcommand("api-bench", "Measure berth serve over HTTP (spawns its own server)");
  bench->add_option("--connections", o.connections, "Keep-alive connections for creates and GETs")
      ->capture_default_str();
  bench->add_option("--creates", o.creates, "Pods to create")->capture_default_str();
  bench->add_option("--custom-objects", o.custom_objects,
                    "Also create this many objects of a schema-validated custom resource (0: none)")
      ->capture_default_str();
  bench->add_option("--gets", o.gets, "GETs to time")->capture_default_str();
  bench->add_option("--secrets", o.secrets, "Also create this many Secrets (1 KiB each), timed apart")
      ->capture_default_str();
  bench->add_option("--encryption-provider-config", o.encryption_provider_config,
                    "Serve with this EncryptionConfiguration (encryption at rest)");
  bench->add_option("--watchers", o.watchers, "Concurrent watchers")->capture_default_str();
  bench->add_option("--watch-events", o.watch_events, "Events each watcher must see")
      ->capture_default_str();
  bench->add_option("--dir", o.dir, "Scratch directory (removed afterwards)")
      ->capture_default_str();
  bench->add_option("--audit-log-path", o.audit_log_path,
                    "The server writes its audit log to this file (to measure the audit log's cost)");
  bench->add_flag("--in-memory", o.in_memory,
                  "Run the server without a durable store (for comparison)");
  bench->add_option("--etcd-servers", o.etcd_servers,
                    "Serve from this etcd (one you run) instead of the embedded store");
  bench->add_flag(
      "--api-only", o.api_only,
      "Run the server without its scheduler and controllers (the API server and store alone)");
  bench
      ->add_option(
          "--nodes", o.nodes,
          "Register this many nodes first and also time the creates until every pod is bound")
      ->capture_default_str();
  bench->add_flag("--external-scheduler", o.external_scheduler,
                  "Bind with a separate `berth scheduler --server` process (bindings over HTTP) "
                  "instead of serve's own scheduler; needs --nodes");
  bench->add_option("--scheduler-kube-api-qps", o.scheduler_qps,
                    "The external scheduler's --kube-api-qps")
      ->capture_default_str();
  bench->add_option("--scheduler-kube-api-burst", o.scheduler_burst,
                    "The external scheduler's --kube-api-burst")
      ->capture_default_str();
  bench->add_option("--tls-dir", o.tls_dir,
                    "Serve over TLS with client certificates from DIR (ca.crt, server.crt/.key, "
                    "client.crt/.key: scripts/make-test-certs.sh DIR); the external scheduler uses a "
                    "kubeconfig");
  bench->add_option("--authorization-mode", o.authorization_mode,
                    "Serve with this --authorization-mode (AlwaysAllow, RBAC); requests carry a bearer token "
                    "of a user bound to cluster-admin");
  bench->callback([] {
    if (o.external_scheduler && (o.nodes == 0 || o.api_only)) {
      throw CLI::ValidationError("--external-scheduler",
                                 "needs --nodes, and cannot be combined with --api-only");
    }
    if (o.api_only && o.nodes > 0) {
      throw CLI::ValidationError("--api-only",
                                 "cannot be combined with --nodes (nothing would bind the pods)");
    }
    SetExitCode(perf::ApiBench(o, stdout, stderr));
  });
}

}  // namespace berth::cmd
