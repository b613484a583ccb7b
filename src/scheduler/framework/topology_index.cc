#include "scheduler/framework/topology_index.h"

#include "scheduler/framework/snapshot.h"

namespace berth::scheduler {

TopologyIndex::TopologyIndex(const Snapshot& snapshot, std::string_view key)
    : key_(key), epoch_(snapshot.topology_epoch()) {
  int32_t max_slot = -1;
  for (const auto& node : snapshot.nodes()) max_slot = std::max(max_slot, node->slot());
  domain_by_slot_.assign(static_cast<size_t>(max_slot + 1), kMissing);
  for (const auto& node : snapshot.nodes()) {
    if (node->slot() < 0) continue;
    auto value = node->labels().Get(key);
    if (!value) continue;
    auto it = ids_.try_emplace(std::string(*value), static_cast<int32_t>(ids_.size())).first;
    domain_by_slot_[static_cast<size_t>(node->slot())] = it->second;
  }
}

int32_t TopologyIndex::Find(std::string_view value) const {
  auto it = ids_.find(std::string(value));
  return it == ids_.end() ? kMissing : it->second;
}

TopologyIndexPtr TopologyIndexes::Get(const Snapshot& snapshot, const std::string& key) {
  {
    std::lock_guard lock(mu_);
    auto it = by_key_.find(key);
    if (it != by_key_.end() && it->second->epoch() == snapshot.topology_epoch()) return it->second;
  }
  auto built = std::make_shared<const TopologyIndex>(snapshot, key);
  std::lock_guard lock(mu_);
  TopologyIndexPtr& slot = by_key_[key];
  // Keep the newest: a worker still on an older snapshot builds its own.
  if (!slot || slot->epoch() <= built->epoch()) slot = built;
  return built;
}

}  // namespace berth::scheduler
