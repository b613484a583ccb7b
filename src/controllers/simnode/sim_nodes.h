#pragma once
// Simulated nodes: a fleet of Node objects, each with a simulated kubelet
// that does what a kubelet shows the API (no containers run):
//
// - registers its Node (capacity, allocatable, kube's standard labels
//   kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch and
//   topology.kubernetes.io/zone, addresses, nodeInfo) and reports Ready;
// - renews its Lease in kube-node-lease every heartbeat period;
// - takes pods bound to it from Pending to Running (a podIP unique among the
//   fleet's live pods, also across a restart of the server; container
//   statuses; kube's pod conditions) and then runs their simulated
//   containers as sim_pod_status.h describes: they exit after their
//   sim.berth.dev/run-duration with their sim.berth.dev/exit-code and are
//   restarted (crash-loop backoff), or not, per restartPolicy; the pod
//   Succeeds or Fails as kube's would. Restart-policy Never and OnFailure
//   pods without a run duration run the fleet's default (2s), so a plain Job
//   completes; Always pods without one run for ever. A running container's
//   changed image is reported after the container restarts with it.
// - honours graceful deletion: a pod marked for deletion stays Terminating
//   while its simulated containers stop, which takes the pod's
//   sim.berth.dev/stop-duration (a Go duration; default 0s: at once, as
//   nginx exits on SIGTERM) but never longer than the grace period (the
//   deletionTimestamp, when a kubelet would kill them); then the kubelet's
//   final delete. So terminationGracePeriodSeconds: 5 with stop-duration 1m
//   keeps the pod Terminating for 5 s.
//
// Nodes join at run time too: a Node created with the label
// sim.berth.dev/node=true (what `berth sim node-add` creates) gets a
// simulated kubelet of its own, as a real node's kubelet registers it; a
// deleted one loses it. After a restart of the server such nodes are taken
// up again from the store.
//
// Failure injection: a node annotated sim.berth.dev/down="true" (what
// `berth sim node-down` sets) stops heartbeating and working, also when the
// server restarts (it is not reported Ready again); removing the annotation
// (`berth sim node-up`) brings it back Ready.
//
// Time comes from the context's clock: its alarm paces the heartbeats, its
// wall time stamps leases, conditions and pod start times.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "controllers/controller.h"
#include "controllers/simnode/sim_admission.h"
#include "controllers/simnode/sim_pod_status.h"

namespace berth::controllers {

inline constexpr char kSimDownAnnotation[] = "sim.berth.dev/down";
inline constexpr char kSimRunDurationAnnotation[] = "sim.berth.dev/run-duration";
inline constexpr char kSimStopDurationAnnotation[] = "sim.berth.dev/stop-duration";
inline constexpr char kSimManagedLabel[] = "sim.berth.dev/node";

struct SimNodeGroup {
  int count = 0;
  std::string name_prefix = "sim-node-";
  std::string cpu = "8";
  std::string memory = "32Gi";
  int64_t pods = 110;
  std::vector<std::string> zones;  // spread round-robin; empty: no zone label
  std::vector<std::pair<std::string, std::string>> labels;
  boost::json::array taints;  // as in a Node's spec.taints
  // Storage for the simulated CSI provisioner (controllers/volume/): each
  // node of the group has `storage_capacity` (a quantity) for each of these
  // StorageClasses. Empty: the group adds no capacity.
  std::vector<std::string> storage_classes;
  std::string storage_capacity;
};

struct SimNodesOptions {
  std::vector<SimNodeGroup> groups;
  std::chrono::milliseconds heartbeat_period{10000};
  // How long the containers of restartPolicy Never and OnFailure pods
  // without sim.berth.dev/run-duration run (then they exit 0).
  std::chrono::milliseconds default_run_duration{2000};
};

// The Node a simulated kubelet registers: the group's capacity, labels and
// taints, its zone (round-robin by `index_in_group`), `ip` as InternalIP.
boost::json::object SimNodeObject(const SimNodeGroup& g, const std::string& name, int index_in_group,
                                  const std::string& ip);

// Reads the fleet file: `groups:` of {count, namePrefix, cpu, memory, pods,
// zones, labels, taints, storageClasses, storageCapacity}. Errors name the file and line.
Result<std::vector<SimNodeGroup>> LoadSimNodeGroups(const std::string& path);

class SimNodes final : public Controller {
 public:
  SimNodes(const ControllerContext& context, SimNodesOptions options);
  ~SimNodes() override;

