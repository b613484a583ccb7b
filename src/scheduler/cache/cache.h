#pragma once
// The scheduler's cache: every node with the pods bound or assumed on it,
// fed by informer events (Add/Update/Remove) and by scheduling cycles
// (AssumePod at Reserve, ForgetPod when binding fails, FinishBinding when it
// succeeds; the bound pod's informer event then confirms it). Cycles read
// snapshots that UpdateSnapshot refreshes by generation: only NodeInfos that
// changed since the snapshot's generation are replaced (copy-on-write), and
// the node list is rebuilt only when nodes come or go.
//
// A pod's states in the cache (kube's cache interface draws the same):
//
//             AssumePod             AddPod (its binding observed)
//   Initial ───────────▶ Assumed ─────────────────────────────▶ Added ◀─┐ UpdatePod
//      ▲                  │   │                                  │   └──┘
//      │     ForgetPod    │   │ FinishBinding, and no AddPod      │ RemovePod
//      └─(binding failed)─┘   │ within assumed_ttl                ▼
//                             ▼                               Deleted
//                          Expired (dropped by CleanupExpiredAssumedPods;
//                                   a later AddPod adds it again)
//
//   Initial ──AddPod (bound by another scheduler, or before a restart)──▶ Added
//
// AddPod of an assumed pod confirms it, moving it when it landed on another
// node; RemovePod drops a pod in any state.
//
// Thread-safe: every method locks mu_. NodeInfos reachable from a snapshot are
// never modified (a change clones a shared NodeInfo first).

#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/snapshot.h"

namespace berth::scheduler {

class Cache {
 public:
  using Clock = std::chrono::steady_clock;
  // An assumed pod whose binding finished but whose bound version was never
  // observed is forgotten after this long (kube's durationToExpireAssumedPod).
  explicit Cache(std::chrono::seconds assumed_ttl = std::chrono::minutes(15)) : assumed_ttl_(assumed_ttl) {}

  void AddNode(api::ObjectPtr node);
  void UpdateNode(api::ObjectPtr node) { AddNode(std::move(node)); }
  void RemoveNode(const std::string& name);

  // A pod bound to spec.nodeName was observed. Confirms an assumed pod (moving
  // it if it landed elsewhere), else adds it.
  void AddPod(PodInfoPtr pod);
  void UpdatePod(PodInfoPtr pod) { AddPod(std::move(pod)); }
  // The pod was deleted (or is no longer bound).
  void RemovePod(const std::string& key);

  enum class AssumeResult { kAssumed, kConflict, kNodeGone };
  // Reserve: places `pod` on `node` unless the node changed since the cycle's
  // snapshot (`seen_generation`) and `still_fits` (called under the cache's
  // lock with the node's current NodeInfo) says it no longer fits.
  // `on_assumed`, when set, runs under the lock once the pod is placed: what
  // must change at the same instant for every later snapshot (the scheduler
  // drops the pod's nomination there, so that no cycle counts it twice).
  AssumeResult AssumePod(PodInfoPtr pod, const std::string& node, int64_t seen_generation,
                         const std::function<bool(const NodeInfo&)>& still_fits,
                         const std::function<void()>& on_assumed = nullptr);
  // Binding failed or was abandoned: returns the pod's resources.
  void ForgetPod(const std::string& key);
  // Binding succeeded; the assumed pod waits for its informer event.
  void FinishBinding(const std::string& key, Clock::time_point now = Clock::now());
  // Drops assumed pods whose binding finished more than the TTL ago.
  void CleanupExpiredAssumedPods(Clock::time_point now = Clock::now());

  bool IsAssumed(const std::string& key) const;
  // The node a pod is (assumed) on, "" when the cache does not have it.
  std::string NodeOf(const std::string& key) const;
  size_t NodeCount() const;
  // What the cache holds, for comparing it with the API server's lists: the
  // nodes (with a Node object) by name and the pods by namespace/name, each
  // with the resourceVersion last observed (an assumed pod: the version the
  // cycle saw).
  struct Version {
    std::string key;
    int64_t resource_version = 0;
    bool assumed = false;
    api::ObjectPtr object;
  };
  std::vector<Version> NodeVersions() const;
  std::vector<Version> PodVersions() const;
  size_t PodCount() const;
  // Pods assumed and not yet confirmed by their bound version (among PodCount).
  size_t AssumedPodCount() const;
  // A copy of one node's current info (tests, explanations); nullptr when unknown.
  NodeInfoPtr GetNode(const std::string& name) const;

  void UpdateSnapshot(Snapshot& snapshot) const;

 private:
  struct NodeEntry {
    std::shared_ptr<NodeInfo> info;
    std::list<std::string>::iterator recent;  // position in recent_
  };
  // Erases a node entry, freeing its slot.
  void EraseNode(std::unordered_map<std::string, NodeEntry>::iterator it);  // REQUIRES: mu_ held
  struct PodEntry {
    PodInfoPtr pod;
    std::string node;
    bool assumed = false;
    bool binding_finished = false;
    Clock::time_point deadline;
  };

  // A NodeInfo this cache may modify (cloned if a snapshot shares it), its
  // generation bumped and moved to the front of recent_. Creates the entry.
  NodeInfo& Mutable(const std::string& name);  // REQUIRES: mu_ held
  void RemovePodLocked(const std::string& key);  // REQUIRES: mu_ held
  // Adds (+1) or removes (-1) a node's images from image_nodes_ (copy-on-write).
  void CountImages(const api::NodeView* view, int delta);  // REQUIRES: mu_ held

  const std::chrono::seconds assumed_ttl_;
  mutable std::mutex mu_;
  int64_t generation_ = 0;                                 // guarded by mu_
  int64_t node_list_generation_ = 0;                       // guarded by mu_; bumps when nodes come or go
  int64_t topology_epoch_ = 0;                             // guarded by mu_; also when node labels change
  std::vector<int32_t> free_slots_;                        // guarded by mu_
  int32_t next_slot_ = 0;                                  // guarded by mu_
  std::shared_ptr<TopologyIndexes> topologies_ = std::make_shared<TopologyIndexes>();
  std::unordered_map<std::string, NodeEntry> nodes_;       // guarded by mu_
  std::vector<std::string> node_order_;                    // guarded by mu_; nodes with a Node object
  std::list<std::string> recent_;                          // guarded by mu_; most recently changed first
  std::unordered_map<std::string, PodEntry> pods_;         // guarded by mu_
  size_t assumed_count_ = 0;                               // guarded by mu_; entries with assumed set
  std::shared_ptr<const std::unordered_map<std::string, int>> image_nodes_;  // guarded by mu_
};

}  // namespace berth::scheduler
