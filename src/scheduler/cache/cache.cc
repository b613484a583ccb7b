#include "scheduler/cache/cache.h"

#include <algorithm>

namespace berth::scheduler {

NodeInfo& Cache::Mutable(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    recent_.push_front(name);
    it = nodes_.emplace(name, NodeEntry{std::make_shared<NodeInfo>(), recent_.begin()}).first;
    int32_t slot = next_slot_;
    if (free_slots_.empty()) {
      ++next_slot_;
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    it->second.info->set_slot(slot);
  } else {
    // A snapshot may share it: never change what a cycle could be reading.
    if (it->second.info.use_count() > 1) it->second.info = std::make_shared<NodeInfo>(*it->second.info);
    recent_.splice(recent_.begin(), recent_, it->second.recent);
  }
  NodeInfo& info = *it->second.info;
  info.set_generation(++generation_);
  return info;
}

void Cache::AddNode(api::ObjectPtr node) {
  std::lock_guard lock(mu_);
  std::string name = node->name();
  bool known = nodes_.count(name) && nodes_[name].info->node();
  // Keep the old version alive: SetNode below may drop the last reference.
  api::ObjectPtr old_node = known ? nodes_[name].info->node_object() : nullptr;
  const api::NodeView* old_view = old_node ? old_node->As<api::NodeView>() : nullptr;
  NodeInfo& info = Mutable(name);
  info.SetNode(std::move(node));
  if (!known) {
    node_order_.push_back(name);
    ++node_list_generation_;
  }
  if (!known || old_node->labels() != info.labels()) ++topology_epoch_;
  bool images_changed = !old_view || old_view->images.size() != info.view()->images.size();
  if (!images_changed) {
    for (size_t i = 0; i < old_view->images.size() && !images_changed; ++i) {
      images_changed = old_view->images[i].names != info.view()->images[i].names;
    }
  }
  if (images_changed) {
    CountImages(old_view, -1);
    CountImages(info.view(), +1);
  }
}

void Cache::RemoveNode(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  node_order_.erase(std::remove(node_order_.begin(), node_order_.end(), name), node_order_.end());
  ++node_list_generation_;
  ++topology_epoch_;
  ++generation_;  // snapshots must notice even when nothing else changes
  CountImages(it->second.info->view(), -1);
  if (it->second.info->pods().empty()) {
    EraseNode(it);
  } else {
    // Its pods stay accounted for until their deletion is observed.
    Mutable(name).SetNode(nullptr);
  }
}

void Cache::CountImages(const api::NodeView* view, int delta) {
  if (!view || view->images.empty()) return;
  // Snapshots share the map: change a copy.
  auto images = image_nodes_ ? std::make_shared<std::unordered_map<std::string, int>>(*image_nodes_)
                             : std::make_shared<std::unordered_map<std::string, int>>();
  for (const auto& image : view->images) {
    for (const auto& n : image.names) {
      int& count = (*images)[n];
      count += delta;
      if (count <= 0) images->erase(n);
    }
  }
  image_nodes_ = std::move(images);
}

void Cache::AddPod(PodInfoPtr pod) {
  std::lock_guard lock(mu_);
  const std::string& node = pod->view->node_name;
  auto it = pods_.find(pod->key);
  if (it != pods_.end()) {
    if (it->second.node == node && it->second.pod->uid() == pod->uid()) {
      const PodInfo& old = *it->second.pod;
      if (old.labels() == pod->labels() && old.view->requests == pod->view->requests &&
          old.view->host_ports == pod->view->host_ports && old.view->terminating == pod->view->terminating) {
        // The bound version of an assumed pod: nothing the plugins read changed,
        // so the NodeInfo (and the snapshots sharing it) stay as they are;
        // the entry keeps the newest version (the drift check reads it).
        if (it->second.assumed) --assumed_count_;
        it->second.assumed = false;
        it->second.pod = std::move(pod);
        return;
      }
      // Updated in place: replace the pod, keep the accounting exact.
      NodeInfo& info = Mutable(node);
      info.RemovePod(pod->key);
      info.AddPod(pod);
      it->second.pod = std::move(pod);
      if (it->second.assumed) --assumed_count_;
      it->second.assumed = false;
      return;
    }
    RemovePodLocked(pod->key);
  }
  if (node.empty()) return;
  Mutable(node).AddPod(pod);
  std::string key = pod->key;
  pods_[key] = PodEntry{std::move(pod), node, false, false, {}};
}

void Cache::RemovePodLocked(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  std::string node = it->second.node;
  if (it->second.assumed) --assumed_count_;
  pods_.erase(it);
  auto n = nodes_.find(node);
  if (n == nodes_.end()) return;
  Mutable(node).RemovePod(key);
  // A node already deleted goes once its last pod does.
  auto& entry = nodes_[node];
  if (!entry.info->node() && entry.info->pods().empty()) EraseNode(nodes_.find(node));
}

void Cache::EraseNode(std::unordered_map<std::string, NodeEntry>::iterator it) {
  free_slots_.push_back(it->second.info->slot());
  recent_.erase(it->second.recent);
  nodes_.erase(it);
}

void Cache::RemovePod(const std::string& key) {
  std::lock_guard lock(mu_);
  RemovePodLocked(key);
}

Cache::AssumeResult Cache::AssumePod(PodInfoPtr pod, const std::string& node, int64_t seen_generation,
                                     const std::function<bool(const NodeInfo&)>& still_fits,
                                     const std::function<void()>& on_assumed) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(node);
  if (it == nodes_.end() || !it->second.info->node()) return AssumeResult::kNodeGone;
  if (it->second.info->generation() != seen_generation && !still_fits(*it->second.info)) {
    return AssumeResult::kConflict;
  }
  if (pods_.count(pod->key)) RemovePodLocked(pod->key);
  Mutable(node).AddPod(pod);
  std::string key = pod->key;
  pods_[key] = PodEntry{std::move(pod), node, true, false, {}};
  ++assumed_count_;
  if (on_assumed) on_assumed();
  return AssumeResult::kAssumed;
}

