// The scheduler's inputs: informer events (nodes, pods, namespaces,
// PodDisruptionBudgets, storage objects) into the cache, the queue and the
// plugins' Handle (its nominations, side tables and volume lister).

#include "scheduler/cluster_events.h"
#include "scheduler/scheduler.h"

namespace berth::scheduler {

// Each handler observes scheduler_event_handling_duration_seconds under
// its event's label, as kube's do.

void Scheduler::OnNodeAdd(const api::ObjectPtr& node) {
  const auto since = clock_.Now();
  cache_.AddNode(node);
  queue_->MoveAllToActiveOrBackoff(events::kNodeAdd);
  ObserveEvent(events::kNodeAdd, since);
}

void Scheduler::OnNodeUpdate(const api::ObjectPtr& node) {
  const auto since = clock_.Now();
  // What changed decides whether pods move, and the event's label (kube's
  // NodeSchedulingPropertiesChange); a node the cache did not hold is new.
  std::string_view event = events::kNodeAdd;
  if (NodeInfoPtr before = cache_.GetNode(node->name()); before && before->node()) {
    event = events::NodeUpdateEvent(*before->node(), *node);
  }
  cache_.UpdateNode(node);
  if (event.empty()) return;
  queue_->MoveAllToActiveOrBackoff(event);
  ObserveEvent(event, since);
}

void Scheduler::OnNodeDelete(const std::string& name) {
  const auto since = clock_.Now();
  cache_.RemoveNode(name);
  ObserveEvent(events::kNodeDelete, since);
}

void Scheduler::OnNodeDelete(const api::ObjectPtr& node) {
  const auto since = clock_.Now();
  if (options_.drift_guard) RememberDeletion("node/" + node->name(), node->resource_version());
  cache_.RemoveNode(node->name());
  ObserveEvent(events::kNodeDelete, since);
}

void Scheduler::OnPodAdd(const api::ObjectPtr& pod) {
  const auto since = clock_.Now();
  AddPodUntimed(pod);
  ObserveEvent(pod->As<api::PodView>()->node_name.empty() ? events::kUnscheduledPodAdd : events::kAssignedPodAdd,
               since);
}

void Scheduler::AddPodUntimed(const api::ObjectPtr& pod) {
  const auto* view = pod->As<api::PodView>();
  PodInfoPtr info = MakePodInfo(pod);
  if (!view->node_name.empty()) {
    queue_->Delete(info->key);
    const bool was_nominated = handle_->nominator().Remove(info->key);
    if (view->phase != "Succeeded" && view->phase != "Failed") cache_.AddPod(std::move(info));
    // A nomination seen after the pod was assumed (a failure report's
    // watch event arriving late) held room twice until now: pods it turned
    // away may fit (kube moves pods on an assigned pod's add too).
    if (was_nominated) queue_->MoveAllToActiveOrBackoff(events::kAssignedPodAdd);
    return;
  }
  if (!Profile(view->scheduler_name) || view->terminating) return;
  if (!view->nominated_node_name.empty()) handle_->nominator().Nominate(info, view->nominated_node_name);
  queue_->Add(std::move(info));
}

void Scheduler::OnPodUpdate(const api::ObjectPtr& pod) {
  const auto since = clock_.Now();
  const auto* view = pod->As<api::PodView>();
  if (!view->node_name.empty()) {
    if (view->phase == "Succeeded" || view->phase == "Failed") {
      OnPodDelete(pod);
      return;
    }
    AddPodUntimed(pod);
    ObserveEvent(events::kAssignedPodUpdate, since);
    // A victim seen terminating: its preemptor need not wait longer (kube's
    // preemption is done once the last victim has a deletionTimestamp).
    if (view->terminating) handle_->VictimGone(PodKey(*pod));
    return;
  }
  if (!Profile(view->scheduler_name)) return;
  if (view->terminating) {
    queue_->Delete(PodKey(*pod));
    if (handle_->nominator().Remove(PodKey(*pod))) {
      queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, view->priority);
    }
    return;
  }
  // Assumed already: this update (a failure report's, say) is older than
  // the cycle that placed the pod (kube skips it too); its nomination must
  // not come back.
  if (cache_.IsAssumed(PodKey(*pod))) return;
  struct Observed {
    const Scheduler* s;
    api::Clock::time_point since;
    ~Observed() { s->ObserveEvent(events::kUnscheduledPodUpdate, since); }
  } observed{this, since};
  PodInfoPtr info = MakePodInfo(pod);
  // A nomination written back is taken; an update without one keeps a
  // nomination this scheduler made and has not seen written yet (removals
  // go through ClearNominatedNodeName).
  if (!view->nominated_node_name.empty()) {
    std::string before = handle_->nominator().Nominate(info, view->nominated_node_name);
    // Moved to another node: the room it held is free for the pods that
    // respected it, those of equal or lower priority (kube's rule).
    if (!before.empty() && before != view->nominated_node_name) {
      queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, view->priority);
    }
  } else if (std::string node = handle_->nominator().NodeOf(info->key); !node.empty()) {
    handle_->nominator().Nominate(info, node);
  }
  queue_->Update(std::move(info));
}

