#pragma once
// kube-controller-manager's job for berth: the controllers, registered by
// name (kube's names) and chosen with kube's --controllers syntax, plus the
// simulated nodes. In process they write through the API server's handler and
// read shared informers over the store; standalone (`berth controller-manager
// --server URL`) the same code runs over HTTP.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "client/event_recorder.h"
#include "client/informer_factory.h"
#include "client/rest_client.h"
#include "controllers/controller.h"
#include "controllers/endpoints/endpoints_controller.h"
#include "controllers/endpointslice/endpointslice_controller.h"
#include "controllers/nodelifecycle/node_lifecycle_controller.h"
#include "controllers/podgc/pod_gc_controller.h"
#include "controllers/rootcacert/root_ca_cert_publisher.h"
#include "controllers/serviceaccount/tokens_controller.h"
#include "controllers/simnode/sim_nodes.h"
#include "metrics/metrics.h"
#include "store/store.h"

namespace berth::cluster {

struct ControllerManagerOptions {
  // kube's --controllers: "*" is every controller on by default, "NAME"
  // enables one, "-NAME" disables one; later entries win over "*".
  std::vector<std::string> controllers{"*"};
  controllers::NodeLifecycleOptions lifecycle;
  controllers::PodGCOptions podgc;  // --terminated-pod-gc-threshold
  controllers::EndpointSliceOptions endpoint_slices;  // --max-endpoints-per-slice, batch period
  controllers::EndpointsOptions endpoints;
  controllers::RootCaCertPublisherOptions root_ca;  // kube-root-ca.crt's ca.crt
  // The legacy token Secrets' signer and ca.crt (berth serve: the API
  // server's service account key and the root CA above).
  controllers::TokensControllerOptions tokens;
  // Simulated nodes (and their kubelets), when set.
  std::optional<controllers::SimNodesOptions> sim;
};

// The controllers berth knows, by kube's names, in start order.
std::vector<std::string> KnownControllers();
// The --controllers help: kube's syntax and the names above.
std::string ControllersHelp();

// The names --controllers selects. InvalidArgument naming an unknown
// controller ("--controllers: \"foo\" is not in the list of known
// controllers").
Result<std::vector<std::string>> SelectControllers(const std::vector<std::string>& flag);

// kube-controller-manager's --node-monitor-grace-period and
// --node-monitor-period (Go durations) into `lifecycle`; BadRequest naming
// the flag.
Status ParseNodeLifecycleFlags(const std::string& grace_period, const std::string& monitor_period,
                               controllers::NodeLifecycleOptions& lifecycle);

// kube-controller-manager's --max-endpoints-per-slice (1 to 1000) and
// --endpoint-updates-batch-period (a Go duration, 0 or more) into `options`
// (both endpoint controllers); BadRequest naming the flag.
Status ParseEndpointFlags(int64_t max_endpoints_per_slice, const std::string& batch_period,
                          ControllerManagerOptions& options);

class ControllerManager {
 public:
  // In process: writes through `api`, informers over `store`.
  static Result<std::unique_ptr<ControllerManager>> Start(apiserver::ApiServer& api, store::Store& store,
                                                          const ControllerManagerOptions& options);
  // Any transport and informer source (standalone: HTTP to an API server).
  static Result<std::unique_ptr<ControllerManager>> Start(client::Transport transport,
                                                          client::InformerFactory::KindSourceFactory sources,
                                                          const ControllerManagerOptions& options);
  ~ControllerManager();
  // Informers first, then each controller's workers, then queued events are
  // written. Idempotent.
  void Stop();
  std::string RenderMetrics() const { return registry_.Render(); }
  // The names of the controllers running, in start order.
  const std::vector<std::string>& running() const { return running_; }

 private:
  ControllerManager() = default;
  metrics::Registry registry_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<client::EventBroadcaster> events_;          // writes through client_
  std::unique_ptr<client::EventBroadcaster> kubelet_events_;  // the simulated kubelets'; through client_
  std::unique_ptr<client::InformerFactory> informers_;
  std::vector<std::unique_ptr<controllers::Controller>> controllers_;
  std::vector<std::function<void()>> starts_;  // one per controller, after the informers
  std::vector<std::string> running_;
  bool stopped_ = false;
};

}  // namespace berth::cluster
