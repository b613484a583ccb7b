#pragma once
// The ReplicaSet controller (kube's ReplicaSetController): keeps
// spec.replicas active pods for every ReplicaSet, owned through a controller
// ownerReference, and reports status (replicas, fullyLabeledReplicas,
// readyReplicas, availableReplicas, observedGeneration).
//
// - Creations go out in slow-start batches (1, 2, 4, ...) of at most
//   kBurstReplicas per sync, so a bad template fails fast instead of 10,000 times.
// - Expectations: after creating or deleting, a ReplicaSet is not counted
//   again until the informer has shown those pods (or 5 minutes pass).
// - Scale-down deletes the cheapest pods first, as kube ranks them: unassigned
//   before assigned, Pending before Unknown before Running, not ready before
//   ready, ready for less time first, more restarts first, newest first.
// - Orphans (no controller reference) whose labels match a ReplicaSet's
//   selector are adopted; owned pods whose labels stop matching are released.

#include <vector>

#include "controllers/controller.h"
#include "controllers/replicaset/expectations.h"

namespace berth::controllers {

class ReplicaSetController final : public Controller {
 public:
  static constexpr int kBurstReplicas = 500;

  ReplicaSetController(const ControllerContext& context, int workers = 4);

  // Exposed for tests: the order in which pods are deleted when scaling down.
  static std::vector<api::ObjectPtr> RankForDeletion(std::vector<api::ObjectPtr> pods);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  void PodAdded(const api::ObjectPtr& pod);
  void PodUpdated(const api::ObjectPtr& pod);
  void PodDeleted(const api::ObjectPtr& pod);
  Status ManageReplicas(const api::Object& rs, const std::string& key, std::vector<api::ObjectPtr>& active);
  Status UpdateStatus(const api::Object& rs, const std::vector<api::ObjectPtr>& pods);

  client::SharedInformer& replicasets_;
  client::SharedInformer& pods_;
  Expectations expectations_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
