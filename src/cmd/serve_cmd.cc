// berth serve: flags → cluster::ServeFlags → cluster::Serve
// (src/cluster/serve.h).

#include <cstdio>

#include "apiserver/admission/admission.h"
#include "cluster/controller_manager.h"
#include "cluster/serve.h"
#include "cmd/commands.h"

namespace berth::cmd {
namespace {

// Where and how the API server listens, and who may do what.
void AddServingFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve->add_option("--listen", f.listen, "Address to listen on (HOST:PORT)")->capture_default_str();
  serve->add_option("--data-dir", f.data_dir, "The store's data directory")->capture_default_str();
  serve->add_flag("--in-memory", f.in_memory, "Keep the store in memory only (nothing persisted)");
  serve->add_option("--encryption-provider-config", f.encryption_provider_config,
                    "EncryptionConfiguration (apiserver.config.k8s.io/v1) for encrypting resources at rest");
  serve->add_option("--token-file", f.token_file, "Static bearer tokens (kube's CSV format: token,user,uid[,\"groups\"])");
  serve->add_option("--tls-cert-file", f.tls_cert_file, "TLS certificate chain (PEM)");
  serve->add_option("--tls-private-key-file", f.tls_key_file, "TLS private key (PEM)");
  serve->add_option("--client-ca-file", f.client_ca_file,
                    "CAs (PEM) whose client certificates authenticate: CN is the user, O values the groups");
  serve->add_option("--authorization-mode", f.authorization_mode,
                    "Authorizers in order, comma-separated: AlwaysAllow, AlwaysDeny, RBAC")
      ->capture_default_str();
  serve->add_option("--anonymous-auth", f.anonymous_auth,
                    "Requests without credentials act as system:anonymous (not with AlwaysAllow: 401)")
      ->capture_default_str();
  serve
      ->add_option("--max-requests-inflight", f.max_inflight,
                   "Non-mutating requests (get, list) handled at once before 429; watches and other long-running "
                   "requests are not counted (0: no limit)")
      ->capture_default_str();
  serve
      ->add_option("--max-mutating-requests-inflight", f.max_mutating_inflight,
                   "Mutating requests handled at once before 429 (0: no limit)")
      ->capture_default_str();
}

// The API server's audit log, limits, Services' ranges and admission.
void AddApiServerFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve->add_option("--audit-log-path", f.audit_log_path,
                    "Write audit.k8s.io/v1 Events (Metadata level) for every request but health checks to this "
                    "file, one JSON per line ('-': standard output)");
  serve->add_option("--audit-log-maxsize", f.audit_log_maxsize,
                    "Megabytes of the audit log file before it is rotated (0: 100)");
  serve->add_option("--audit-log-maxbackup", f.audit_log_maxbackup, "Rotated audit log files kept (0: all)");
  serve->add_option("--audit-log-maxage", f.audit_log_maxage, "Days rotated audit log files are kept (0: no limit)");
  serve->add_option("--audit-policy-file", f.audit_policy_file, "Not supported: every request is audited at Metadata");
  serve->add_option("--max-request-body-bytes", f.max_body_bytes, "Larger request bodies get 413")
      ->capture_default_str();
  serve->add_option("--watch-history", f.watch_history, "Revisions kept for watch resumption")->capture_default_str();
  serve->add_option("--service-cluster-ip-range", f.service_cluster_ip_range,
                    "CIDR Services' cluster IPs are allocated from (IPv4)")
      ->capture_default_str();
  serve->add_option("--service-node-port-range", f.service_node_port_range,
                    "Port range NodePort Services' node ports are allocated from")
      ->capture_default_str();
  serve
      ->add_option("--default-not-ready-toleration-seconds", f.not_ready_toleration,
                   "tolerationSeconds of the not-ready:NoExecute toleration added to every pod without one")
      ->capture_default_str();
  serve
      ->add_option("--default-unreachable-toleration-seconds", f.unreachable_toleration,
                   "tolerationSeconds of the unreachable:NoExecute toleration added to every pod without one")
      ->capture_default_str();
  serve
      ->add_option("--enable-admission-plugins", f.enable_admission, apiserver::AdmissionPluginsHelp())
      ->delimiter(',');
  serve
      ->add_option("--disable-admission-plugins", f.disable_admission,
                   "Default admission plugins not to run (kube's names, comma-separated)")
      ->delimiter(',');
  serve->add_option("--service-account-issuer", f.service_account_issuers,
                    "Issuer (iss) of service account tokens; repeatable: the first issues, all are accepted "
                    "(default https://kubernetes.default.svc.cluster.local)");
  serve->add_option("--service-account-signing-key-file", f.service_account_signing_key_file,
                    "PEM RSA private key that signs service account tokens (default: one generated and kept in "
                    "the data directory)");
  serve->add_option("--service-account-key-file", f.service_account_key_files,
                    "PEM RSA public or private keys that verify service account tokens, besides the signing key; "
                    "repeatable");
  serve->add_option("--api-audiences", f.api_audiences,
                    "Audiences service account tokens must be meant for (default: the issuers)")
      ->delimiter(',');
  serve
      ->add_option("--service-account-max-token-expiration", f.service_account_max_token_expiration,
                   "The longest a requested token is valid (0s: no limit; at least 1h)")
      ->capture_default_str();
  serve
      ->add_option("--service-account-extend-token-expiration", f.service_account_extend_token_expiration,
                   "Pod-bound tokens of kube's default projection (3607s) are valid a year, warning after their hour")
      ->capture_default_str();
  serve->add_option("--service-account-jwks-uri", f.service_account_jwks_uri,
                    "The JWKS address OIDC discovery names (default: the issuer's /openid/v1/jwks)");
  serve->add_option("--seed", f.seed, "Seed for generated names, uids and scheduling decisions (0: random)");
  serve->add_flag("--profiling", f.profiling, "Enable profiling via web interface host:port/debug/pprof/")
      ->capture_default_str();
}

