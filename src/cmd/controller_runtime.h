#pragma once
// The controllers (and simulated nodes) inside `berth serve`: they write
// through the API server's own handler (every API rule applies, no sockets)
// and read through shared informers over the store.

#include <memory>
#include <optional>

#include "apiserver/api_server.h"
#include "client/event_recorder.h"
#include "client/informer_factory.h"
#include "client/rest_client.h"
#include "cmd/in_process_transport.h"
#include "controllers/nodelifecycle/node_lifecycle_controller.h"
#include "controllers/simnode/sim_nodes.h"
#include "metrics/metrics.h"
#include "store/store.h"

namespace berth::cmd {

struct ControllerManagerOptions {
  bool controllers = true;                        // ReplicaSet, Deployment, GC, node lifecycle
  std::optional<controllers::SimNodesOptions> sim;  // simulated nodes, when set
  controllers::NodeLifecycleOptions lifecycle;
};

// kube-controller-manager's --node-monitor-grace-period and
// --node-monitor-period (Go durations) into `lifecycle`; BadRequest naming the flag.
Status ParseNodeLifecycleFlags(const std::string& grace_period, const std::string& monitor_period,
                               controllers::NodeLifecycleOptions& lifecycle);

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
  void Stop();
  std::string RenderMetrics() const { return registry_.Render(); }

 private:
  ControllerManager() = default;
  metrics::Registry registry_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<client::EventBroadcaster> events_;  // writes through client_
  std::unique_ptr<client::EventBroadcaster>
      kubelet_events_;  // the simulated kubelets'; through client_
  std::unique_ptr<client::InformerFactory> informers_;
  std::vector<std::unique_ptr<controllers::Controller>> controllers_;
  controllers::NodeLifecycleController* lifecycle_ = nullptr;
  controllers::SimNodes* sim_ = nullptr;
  bool stopped_ = false;
};

}  // namespace berth::cmd
