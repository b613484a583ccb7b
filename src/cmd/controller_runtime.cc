#include "cmd/controller_runtime.h"

#include <algorithm>

#include "client/store_informer.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/gc/garbage_collector.h"
#include "controllers/json_util.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/replicaset/replicaset_controller.h"

namespace berth::cmd {

Status ParseNodeLifecycleFlags(const std::string& grace_period, const std::string& monitor_period,
                               controllers::NodeLifecycleOptions& lifecycle) {
  auto grace = controllers::ParseGoDuration(grace_period);
  if (!grace || grace->count() <= 0) {
    return Status::BadRequest("--node-monitor-grace-period " + grace_period + ": expected a duration such as 40s");
  }
  auto period = controllers::ParseGoDuration(monitor_period);
  if (!period || period->count() <= 0) {
    return Status::BadRequest("--node-monitor-period " + monitor_period + ": expected a duration such as 5s");
  }
  lifecycle.grace_period = *grace;
  lifecycle.monitor_period = *period;
  return Status::Ok();
}

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(apiserver::ApiServer& api, store::Store& store,
                                                                    const ControllerManagerOptions& options) {
  return Start(
      InProcessTransport(api),
      [&store](api::Kind kind, client::InformerHandlers handlers) -> std::unique_ptr<client::InformerSource> {
        return std::make_unique<client::StoreInformer>(store, kind, std::move(handlers));
      },
      options);
}

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(client::Transport transport,
                                                                    client::InformerFactory::KindSourceFactory sources,
                                                                    const ControllerManagerOptions& options) {
  std::unique_ptr<ControllerManager> m(new ControllerManager());
  m->client_ = std::make_unique<client::RestClient>(std::move(transport));
  m->events_ = std::make_unique<client::EventBroadcaster>(*m->client_);
  m->informers_ = std::make_unique<client::InformerFactory>(std::move(sources));
  controllers::ControllerContext context{*m->client_, *m->informers_, &m->registry_,
                                         m->events_.get()};
  if (options.controllers) {
    m->controllers_.push_back(std::make_unique<controllers::ReplicaSetController>(context));
    m->controllers_.push_back(std::make_unique<controllers::DeploymentController>(context));
    m->controllers_.push_back(std::make_unique<controllers::GarbageCollector>(context));
    m->controllers_.push_back(std::make_unique<controllers::NamespaceController>(context));
    auto lifecycle = std::make_unique<controllers::NodeLifecycleController>(context, options.lifecycle);
    m->lifecycle_ = lifecycle.get();
    m->controllers_.push_back(std::move(lifecycle));
  }
  if (options.sim) {
    // Each of kube's kubelets writes its events at 50/s with bursts of 100;
    // the simulated ones share a broadcaster with that much room per node, up
    // to ten kubelets' worth: a large simulated fleet must not spend a core
    // (and the store's memory for an hour) on its own events.
    int nodes = 0;
    for (const auto& g : options.sim->groups) nodes += g.count;
    const int shares = std::clamp(nodes, 1, 10);
    client::EventBroadcaster::Options kubelet_limits;
    kubelet_limits.qps = 50.0 * shares;
    kubelet_limits.burst = 100 * shares;
    m->kubelet_events_ = std::make_unique<client::EventBroadcaster>(*m->client_, kubelet_limits);
    controllers::ControllerContext sim_context = context;
    sim_context.events = m->kubelet_events_.get();
    auto sim = std::make_unique<controllers::SimNodes>(sim_context, *options.sim);
    if (Status s = sim->Register(); !s.ok()) return Status(s.code(), "simulated nodes: " + s.message());
    m->sim_ = sim.get();
    m->controllers_.push_back(std::move(sim));
  }
  if (Status s = m->informers_->Start(); !s.ok()) return s;
  for (auto& c : m->controllers_) {
    if (c.get() == m->lifecycle_) {
      m->lifecycle_->Start();
    } else if (c.get() == m->sim_) {
      m->sim_->Start();
    } else {
      c->Run();
    }
  }
  return m;
}

ControllerManager::~ControllerManager() { Stop(); }

void ControllerManager::Stop() {
  if (stopped_) return;
  stopped_ = true;
  // Informers first (no more events), then the workers.
  informers_->Stop();
  for (auto& c : controllers_) c->Stop();  // before any derived part is destroyed
  controllers_.clear();
  events_->Stop();  // what the controllers recorded is written
  if (kubelet_events_) kubelet_events_->Stop();
}

}  // namespace berth::cmd
