#include "cluster/scheduler_runner.h"

#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "log/log.h"


namespace berth::cluster {

Result<std::unique_ptr<SchedulerRunner>> SchedulerRunner::Create(const scheduler::SchedulerConfig& config,
                                                                 scheduler::SchedulerOptions options,
                                                                 client::InformerFactory::KindSourceFactory sources,
                                                                 std::unique_ptr<scheduler::SchedulerClient> client,
                                                                 const scheduler::Registry& registry,
                                                                 CacheResync resync) {
  std::unique_ptr<SchedulerRunner> r(new SchedulerRunner());
  r->client_ = std::move(client);
  r->resync_ = std::move(resync);
  if (!r->resync_.list) r->resync_.period = std::chrono::milliseconds(0);
  options.drift_guard = r->resync_.period.count() > 0;
  auto created = scheduler::Scheduler::Create(config, registry, options, r->client_.get());
  if (!created.ok()) return created.status();
  r->scheduler_ = std::move(created).value();
  scheduler::Scheduler* s = r->scheduler_.get();
  // Namespaces and nodes before pods: a pod's namespace (for namespace
  // selectors) and node are known by the time the pod arrives.
  r->informers_.push_back(sources(api::Kind::kNamespace,
                                  client::InformerHandlers{[s](const api::ObjectPtr& o) { s->OnNamespace(o); },
                                                           [s](const api::ObjectPtr& o) { s->OnNamespace(o); },
                                                           [s](const api::ObjectPtr& o) {
                                                             s->OnNamespaceDelete(o->name());
                                                           }}));
  r->informers_.push_back(sources(api::Kind::kNode,
                                  client::InformerHandlers{[s](const api::ObjectPtr& o) { s->OnNodeAdd(o); },
                                                           [s](const api::ObjectPtr& o) { s->OnNodeUpdate(o); },
                                                           [s](const api::ObjectPtr& o) { s->OnNodeDelete(o); }}));
  // Budgets before pods: preemption reads them.
  r->informers_.push_back(sources(api::Kind::kPodDisruptionBudget,
                                  client::InformerHandlers{
                                      [s](const api::ObjectPtr& o) { s->OnPodDisruptionBudget(o); },
                                      [s](const api::ObjectPtr& o) { s->OnPodDisruptionBudget(o); },
                                      [s](const api::ObjectPtr& o) { s->OnPodDisruptionBudgetDelete(o); }}));
  // Storage before pods: the volume plugins read a pod's claims and volumes.
  for (api::Kind kind : {api::Kind::kStorageClass, api::Kind::kCSIDriver, api::Kind::kCSINode,
                         api::Kind::kCSIStorageCapacity, api::Kind::kPersistentVolume,
                         api::Kind::kPersistentVolumeClaim}) {
    r->informers_.push_back(sources(kind, client::InformerHandlers{
                                              [s, kind](const api::ObjectPtr& o) { s->OnStorageObject(kind, o); },
                                              [s, kind](const api::ObjectPtr& o) { s->OnStorageObject(kind, o); },
                                              [s, kind](const api::ObjectPtr& o) {
                                                s->OnStorageObjectDelete(kind, o);
                                              }}));
  }
  r->informers_.push_back(sources(api::Kind::kPod,
                                  client::InformerHandlers{[s](const api::ObjectPtr& o) { s->OnPodAdd(o); },
                                                           [s](const api::ObjectPtr& o) { s->OnPodUpdate(o); },
                                                           [s](const api::ObjectPtr& o) { s->OnPodDelete(o); }}));
  return r;
}

Status SchedulerRunner::Start() {
  for (auto& informer : informers_) {
    if (Status s = informer->Start(); !s.ok()) return s;
  }
  scheduler_->Start();
  if (resync_.period.count() > 0) resync_thread_ = std::thread([this] { ResyncLoop(); });
  return Status::Ok();
}

Result<int> SchedulerRunner::ResyncCache() {
  if (!resync_.list) return Status::BadRequest("the scheduler has no source for resyncing its cache");
  std::vector<std::pair<std::vector<scheduler::Scheduler::Drift>, int64_t>> found;
  for (api::Kind kind :
       {api::Kind::kNode, api::Kind::kPod, api::Kind::kPersistentVolume, api::Kind::kPersistentVolumeClaim}) {
    auto listed = resync_.list(kind);
    if (!listed.ok()) return listed.status();
    found.emplace_back(scheduler_->FindCacheDrift(kind, listed->first, listed->second), listed->second);
  }
  if (std::any_of(found.begin(), found.end(), [](const auto& f) { return !f.first.empty(); })) {
    std::unique_lock lock(resync_mu_);
    resync_cv_.wait_for(lock, resync_.grace, [this] { return resync_stop_; });
  }
  int repaired = 0;
  for (const auto& [drift, revision] : found) repaired += scheduler_->RepairCacheDrift(drift, revision);
  return repaired;
}

void SchedulerRunner::ResyncLoop() {
  pthread_setname_np(pthread_self(), "cache-resync");
  std::unique_lock lock(resync_mu_);
  while (!resync_cv_.wait_for(lock, resync_.period, [this] { return resync_stop_; })) {
    lock.unlock();
    auto repaired = ResyncCache();
    if (!repaired.ok()) {
      BERTH_LOG_ERROR(repaired.status().message(), "Scheduler cache resync failed");
    } else if (*repaired > 0) {
      BERTH_LOG_WARNING("Scheduler cache resync repaired differences with the API server", {"differences", *repaired});
    }
    lock.lock();
  }
}

void SchedulerRunner::Stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    std::lock_guard lock(resync_mu_);
    resync_stop_ = true;
  }
  resync_cv_.notify_all();
  if (resync_thread_.joinable()) resync_thread_.join();
  for (auto it = informers_.rbegin(); it != informers_.rend(); ++it) (*it)->Stop();
  if (scheduler_) scheduler_->Stop();
  client_.reset();  // writes the events still queued
}

SchedulerRunner::~SchedulerRunner() { Stop(); }

Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--config " + path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  auto config = scheduler::ParseSchedulerConfig(ss.str());
  if (!config.ok()) return Status::BadRequest("--config " + path + ": " + config.status().message());
  return config;
}

}  // namespace berth::cluster
