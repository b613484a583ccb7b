#pragma once
// Per-node values remembered by node version. Consecutive pods of one
// workload ask plugins the same question of every node ("how many pods here
// match my selector?"), and between two such pods only the nodes they went to
// have changed. A NodeValueCache keeps, per question (a "matcher" string that
// captures everything the answer depends on besides the node), each node's
// answer with the node's generation; an answer is recomputed only when the
// node's generation differs. NodeInfo generations come from the cache's
// global counter and are never reused, so a slot reused by another node can
// never return a stale answer.
//
// Thread-safe: a Session holds its matcher's lock; open one session at a time
// per thread (sessions of two matchers held at once could deadlock).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

template <typename Value>
class NodeValueCache {
  struct Entry {
    std::mutex mu;
    std::vector<std::pair<int64_t, Value>> by_slot;  // (generation, value); guarded by mu
  };

 public:
  class Session {
   public:
    // The node's value: remembered, or `compute(cacheable)` (which may set
    // `cacheable` to false when the answer depends on more than the node).
    // Nodes outside a cache (generation 0, no slot) are always computed.
    template <typename Compute>
    const Value& Get(const NodeInfo& node, Compute&& compute) {
      auto slot = static_cast<size_t>(static_cast<uint32_t>(node.slot()));
      bool known = node.generation() > 0 && slot < entry_->by_slot.size();
      if (known && entry_->by_slot[slot].first == node.generation()) return entry_->by_slot[slot].second;
      bool cacheable = true;
      Value value = compute(cacheable);
      if (!known || !cacheable) {
        if (known) entry_->by_slot[slot].first = -1;
        scratch_ = std::move(value);
        return scratch_;
      }
      entry_->by_slot[slot] = {node.generation(), std::move(value)};
      return entry_->by_slot[slot].second;
    }

   private:
    friend class NodeValueCache;
    Session(std::shared_ptr<Entry> entry, size_t slot_count) : entry_(std::move(entry)), lock_(entry_->mu) {
      if (entry_->by_slot.size() < slot_count) entry_->by_slot.resize(slot_count, {-1, Value{}});
    }
    std::shared_ptr<Entry> entry_;
    std::unique_lock<std::mutex> lock_;
    Value scratch_{};
  };

  // `slot_count`: the snapshot's (Snapshot::slot_count).
  Session Open(const std::string& matcher, size_t slot_count) {
    std::shared_ptr<Entry> entry;
    {
      std::lock_guard lock(mu_);
      // Bounded: the answers of finished workloads are dropped wholesale now and then.
      if (entries_.size() > kMaxMatchers) entries_.clear();
      auto& e = entries_[matcher];
      if (!e) e = std::make_shared<Entry>();
      entry = e;
    }
    return Session(std::move(entry), slot_count);
  }

 private:
  static constexpr size_t kMaxMatchers = 1000;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;  // guarded by mu_
};

}  // namespace berth::scheduler
