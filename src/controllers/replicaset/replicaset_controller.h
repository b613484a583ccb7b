#pragma once
// The ReplicaSet controller (kube's ReplicaSetController), which also serves
// ReplicationControllers as kube's ReplicationManager does (kube runs the
// same controller over RCs converted to ReplicaSets): keeps spec.replicas
// (default 1) active pods for every owner of its kind, owned through a
// controller ownerReference, and reports status (replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration
// and the ReplicaFailure condition: replica_status.h).
//
// - Creations go out in slow-start batches (1, 2, 4, ...) of at most
//   kBurstReplicas per sync, so a bad template fails fast instead of 10,000 times.
// - Expectations: after creating or deleting, an owner is not counted
//   again until the informer has shown those pods (or 5 minutes pass).
// - Scale-down deletes the cheapest pods first, as kube ranks them: unassigned
//   before assigned, Pending before Unknown before Running, not ready before
//   ready, ready for less time first, more restarts first, newest first.
// - Orphans (no controller reference) whose labels match an owner's
//   selector are adopted; owned pods whose labels stop matching are released.
//   A ReplicationController's selector is a plain label map (OwnerSelector).

#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "controllers/controller.h"
#include "controllers/replicaset/expectations.h"

namespace berth::controllers {

// The kind whose pods a ReplicaSetController keeps, and the names kube's
// controller goes by for it.
struct ReplicatedKind {
  api::Kind kind;
  std::string_view queue_name;    // its work queue's, which labels the queue's metrics
  std::string_view event_source;  // source.component of the events it records
};
inline constexpr ReplicatedKind kReplicaSets{api::Kind::kReplicaSet, "replicaset", "replicaset-controller"};
inline constexpr ReplicatedKind kReplicationControllers{api::Kind::kReplicationController, "replicationmanager",
                                                        "replication-controller"};

class ReplicaSetController final : public Controller {
 public:
  static constexpr int kBurstReplicas = 500;

  // Keeps the pods of `owners`' kind: kReplicaSets (kube's replicaset-controller)
  // or kReplicationControllers (its replicationcontroller-controller).
  explicit ReplicaSetController(const ControllerContext& context, const ReplicatedKind& owners = kReplicaSets,
                                int workers = 4);

  // Exposed for tests: the order in which pods are deleted when scaling down.
  static std::vector<api::ObjectPtr> RankForDeletion(std::vector<api::ObjectPtr> pods);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  void PodAdded(const api::ObjectPtr& pod);
  void PodUpdated(const api::ObjectPtr& pod);
  void PodDeleted(const api::ObjectPtr& pod);
  Status ManageReplicas(const api::Object& owner, const std::string& key, const std::vector<api::ObjectPtr>& active);
  Status CreateReplicas(const api::Object& owner, const std::string& key, int count);
  Status DeleteReplicas(const api::Object& owner, const std::string& key, const std::vector<api::ObjectPtr>& active,
                        int count);
  // Looks at `owner` again once its ready replicas may have become
  // available (kube's requeue after minReadySeconds); `status` as just computed.
  void RecheckAvailability(const api::Object& owner, const std::string& key, const boost::json::object& status);
  // Writes `status` (CalculateStatus's) when it differs from the stored one.
  Status UpdateStatus(const api::Object& owner, const boost::json::object& status);

  const ReplicatedKind kind_;
  const std::string_view kind_name_;  // "ReplicaSet", "ReplicationController": ownerReferences' kind
  client::SharedInformer& owners_;
  client::SharedInformer& pods_;
  Expectations expectations_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
