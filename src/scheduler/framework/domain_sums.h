#pragma once
// Per-domain sums of a per-node count, kept up to date across snapshots.
// PodTopologySpread and InterPodAffinity ask, for every pod, "how many pods
// matching X are in each zone / on each host?" Summing over every node of the
// cluster for every pod costs O(nodes); between two pods of a workload only
// the nodes the previous pods went to have changed. A DomainSums entry, per
// question (a "key" that captures the count and which nodes are included),
// remembers each node's count with the node's generation and the sums by
// domain as of one snapshot generation, and catches up with a newer snapshot
// through the snapshot's change log — O(changed nodes). Anything it cannot
// follow (another label epoch, an older snapshot, a log that no longer
// reaches back, snapshots outside a cache) is summed afresh.
//
// Thread-safe: each entry has its own lock, held while summing.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/framework/snapshot.h"

namespace berth::scheduler {

class DomainSums {
 public:
  struct Sums {
    std::vector<int64_t> counts;  // by domain
    std::vector<int32_t> nodes;   // by domain: how many included nodes it has
  };

  // The sums over the snapshot's nodes that `include(node)` of
  // `count(node)`, by `topology`'s domain (nodes without the key are never
  // included). `include` and `count` must depend only on the node and on
  // what `key` names.
  template <typename Include, typename Count>
  Sums Sum(const std::string& key, const Snapshot& snapshot, const TopologyIndex& topology, Include&& include,
           Count&& count) {
    if (snapshot.generation() == 0) {  // not from a cache: generations mean nothing
      State fresh;
      Rebuild(fresh, snapshot, topology, include, count);
      return {std::move(fresh.sums.counts), std::move(fresh.sums.nodes)};
    }
    std::shared_ptr<State> state = Find(key);
    std::lock_guard lock(state->mu);
    bool follow = state->generation >= 0 && state->topology_epoch == snapshot.topology_epoch() &&
                  state->generation <= snapshot.generation() && state->generation >= snapshot.changes_floor() &&
                  state->sums.counts.size() == topology.domain_count();
    if (!follow) {
      Rebuild(*state, snapshot, topology, include, count);
    } else {
      for (const auto& [generation, index] : snapshot.changes()) {
        if (generation <= state->generation) continue;
        const NodeInfo& node = *snapshot.nodes()[index];
        auto slot = static_cast<size_t>(node.slot());
        if (slot >= state->by_slot.size()) state->by_slot.resize(slot + 1, {-1, 0});
        auto& seen = state->by_slot[slot];
        if (seen.first == node.generation()) continue;  // listed twice
        int32_t domain = topology.DomainOf(node);
        if (domain == TopologyIndex::kMissing || !include(node)) continue;  // never counted (same epoch)
        int64_t now = count(node);
        state->sums.counts[static_cast<size_t>(domain)] += now - seen.second;
        seen = {node.generation(), now};
      }
      state->generation = snapshot.generation();
    }
    return state->sums;
  }

 private:
  struct State {
    std::mutex mu;
    int64_t generation = -1;  // the snapshot generation the sums reflect
    int64_t topology_epoch = -1;
    std::vector<std::pair<int64_t, int64_t>> by_slot;  // (node generation, count) of included nodes
    Sums sums;
  };

  template <typename Include, typename Count>
  static void Rebuild(State& state, const Snapshot& snapshot, const TopologyIndex& topology, Include& include,
                      Count& count) {
    state.sums.counts.assign(topology.domain_count(), 0);
    state.sums.nodes.assign(topology.domain_count(), 0);
    if (state.by_slot.size() < snapshot.slot_count()) state.by_slot.resize(snapshot.slot_count(), {-1, 0});
    // Remembered counts stay valid across label epochs: a count depends on the node's version only.
    bool remember = snapshot.generation() > 0;
    for (const auto& node : snapshot.nodes()) {
      int32_t domain = topology.DomainOf(*node);
      if (domain == TopologyIndex::kMissing || !include(*node)) continue;
      auto slot = static_cast<size_t>(node->slot());
      int64_t n = 0;
      if (remember && slot < state.by_slot.size() && state.by_slot[slot].first == node->generation()) {
        n = state.by_slot[slot].second;
      } else {
        n = count(*node);
      }
      if (slot < state.by_slot.size()) state.by_slot[slot] = {node->generation(), n};
      state.sums.counts[static_cast<size_t>(domain)] += n;
      ++state.sums.nodes[static_cast<size_t>(domain)];
    }
    state.generation = snapshot.generation();
    state.topology_epoch = snapshot.topology_epoch();
  }

  std::shared_ptr<State> Find(const std::string& key) {
    std::lock_guard lock(mu_);
    // Bounded: the sums of finished workloads are dropped wholesale now and then.
    if (states_.size() > kMaxKeys) states_.clear();
    auto& s = states_[key];
    if (!s) s = std::make_shared<State>();
    return s;
  }

  static constexpr size_t kMaxKeys = 1000;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<State>> states_;  // guarded by mu_
};

}  // namespace berth::scheduler
