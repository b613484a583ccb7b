#include "scheduler/framework/node_info.h"

#include <algorithm>
#include <atomic>

namespace berth::scheduler {

namespace {

const api::Labels kNoLabels;
const api::ResourceList kNoResources;

void Erase(std::vector<PodInfoPtr>& pods, const std::string& key) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const PodInfoPtr& p) { return p->key == key; });
  if (it == pods.end()) return;
  *it = std::move(pods.back());
  pods.pop_back();
}

}  // namespace

std::string PodKey(const api::Object& pod) { return pod.namespace_name() + "/" + pod.name(); }

PodInfoPtr MakePodInfo(api::ObjectPtr pod) {
  auto info = std::make_shared<PodInfo>();
  info->view = pod->As<api::PodView>();
  info->key = PodKey(*pod);
  info->object = std::move(pod);
  return info;
}

PodList::Chunk& PodList::Mutable(size_t i) {
  std::shared_ptr<Chunk>& chunk = chunks_[i];
  if (chunk.use_count() > 1) {
    auto copy = std::make_shared<Chunk>();
    copy->reserve(kChunk);
    copy->assign(chunk->begin(), chunk->end());
    chunk = std::move(copy);
  } else {
    // Sole owner: whoever held it before let go with a release decrement;
    // see their reads before changing it.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *chunk;
}

void PodList::push_back(PodInfoPtr pod) {
  if (chunks_.empty() || chunks_.back()->size() == kChunk) {
    chunks_.push_back(std::make_shared<Chunk>());
    chunks_.back()->reserve(kChunk);
  }
  Mutable(chunks_.size() - 1).push_back(std::move(pod));
  ++size_;
}

const PodInfoPtr* PodList::Find(const std::string& key) const {
  for (const auto& chunk : chunks_) {
    for (const auto& p : *chunk) {
      if (p->key == key) return &p;
    }
  }
  return nullptr;
}

PodInfoPtr PodList::Remove(const std::string& key) {
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const Chunk& chunk = *chunks_[c];
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (chunk[i]->key != key) continue;
      Chunk& last = Mutable(chunks_.size() - 1);
      PodInfoPtr moved = std::move(last.back());
      last.pop_back();
      PodInfoPtr removed;
      if (c == chunks_.size() - 1 && i == last.size()) {
        removed = std::move(moved);  // it was the last pod
      } else {
        Chunk& at = Mutable(c);
        removed = std::move(at[i]);
        at[i] = std::move(moved);
      }
      if (chunks_.back()->empty()) chunks_.pop_back();
      --size_;
      return removed;
    }
  }
  return nullptr;
}

const api::Labels& NodeInfo::labels() const { return node_ ? node_->labels() : kNoLabels; }


bool NodeInfo::PortConflicts(const api::HostPort& port) const {
  for (const auto& used : used_ports_) {
    if (api::HostPortsConflict(used, port)) return true;
  }
  return false;
}

void NodeInfo::SetNode(api::ObjectPtr node) {
  view_ = node ? node->As<api::NodeView>() : nullptr;
  if (node) name_ = node->name();
  node_ = std::move(node);
  allocatable_ = view_ ? view_->allocatable : kNoResources;
  unschedulable_ = view_ && view_->unschedulable;
  has_taints_ = view_ && !view_->taints.empty();
  has_images_ = view_ && !view_->images.empty();
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  const api::PodView& v = *pod->view;
  requested_.Add(v.requests);
  requested_.pods += 1;
  non_zero_requested_.Add(v.non_zero_requests);
  non_zero_requested_.pods += 1;
  used_ports_.insert(used_ports_.end(), v.host_ports.begin(), v.host_ports.end());
  if (v.HasAffinityConstraints()) pods_with_affinity_.push_back(pod);
  if (!v.pod_anti_affinity.required.empty()) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
}

bool NodeInfo::RemovePod(const std::string& key) {
  PodInfoPtr pod = pods_.Remove(key);
  if (!pod) return false;
  const api::PodView& v = *pod->view;
  requested_.Subtract(v.requests);
  requested_.pods -= 1;
  non_zero_requested_.Subtract(v.non_zero_requests);
  non_zero_requested_.pods -= 1;
  for (const auto& port : v.host_ports) {
    auto p = std::find(used_ports_.begin(), used_ports_.end(), port);
    if (p != used_ports_.end()) used_ports_.erase(p);
  }
  if (v.HasAffinityConstraints()) Erase(pods_with_affinity_, key);
  if (!v.pod_anti_affinity.required.empty()) Erase(pods_with_required_anti_affinity_, key);
  return true;
}

const PodInfoPtr* NodeInfo::FindPod(const std::string& key) const { return pods_.Find(key); }

}  // namespace berth::scheduler
