#include "cluster/scheduler_runner.h"

#include <fstream>
#include <sstream>


namespace berth::cluster {

Result<std::unique_ptr<SchedulerRunner>> SchedulerRunner::Create(const scheduler::SchedulerConfig& config,
                                                                 scheduler::SchedulerOptions options,
                                                                 client::InformerFactory::KindSourceFactory sources,
                                                                 std::unique_ptr<scheduler::SchedulerClient> client,
                                                                 const scheduler::Registry& registry) {
  std::unique_ptr<SchedulerRunner> r(new SchedulerRunner());
  r->client_ = std::move(client);
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
                                                           [s](const api::ObjectPtr& o) {
                                                             s->OnNodeDelete(o->name());
                                                           }}));
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
  return Status::Ok();
}

void SchedulerRunner::Stop() {
  if (stopped_) return;
  stopped_ = true;
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
