#pragma once
// Garbage collection through ownerReferences (kube's garbage collector, for
// Pods, ReplicaSets, ReplicationControllers, Deployments, Jobs, StatefulSets
// and PersistentVolumeClaims, as owners and dependents; not yet DaemonSets,
// ControllerRevisions or CronJobs: watching them too stalled the collector's
// owner updates in `berth serve`, a cause not yet found):
//
// - Background (the default): once every owner of an object is gone, the
//   object is deleted; a dangling reference beside a live owner is removed.
//   "Gone" in the cache is confirmed with a live read (owner uid), so a
//   dependent seen before its owner is never collected by mistake.
// - Foreground: an owner deleted with propagationPolicy=Foreground carries the
//   foregroundDeletion finalizer; its dependents are deleted (foreground too)
//   and, once none with blockOwnerDeletion remains, the finalizer is removed
//   and the API server completes the deletion. A dependent another live owner
//   keeps only loses its reference; one whose own dependents wait for theirs
//   (a cycle of owners) has its references made non-blocking first, as kube
//   breaks such cycles.
// - Orphan: an owner with the orphan finalizer has its dependents' references
//   to it removed, then the finalizer.
//
// Owners of other kinds (custom resources above all) are read live, not
// watched, so their deletion sends the collector no event: a dependent with
// such an owner is judged again every few seconds until the owner is gone
// (one GET per such owner reference each time; kube watches every kind
// instead).

#include <string>

#include "controllers/controller.h"

namespace berth::controllers {

class GarbageCollector final : public Controller {
 public:
  explicit GarbageCollector(const ControllerContext& context, int workers = 2);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  void Watch(api::Kind kind);
  void OnChange(const api::ObjectPtr& object);
  void OnDelete(const api::ObjectPtr& object);
  void EnqueueDependents(const api::Object& owner);
  // The live owner named by `ref` (kind, name, uid) in `ns`; nullptr when it is gone.
  Result<api::ObjectPtr> Owner(const boost::json::object& ref, const std::string& ns);
  std::vector<api::ObjectPtr> Dependents(const api::Object& owner);
  Status ProcessOwnerFinalizers(const api::ObjectPtr& owner);
  Status ProcessDependent(const api::ObjectPtr& object);
  // Whether an owner of `dependent` other than `owner` is live and not
  // itself waiting for its dependents.
  Result<bool> KeptByAnotherOwner(const api::Object& dependent, const api::Object& owner);
  // Whether one of `dependent`'s own dependents waits for its dependents.
  bool InCycle(const api::Object& dependent);
  Status DropReference(const api::Object& dependent, const std::string& uid);
  Status UnblockReferences(const api::Object& dependent);
};

}  // namespace berth::controllers
