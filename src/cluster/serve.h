#pragma once
// `berth serve`: a whole cluster in one process (InProcessCluster) — the API
// server with its durable embedded store (or etcd), the scheduler, the
// controllers and, on request, simulated nodes — from kube-apiserver's,
// kube-scheduler's and kube-controller-manager's flags as written, running
// until SIGINT or SIGTERM.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "api/status.h"
#include "cluster/in_process_cluster.h"
#include "cluster/sim_fleet.h"
#include "scheduler/framework/registry.h"

namespace berth::cluster {

// The flags as written; defaults are the command's.
struct ServeFlags {
  std::string listen = "127.0.0.1:8080";
  std::string data_dir = "berth-data";
  bool in_memory = false;
  std::string encryption_provider_config;
  std::string token_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string client_ca_file;
  std::string authorization_mode = "AlwaysAllow";
  bool anonymous_auth = true;
  int max_inflight = 400;
  int max_mutating_inflight = 200;
  std::string audit_log_path, audit_policy_file;
  int audit_log_maxsize = 0, audit_log_maxbackup = 0, audit_log_maxage = 0;
  int64_t max_body_bytes = 3 * 1024 * 1024;
  int64_t watch_history = 100'000;
  std::string service_cluster_ip_range = "10.96.0.0/12";
  std::string service_node_port_range = "30000-32767";
  int64_t not_ready_toleration = 300;
  int64_t unreachable_toleration = 300;
  std::vector<std::string> enable_admission, disable_admission;
  // Service account tokens (kube-apiserver's flags).
  std::vector<std::string> service_account_issuers, service_account_key_files, api_audiences;
  std::string service_account_signing_key_file, service_account_jwks_uri;
  std::string service_account_max_token_expiration = "0s";
  bool service_account_extend_token_expiration = true;
  uint64_t seed = 0;
  bool no_scheduler = false;
  std::string scheduler_config;
  int concurrent = 2;
  bool no_controllers = false;
  std::vector<std::string> controller_names{"*"};
  std::string event_ttl = "1h";
  std::string cache_resync_period = "30s";
  std::string node_monitor_grace_period = "40s";
  std::string node_monitor_period = "5s";
  int64_t terminated_pod_gc_threshold = 12500;
  int64_t max_endpoints_per_slice = 100;
  std::string endpoint_updates_batch_period = "0s";
  bool profiling = true;
  SimFleetFlags sim;
  // The etcd backend (kube-apiserver's flags).
  std::vector<std::string> etcd_servers;
  std::string etcd_prefix = "/registry";
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  std::string etcd_compaction_interval = "5m";
};

// The flags as the cluster's options, its scheduler built from `registry`'s
// plugins: files named by the flags are read (the token file, TLS, the
// scheduler's configuration, …) and the audit log opened. BadRequest naming
// a wrong flag, or the error of the file. `api.berth_version` is left to
// the caller.
Result<ClusterOptions> ClusterOptionsFromFlags(const ServeFlags& flags, const scheduler::Registry& registry);

// Builds the cluster from the flags, starts it, logs where it listens, and
// serves until SIGINT or SIGTERM (blocked in every thread from the cluster's
// creation on); then stops it. `berth_version` is what /version answers.
// Returns the exit status: 0 once stopped by a signal, 1 when it could not
// start, with a line on `err` ("berth serve: --event-ttl 1x: expected a
// duration such as 1h").
int Serve(const ServeFlags& flags, const scheduler::Registry& registry, const std::string& berth_version,
          std::FILE* err);

}  // namespace berth::cluster
