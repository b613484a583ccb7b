#pragma once
// Topology domains as small integers. For one topology key (zone, hostname,
// ...) a TopologyIndex gives each node of a snapshot its domain id (or
// kMissing when the node lacks the label), so plugins that count pods per
// domain (PodTopologySpread, InterPodAffinity) use vectors indexed by domain
// instead of hashing label strings for every node of every cycle.
//
// Indexes are built once per key and node-label epoch (the cache bumps the
// epoch whenever a node comes, goes, or changes its labels) and shared by all
// scheduling workers through TopologyIndexes.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

class Snapshot;

class TopologyIndex {
 public:
  static constexpr int32_t kMissing = -1;

  TopologyIndex(const Snapshot& snapshot, std::string_view key);

  // The node's domain; kMissing when it has no label for the key (or is not
  // a node of the snapshot this index was built from).
  int32_t DomainOf(const NodeInfo& node) const {
    auto slot = static_cast<size_t>(static_cast<uint32_t>(node.slot()));
    return slot < domain_by_slot_.size() ? domain_by_slot_[slot] : kMissing;
  }
  // How many distinct values the key has across the snapshot's nodes.
  size_t domain_count() const { return ids_.size(); }
  // The domain of a label value; kMissing when no node has it.
  int32_t Find(std::string_view value) const;
  const std::string& key() const { return key_; }
  int64_t epoch() const { return epoch_; }

 private:
  std::string key_;
  int64_t epoch_;
  std::vector<int32_t> domain_by_slot_;
  std::unordered_map<std::string, int32_t> ids_;  // value → domain
};

using TopologyIndexPtr = std::shared_ptr<const TopologyIndex>;

// The indexes of every key asked for, kept for the newest epoch seen.
// Thread-safe: scheduling workers with snapshots of different epochs share it.
class TopologyIndexes {
 public:
  TopologyIndexPtr Get(const Snapshot& snapshot, const std::string& key);

 private:
  std::mutex mu_;
  std::unordered_map<std::string, TopologyIndexPtr> by_key_;  // guarded by mu_
};

}  // namespace berth::scheduler
