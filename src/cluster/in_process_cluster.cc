#include "cluster/in_process_cluster.h"

#include "apiserver/authz/max_inflight.h"
#include "cluster/explain_route.h"
#include "cluster/informer_sources.h"
#include "cluster/scheduler_clients.h"
#include "cluster/web_ui.h"
#include "store/memory/memory_store.h"

namespace berth::cluster {

InProcessCluster::InProcessCluster(ClusterOptions options) : options_(std::move(options)) {}

namespace {

Result<std::unique_ptr<store::MemoryStore>> OpenEmbedded(const ClusterOptions& options,
                                                         apiserver::ServerMetrics& metrics) {
  store::MemoryStore::Options store_options;
  store_options.data_dir = options.data_dir;
  store_options.history = options.watch_history;
  store_options.encryption = options.encryption;
  store_options.on_fsync = [&metrics](double seconds) { metrics.ObserveFsync(seconds); };
  store_options.on_snapshot = [&metrics](double seconds) { metrics.ObserveSnapshot(seconds); };
  auto opened = store::MemoryStore::Open(store_options);
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  "data directory " + options.data_dir + ": " + opened.status().message());
  }
  return opened;
}

}  // namespace

namespace {

// componentstatuses' scheduler and controller-manager: healthy when the
// options run them in this process.
std::vector<apiserver::HealthCheck> ComponentChecks(const ClusterOptions& o) {
  const bool scheduler = o.scheduler;
  auto selected = SelectControllers(o.controllers.controllers);
  const bool controllers = selected.ok() && !selected->empty();
  return {
      {"scheduler",
       [scheduler] {
         return scheduler ? Status::Ok()
                          : Status(StatusCode::kUnavailable, "the scheduler does not run in this server (--no-scheduler)");
       }},
      {"controller-manager",
       [controllers] {
         return controllers ? Status::Ok()
                            : Status(StatusCode::kUnavailable,
                                     "no controller runs in this server (--no-controllers or --controllers)");
       }},
  };
}

}  // namespace

Result<std::unique_ptr<InProcessCluster>> InProcessCluster::Create(ClusterOptions options) {
  std::unique_ptr<InProcessCluster> c(new InProcessCluster(std::move(options)));
  InProcessCluster* self = c.get();
  if (c->options_.etcd) {
    store::EtcdStore::Options etcd_options = *c->options_.etcd;
    etcd_options.history = c->options_.watch_history;
    etcd_options.event_ttl = c->options_.event_ttl;
    auto opened = store::EtcdStore::Open(etcd_options);
    if (!opened.ok()) return Status(opened.status().code(), "etcd: " + opened.status().message());
    c->etcd_ = opened.value().get();
    c->store_ = std::move(opened).value();
  } else {
    auto opened = OpenEmbedded(c->options_, self->metrics_);
    if (!opened.ok()) return opened.status();
    c->memory_ = opened.value().get();
    c->store_ = std::move(opened).value();
  }

  apiserver::ApiServer::Options api_options = c->options_.api;
  if (c->options_.service_accounts) {
    apiserver::ServiceAccountTokenOptions accounts = *c->options_.service_accounts;
    if (accounts.signing_key_file.empty() && !c->options_.etcd && !c->options_.data_dir.empty()) {
      accounts.generated_key_file = c->options_.data_dir + "/service-account.key";
    }
    auto tokens = apiserver::ServiceAccountTokens::Load(accounts);
    if (!tokens.ok()) return tokens.status();
    std::shared_ptr<const apiserver::ServiceAccountTokens> shared = std::move(tokens).value();
    api_options.service_account_tokens = shared;
    // The tokens controller signs legacy token Secrets with the same key.
    controllers::TokensControllerOptions& legacy = c->options_.controllers.tokens;
    legacy.root_ca = c->options_.controllers.root_ca.root_ca;
    legacy.sign = [shared](const controllers::LegacyToken& t) {
      apiserver::TokenClaims claims;
      claims.legacy = true;
      claims.ns = t.ns;
      claims.account = {t.account, t.account_uid};
      claims.secret = apiserver::TokenBinding{t.secret, ""};
      return shared->Sign(std::move(claims));
    };
  }
  api_options.metrics = [self] { return self->RenderMetrics(); };
  api_options.components = ComponentChecks(c->options_);
  api_options.routes.push_back(WebUiRoute());
  api_options.routes.push_back(ExplainRoute([self] { return self->scheduler(); }));
  c->api_ = std::make_unique<apiserver::ApiServer>(*c->store_, api_options);
  if (Status s = c->api_->Bootstrap(); !s.ok()) return Status(s.code(), "bootstrap: " + s.message());
  return c;
}

