// The scheduler's inputs and what it offers plugins: informer events
// (nodes, pods, namespaces, PodDisruptionBudgets, storage objects) into the cache, the queue
// and the nominator; the Handle methods plugins call (namespace labels,
// binding, preemption's budgets, nominations and evictions, Permit's waiting
// pods).

#include <algorithm>

#include "api/json_fields.h"
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
    const bool was_nominated = nominator_.Remove(info->key);
    if (view->phase != "Succeeded" && view->phase != "Failed") cache_.AddPod(std::move(info));
    // A nomination seen after the pod was assumed (a failure report's
    // watch event arriving late) held room twice until now: pods it turned
    // away may fit (kube moves pods on an assigned pod's add too).
    if (was_nominated) queue_->MoveAllToActiveOrBackoff(events::kAssignedPodAdd);
    return;
  }
  if (!Profile(view->scheduler_name) || view->terminating) return;
  if (!view->nominated_node_name.empty()) nominator_.Nominate(info, view->nominated_node_name);
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
    if (view->terminating) VictimGone(PodKey(*pod));
    return;
  }
  if (!Profile(view->scheduler_name)) return;
  if (view->terminating) {
    queue_->Delete(PodKey(*pod));
    if (nominator_.Remove(PodKey(*pod))) {
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
    std::string before = nominator_.Nominate(info, view->nominated_node_name);
    // Moved to another node: the room it held is free for the pods that
    // respected it, those of equal or lower priority (kube's rule).
    if (!before.empty() && before != view->nominated_node_name) {
      queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, view->priority);
    }
  } else if (std::string node = nominator_.NodeOf(info->key); !node.empty()) {
    nominator_.Nominate(info, node);
  }
  queue_->Update(std::move(info));
}

void Scheduler::OnPodDelete(const api::ObjectPtr& pod) {
  const auto since = clock_.Now();
  std::string key = PodKey(*pod);
  if (options_.drift_guard) RememberDeletion("pod/" + key, pod->resource_version());
  // A pod waiting at Permit is gone: its binding fails (kube rejects it too).
  waiting_pods_->Reject(pod->uid());
  queue_->Delete(key);
  const bool was_nominated = nominator_.Remove(key);
  const bool assigned = !cache_.NodeOf(key).empty();
  if (assigned) {
    cache_.RemovePod(key);
    queue_->MoveAllToActiveOrBackoff(events::kAssignedPodDelete);
  } else if (was_nominated) {
    // The room it was nominated to is free for the pods that left it alone
    // (kube: those of equal or lower priority).
    queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodDelete, {}, pod->As<api::PodView>()->priority);
  }
  VictimGone(key);
  ObserveEvent(assigned ? events::kAssignedPodDelete : events::kUnscheduledPodDelete, since);
}

void Scheduler::OnNamespace(const api::ObjectPtr& ns) {
  std::lock_guard lock(ns_mu_);
  namespaces_[ns->name()] = std::make_shared<const api::Labels>(ns->labels());
}

void Scheduler::OnNamespaceDelete(const std::string& name) {
  std::lock_guard lock(ns_mu_);
  namespaces_.erase(name);
}

std::shared_ptr<const api::Labels> Scheduler::NamespaceLabels(std::string_view ns) const {
  std::lock_guard lock(ns_mu_);
  auto it = namespaces_.find(std::string(ns));
  return it == namespaces_.end() ? nullptr : it->second;
}

