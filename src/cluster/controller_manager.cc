#include "cluster/controller_manager.h"

#include <algorithm>
#include <set>

#include "api/time/duration.h"
#include "cluster/in_process_transport.h"
#include "cluster/informer_sources.h"
#include "controllers/cronjob/cronjob_controller.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/disruption/disruption_controller.h"
#include "controllers/endpoints/endpoints_controller.h"
#include "controllers/endpointslice/endpointslice_controller.h"
#include "controllers/gc/garbage_collector.h"
#include "controllers/job/job_controller.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/replicaset/replicaset_controller.h"
#include "controllers/resourcequota/resource_quota_controller.h"
#include "controllers/statefulset/statefulset_controller.h"
#include "controllers/ttlafterfinished/ttl_after_finished_controller.h"
#include "controllers/volume/persistent_volume_controller.h"
#include "controllers/volume/protection_controllers.h"
#include "controllers/volume/sim_provisioner.h"

namespace berth::cluster {

namespace {

// A controller as the manager starts it: built, then started once the
// informers have listed.
struct Built {
  std::unique_ptr<controllers::Controller> controller;
  std::function<void()> start;
};

using Factory = std::function<Built(const controllers::ControllerContext&, const ControllerManagerOptions&)>;

struct Registration {
  const char* name;   // kube's name
  const char* alias;  // kube's older name, still accepted
  Factory make;
};

// Started with Run(): the workers of an ordinary controller.
template <typename C>
Built Workers(std::unique_ptr<C> c) {
  C* raw = c.get();
  return Built{std::move(c), [raw] { raw->Run(); }};
}

// kube-controller-manager's names for the controllers berth has, in start order.
const std::vector<Registration>& Registry() {
  static const std::vector<Registration> registry = {
      {"replicaset-controller", "replicaset",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::ReplicaSetController>(c));
       }},
      {"deployment-controller", "deployment",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::DeploymentController>(c));
       }},
      {"daemonset-controller", "daemonset",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::DaemonSetController>(c));
       }},
      {"statefulset-controller", "statefulset",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::StatefulSetController>(c));
       }},
      {"garbage-collector-controller", "garbagecollector",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::GarbageCollector>(c));
       }},
      {"namespace-controller", "namespace",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::NamespaceController>(c));
       }},
      // Node health, NoExecute taints and the evictions they cause (kube
      // splits the evictions off as taint-eviction-controller).
      {"node-lifecycle-controller", "nodelifecycle",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
         auto lifecycle = std::make_unique<controllers::NodeLifecycleController>(c, o.lifecycle);
         auto* raw = lifecycle.get();
         return Built{std::move(lifecycle), [raw] { raw->Start(); }};
       }},
      // PodDisruptionBudget status, which the eviction subresource reads.
      {"disruption-controller", "disruption",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::DisruptionController>(c));
       }},
      {"pod-garbage-collector-controller", "podgc",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
         auto podgc = std::make_unique<controllers::PodGCController>(c, o.podgc);
         auto* raw = podgc.get();
         return Built{std::move(podgc), [raw] { raw->Start(); }};
       }},
      {"cronjob-controller", "cronjob",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::CronJobController>(c));
       }},
      {"endpointslice-controller", "endpointslice",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
         return Workers(std::make_unique<controllers::EndpointSliceController>(c, o.endpoint_slices));
       }},
      {"endpoints-controller", "endpoint",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
         auto endpoints = std::make_unique<controllers::EndpointsController>(c, o.endpoints);
         auto* raw = endpoints.get();
         return Built{std::move(endpoints), [raw] { raw->Start(); }};
       }},
      {"resourcequota-controller", "resourcequota",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::ResourceQuotaController>(c));
       }},
      {"job-controller", "job",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::JobController>(c));
       }},
      {"ttl-after-finished-controller", "ttlafterfinished",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::TtlAfterFinishedController>(c));
       }},
      {"persistentvolume-binder-controller", "persistentvolume-binder",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         auto binder = std::make_unique<controllers::PersistentVolumeController>(c);
         auto* raw = binder.get();
         return Built{std::move(binder), [raw] { raw->Start(); }};
       }},
      {"persistentvolume-protection-controller", "pv-protection",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::PvProtectionController>(c));
       }},
      {"persistentvolumeclaim-protection-controller", "pvc-protection",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions&) {
         return Workers(std::make_unique<controllers::PvcProtectionController>(c));
       }},
      // berth's simulated CSI provisioner (kube runs a driver's
      // external-provisioner instead); capacity from the simulated groups.
      {"sim-csi-provisioner", "sim-csi-provisioner",
       [](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
         auto provisioner = std::make_unique<controllers::SimCsiProvisioner>(
             c, o.sim ? controllers::StorageCapacityFromGroups(o.sim->groups) : controllers::SimStorageCapacity{});
         auto* raw = provisioner.get();
         return Built{std::move(provisioner), [raw] { raw->Start(); }};
       }},
  };
  return registry;
}

}  // namespace

