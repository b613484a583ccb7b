#include "cluster/in_process_cluster.h"

#include "cluster/informer_sources.h"
#include "cluster/scheduler_clients.h"
#include "store/memory/memory_store.h"

namespace berth::cluster {

InProcessCluster::InProcessCluster(ClusterOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<InProcessCluster>> InProcessCluster::Create(ClusterOptions options) {
  std::unique_ptr<InProcessCluster> c(new InProcessCluster(std::move(options)));
  store::MemoryStore::Options store_options;
  store_options.data_dir = c->options_.data_dir;
  store_options.history = c->options_.watch_history;
  InProcessCluster* self = c.get();
  store_options.on_fsync = [self](double seconds) { self->metrics_.ObserveFsync(seconds); };
  store_options.on_snapshot = [self](double seconds) { self->metrics_.ObserveSnapshot(seconds); };
  auto opened = store::MemoryStore::Open(store_options);
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  "data directory " + c->options_.data_dir + ": " + opened.status().message());
  }
  c->store_ = std::move(opened).value();

  apiserver::ApiServer::Options api_options = c->options_.api;
  api_options.metrics = [self] { return self->RenderMetrics(); };
  c->api_ = std::make_unique<apiserver::ApiServer>(*c->store_, api_options);
  if (Status s = c->api_->Bootstrap(); !s.ok()) return Status(s.code(), "bootstrap: " + s.message());
  return c;
}

Status InProcessCluster::Start() {
  if (started_) return Status::Ok();
  started_ = true;
  event_expiry_ = std::make_unique<apiserver::EventExpiry>(*store_, options_.event_ttl);
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
  if (store_) store_->Close();  // the log is synced
}

InProcessCluster::~InProcessCluster() { Stop(); }

store::Store& InProcessCluster::store() { return *store_; }

std::vector<std::string> InProcessCluster::RecoveryNotes() const { return store_->recovery_report().notes; }

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
