// berth serve: a whole cluster in one process (cluster::InProcessCluster):
// the API server with its durable embedded store, the scheduler, the
// controllers and, on request, simulated nodes.

#include <signal.h>

#include <algorithm>
#include <cstdio>

#include "api/time/duration.h"
#include "apiserver/admission/admission.h"
#include "apiserver/audit/audit.h"
#include "apiserver/authz/authorization.h"
#include "apiserver/authz/token_file.h"
#include "apiserver/registry/service_alloc.h"
#include "apiserver/serving_options.h"
#include "cluster/in_process_cluster.h"
#include "cluster/profiling.h"
#include "cluster/sim_fleet.h"
#include "cmd/commands.h"
#include "cmd/termination_signals.h"
#include "log/log.h"

namespace berth::cmd {
namespace {

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
  cluster::SimFleetFlags sim;
  // The etcd backend (kube-apiserver's flags).
  std::vector<std::string> etcd_servers;
  std::string etcd_prefix = "/registry";
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  std::string etcd_compaction_interval = "5m";
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth serve: %s\n", message.c_str());
  return 1;
}

// The flags as the cluster's options; BadRequest naming a wrong flag.
Result<cluster::ClusterOptions> ClusterOptionsFrom(const ServeFlags& f, const scheduler::Registry& registry) {
  cluster::ClusterOptions o;
  o.scheduler_registry = registry;
  auto listen = apiserver::ParseListenAddress(f.listen);
  if (!listen.ok()) return listen.status();
  if (!listen->loopback && ((f.token_file.empty() && f.client_ca_file.empty()) || f.tls_cert_file.empty() ||
                             f.tls_key_file.empty())) {
    return Status::BadRequest("--listen " + f.listen +
                              " is not a loopback address: it requires --token-file or --client-ca-file, "
                              "--tls-cert-file and --tls-private-key-file");
  }
  if (!f.client_ca_file.empty() && f.tls_cert_file.empty()) {
    return Status::BadRequest("--client-ca-file requires --tls-cert-file and --tls-private-key-file");
  }
  if (f.tls_cert_file.empty() != f.tls_key_file.empty()) {
    return Status::BadRequest("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (!f.in_memory) o.data_dir = f.data_dir;
  o.watch_history = f.watch_history;
  if (!f.encryption_provider_config.empty()) {
    // The embedded store encrypts at its log and snapshots; an etcd backend would need the same at its puts.
    if (!f.etcd_servers.empty()) return Status::BadRequest("--encryption-provider-config is not supported with --etcd-servers yet");
    auto encryption = store::Encryption::LoadFile(f.encryption_provider_config);
    if (!encryption.ok()) return encryption.status();
    o.encryption = std::move(encryption).value();
  }
  if (!f.etcd_servers.empty()) {
    if (f.in_memory) return Status::BadRequest("--in-memory and --etcd-servers exclude each other");
    store::EtcdStore::Options etcd;
    etcd.client.endpoints = f.etcd_servers;
    etcd.client.ca_file = f.etcd_cafile;
    etcd.client.cert_file = f.etcd_certfile;
    etcd.client.key_file = f.etcd_keyfile;
    if (f.etcd_certfile.empty() != f.etcd_keyfile.empty()) {
      return Status::BadRequest("--etcd-certfile and --etcd-keyfile must be given together");
    }
    if (f.etcd_prefix.empty() || f.etcd_prefix.front() != '/') {
      return Status::BadRequest("--etcd-prefix " + f.etcd_prefix + ": must start with /");
    }
    etcd.prefix = f.etcd_prefix;
    auto every = api::ParseGoDuration(f.etcd_compaction_interval);
    if (!every || every->count() < 0) {
      return Status::BadRequest("--etcd-compaction-interval " + f.etcd_compaction_interval +
                                ": expected a duration such as 5m");
    }
    etcd.compaction_interval = std::chrono::duration_cast<std::chrono::milliseconds>(*every);
    o.etcd = std::move(etcd);
  } else if (!f.etcd_cafile.empty() || !f.etcd_certfile.empty() || !f.etcd_keyfile.empty()) {
    return Status::BadRequest("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers");
  }

  o.api.berth_version = BERTH_VERSION;
  if (f.profiling) {
    // Behind the server's authentication, as every route.
    for (apiserver::Route& r : cluster::ProfilingRoutes()) o.api.routes.push_back(std::move(r));
  }
  o.api.advertise_address = f.listen;
  if (auto ranges = apiserver::ParseServiceRanges(f.service_cluster_ip_range, f.service_node_port_range);
      !ranges.ok()) {
    return ranges.status();
  }
  o.api.service_cluster_ip_range = f.service_cluster_ip_range;
  o.api.service_node_port_range = f.service_node_port_range;
  o.api.seed = f.seed;
  o.api.admission.default_not_ready_toleration_seconds = f.not_ready_toleration;
  o.api.admission.default_unreachable_toleration_seconds = f.unreachable_toleration;
  o.api.admission.enable = f.enable_admission;
  o.api.admission.disable = f.disable_admission;
  if (Status s = apiserver::CheckAdmissionOptions(o.api.admission); !s.ok()) return s;
  if (!f.token_file.empty()) {
    auto tokens = apiserver::ReadTokenFile(f.token_file);
    if (!tokens.ok()) return tokens.status();
    o.api.tokens = std::move(tokens).value();
  }
  if (!f.audit_policy_file.empty()) {
    return Status::BadRequest("--audit-policy-file is not supported: berth audits every request but health checks "
                              "at the Metadata level (--audit-log-path)");
  }
  if (!f.audit_log_path.empty()) {
    apiserver::AuditLogOptions audit{.path = f.audit_log_path, .max_backups = f.audit_log_maxbackup,
                                     .max_age_days = f.audit_log_maxage};
    for (auto [flag, value] : {std::pair{"--audit-log-maxsize", f.audit_log_maxsize},
                               {"--audit-log-maxbackup", f.audit_log_maxbackup},
                               {"--audit-log-maxage", f.audit_log_maxage}}) {
      if (value < 0) return Status::BadRequest(std::string(flag) + " must be greater than or equal to 0");
    }
    if (f.audit_log_maxsize > 0) audit.max_size_bytes = int64_t{f.audit_log_maxsize} << 20;
    auto log = apiserver::AuditLog::Open(std::move(audit));
    if (!log.ok()) return log.status();
    o.api.audit = std::move(log).value();
  }
  auto modes = apiserver::ParseAuthorizationModes(f.authorization_mode);
  if (!modes.ok()) return Status::BadRequest("--authorization-mode: " + modes.status().message());
  if (std::find(modes->begin(), modes->end(), apiserver::kModeRbac) != modes->end() && f.token_file.empty() &&
      f.client_ca_file.empty()) {
    return Status::BadRequest("--authorization-mode=RBAC needs an authenticator: --token-file or --client-ca-file");
  }
  o.api.authorization_modes = std::move(modes).value();
  o.api.anonymous_auth = f.anonymous_auth;
  auto ttl = api::ParseGoDuration(f.event_ttl);
  if (!ttl || ttl->count() < 0) return Status::BadRequest("--event-ttl " + f.event_ttl + ": expected a duration such as 1h");
  o.event_ttl = std::chrono::duration_cast<std::chrono::seconds>(*ttl);

  o.scheduler = !f.no_scheduler;
  if (o.scheduler && !f.scheduler_config.empty()) {
    auto loaded = cluster::LoadSchedulerConfig(f.scheduler_config);
    if (!loaded.ok()) return loaded.status();
    o.scheduler_config = std::move(loaded).value();
  }
  o.scheduler_options.concurrent = f.concurrent;
  o.scheduler_options.seed = f.seed;
  auto resync = api::ParseGoDuration(f.cache_resync_period);
  if (!resync || resync->count() < 0) {
    return Status::BadRequest("--cache-resync-period " + f.cache_resync_period + ": expected a duration such as 30s");
  }
  o.cache_resync_period = std::chrono::duration_cast<std::chrono::milliseconds>(*resync);

  if (f.no_controllers) {
    o.controllers.controllers.clear();
  } else {
    o.controllers.controllers = f.controller_names;
  }
  if (auto selected = cluster::SelectControllers(o.controllers.controllers); !selected.ok()) return selected.status();
  Status lifecycle = cluster::ParseNodeLifecycleFlags(f.node_monitor_grace_period, f.node_monitor_period,
                                                      o.controllers.lifecycle);
  if (!lifecycle.ok()) return lifecycle;
  o.controllers.podgc.terminated_pod_threshold = f.terminated_pod_gc_threshold;
  Status endpoints = cluster::ParseEndpointFlags(f.max_endpoints_per_slice, f.endpoint_updates_batch_period, o.controllers);
  if (!endpoints.ok()) return endpoints;
  if (f.sim.nodes != 0 || !f.sim.config_file.empty()) {
    auto fleet = cluster::BuildSimFleet(f.sim);
    if (!fleet.ok()) return fleet.status();
    // A heartbeat must come well within the grace period (kube renews at a quarter of it).
    fleet->heartbeat_period = std::min(fleet->heartbeat_period, o.controllers.lifecycle.grace_period / 4);
    o.controllers.sim = std::move(fleet).value();
  }

  apiserver::HttpServer::Options http;
  http.address = listen->host;
  http.port = listen->port;
  if (f.max_inflight < 0) return Status::BadRequest("--max-requests-inflight can not be negative value");
  if (f.max_mutating_inflight < 0) {
    return Status::BadRequest("--max-mutating-requests-inflight can not be negative value");
  }
  http.inflight_limits = {.read_only = f.max_inflight, .mutating = f.max_mutating_inflight};
  http.max_body_bytes = static_cast<size_t>(f.max_body_bytes);
  if (!f.tls_cert_file.empty()) {
    auto tls = apiserver::LoadTlsServerContext(f.tls_cert_file, f.tls_key_file);
    if (!tls.ok()) return tls.status();
    http.tls = std::move(tls).value();
    if (!f.client_ca_file.empty()) {
      if (Status s = apiserver::AddClientCertificateAuthority(*http.tls, f.client_ca_file); !s.ok()) return s;
      o.api.client_certificates = true;
    }
  }
  // Handled on the io threads: reads of one object, and creates of ordinary
  // size (they answer once written without holding the thread meanwhile:
  // Store::CreateAsync). A create with a generated name completes on its
  // thread (a taken name is generated again): on etcd that is a round trip,
  // so such creates (JSON or CBOR bodies, which name the field) go to the
  // mutating pool there.
  const bool etcd = !f.etcd_servers.empty();
  http.run_inline = [etcd](const apiserver::Request& r) {
    if ((r.method == "GET" || r.method == "HEAD") && apiserver::IsSingleObjectRead(r)) return true;
    if (!apiserver::IsSmallCreate(r, 64 * 1024)) return false;
    return !etcd || r.body.find("generateName") == std::string::npos;
  };
  o.http = std::move(http);
  return o;
}

int Serve(const ServeFlags& f, const scheduler::Registry& registry) {
  if (f.profiling) cluster::EnableHeapSampling();
  auto options = ClusterOptionsFrom(f, registry);
  if (!options.ok()) return Fail(options.status().message());
  const bool tls = options->http->tls != nullptr;
  const std::string host = options->http->address;

  // Signals are taken by sigwait below; block them before any thread starts.
  TerminationSignals signals;
  auto created = cluster::InProcessCluster::Create(std::move(options).value());
  if (!created.ok()) return Fail(created.status().message());
  cluster::InProcessCluster& c = *created.value();
  for (const auto& note : c.RecoveryNotes()) BERTH_LOG("berth serve: " + note);
  if (Status s = c.Start(); !s.ok()) return Fail(s.message());
  const std::string url = std::string(tls ? "https" : "http") + "://" + host + ":" + std::to_string(c.http()->port());
  const std::string store = !f.etcd_servers.empty() ? "etcd " + f.etcd_servers.front() + f.etcd_prefix
                            : f.in_memory                ? std::string("in memory")
                                                         : f.data_dir;
  const int64_t revision_at_start = c.store().CurrentRevision();
  BERTH_LOG("berth serve: listening on " + url + " (store " + store + ", revision " +
                std::to_string(revision_at_start) + ")",
            {"address", url}, {"store", store}, {"revision", revision_at_start});

  int signal_number = signals.Wait();
  BERTH_LOG(std::string("berth serve: ") + (signal_number == SIGTERM ? "SIGTERM" : "SIGINT") +
            " received, shutting down");
  const long long revision = c.store().CurrentRevision();
  c.Stop();
  BERTH_LOG("berth serve: stopped at revision " + std::to_string(revision), {"revision", revision});
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app, const scheduler::Registry& registry) {
  static ServeFlags f;
  auto* serve = app.add_subcommand("serve", "Run the API server with its embedded store, the scheduler and the controllers");
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
  serve->add_option("--seed", f.seed, "Seed for generated names, uids and scheduling decisions (0: random)");
  serve->add_flag("--profiling", f.profiling, "Enable profiling via web interface host:port/debug/pprof/")
      ->capture_default_str();
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
  serve->callback([&registry] { SetExitCode(Serve(f, registry)); });
}

}  // namespace berth::cmd
