#include "cluster/serve.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "api/time/duration.h"
#include "apiserver/admission/admission.h"
#include "apiserver/audit/audit.h"
#include "apiserver/authz/authorization.h"
#include "apiserver/authz/token_file.h"
#include "apiserver/registry/service_alloc.h"
#include "apiserver/request_info.h"
#include "apiserver/serving_options.h"
#include "cluster/profiling.h"
#include "client/termination_signals.h"
#include "log/log.h"

namespace berth::cluster {
namespace {

// --listen, with what an address other than loopback requires:
// authentication (--token-file or --client-ca-file) and TLS.
Result<apiserver::ListenAddress> ListenFrom(const ServeFlags& f) {
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
  return listen;
}

// The store: the data directory (none in memory), encryption at rest, or etcd.
Status StoreFrom(const ServeFlags& f, ClusterOptions& o) {
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
  return Status::Ok();
}

// The audit log (--audit-log-path and its rotation), opened.
Status AuditFrom(const ServeFlags& f, apiserver::ApiServer::Options& api) {
  if (!f.audit_policy_file.empty()) {
    return Status::BadRequest("--audit-policy-file is not supported: berth audits every request but health checks "
                              "at the Metadata level (--audit-log-path)");
  }
  if (f.audit_log_path.empty()) return Status::Ok();
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
  api.audit = std::move(log).value();
  return Status::Ok();
}

// Service account tokens: the keys are read (or generated) when the
// cluster is made.
Status ServiceAccountsFrom(const ServeFlags& f, ClusterOptions& o) {
  apiserver::ServiceAccountTokenOptions accounts;
  accounts.issuers = f.service_account_issuers;
  accounts.signing_key_file = f.service_account_signing_key_file;
  accounts.key_files = f.service_account_key_files;
  accounts.api_audiences = f.api_audiences;
  accounts.jwks_uri = f.service_account_jwks_uri;
  accounts.extend_expiration = f.service_account_extend_token_expiration;
  auto max = api::ParseGoDuration(f.service_account_max_token_expiration);
  if (!max || max->count() < 0) {
    return Status::BadRequest("--service-account-max-token-expiration " + f.service_account_max_token_expiration +
                              ": expected a duration such as 24h");
  }
  accounts.max_expiration_seconds = std::chrono::duration_cast<std::chrono::seconds>(*max).count();
  if (accounts.max_expiration_seconds > 0 && accounts.max_expiration_seconds < 3600) {
    return Status::BadRequest("--service-account-max-token-expiration: the minimum valid value is 1h");
  }
  for (const auto& issuer : accounts.issuers) {
    if (issuer.empty()) return Status::BadRequest("--service-account-issuer: an issuer may not be empty");
  }
  o.service_accounts = std::move(accounts);
  return Status::Ok();
}

// The API server: its extra routes, Services' ranges, admission,
// authentication, the audit log, authorization; and the Events' TTL.
Status ApiFrom(const ServeFlags& f, ClusterOptions& o) {
  if (f.profiling) {
    // Behind the server's authentication, as every route.
    for (apiserver::Route& r : ProfilingRoutes()) o.api.routes.push_back(std::move(r));
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
  if (Status s = AuditFrom(f, o.api); !s.ok()) return s;
  auto modes = apiserver::ParseAuthorizationModes(f.authorization_mode);
  if (!modes.ok()) return Status::BadRequest("--authorization-mode: " + modes.status().message());
  if (std::find(modes->begin(), modes->end(), apiserver::kModeRbac) != modes->end() && f.token_file.empty() &&
      f.client_ca_file.empty()) {
    return Status::BadRequest("--authorization-mode=RBAC needs an authenticator: --token-file or --client-ca-file");
  }
  o.api.authorization_modes = std::move(modes).value();
  o.api.anonymous_auth = f.anonymous_auth;
  if (Status s = ServiceAccountsFrom(f, o); !s.ok()) return s;
  auto ttl = api::ParseGoDuration(f.event_ttl);
  if (!ttl || ttl->count() < 0) return Status::BadRequest("--event-ttl " + f.event_ttl + ": expected a duration such as 1h");
  o.event_ttl = std::chrono::duration_cast<std::chrono::seconds>(*ttl);
  return Status::Ok();
}

// The in-process scheduler: its configuration, cycles and drift guard.
Status SchedulerFrom(const ServeFlags& f, ClusterOptions& o) {
  o.scheduler = !f.no_scheduler;
  if (o.scheduler && !f.scheduler_config.empty()) {
    auto loaded = LoadSchedulerConfig(f.scheduler_config);
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
  return Status::Ok();
}

// The controllers and the simulated fleet.
Status ControllersFrom(const ServeFlags& f, ClusterOptions& o) {
  if (f.no_controllers) {
    o.controllers.controllers.clear();
  } else {
    o.controllers.controllers = f.controller_names;
  }
  if (auto selected = SelectControllers(o.controllers.controllers); !selected.ok()) return selected.status();
  Status lifecycle = ParseNodeLifecycleFlags(f.node_monitor_grace_period, f.node_monitor_period,
                                             o.controllers.lifecycle);
  if (!lifecycle.ok()) return lifecycle;
  o.controllers.podgc.terminated_pod_threshold = f.terminated_pod_gc_threshold;
  Status endpoints = ParseEndpointFlags(f.max_endpoints_per_slice, f.endpoint_updates_batch_period, o.controllers);
  if (!endpoints.ok()) return endpoints;
  if (!f.tls_cert_file.empty()) {
    auto root_ca = controllers::ReadRootCaFile(f.tls_cert_file);
    if (!root_ca.ok()) return Status(root_ca.status().code(), "--tls-cert-file " + root_ca.status().message());
    o.controllers.root_ca.root_ca = std::move(root_ca).value();
  }
  if (f.sim.nodes != 0 || !f.sim.config_file.empty()) {
    auto fleet = BuildSimFleet(f.sim);
    if (!fleet.ok()) return fleet.status();
    // A heartbeat must come well within the grace period (kube renews at a quarter of it).
    fleet->heartbeat_period = std::min(fleet->heartbeat_period, o.controllers.lifecycle.grace_period / 4);
    o.controllers.sim = std::move(fleet).value();
  }
  return Status::Ok();
}

// The HTTP listener on `listen`: in-flight limits, body size, TLS and
// client certificates, what is handled on the io threads.
Status HttpFrom(const ServeFlags& f, const apiserver::ListenAddress& listen, ClusterOptions& o) {
  apiserver::HttpServer::Options http;
  http.address = listen.host;
  http.port = listen.port;
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
      auto client_ca = controllers::ReadRootCaFile(f.client_ca_file);
      if (!client_ca.ok()) return Status(client_ca.status().code(), "--client-ca-file " + client_ca.status().message());
      o.api.client_ca_pem = std::move(client_ca).value();
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
  return Status::Ok();
}

}  // namespace

Result<ClusterOptions> ClusterOptionsFromFlags(const ServeFlags& f, const scheduler::Registry& registry) {
  ClusterOptions o;
  o.scheduler_registry = registry;
  auto listen = ListenFrom(f);
  if (!listen.ok()) return listen.status();
  for (auto step : {StoreFrom, ApiFrom, SchedulerFrom, ControllersFrom}) {
    if (Status s = step(f, o); !s.ok()) return s;
  }
  if (Status s = HttpFrom(f, *listen, o); !s.ok()) return s;
  return o;
}

int Serve(const ServeFlags& f, const scheduler::Registry& registry, const std::string& berth_version,
          std::FILE* err) {
  auto fail = [err](const std::string& message) {
    std::fprintf(err, "berth serve: %s\n", message.c_str());
    return 1;
  };
  if (f.profiling) EnableHeapSampling();
  auto options = ClusterOptionsFromFlags(f, registry);
  if (!options.ok()) return fail(options.status().message());
  options->api.berth_version = berth_version;
  const bool tls = options->http->tls != nullptr;
  const std::string host = options->http->address;

  // Signals are taken by sigwait below; block them before any thread starts.
  client::TerminationSignals signals;
  auto created = InProcessCluster::Create(std::move(options).value());
  if (!created.ok()) return fail(created.status().message());
  InProcessCluster& c = *created.value();
  for (const auto& note : c.RecoveryNotes()) BERTH_LOG("berth serve: " + note);
  if (Status s = c.Start(); !s.ok()) return fail(s.message());
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

}  // namespace berth::cluster
