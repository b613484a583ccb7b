#include "scheduler/framework/nominator.h"

#include <algorithm>

namespace berth::scheduler {

std::string Nominator::Nominate(PodInfoPtr pod, const std::string& node) {
  std::lock_guard lock(mu_);
  std::string before;
  auto old = node_of_.find(pod->key);
  if (old != node_of_.end()) {
    before = old->second;
    auto& pods = by_node_[old->second];
    std::erase_if(pods, [&](const PodInfoPtr& p) { return p->key == pod->key; });
    if (pods.empty()) by_node_.erase(old->second);
    node_of_.erase(old);
  }
  if (!node.empty()) {
    node_of_[pod->key] = node;
    by_node_[node].push_back(std::move(pod));
  }
  count_.store(node_of_.size(), std::memory_order_relaxed);
  version_.fetch_add(1, std::memory_order_release);
  return before;
}

bool Nominator::Remove(const std::string& pod_key) {
  if (!Any()) return false;
  std::lock_guard lock(mu_);
  auto old = node_of_.find(pod_key);
  if (old == node_of_.end()) return false;
  auto& pods = by_node_[old->second];
  std::erase_if(pods, [&](const PodInfoPtr& p) { return p->key == pod_key; });
  if (pods.empty()) by_node_.erase(old->second);
  node_of_.erase(old);
  count_.store(node_of_.size(), std::memory_order_relaxed);
  version_.fetch_add(1, std::memory_order_release);
  return true;
}

std::string Nominator::NodeOf(const std::string& pod_key) const {
  if (!Any()) return "";
  std::shared_lock lock(mu_);
  auto it = node_of_.find(pod_key);
  return it == node_of_.end() ? "" : it->second;
}

std::vector<PodInfoPtr> Nominator::PodsOn(const std::string& node) const {
  if (!Any()) return {};
  std::shared_lock lock(mu_);
  auto it = by_node_.find(node);
  return it == by_node_.end() ? std::vector<PodInfoPtr>{} : it->second;
}

}  // namespace berth::scheduler
