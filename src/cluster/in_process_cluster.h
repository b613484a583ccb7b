#pragma once
// A whole berth cluster in one process: the store, the API server, the
// scheduler, the controllers, the simulated nodes and (optionally) the HTTP
// listener, started and stopped in the right order. `berth serve`, `berth
// bench` and `berth perf` build their clusters here, and so do the tests.
//
// Two steps, so that callers can put objects in before anything watches:
//   auto cluster = InProcessCluster::Create(options);  // store opened, API bootstrapped
//   cluster->api() / cluster->store() ...               // seed nodes, pods
//   cluster->Start();                                   // scheduler, controllers, sims, HTTP
// Stop (or the destructor) undoes Start in reverse: HTTP first (in-flight
// requests finish), then controllers and simulated kubelets, the scheduler,
// event expiry, and last the store (its log synced).
//
// Thread-safety: Create, Start and Stop from one thread; the accessors are
// safe from any thread between Start and Stop.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "apiserver/api_server.h"
#include "apiserver/authz/service_account_tokens.h"
#include "apiserver/event_expiry.h"
#include "apiserver/http_server.h"
#include "apiserver/server_metrics.h"
#include "cluster/controller_manager.h"
#include "cluster/scheduler_runner.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"
#include "store/encryption.h"
#include "store/etcd/etcd_store.h"
#include "store/store.h"

namespace berth::store {
class MemoryStore;
}

namespace berth::cluster {

struct ClusterOptions {
  // The store: durable in `data_dir`, or in memory when it is empty.
  std::string data_dir;
  int64_t watch_history = 100'000;  // revisions kept for watch resumption
  // Encryption at rest of the embedded store's log and snapshots (--encryption-provider-config).
  std::shared_ptr<const store::Encryption> encryption;
  // Set: the store is etcd (`data_dir` unused); its watch cache keeps
  // `watch_history` revisions and Events get leases of `event_ttl`.
  std::optional<store::EtcdStore::Options> etcd;

  apiserver::ApiServer::Options api;
  // Service account tokens issued and accepted (unset: none). Without a
  // signing key file the key is generated, and kept in `data_dir`
  // (service-account.key) when the store is durable there.
  std::optional<apiserver::ServiceAccountTokenOptions> service_accounts;
  // Events are deleted this long after their last write (kube's --event-ttl);
  // zero keeps them for ever.
  std::chrono::seconds event_ttl{3600};

  // The in-process scheduler (none when false).
  bool scheduler = true;
  scheduler::SchedulerConfig scheduler_config;
  scheduler::SchedulerOptions scheduler_options;
  // The scheduler's drift guard: its cache compared with the store this
  // often (0: never).
  std::chrono::milliseconds cache_resync_period{30000};
  // The plugins the scheduler's configuration may name.
  scheduler::Registry scheduler_registry = scheduler::InTreeRegistry();

  // Controllers by name (kube's --controllers) and simulated nodes.
  ControllerManagerOptions controllers;

  // Listen for HTTP when set (address, port, TLS, limits). The cluster records
  // request metrics (on_response) and answers /metrics (api.metrics).
  std::optional<apiserver::HttpServer::Options> http;
};

class InProcessCluster {
 public:
  // Opens (or recovers) the store and bootstraps the API server. Nothing
  // runs yet. Errors name what failed ("data directory DIR: ...").
  static Result<std::unique_ptr<InProcessCluster>> Create(ClusterOptions options);
  ~InProcessCluster();

  // Starts the scheduler, the controllers and simulated nodes, and the HTTP
  // listener, in that order. Once.
  Status Start();
  // Idempotent; see the file comment for the order.
  void Stop();

  store::Store& store();
  apiserver::ApiServer& api() { return *api_; }
  // Null when the options asked for none, or before Start.
  scheduler::Scheduler* scheduler() { return scheduler_ ? &scheduler_->scheduler() : nullptr; }
  ControllerManager* controllers() { return controllers_.get(); }
  apiserver::HttpServer* http() { return http_.get(); }
  // What recovery of the data directory had to say (a torn tail cut, ...).
  std::vector<std::string> RecoveryNotes() const;
  // Prometheus text: the API server's, the scheduler's and the controllers' metrics.
  std::string RenderMetrics();

 private:
  explicit InProcessCluster(ClusterOptions options);

  ClusterOptions options_;
  apiserver::ServerMetrics metrics_;
  std::unique_ptr<store::Store> store_;
  store::MemoryStore* memory_ = nullptr;  // store_, when it is the embedded store
  store::EtcdStore* etcd_ = nullptr;      // store_, when it is etcd
  std::unique_ptr<apiserver::ApiServer> api_;
  std::unique_ptr<apiserver::EventExpiry> event_expiry_;
  std::unique_ptr<SchedulerRunner> scheduler_;
  std::unique_ptr<ControllerManager> controllers_;
  std::mutex http_mu_;  // guards http_ against /metrics while Stop releases it
  std::unique_ptr<apiserver::HttpServer> http_;  // guarded by http_mu_ once started
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace berth::cluster
