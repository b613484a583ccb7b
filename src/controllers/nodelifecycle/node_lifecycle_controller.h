#pragma once
// Node lifecycle (kube's node lifecycle controller and taint-based eviction):
//
// - A node whose kubelet stops renewing its Lease in kube-node-lease for
//   longer than the grace period (--node-monitor-grace-period, 40 s) gets
//   every condition set to Unknown ("Kubelet stopped posting node status.")
//   and the taints node.kubernetes.io/unreachable with effects NoSchedule and
//   NoExecute; a node reporting Ready=False gets node.kubernetes.io/not-ready
//   likewise. The taints go when the node is Ready again.
// - Pods on a node with NoExecute taints they do not tolerate are deleted at
//   once; those that tolerate them for tolerationSeconds are deleted that long
//   after the taint was added (the default 300 s tolerations come from the
//   DefaultTolerationSeconds admission). Their controllers replace them and
//   the scheduler places the replacements elsewhere.
//
// Nodes that never had a Lease (registered by hand, with no kubelet) are left
// alone: nothing would ever report them ready again.
//
// Time comes from the context's clock: its alarm drives the monitor period,
// its wall time is compared with the Lease's renewTime and the taints'
// timeAdded.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "controllers/controller.h"

namespace berth::controllers {

struct NodeLifecycleOptions {
  std::chrono::milliseconds monitor_period{5000};
  std::chrono::milliseconds grace_period{40000};
};

class NodeLifecycleController final : public Controller {
 public:
  NodeLifecycleController(const ControllerContext& context, NodeLifecycleOptions options);
  ~NodeLifecycleController() override;

  void Start();  // the workers and the monitor period's alarm

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  Status UpdateNode(const api::ObjectPtr& node, bool healthy_lease, bool lease_known);
  Status EvictPods(const api::Object& node, const std::string& key);

  NodeLifecycleOptions options_;
  client::SharedInformer& nodes_;
  client::SharedInformer& leases_;
  client::SharedInformer& pods_;
  client::EventRecorder node_events_;      // kube's node-controller
  client::EventRecorder eviction_events_;  // kube's taint-eviction-controller
  // Nodes seen (RegisteredNode recorded), forgotten when deleted.
  std::mutex registered_mu_;
  std::unordered_set<std::string> registered_;  // guarded by registered_mu_
  // Queues every node every monitor period; set by Start.
  std::unique_ptr<api::Ticker> ticker_;
};

}  // namespace berth::controllers
