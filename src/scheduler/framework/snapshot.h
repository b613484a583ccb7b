#pragma once
// A consistent view of the cluster for scheduling cycles: NodeInfos shared
// (copy-on-write) with the cache, in a stable order, updated incrementally by
// generation (Cache::UpdateSnapshot). A snapshot is owned by one scheduling
// worker; it is never changed while a cycle reads it.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/node_info.h"
#include "scheduler/framework/topology_index.h"

namespace berth::scheduler {

using NodeInfoPtr = std::shared_ptr<const NodeInfo>;

class Snapshot {
 public:
  const std::vector<NodeInfoPtr>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  // nullptr when the node is unknown.
  const NodeInfo* Get(std::string_view name) const;
  // The same node, shared (nullptr when unknown).
  NodeInfoPtr GetShared(std::string_view name) const;
  // Nodes with at least one pod that has (anti-)affinity terms / required anti-affinity.
  // (In no particular order.)
  const std::vector<const NodeInfo*>& have_pods_with_affinity() const { return have_pods_with_affinity_.nodes; }
  const std::vector<const NodeInfo*>& have_pods_with_required_anti_affinity() const {
    return have_pods_with_required_anti_affinity_.nodes;
  }
  // How many nodes report having `image` (ImageLocality's spread factor).
  int ImageNodeCount(const std::string& image) const;
  int64_t generation() const { return generation_; }

  // The nodes' domains for a topology key (built once per key and epoch,
  // shared between the cache's snapshots).
  TopologyIndexPtr Topology(const std::string& key) const { return topologies_->Get(*this, key); }
  // Changes whenever a node comes, goes or changes its labels.
  int64_t topology_epoch() const { return topology_epoch_; }
  // One past the largest node slot: the size of per-node vectors.
  size_t slot_count() const { return slot_count_; }

  // The nodes this snapshot replaced since it was last rebuilt, as
  // (generation, index in nodes()), in no particular order; complete for
  // every change after changes_floor(): a consumer whose state reflects
  // generation G >= changes_floor() catches up by re-reading the entries
  // newer than G (DomainSums does).
  const std::vector<std::pair<int64_t, uint32_t>>& changes() const { return changes_; }
  int64_t changes_floor() const { return changes_floor_; }

  // Builds a snapshot from a list of nodes (tests, benchmarks); the nodes are
  // copied so that each gets a slot (its position).
  static Snapshot FromNodes(const std::vector<NodeInfoPtr>& nodes);

 private:
  friend class Cache;
  void RebuildIndexes();
  void RebuildAffinityLists();
  // Puts `info` at `index` (a newer version of the node there), keeping the affinity lists.
  void Replace(size_t index, NodeInfoPtr info);
  // Keeps the change log bounded (the floor rises with what is dropped).
  void TrimChanges();

  std::vector<NodeInfoPtr> nodes_;
  std::unordered_map<std::string, size_t> index_;
  // A list of nodes kept in step with nodes_: members in any order, with
  // each member's position so that a replaced node is updated in O(1).
  struct NodeList {
    std::vector<const NodeInfo*> nodes;
    std::vector<uint32_t> indexes;  // of nodes[i] in Snapshot::nodes_
    std::vector<int32_t> position;  // by index in Snapshot::nodes_: in `nodes`, or -1
    void Clear(size_t size);
    void Set(size_t index, const NodeInfo* node, bool member);
  };
  NodeList have_pods_with_affinity_;
  NodeList have_pods_with_required_anti_affinity_;
  std::shared_ptr<const std::unordered_map<std::string, int>> image_nodes_;
  std::shared_ptr<TopologyIndexes> topologies_ = std::make_shared<TopologyIndexes>();
  int64_t generation_ = 0;
  int64_t list_generation_ = -1;
  int64_t topology_epoch_ = 0;
  size_t slot_count_ = 0;
  std::vector<std::pair<int64_t, uint32_t>> changes_;
  int64_t changes_floor_ = 0;
};

}  // namespace berth::scheduler