void Scheduler::OnPodDisruptionBudget(const api::ObjectPtr& pdb) {
  DisruptionBudget b;
  b.namespace_name = pdb->namespace_name();
  b.name = pdb->name();
  const boost::json::object* spec = api::Spec(*pdb);
  if (spec) {
    if (auto it = spec->find("selector"); it != spec->end() && !it->value().is_null()) {
      auto selector = api::LabelSelector::FromJson(it->value());
      // An invalid selector matches no pod (kube's rule).
      b.selector = selector.ok() ? std::move(selector).value() : api::LabelSelector();
    }
  }
  const boost::json::object* status = api::StatusOf(*pdb);
  b.disruptions_allowed = static_cast<int32_t>(api::IntAt(status, "disruptionsAllowed"));
  if (const boost::json::object* disrupted = api::ObjectAt(status, "disruptedPods")) {
    for (const auto& entry : *disrupted) b.disrupted.emplace_back(entry.key());
    std::sort(b.disrupted.begin(), b.disrupted.end());
  }
  std::lock_guard lock(pdb_mu_);
  pdbs_[b.namespace_name + "/" + b.name] = std::move(b);
  auto list = std::make_shared<std::vector<DisruptionBudget>>();
  for (const auto& [key, budget] : pdbs_) list->push_back(budget);
  pdb_list_ = std::move(list);
}

void Scheduler::OnPodDisruptionBudgetDelete(const api::ObjectPtr& pdb) {
  std::lock_guard lock(pdb_mu_);
  pdbs_.erase(pdb->namespace_name() + "/" + pdb->name());
  auto list = std::make_shared<std::vector<DisruptionBudget>>();
  for (const auto& [key, budget] : pdbs_) list->push_back(budget);
  pdb_list_ = std::move(list);
}

std::shared_ptr<const std::vector<DisruptionBudget>> Scheduler::DisruptionBudgets() const {
  std::lock_guard lock(pdb_mu_);
  return pdb_list_;
}