// The in-process scheduler.
void AddSchedulerFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve->add_flag("--no-scheduler", f.no_scheduler, "Run no scheduler in process (pods stay Pending)");
  serve->add_option("--config", f.scheduler_config,
                    "The scheduler's KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  serve->add_option("--concurrent", f.concurrent, "Scheduling cycles at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve
      ->add_option("--cache-resync-period", f.cache_resync_period,
                   "How often the scheduler compares its cache with the store and repairs what differs (0: never)")
      ->capture_default_str();
}

// The in-process controllers (and the Events' TTL).
void AddControllerFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve->add_flag("--no-controllers", f.no_controllers, "Run no controller in process");
  serve
      ->add_option("--controllers", f.controller_names, cluster::ControllersHelp())
      ->delimiter(',')
      ->capture_default_str();
  serve->add_option("--event-ttl", f.event_ttl, "How long Events are kept after their last write (0: forever)")
      ->capture_default_str();
  serve->add_option("--node-monitor-grace-period", f.node_monitor_grace_period,
                    "How long a node's kubelet may be silent before the node is marked unreachable")
      ->capture_default_str();
  serve->add_option("--node-monitor-period", f.node_monitor_period, "How often node health is checked")
      ->capture_default_str();
  serve->add_option("--terminated-pod-gc-threshold", f.terminated_pod_gc_threshold,
                    "Terminated pods kept before the pod garbage collector deletes the oldest (<= 0: never)")
      ->capture_default_str();
  serve->add_option("--max-endpoints-per-slice", f.max_endpoints_per_slice,
                    "The most endpoints an EndpointSlice holds")
      ->capture_default_str();
  serve->add_option("--endpoint-updates-batch-period", f.endpoint_updates_batch_period,
                    "How long pod changes are batched before a Service's endpoints are synced")
      ->capture_default_str();
}

// The simulated nodes.
void AddSimFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve->add_option("--sim-nodes", f.sim.nodes, "Register this many simulated nodes (with simulated kubelets)")
      ->capture_default_str();
  serve->add_option("--sim-cpu", f.sim.cpu, "Each simulated node's CPU")->capture_default_str();
  serve->add_option("--sim-memory", f.sim.memory, "Each simulated node's memory")->capture_default_str();
  serve->add_option("--sim-pods", f.sim.pods, "Each simulated node's pod capacity")->capture_default_str();
  serve
      ->add_option("--sim-zones", f.sim.zones,
                   "Zones the simulated nodes are spread over (topology.kubernetes.io/zone zone-a, zone-b, ...)")
      ->capture_default_str();
  serve->add_option("--sim-node-prefix", f.sim.node_prefix, "Name prefix of the simulated nodes")
      ->capture_default_str();
  serve->add_option("--sim-config", f.sim.config_file,
                    "A YAML file of simulated node groups (count, namePrefix, cpu, memory, pods, zones, labels, taints, "
                    "storageClasses, storageCapacity)");
  serve
      ->add_option("--sim-heartbeat-period", f.sim.heartbeat_period,
                   "How often simulated kubelets renew their Lease (at most a quarter of the grace period)")
      ->capture_default_str();
  serve
      ->add_option("--sim-default-run-duration", f.sim.default_run_duration,
                   "How long simulated pods with restartPolicy Never or OnFailure run (then exit 0) when they "
                   "have no sim.berth.dev/run-duration annotation")
      ->capture_default_str();
}

// The etcd backend (kube-apiserver's flags).
void AddEtcdFlags(CLI::App* serve, cluster::ServeFlags& f) {
  serve
      ->add_option("--etcd-servers", f.etcd_servers,
                   "etcd servers to keep the objects in instead of the embedded store (scheme://ip:port, "
                   "comma separated)")
      ->delimiter(',');
  serve->add_option("--etcd-prefix", f.etcd_prefix, "The prefix of every key in etcd")->capture_default_str();
  serve->add_option("--etcd-cafile", f.etcd_cafile, "SSL Certificate Authority file used to secure etcd communication");
  serve->add_option("--etcd-certfile", f.etcd_certfile, "SSL certification file used to secure etcd communication");
  serve->add_option("--etcd-keyfile", f.etcd_keyfile, "SSL key file used to secure etcd communication");
  serve
      ->add_option("--etcd-compaction-interval", f.etcd_compaction_interval,
                   "The interval of compaction requests (0: berth does not compact)")
      ->capture_default_str();
}

}  // namespace

void AddServeCommand(CLI::App& app, const scheduler::Registry& registry) {
  static cluster::ServeFlags f;
  auto* serve = app.add_subcommand("serve", "Run the API server with its embedded store, the scheduler and the controllers");
  AddServingFlags(serve, f);
  AddApiServerFlags(serve, f);
  AddSchedulerFlags(serve, f);
  AddControllerFlags(serve, f);
  AddSimFlags(serve, f);
  AddEtcdFlags(serve, f);
  serve->callback([&registry] { SetExitCode(cluster::Serve(f, registry, BERTH_VERSION, stderr)); });
}

}  // namespace berth::cmd
