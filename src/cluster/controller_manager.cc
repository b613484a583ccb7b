#include "cluster/controller_manager.h"

#include <algorithm>
#include <set>

#include "api/named_registry.h"
#include "api/time/duration.h"
#include "cluster/in_process_transport.h"
#include "log/log.h"
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
#include "controllers/rootcacert/root_ca_cert_publisher.h"
#include "controllers/serviceaccount/service_accounts_controller.h"
#include "controllers/serviceaccount/tokens_controller.h"
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
  std::string alias;  // kube's older name, still accepted
  Factory make;
  // Whether the options let it run (kube skips the tokens controller without
  // a service account key); unset: always.
  std::function<bool(const ControllerManagerOptions&)> runnable = {};
};

// A controller made by `make` and started by calling `start` on it once the
// informers have listed.
template <typename C, typename Make>
Factory MadeAndStarted(Make make, void (C::*start)()) {
  return [make, start](const controllers::ControllerContext& c, const ControllerManagerOptions& o) {
    std::unique_ptr<C> controller = make(c, o);
    C* raw = controller.get();
    return Built{std::move(controller), [raw, start] { (raw->*start)(); }};
  };
}

// Started with Run(): the workers of an ordinary controller, made by `make`.
template <typename C, typename Make>
Factory RunWorkersWith(Make make) {
  return MadeAndStarted<C>(make, &C::Run);
}

// The same for a controller built from the context alone.
template <typename C>
Factory RunWorkers() {
  return RunWorkersWith<C>(
      [](const controllers::ControllerContext& c, const ControllerManagerOptions&) { return std::make_unique<C>(c); });
}

// Started with Start(): a controller with options of its own, or one that
// runs loops besides its workers.
template <typename C, typename Make>
Factory StartWith(Make make) {
  return MadeAndStarted<C>(make, &C::Start);
}

// kube-controller-manager's names for the controllers berth has, in start
// order: the one registry (api/named_registry.h) that --controllers, its help
// and the manager read.
const NamedRegistry<Registration>& Registry() {
  using Context = controllers::ControllerContext;
  using Options = ControllerManagerOptions;
  static const NamedRegistry<Registration> registry = [] {
    NamedRegistry<Registration> r;
    r.Register("replicaset-controller", {"replicaset", RunWorkers<controllers::ReplicaSetController>()});
    r.Register("deployment-controller", {"deployment", RunWorkers<controllers::DeploymentController>()});
    r.Register("daemonset-controller", {"daemonset", RunWorkers<controllers::DaemonSetController>()});
    r.Register("statefulset-controller", {"statefulset", RunWorkers<controllers::StatefulSetController>()});
    // kube's ReplicationManager: the ReplicaSet controller over ReplicationControllers.
    r.Register("replicationcontroller-controller",
               {"replicationcontroller",
                RunWorkersWith<controllers::ReplicaSetController>([](const Context& c, const Options&) {
                  return std::make_unique<controllers::ReplicaSetController>(c, controllers::kReplicationControllers);
                })});
    r.Register("garbage-collector-controller", {"garbagecollector", RunWorkers<controllers::GarbageCollector>()});
    r.Register("namespace-controller", {"namespace", RunWorkers<controllers::NamespaceController>()});
    r.Register("serviceaccount-controller",
               {"serviceaccount", RunWorkers<controllers::ServiceAccountsController>()});
    // Fills in the kubernetes.io/service-account-token Secrets users create.
    r.Register("serviceaccount-token-controller",
               {"serviceaccount-token",
                RunWorkersWith<controllers::TokensController>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::TokensController>(c, o.tokens);
                }),
                [](const Options& o) { return static_cast<bool>(o.tokens.sign); }});
    r.Register("root-ca-certificate-publisher-controller",
               {"root-ca-cert-publisher",
                RunWorkersWith<controllers::RootCaCertPublisher>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::RootCaCertPublisher>(c, o.root_ca);
                })});
    // Node health, NoExecute taints and the evictions they cause (kube
    // splits the evictions off as taint-eviction-controller).
    r.Register("node-lifecycle-controller",
               {"nodelifecycle",
                StartWith<controllers::NodeLifecycleController>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::NodeLifecycleController>(c, o.lifecycle);
                })});
    // PodDisruptionBudget status, which the eviction subresource reads.
    r.Register("disruption-controller", {"disruption", RunWorkers<controllers::DisruptionController>()});
    r.Register("pod-garbage-collector-controller",
               {"podgc", StartWith<controllers::PodGCController>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::PodGCController>(c, o.podgc);
                })});
    r.Register("cronjob-controller", {"cronjob", RunWorkers<controllers::CronJobController>()});
    r.Register("endpointslice-controller",
               {"endpointslice",
                RunWorkersWith<controllers::EndpointSliceController>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::EndpointSliceController>(c, o.endpoint_slices);
                })});
    r.Register("endpoints-controller",
               {"endpoint", StartWith<controllers::EndpointsController>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::EndpointsController>(c, o.endpoints);
                })});
    r.Register("resourcequota-controller", {"resourcequota", RunWorkers<controllers::ResourceQuotaController>()});
    r.Register("job-controller", {"job", RunWorkers<controllers::JobController>()});
    r.Register("ttl-after-finished-controller",
               {"ttlafterfinished", RunWorkers<controllers::TtlAfterFinishedController>()});
    r.Register("persistentvolume-binder-controller",
               {"persistentvolume-binder",
                StartWith<controllers::PersistentVolumeController>([](const Context& c, const Options&) {
                  return std::make_unique<controllers::PersistentVolumeController>(c);
                })});
    r.Register("persistentvolume-protection-controller",
               {"pv-protection", RunWorkers<controllers::PvProtectionController>()});
    r.Register("persistentvolumeclaim-protection-controller",
               {"pvc-protection", RunWorkers<controllers::PvcProtectionController>()});
    // berth's simulated CSI provisioner (kube runs a driver's
    // external-provisioner instead); capacity from the simulated groups.
    r.Register("sim-csi-provisioner",
               {"sim-csi-provisioner",
                StartWith<controllers::SimCsiProvisioner>([](const Context& c, const Options& o) {
                  return std::make_unique<controllers::SimCsiProvisioner>(
                      c, o.sim ? controllers::StorageCapacityFromGroups(o.sim->groups)
                               : controllers::SimStorageCapacity{});
                })});
    return r;
  }();
  return registry;
}

}  // namespace

std::vector<std::string> KnownControllers() {
  return Registry().Names();
}

std::string ControllersHelp() {
  return "Controllers to run, kube's syntax: '*' all, 'NAME' one more, '-NAME' one less (" +
         Registry().JoinedNames() + "; kube's short names also work)";
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
    const std::string* found = nullptr;
    for (const auto& r : Registry().entries()) {
      if (name == r.name || name == r.value.alias) found = &r.name;
    }
    if (!found) return Status::BadRequest("--controllers: \"" + name + "\" is not in the list of known controllers");
    (off ? disabled : enabled).insert(*found);
  }
  std::vector<std::string> selected;
  for (const auto& r : Registry().entries()) {
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
    const Registration& registration = *Registry().Find(name);
    if (registration.runnable && !registration.runnable(options)) {
      BERTH_LOG_WARNING("Skipping a controller its options cannot run", {"controller", name});
      continue;
    }
    Built built = registration.make(context, options);
    m->controllers_.push_back(std::move(built.controller));
    m->starts_.push_back(std::move(built.start));
    m->running_.push_back(name);
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
