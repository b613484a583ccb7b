#pragma once
// Which pods are nominated to which node (kube's PodNominator): a pod that
// preempted others waits for its victims to go, and meanwhile the room freed
// for it must not be taken by pods of lower priority. Filled from the pods'
// status.nominatedNodeName as the informer sees them and from this
// scheduler's own nominations (before they are written back). Thread-safe.

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

class Nominator {
 public:
  // Nominates `pod` to `node`, replacing an earlier nomination of the same
  // pod; an empty `node` removes it. Returns the node it was nominated to
  // before ("" when none).
  std::string Nominate(PodInfoPtr pod, const std::string& node);
  // Removes the pod's nomination (it was bound, deleted, or lost it).
  // Returns whether it had one: the room it held is free again.
  bool Remove(const std::string& pod_key);
  // The node `pod_key` is nominated to; "" when none.
  std::string NodeOf(const std::string& pod_key) const;
  std::vector<PodInfoPtr> PodsOn(const std::string& node) const;
  // Calls fn(pod) for each pod nominated to `node`, under the nominator's
  // lock (no copy: Filter asks this for every node while pods are
  // nominated). `fn` must not call back into the nominator.
  template <typename F>
  void ForEachOn(const std::string& node, F&& fn) const {
    if (!Any()) return;
    std::shared_lock lock(mu_);
    auto it = by_node_.find(node);
    if (it == by_node_.end()) return;
    for (const PodInfoPtr& p : it->second) fn(p);
  }
  // Lock-free: whether any pod is nominated (the common answer is no).
  bool Any() const { return count_.load(std::memory_order_relaxed) > 0; }
  // Changes with every nomination made or removed (equal versions: the same nominations).
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

 private:
  // Shared for reading: Filter reads it for every node, from several threads.
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::vector<PodInfoPtr>> by_node_;  // guarded by mu_
  std::unordered_map<std::string, std::string> node_of_;              // pod key → node; guarded by mu_
  std::atomic<size_t> count_{0};
  std::atomic<uint64_t> version_{0};
};

}  // namespace berth::scheduler