Status InProcessCluster::Start() {
  if (started_) return Status::Ok();
  started_ = true;
  // On etcd, Events carry leases of the TTL: etcd deletes them.
  if (!etcd_) event_expiry_ = std::make_unique<apiserver::EventExpiry>(*store_, options_.event_ttl);
  if (options_.scheduler) {
    CacheResync resync{.list = [store = store_.get()](api::Kind kind)
                           -> Result<std::pair<std::vector<api::ObjectPtr>, int64_t>> {
                         auto listed = store->List({.prefix = api::StoragePrefix(kind)});
                         if (!listed.ok()) return listed.status();
                         return std::pair{std::move(listed->items), listed->revision};
                       },
                       .period = options_.cache_resync_period};
    auto runner = SchedulerRunner::Create(options_.scheduler_config, options_.scheduler_options,
                                          StoreInformerSources(*store_),
                                          std::make_unique<InProcessSchedulerClient>(*api_),
                                          options_.scheduler_registry, std::move(resync));
    if (!runner.ok()) return runner.status();
    scheduler_ = std::move(runner).value();
    if (Status s = scheduler_->Start(); !s.ok()) return Status(s.code(), "scheduler: " + s.message());
  }
  const ControllerManagerOptions& manager = options_.controllers;
  auto selected = SelectControllers(manager.controllers);
  if (!selected.ok()) return selected.status();
  if (!selected->empty() || manager.sim) {
    auto started = ControllerManager::Start(*api_, *store_, manager);
    if (!started.ok()) return started.status();
    controllers_ = std::move(started).value();
  }
  if (options_.http) {
    apiserver::HttpServer::Options http = *options_.http;
    http.on_response = [this](const apiserver::Request& r, int code, double seconds) {
      metrics_.ObserveRequest(r, code, seconds);
    };
    http.on_dropped = [this](const apiserver::Request& r, apiserver::RequestKind kind) {
      metrics_.ObserveDropped(r, kind);
      api_->AuditUnhandled(r, apiserver::TooManyRequests());
    };
    http.exempt_from_limits = [this](const apiserver::Request& r) { return api_->Privileged(r); };
    if (http.run_inline) {
      // A request that may wait on a webhook would stall its io thread's connections.
      http.run_inline = [this, quick = std::move(http.run_inline)](const apiserver::Request& r) {
        return quick(r) && !api_->MayCallOut(r);
      };
    }
    auto server = apiserver::HttpServer::Start(http, [this](apiserver::Request& request) {
      return api_->Handle(request);
    });
    if (!server.ok()) return server.status();
    std::lock_guard lock(http_mu_);
    http_ = std::move(server).value();
  }
  return Status::Ok();
}

void InProcessCluster::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (http_) http_->Stop();  // in-flight requests finish first
  {
    std::lock_guard lock(http_mu_);  // /metrics reads the server's figures
    http_.reset();
  }
  if (controllers_) controllers_->Stop();
  if (scheduler_) scheduler_->Stop();
  event_expiry_.reset();
  if (memory_) memory_->Close();  // the log is synced
  if (etcd_) etcd_->Close();
}

InProcessCluster::~InProcessCluster() { Stop(); }

store::Store& InProcessCluster::store() { return *store_; }

std::vector<std::string> InProcessCluster::RecoveryNotes() const {
  return memory_ ? memory_->recovery_report().notes : std::vector<std::string>{};
}

std::string InProcessCluster::RenderMetrics() {
  std::string text;
  {
    std::lock_guard lock(http_mu_);
    text = metrics_.Render(*store_, http_.get());
  }
  if (scheduler_) text += scheduler_->scheduler().RenderMetrics();
  if (controllers_) text += controllers_->RenderMetrics();
  return text;
}

}  // namespace berth::cluster