  // Registers the nodes and their leases (before informers start is fine:
  // writes go through the client), then starts the kubelets.
  Status Register();
  void Start();
  int size() const;

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  bool Ours(const std::string& node) const;
  // The nodes with a kubelet here, sorted.
  std::vector<std::string> Names() const;
  // A Node with the simulated label seen: it gets a kubelet (lease, Ready).
  void Adopt(const api::ObjectPtr& node);
  // Renews the node's lease and reports it Ready.
  Status StartKubelet(const api::ObjectPtr& node);
  bool Down(const std::string& node) const;
  // Renews every up node's lease and reports it ready; the heartbeat alarm's function.
  void Heartbeat();
  Status RenewLease(const std::string& node);
  Status ReportReady(const api::ObjectPtr& node);
  // Writes allocatable extended resources as the node's capacity has them.
  Status ReportAllocatable(const std::string& node);
  Status RunPod(const api::ObjectPtr& pod);
  // The kubelet's admission of a pod it is to start (sim_admission.h),
  // against the pods it started or admitted on that node; remembered when
  // admitted. nullopt: it may start.
  std::optional<PodRejection> Admit(const api::Object& pod);
  // The pod Failed as kube's kubelet rejects it, with its Warning event.
  Status RejectPod(const api::Object& pod, const PodRejection& rejection);
  // How long the simulated containers of `pod` (being deleted) still take to
  // stop: its stop duration from the deletion request, at most until its
  // deletionTimestamp. 0 when they have stopped.
  std::chrono::milliseconds TimeUntilStopped(const api::Object& pod) const;
  // What a kubelet records about each of the pod's containers: `reason` and
  // `message(name, image)`.
  void ContainerEvents(
      const api::Object& pod, std::string_view reason,
      const std::function<std::string(std::string_view, std::string_view)>& message);
  void RecordEvents(const api::Object& pod, const std::vector<KubeletEvent>& events);
  // A pod IP (10.244.x.y) no live pod of the fleet has, for the pod `uid`;
  // the first call takes note of the addresses of the pods already running
  // (a restarted server).
  Result<std::string> AllocateIp(const std::string& uid);
  // Frees `ip` if pod `uid` holds it (a finished pod's address may be
  // another pod's by now).
  void ReleaseIp(std::string_view ip, const std::string& uid);
  // Forgets what the kubelet kept about a pod (its IP, its backoffs).
  void PodGone(const api::Object& pod);

  SimNodesOptions options_;
  client::EventBroadcaster* broadcaster_;
  client::SharedInformer& nodes_;
  client::SharedInformer& pods_;
  mutable std::shared_mutex names_mu_;  // taken after mu_, never before it
  std::set<std::string> names_;           // guarded by names_mu_
  // Each node's kubelet's recorder (source kubelet, host the node); guarded by names_mu_.
  std::unordered_map<std::string, client::EventRecorder> kubelet_events_;
  // The node's kubelet's recorder (one that records nothing for a node not ours).
  client::EventRecorder Recorder(const std::string& node) const;
  std::mutex mu_;
  bool ips_seeded_ = false;                 // guarded by mu_
  std::unordered_map<uint32_t, std::string> ips_in_use_;  // host part → pod UID; guarded by mu_
  uint32_t next_ip_ = 0;                     // guarded by mu_
  std::unordered_map<std::string, CrashBackoffs> backoffs_;  // by pod UID; guarded by mu_
  // Pods admitted and not yet seen started or gone, by UID; guarded by mu_.
  std::unordered_set<std::string> admitted_;
  std::mutex admit_mu_;  // one admission at a time; taken before mu_
  // Calls Heartbeat every heartbeat period; set by Start.
  std::unique_ptr<api::Ticker> heartbeat_;
};

}  // namespace berth::controllers