void Scheduler::OnStorageObject(api::Kind kind, const api::ObjectPtr& object) {
  const auto since = clock_.Now();
  // Each On* says whether the object is new: the event is its add or its update.
  std::string_view event;
  switch (kind) {
    case api::Kind::kPersistentVolume:
      event = volumes_.OnVolume(object) ? events::kPvAdd : events::kPvUpdate;
      break;
    case api::Kind::kPersistentVolumeClaim:
      event = volumes_.OnClaim(object) ? events::kPvcAdd : events::kPvcUpdate;
      break;
    case api::Kind::kStorageClass:
      event = volumes_.OnStorageClass(object) ? events::kStorageClassAdd : events::kStorageClassUpdate;
      break;
    case api::Kind::kCSINode:
      event = volumes_.OnCSINode(object) ? events::kCSINodeAdd : events::kCSINodeUpdate;
      break;
    case api::Kind::kCSIDriver:
      event = volumes_.OnCSIDriver(object) ? events::kCSIDriverAdd : events::kCSIDriverUpdate;
      break;
    case api::Kind::kCSIStorageCapacity:
      event = volumes_.OnStorageCapacity(object) ? events::kCSIStorageCapacityAdd : events::kCSIStorageCapacityUpdate;
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
  switch (kind) {
    case api::Kind::kPersistentVolume:
      volumes_.OnVolumeDelete(object->name());
      break;
    case api::Kind::kPersistentVolumeClaim:
      volumes_.OnClaimDelete(object);
      break;
    case api::Kind::kStorageClass:
      volumes_.OnStorageClassDelete(object->name());
      break;
    case api::Kind::kCSINode:
      volumes_.OnCSINodeDelete(object->name());
      // Fewer limits known: more pods may fit (kube moves pods on CSINode changes).
      queue_->MoveAllToActiveOrBackoff(events::kCSINodeDelete);
      break;
    case api::Kind::kCSIDriver:
      volumes_.OnCSIDriverDelete(object->name());
      queue_->MoveAllToActiveOrBackoff(events::kCSIDriverDelete);
      break;
    case api::Kind::kCSIStorageCapacity:
      volumes_.OnStorageCapacityDelete(object);
      break;
    default:
      break;
  }
}

Status Scheduler::UpdatePersistentVolume(const boost::json::object& pv) const {
  if (!client_) return Status::Internal("no client to write PersistentVolumes through");
  return client_->UpdatePersistentVolume(pv);
}

Status Scheduler::UpdatePersistentVolumeClaim(const boost::json::object& pvc) const {
  if (!client_) return Status::Internal("no client to write PersistentVolumeClaims through");
  return client_->UpdatePersistentVolumeClaim(pvc);
}

std::vector<PodInfoPtr> Scheduler::NominatedPodsForNode(const std::string& node) const {
  return nominator_.PodsOn(node);
}

Status Scheduler::PreemptPod(const PodInfo& victim, const PodInfo& preemptor, const std::string& node) const {
  if (!client_) return Status::Internal("no client to evict pods through");
  // Terminating already: evicted again (kube does too), but nothing to wait
  // for: kube's preemption counts as done once a victim has a
  // deletionTimestamp, and no further event may come before it is deleted.
  if (!victim.view->terminating) {
    std::lock_guard lock(preempt_mu_);
    // Gone already (its delete was observed after the cycle's snapshot):
    // nothing to evict or wait for. OnPodDelete removes from the cache
    // before it takes preempt_mu_, so a victim still in the cache here will
    // be seen going by VictimGone.
    if (cache_.NodeOf(victim.key).empty()) return Status::Ok();
    std::vector<std::string>& waiting = evicting_[victim.key];
    if (std::find(waiting.begin(), waiting.end(), preemptor.key) == waiting.end()) {
      waiting.push_back(preemptor.key);
      awaiting_victims_[preemptor.key]++;
      // Under preempt_mu_, so that VictimGone's Release cannot come first.
      queue_->Hold(preemptor.key);
    }
  }
  api_tasks_->Submit([this, victim = victim.object, preemptor = preemptor.object, key = victim.key, node] {
    Status evicted = client_->PreemptPod(*victim, *preemptor, node);
    // The preemptor must not wait for an eviction that failed (kube
    // activates it again); it will find out what is left.
    if (!evicted.ok()) VictimGone(key);
  });
  return Status::Ok();
}

bool Scheduler::BeingEvicted(const std::string& pod_key) const {
  std::shared_lock lock(preempt_mu_);
  return evicting_.count(pod_key) > 0;
}

void Scheduler::VictimGone(const std::string& victim_key) const {
  std::lock_guard lock(preempt_mu_);
  auto it = evicting_.find(victim_key);
  if (it == evicting_.end()) return;
  for (const std::string& preemptor : it->second) {
    auto left = awaiting_victims_.find(preemptor);
    if (left == awaiting_victims_.end() || --left->second > 0) continue;
    awaiting_victims_.erase(left);
    queue_->Release(preemptor);
  }
  evicting_.erase(it);
}

void Scheduler::ClearNominatedNodeName(std::span<const PodInfo* const> pods) const {
  for (const PodInfo* p : pods) {
    if (nominator_.Remove(p->key)) {
      queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, p->view->priority);
    }
    if (client_) api_tasks_->Submit([this, pod = p->object] { client_->SetNominatedNodeName(*pod, ""); });
  }
}

uint64_t Scheduler::Random() const {
  // splitmix64 over an atomic counter: reproducible from the seed, lock-free.
  uint64_t z = random_state_.fetch_add(0x9e3779b97f4a7c15ull, std::memory_order_relaxed) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Status Scheduler::BindPod(const api::Object& pod, const std::string& node) const {
  // A failure report of this pod being sent must land first.
  WaitForFailureReport(PodKey(pod));
  return client_->BindPod(pod, node);
}

Status Scheduler::NarrowPreemptionCandidates(const PodInfo& pod, const Snapshot& snapshot,
                                             std::vector<std::pair<std::string, PreemptionVictims>>& candidates) const {
  return extenders_->NarrowPreemptionCandidates(pod, snapshot, candidates);
}

void Scheduler::IterateOverWaitingPods(const std::function<void(WaitingPod&)>& callback) const {
  waiting_pods_->Iterate(callback);
}

std::shared_ptr<WaitingPod> Scheduler::GetWaitingPod(std::string_view uid) const { return waiting_pods_->Get(uid); }

bool Scheduler::RejectWaitingPod(std::string_view uid) const { return waiting_pods_->Reject(uid); }

}  // namespace berth::scheduler
