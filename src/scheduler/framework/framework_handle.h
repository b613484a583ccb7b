#pragma once
// The Handle a scheduler gives its profiles' plugins (kube's frameworkImpl):
// what plugins read through it — namespace labels, PodDisruptionBudgets,
// nominations, the volume lister, the metrics registry, seeded randomness —
// and what they do through it: bind, preempt (asynchronously, as kube's
// preemption since 1.33), clear nominations, reach the pods waiting at
// Permit, write PVs and claims. The side tables behind those live here and
// are fed by the scheduler's informer events (Set*/Remove*); the API calls
// go out through its ApiDispatcher.
//
// The scheduler keeps the loop, the queue and the cache; what the handle
// needs of them it asks through HandleHost.
//
// Thread-safe.

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/time/clock.h"
#include "metrics/metrics.h"
#include "scheduler/extender/extender.h"
#include "scheduler/framework/api_dispatcher.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/nominator.h"
#include "scheduler/framework/volume_lister.h"
#include "scheduler/framework/waiting_pods.h"
#include "scheduler/parallelizer.h"
#include "scheduler/scheduler_client.h"

namespace berth::scheduler {

// What the handle asks of the scheduler that holds it (kube's PodActivator
// and the cache's lister). Called from any thread, with no handle lock held.
class HandleHost {
 public:
  virtual ~HandleHost() = default;
  // Whether the cache holds `pod_key` (namespace/name) on a node, assumed or bound.
  virtual bool PodPlaced(const std::string& pod_key) const = 0;
  // Holds the preemptor `pod_key` in the queue while its victims go, and lets it go.
  virtual void HoldPod(const std::string& pod_key) = 0;
  virtual void ReleasePod(const std::string& pod_key) = 0;
  // A nomination of a pod of `priority` was taken away: the room it held
  // is free for the pods of equal or lower priority that left it alone.
  virtual void NominationFreed(int32_t priority) = 0;
};

class FrameworkHandle final : public Handle {
 public:
  struct Services {
    HandleHost* host;
    SchedulerClient* client;    // nullptr: nothing is written to the API
    const Extenders* extenders;
    Parallelizer* parallelizer;
    metrics::Registry* metrics;
    api::Clock* clock;          // the waiting pods' timeouts
    uint64_t seed;              // Random()'s sequence
  };
  // REQUIRES: what `services` points to outlives the handle.
  explicit FrameworkHandle(Services services);
  FrameworkHandle(const FrameworkHandle&) = delete;
  FrameworkHandle& operator=(const FrameworkHandle&) = delete;

  // ---- the side tables, fed by the scheduler's informer events ----
  void SetNamespace(const api::ObjectPtr& ns);
  void RemoveNamespace(const std::string& name);
  void SetDisruptionBudget(const api::ObjectPtr& pdb);
  void RemoveDisruptionBudget(const api::ObjectPtr& pdb);
  // A victim of preemption seen terminating or deleted (or its eviction
  // failed): preemptors waiting for no other victim are released.
  void VictimGone(const std::string& victim_key) const;

  // The scheduler's own uses of what the handle holds.
  Nominator& nominator() const { return nominator_; }
  VolumeLister& volumes() const { return volumes_; }
  WaitingPods& waiting_pods() const { return *waiting_pods_; }
  ApiDispatcher& api() const { return api_; }

