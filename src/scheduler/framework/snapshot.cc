#include "scheduler/framework/snapshot.h"

#include <algorithm>

namespace berth::scheduler {

const NodeInfo* Snapshot::Get(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : nodes_[it->second].get();
}

NodeInfoPtr Snapshot::GetShared(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : nodes_[it->second];
}

int Snapshot::ImageNodeCount(const std::string& image) const {
  if (!image_nodes_) return 0;
  auto it = image_nodes_->find(image);
  return it == image_nodes_->end() ? 0 : it->second;
}

Snapshot Snapshot::FromNodes(const std::vector<NodeInfoPtr>& nodes) {
  Snapshot s;
  s.nodes_.reserve(nodes.size());
  for (const auto& n : nodes) {
    auto copy = std::make_shared<NodeInfo>(*n);
    copy->set_slot(static_cast<int32_t>(s.nodes_.size()));
    s.nodes_.push_back(std::move(copy));
  }
  auto images = std::make_shared<std::unordered_map<std::string, int>>();
  for (const auto& n : s.nodes_) {
    if (!n->view()) continue;
    for (const auto& image : n->view()->images) {
      for (const auto& name : image.names) (*images)[name]++;
    }
  }
  s.image_nodes_ = std::move(images);
  s.RebuildIndexes();
  return s;
}

void Snapshot::RebuildIndexes() {
  index_.clear();
  index_.reserve(nodes_.size());
  slot_count_ = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    index_.emplace(nodes_[i]->name(), i);
    slot_count_ = std::max(slot_count_, static_cast<size_t>(nodes_[i]->slot() + 1));
  }
  RebuildAffinityLists();
}

void Snapshot::NodeList::Clear(size_t size) {
  nodes.clear();
  indexes.clear();
  position.assign(size, -1);
}

void Snapshot::NodeList::Set(size_t index, const NodeInfo* node, bool member) {
  int32_t& at = position[index];
  if (member) {
    if (at >= 0) {
      nodes[static_cast<size_t>(at)] = node;
      return;
    }
    at = static_cast<int32_t>(nodes.size());
    nodes.push_back(node);
    indexes.push_back(static_cast<uint32_t>(index));
    return;
  }
  if (at < 0) return;
  // Swap-remove: the last member takes the freed place.
  auto freed = static_cast<size_t>(at);
  nodes[freed] = nodes.back();
  indexes[freed] = indexes.back();
  position[indexes[freed]] = at;
  nodes.pop_back();
  indexes.pop_back();
  at = -1;
}

void Snapshot::RebuildAffinityLists() {
  have_pods_with_affinity_.Clear(nodes_.size());
  have_pods_with_required_anti_affinity_.Clear(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeInfo* n = nodes_[i].get();
    have_pods_with_affinity_.Set(i, n, !n->pods_with_affinity().empty());
    have_pods_with_required_anti_affinity_.Set(i, n, !n->pods_with_required_anti_affinity().empty());
  }
}

void Snapshot::Replace(size_t index, NodeInfoPtr info) {
  have_pods_with_affinity_.Set(index, info.get(), !info->pods_with_affinity().empty());
  have_pods_with_required_anti_affinity_.Set(index, info.get(), !info->pods_with_required_anti_affinity().empty());
  nodes_[index] = std::move(info);
}

void Snapshot::TrimChanges() {
  constexpr size_t kMaxChanges = 8192;
  if (changes_.size() <= kMaxChanges) return;
  size_t drop = changes_.size() - kMaxChanges / 2;
  for (size_t i = 0; i < drop; ++i) changes_floor_ = std::max(changes_floor_, changes_[i].first);
  changes_.erase(changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace berth::scheduler