std::vector<std::string> KnownControllers() {
  std::vector<std::string> names;
  for (const auto& r : Registry()) names.emplace_back(r.name);
  return names;
}

Result<std::vector<std::string>> SelectControllers(const std::vector<std::string>& flag) {
  // kube's rule: an explicit "NAME" or "-NAME" wins; otherwise "*" decides.
  std::set<std::string> enabled, disabled;
  bool star = false;
  for (const auto& entry : flag) {
    if (entry.empty()) continue;
    if (entry == "*") {
      star = true;
      continue;
    }
    const bool off = entry[0] == '-';
    std::string name = off ? entry.substr(1) : entry;
    const Registration* found = nullptr;
    for (const auto& r : Registry()) {
      if (name == r.name || name == r.alias) found = &r;
    }
    if (!found) return Status::BadRequest("--controllers: \"" + name + "\" is not in the list of known controllers");
    (off ? disabled : enabled).insert(found->name);
  }
  std::vector<std::string> selected;
  for (const auto& r : Registry()) {
    if (disabled.count(r.name)) continue;
    if (star || enabled.count(r.name)) selected.emplace_back(r.name);
  }
  return selected;
}

Status ParseNodeLifecycleFlags(const std::string& grace_period, const std::string& monitor_period,
                               controllers::NodeLifecycleOptions& lifecycle) {
  auto grace = api::ParseGoDuration(grace_period);
  if (!grace || grace->count() <= 0) {
    return Status::BadRequest("--node-monitor-grace-period " + grace_period + ": expected a duration such as 40s");
  }
  auto period = api::ParseGoDuration(monitor_period);
  if (!period || period->count() <= 0) {
    return Status::BadRequest("--node-monitor-period " + monitor_period + ": expected a duration such as 5s");
  }
  lifecycle.grace_period = *grace;
  lifecycle.monitor_period = *period;
  return Status::Ok();
}

Status ParseEndpointFlags(int64_t max_endpoints_per_slice, const std::string& batch_period,
                          ControllerManagerOptions& options) {
  if (max_endpoints_per_slice < 1 || max_endpoints_per_slice > 1000) {
    return Status::BadRequest("--max-endpoints-per-slice " + std::to_string(max_endpoints_per_slice) +
                              ": must be between 1 and 1000");
  }
  auto period = api::ParseGoDuration(batch_period);
  if (!period || period->count() < 0) {
    return Status::BadRequest("--endpoint-updates-batch-period " + batch_period + ": expected a duration such as 1s");
  }
  options.endpoint_slices.max_endpoints_per_slice = static_cast<int>(max_endpoints_per_slice);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(*period);
  options.endpoint_slices.batch_period = millis;
  options.endpoints.batch_period = millis;
  return Status::Ok();
}

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(apiserver::ApiServer& api, store::Store& store,
                                                                    const ControllerManagerOptions& options) {
  return Start(InProcessTransport(api, "berth-controller-manager"), StoreInformerSources(store), options);
}

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(client::Transport transport,
                                                                    client::InformerFactory::KindSourceFactory sources,
                                                                    const ControllerManagerOptions& options) {
  auto selected = SelectControllers(options.controllers);
  if (!selected.ok()) return selected.status();
  std::unique_ptr<ControllerManager> m(new ControllerManager());
  m->client_ = std::make_unique<client::RestClient>(std::move(transport));
  m->events_ = std::make_unique<client::EventBroadcaster>(*m->client_);
  m->informers_ = std::make_unique<client::InformerFactory>(std::move(sources));
  controllers::ControllerContext context{*m->client_, *m->informers_, &m->registry_, m->events_.get()};
  for (const auto& name : selected.value()) {
    for (const auto& r : Registry()) {
      if (name != r.name) continue;
      Built built = r.make(context, options);
      m->controllers_.push_back(std::move(built.controller));
      m->starts_.push_back(std::move(built.start));
      m->running_.push_back(name);
    }
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
    auto* raw = sim.get();
    m->controllers_.push_back(std::move(sim));
    m->starts_.push_back([raw] { raw->Start(); });
  }
  if (Status s = m->informers_->Start(); !s.ok()) return s;
  for (auto& start : m->starts_) start();
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

}  // namespace berth::cluster