void Scheduler::OnPodDelete(const api::ObjectPtr& pod) {
  const auto since = clock_.Now();
  std::string key = PodKey(*pod);
  if (options_.drift_guard) RememberDeletion("pod/" + key, pod->resource_version());
  // A pod waiting at Permit is gone: its binding fails (kube rejects it too).
  handle_->waiting_pods().Reject(pod->uid());
  queue_->Delete(key);
  const bool was_nominated = handle_->nominator().Remove(key);
  const bool assigned = !cache_.NodeOf(key).empty();
  if (assigned) {
    cache_.RemovePod(key);
    queue_->MoveAllToActiveOrBackoff(events::kAssignedPodDelete);
  } else if (was_nominated) {
    // The room it was nominated to is free for the pods that left it alone
    // (kube: those of equal or lower priority).
    queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodDelete, {}, pod->As<api::PodView>()->priority);
  }
  handle_->VictimGone(key);
  ObserveEvent(assigned ? events::kAssignedPodDelete : events::kUnscheduledPodDelete, since);
}

void Scheduler::OnNamespace(const api::ObjectPtr& ns) { handle_->SetNamespace(ns); }

void Scheduler::OnNamespaceDelete(const std::string& name) { handle_->RemoveNamespace(name); }

void Scheduler::OnPodDisruptionBudget(const api::ObjectPtr& pdb) { handle_->SetDisruptionBudget(pdb); }

void Scheduler::OnPodDisruptionBudgetDelete(const api::ObjectPtr& pdb) { handle_->RemoveDisruptionBudget(pdb); }

void Scheduler::OnStorageObject(api::Kind kind, const api::ObjectPtr& object) {
  const auto since = clock_.Now();
  // Each On* says whether the object is new: the event is its add or its update.
  std::string_view event;
  VolumeLister& volumes = handle_->volumes();
  switch (kind) {
    case api::Kind::kPersistentVolume:
      event = volumes.OnVolume(object) ? events::kPvAdd : events::kPvUpdate;
      break;
    case api::Kind::kPersistentVolumeClaim:
      event = volumes.OnClaim(object) ? events::kPvcAdd : events::kPvcUpdate;
      break;
    case api::Kind::kStorageClass:
      event = volumes.OnStorageClass(object) ? events::kStorageClassAdd : events::kStorageClassUpdate;
      break;
    case api::Kind::kCSINode:
      event = volumes.OnCSINode(object) ? events::kCSINodeAdd : events::kCSINodeUpdate;
      break;
    case api::Kind::kCSIDriver:
      event = volumes.OnCSIDriver(object) ? events::kCSIDriverAdd : events::kCSIDriverUpdate;
      break;
    case api::Kind::kCSIStorageCapacity:
      event = volumes.OnStorageCapacity(object) ? events::kCSIStorageCapacityAdd : events::kCSIStorageCapacityUpdate;
      break;
    default:
      return;
  }
  queue_->MoveAllToActiveOrBackoff(event);
  ObserveEvent(event, since);
}

void Scheduler::OnStorageObjectDelete(api::Kind kind, const api::ObjectPtr& object) {
  if (options_.drift_guard && kind == api::Kind::kPersistentVolume) {
    RememberDeletion("persistentvolume/" + object->name(), object->resource_version());
  } else if (options_.drift_guard && kind == api::Kind::kPersistentVolumeClaim) {
    RememberDeletion("persistentvolumeclaim/" + object->namespace_name() + "/" + object->name(),
                     object->resource_version());
  }
  VolumeLister& volumes = handle_->volumes();
  switch (kind) {
    case api::Kind::kPersistentVolume:
      volumes.OnVolumeDelete(object->name());
      break;
    case api::Kind::kPersistentVolumeClaim:
      volumes.OnClaimDelete(object);
      break;
    case api::Kind::kStorageClass:
      volumes.OnStorageClassDelete(object->name());
      break;
    case api::Kind::kCSINode:
      volumes.OnCSINodeDelete(object->name());
      // Fewer limits known: more pods may fit (kube moves pods on CSINode changes).
      queue_->MoveAllToActiveOrBackoff(events::kCSINodeDelete);
      break;
    case api::Kind::kCSIDriver:
      volumes.OnCSIDriverDelete(object->name());
      queue_->MoveAllToActiveOrBackoff(events::kCSIDriverDelete);
      break;
    case api::Kind::kCSIStorageCapacity:
      volumes.OnStorageCapacityDelete(object);
      break;
    default:
      break;
  }
}

void Scheduler::NominationFreed(int32_t priority) {
  queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, priority);
}

}  // namespace berth::scheduler
