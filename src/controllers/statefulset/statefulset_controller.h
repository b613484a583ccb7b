#pragma once
// The StatefulSet controller (kube's StatefulSetController and
// defaultStatefulSetControl): pods with stable names <set>-<ordinal> and
// stable storage, created, updated and deleted in ordinal order.
//
// - Ordinals run over [spec.ordinals.start, start + spec.replicas); pods
//   outside the range are condemned and deleted, highest first.
// - OrderedReady (the default): a pod is created only when every pod before
//   it is Running, Ready (and available for minReadySeconds); one pod is
//   created, deleted or replaced at a time. Parallel: every missing pod is
//   created at once (slow-start batches of 1, 2, 4, ...), condemned pods
//   deleted at once, without waiting.
// - Each pod's claims <template>-<set>-<ordinal> (volumeClaimTemplates) are
//   created before it and never waited for: a claim may stay Pending until
//   something binds it. persistentVolumeClaimRetentionPolicy is kept as the
//   claims' owner references (statefulset/stateful_pod.h), which the garbage
//   collector acts on; a claim still being deleted holds back its pod's
//   creation.
// - Revisions: a ControllerRevision per template (controllers/history.h);
//   status.currentRevision and updateRevision name them, and each pod's
//   controller-revision-hash label holds the name of its revision. A pod
//   created below the partition gets the current revision, others the
//   update revision.
// - updateStrategy RollingUpdate: pods at or above the partition that are
//   not at the update revision are deleted (and so recreated), highest
//   ordinal first, one at a time waiting for health, or up to
//   rollingUpdate.maxUnavailable at once when it is set. OnDelete: pods are
//   replaced only when users delete them.
// - Status: replicas, readyReplicas, availableReplicas, currentReplicas,
//   updatedReplicas, currentRevision, updateRevision, collisionCount and
//   observedGeneration, so `kubectl rollout status|history|undo sts` and
//   `kubectl scale sts` work.
//
// The revision hash is the Deployment controller's PodTemplateHash, as for
// DaemonSets (kube's role, not kube's values). Pods are not counted through
// expectations (kube's StatefulSet controller uses none): names are fixed, so
// a create repeated from a stale cache fails with AlreadyExists, which is
// taken as done.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "controllers/controller.h"

namespace berth::controllers {

class StatefulSetController final : public Controller {
 public:
  static constexpr int kCreateParallelism = 16;

  explicit StatefulSetController(const ControllerContext& context, int workers = 4);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // What one sync of one StatefulSet has read and decided.
  struct Sync {
    api::ObjectPtr set;
    std::string key;
    std::vector<api::ObjectPtr> revisions;  // owned, by revision number
    api::ObjectPtr current, update;         // the current and update revisions
    boost::json::object current_template, update_template;
    int64_t collision_count = 0;
    std::vector<api::ObjectPtr> pods;  // owned members of the set
  };
  // The status as counted, before it is written.
  struct Counts {
    int64_t replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
  };
  // The set's pods as one Update sees them (statefulset_sync.cc).
  struct Members;

  void PodAdded(const api::ObjectPtr& pod);
  void PodUpdated(const api::ObjectPtr& pod);
  void PodDeleted(const api::ObjectPtr& pod);

  Status AdoptRevisions(Sync& s);
  Status ClaimPods(Sync& s);
  // kube's getStatefulSetRevisions: the update revision found or made.
  Status Revisions(Sync& s);
  Status CreateRevision(Sync& s, int64_t number);
  // kube's updateStatefulSet: one step towards the spec.
  Status Update(Sync& s, Counts& counts);
  // Update's steps, in order; a Status returned ends Update with it (Ok:
  // it waits for pods to change).
  Members SortMembers(const Sync& s, std::chrono::system_clock::time_point now,
                      Counts& counts) const;
  std::optional<Status> CreateMissingInParallel(Sync& s, const Members& m, Counts& counts);
  std::optional<Status> ProcessReplicas(Sync& s, const Members& m, Counts& counts);
  std::optional<Status> DeleteCondemned(Sync& s, const Members& m, Counts& counts);
  Status RollingUpdate(Sync& s, const Members& m, Counts& counts);
  // The counts after a pod of `ordinal` is created, or `pod` deleted.
  void CountCreated(const Sync& s, int64_t ordinal, Counts& counts) const;
  static void CountDeleted(const Sync& s, const api::Object& pod, Counts& counts);
  Status CreatePod(Sync& s, int64_t ordinal, bool& created);
  // Creates the pod's claims that do not exist; `stale` when one is still
  // being deleted (the pod must wait for it).
  Status CreateClaims(Sync& s, int64_t ordinal, bool& stale);
  Status DeletePod(Sync& s, const api::ObjectPtr& pod);
  // The revision a new pod of `ordinal` gets (kube's newVersionedStatefulSetPod).
  std::string_view PodRevisionFor(const Sync& s, int64_t ordinal) const;
  // kube's UpdateStatefulPod and UpdatePodClaimForRetentionPolicy.
  Status FixPod(Sync& s, const api::ObjectPtr& pod);
  Status FixClaimOwners(Sync& s, const api::ObjectPtr& pod, bool only_check, bool& matches);
  Status TruncateHistory(Sync& s);
  Status WriteStatus(Sync& s, Counts counts);

  client::SharedInformer& sets_;
  client::SharedInformer& pods_;
  client::SharedInformer& revisions_;
  client::SharedInformer& claims_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