  // ---- Handle ----
  std::shared_ptr<const api::Labels> NamespaceLabels(std::string_view ns) const override;
  // After any failure report of the pod being sent has landed.
  Status BindPod(const api::Object& pod, const std::string& node) const override;
  std::shared_ptr<const std::vector<DisruptionBudget>> DisruptionBudgets() const override;
  std::vector<PodInfoPtr> NominatedPodsForNode(const std::string& node) const override {
    return nominator_.PodsOn(node);
  }
  void ForEachNominatedPod(const std::string& node,
                           const std::function<void(const PodInfoPtr&)>& fn) const override {
    nominator_.ForEachOn(node, fn);
  }
  bool HasNominatedPods() const override { return nominator_.Any(); }
  // The eviction is sent from the API task threads; meanwhile the victim
  // counts as gone for other preemptions (BeingEvicted) and the preemptor
  // is held in the queue until every victim it waits for is seen
  // terminating or deleted (VictimGone).
  Status PreemptPod(const PodInfo& victim, const PodInfo& preemptor, const std::string& node) const override;
  bool BeingEvicted(const std::string& pod_key) const override;
  std::string NominatedNodeOf(const std::string& pod_key) const override { return nominator_.NodeOf(pod_key); }
  void ClearNominatedNodeName(std::span<const PodInfo* const> pods) const override;
  uint64_t Random() const override;
  void Parallelize(size_t n, const std::function<void(size_t)>& fn, std::string_view operation) const override {
    parallelizer_.Until(n, fn, nullptr, operation);
  }
  Status NarrowPreemptionCandidates(const PodInfo& pod, const Snapshot& snapshot,
                                    std::vector<std::pair<std::string, PreemptionVictims>>& candidates) const override {
    return extenders_.NarrowPreemptionCandidates(pod, snapshot, candidates);
  }
  // The waiting pods: code outside plugins may call these too
  // (GetWaitingPod(uid)->Allow(plugin) approves).
  void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& callback) const override {
    waiting_pods_->Iterate(callback);
  }
  std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) const override { return waiting_pods_->Get(uid); }
  bool RejectWaitingPod(std::string_view uid) const override { return waiting_pods_->Reject(uid); }
  metrics::Registry* MetricsRegistry() const override { return &metrics_; }
  VolumeLister* Volumes() const override { return &volumes_; }
  Status UpdatePersistentVolume(const boost::json::object& pv) const override;
  Status UpdatePersistentVolumeClaim(const boost::json::object& pvc) const override;

 private:
  HandleHost& host_;
  SchedulerClient* const client_;
  const Extenders& extenders_;
  Parallelizer& parallelizer_;
  metrics::Registry& metrics_;  // plugins add their families through the const Handle
  mutable std::atomic<uint64_t> random_state_;

  // Mutable: changed through the const Handle (ClearNominatedNodeName,
  // the volume bindings plugins assume).
  mutable Nominator nominator_;
  mutable VolumeLister volumes_;

  mutable std::mutex ns_mu_;
  std::unordered_map<std::string, std::shared_ptr<const api::Labels>> namespaces_;  // guarded by ns_mu_

  mutable std::mutex pdb_mu_;
  std::unordered_map<std::string, DisruptionBudget> pdbs_;        // by namespace/name; guarded by pdb_mu_
  std::shared_ptr<const std::vector<DisruptionBudget>> pdb_list_;  // guarded by pdb_mu_
  // pdb_list_ made again from pdbs_. REQUIRES: pdb_mu_ held.
  void ListDisruptionBudgets();

  // Asynchronous preemption. A victim whose eviction was sent and not yet
  // seen to take effect maps to the preemptors waiting for it; each such
  // preemptor to how many of its victims are left.
  mutable std::shared_mutex preempt_mu_;  // shared for BeingEvicted (dry runs, in parallel)
  mutable std::unordered_map<std::string, std::vector<std::string>> evicting_;  // guarded by preempt_mu_
  mutable std::unordered_map<std::string, size_t> awaiting_victims_;           // guarded by preempt_mu_
  // Counts `preemptor` as waiting for `victim` (holding it in the queue);
  // false when the victim is no longer on a node (nothing to evict).
  bool AwaitVictim(const PodInfo& victim, const PodInfo& preemptor) const;

  // Declared after what their calls use; destroyed first. The alarm thread
  // of the waiting pods settles timed-out pods.
  mutable ApiDispatcher api_;
  std::unique_ptr<WaitingPods> waiting_pods_;
};

}  // namespace berth::scheduler