void Cache::ForgetPod(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || !it->second.assumed) return;
  RemovePodLocked(key);
}

void Cache::FinishBinding(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end() || !it->second.assumed) return;
  it->second.binding_finished = true;
  it->second.deadline = now + assumed_ttl_;
}

void Cache::CleanupExpiredAssumedPods(Clock::time_point now) {
  std::lock_guard lock(mu_);
  std::vector<std::string> expired;
  for (const auto& [key, entry] : pods_) {
    if (entry.assumed && entry.binding_finished && entry.deadline < now) expired.push_back(key);
  }
  for (const auto& key : expired) RemovePodLocked(key);
}

bool Cache::IsAssumed(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  return it != pods_.end() && it->second.assumed;
}

std::string Cache::NodeOf(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  return it == pods_.end() ? std::string() : it->second.node;
}

size_t Cache::NodeCount() const {
  std::lock_guard lock(mu_);
  return node_order_.size();
}

std::vector<Cache::Version> Cache::NodeVersions() const {
  std::lock_guard lock(mu_);
  std::vector<Version> out;
  out.reserve(node_order_.size());
  for (const auto& name : node_order_) {
    api::ObjectPtr node = nodes_.at(name).info->node_object();
    out.push_back({name, node->resource_version(), false, node});
  }
  return out;
}

std::vector<Cache::Version> Cache::PodVersions() const {
  std::lock_guard lock(mu_);
  std::vector<Version> out;
  out.reserve(pods_.size());
  for (const auto& [key, entry] : pods_) {
    out.push_back({key, entry.pod->object->resource_version(), entry.assumed, entry.pod->object});
  }
  return out;
}

size_t Cache::PodCount() const {
  std::lock_guard lock(mu_);
  return pods_.size();
}

size_t Cache::AssumedPodCount() const {
  std::lock_guard lock(mu_);
  return assumed_count_;
}

NodeInfoPtr Cache::GetNode(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : std::make_shared<const NodeInfo>(*it->second.info);
}

void Cache::UpdateSnapshot(Snapshot& snapshot) const {
  std::lock_guard lock(mu_);
  if (snapshot.generation_ == generation_) return;
  snapshot.image_nodes_ = image_nodes_;
  snapshot.topologies_ = topologies_;
  snapshot.topology_epoch_ = topology_epoch_;
  bool rebuild = snapshot.nodes_.size() != node_order_.size() || snapshot.list_generation_ != node_list_generation_;
  if (rebuild) {
    snapshot.nodes_.clear();
    snapshot.nodes_.reserve(node_order_.size());
    for (const auto& name : node_order_) snapshot.nodes_.push_back(nodes_.at(name).info);
    snapshot.list_generation_ = node_list_generation_;
    snapshot.RebuildIndexes();
    snapshot.changes_.clear();
    snapshot.changes_floor_ = generation_;
  } else {
    for (const auto& name : recent_) {
      const auto& info = nodes_.at(name).info;
      if (info->generation() <= snapshot.generation_) break;
      auto idx = snapshot.index_.find(name);
      if (idx == snapshot.index_.end()) continue;  // a node object not seen yet
      snapshot.Replace(idx->second, info);
      snapshot.changes_.push_back({info->generation(), static_cast<uint32_t>(idx->second)});
    }
    snapshot.TrimChanges();
  }
  snapshot.generation_ = generation_;
}

}  // namespace berth::scheduler
