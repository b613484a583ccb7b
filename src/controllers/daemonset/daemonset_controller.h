#pragma once
// The DaemonSet controller (kube's DaemonSetsController): one pod of the
// template on every node that should run it (daemon_pod.h has the rules),
// pinned to its node by node affinity and placed by the scheduler.
//
// - Follows nodes: a node that joins, leaves or changes labels or taints
//   wakes the DaemonSets whose decision for it changed; pods on nodes that no
//   longer fit are deleted (misscheduled), failed pods deleted and created
//   again with a per-node backoff (1 s doubling to 15 min, as kube).
// - Creations go out in slow-start batches (1, 2, 4, ...) of at most
//   kBurstReplicas per sync; expectations (replicaset/expectations.h) keep a
//   slow informer from causing duplicates.
// - Revisions: a ControllerRevision <daemonset>-<hash> per template (data:
//   the template as a strategic merge patch, revision numbers increasing;
//   the current one renumbered when an old template comes back), pods
//   labelled controller-revision-hash and pod-template-generation; old
//   revisions beyond revisionHistoryLimit deleted unless pods still use them.
// - Updates: RollingUpdate (maxUnavailable, maxSurge) or OnDelete.
// - Status: desired/current/misscheduled/ready/updated/available/unavailable
//   counts, observedGeneration and collisionCount, so `kubectl rollout
//   status|history|undo ds/NAME` work.
//
// The revision hash is the Deployment controller's PodTemplateHash (FNV-32a
// of the template's sorted JSON): kube's role, not kube's values.
// pod-template-generation is the DaemonSet's deprecated template-generation
// annotation when it has one (kube's API server keeps it; berth's does not),
// else the current revision number.
// Partial: pods bound to a node
// that was deleted are left for a pod garbage collector (kube's PodGC),
// which berth does not have yet: they are no longer counted in the status.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "controllers/controller.h"
#include "controllers/daemonset/daemon_pod.h"
#include "controllers/daemonset/daemonset_sync.h"
#include "controllers/replicaset/expectations.h"

namespace berth::controllers {

class DaemonSetController final : public Controller {
 public:
  static constexpr int kBurstReplicas = 250;  // kube's BurstReplicas
  static constexpr std::chrono::seconds kFailedPodBackoffInitial{1};
  static constexpr std::chrono::minutes kFailedPodBackoffMax{15};

  explicit DaemonSetController(const ControllerContext& context, int workers = 2);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // What one sync of one DaemonSet has read and decided so far.
  struct Sync {
    api::ObjectPtr ds;
    std::string key;
    std::shared_ptr<const DaemonPlacement> placement;
    api::ObjectPtr current;            // the ControllerRevision of the template
    std::vector<api::ObjectPtr> old;   // the other revisions
    std::string hash;                  // the current revision's controller-revision-hash
    std::vector<api::ObjectPtr> pods;  // owned, not finished-and-deleted
    std::vector<DaemonNode> nodes;     // sorted by name
  };
  // The placement rules of this version of the DaemonSet (cached by uid and version).
  std::shared_ptr<const DaemonPlacement> PlacementOf(const api::Object& ds);

  void NodeAdded(const api::ObjectPtr& node);
  void NodeUpdated(const api::ObjectPtr& node);
  void NodeDeleted(const api::ObjectPtr& node);
  void PodAdded(const api::ObjectPtr& pod);
  void PodUpdated(const api::ObjectPtr& pod);
  void PodDeleted(const api::ObjectPtr& pod);

  Status ConstructHistory(Sync& s);
  Status Snapshot(Sync& s, int64_t revision);
  Status ClaimPods(Sync& s);
  void BuildNodes(Sync& s);
  Status Manage(Sync& s);
  Status RollingUpdate(Sync& s);
  Status SyncNodes(Sync& s, const std::vector<api::ObjectPtr>& to_delete,
                   const std::vector<std::string>& create_on);
  Status CleanupHistory(Sync& s);
  Status UpdateStatus(Sync& s, bool observed);
  // kube's failedPodsBackoff: whether a failed pod on `node` may be deleted
  // now; when not, how long until it may.
  bool FailedPodBackoffAllows(const std::string& key, std::chrono::milliseconds& wait);

  client::SharedInformer& daemonsets_;
  client::SharedInformer& pods_;
  client::SharedInformer& nodes_;
  client::SharedInformer& revisions_;
  Expectations expectations_;
  client::EventRecorder events_;

  std::mutex placements_mu_;
  // DaemonSet uid → (resourceVersion, placement); guarded by placements_mu_
  std::unordered_map<std::string, std::pair<int64_t, std::shared_ptr<const DaemonPlacement>>>
      placements_;

  // The last version of each node the handlers saw (the informer hands them
  // only the new one); guarded by seen_nodes_mu_.
  std::mutex seen_nodes_mu_;
  std::unordered_map<std::string, api::ObjectPtr> seen_nodes_;

  struct Backoff {
    std::chrono::milliseconds delay{0};
    api::Clock::time_point last;
  };
  std::mutex backoff_mu_;
  std::unordered_map<std::string, Backoff> backoff_;  // "<ds uid>/<node>"; guarded by backoff_mu_
};

}  // namespace berth::controllers
