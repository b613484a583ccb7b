#pragma once
// What the scheduler knows about a pod and a node: PodInfo wraps a pod object
// and its typed view; NodeInfo aggregates a node with the pods on it (bound or
// assumed), their summed requests and host ports. Both are values: the cache
// changes a NodeInfo and bumps its generation; snapshots share unchanged ones.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "api/node_view.h"
#include "api/object.h"
#include "api/pod_view.h"

namespace berth::scheduler {

struct PodInfo {
  api::ObjectPtr object;
  const api::PodView* view = nullptr;
  std::string key;  // "namespace/name"

  const std::string& name() const { return object->name(); }
  const std::string& namespace_name() const { return object->namespace_name(); }
  const std::string& uid() const { return object->uid(); }
  const api::Labels& labels() const { return object->labels(); }
};
using PodInfoPtr = std::shared_ptr<const PodInfo>;

// REQUIRES: `pod` is a Pod (its view is a PodView).
PodInfoPtr MakePodInfo(api::ObjectPtr pod);
std::string PodKey(const api::Object& pod);

// The pods on a node, in fixed-size chunks that copies of the list share
// (copy-on-write): copying a list copies a pointer per chunk, and a change
// copies only the chunks it touches. The cache copies a NodeInfo that
// snapshots share before every change (each assumed pod), so this keeps that
// copy from growing with the pods on the node. Not thread-safe: a list that
// is being changed is not read elsewhere (the cache's own copy); chunks shared
// with other lists are never changed.
class PodList {
  using Chunk = std::vector<PodInfoPtr>;
  using Chunks = std::vector<std::shared_ptr<Chunk>>;

 public:
  static constexpr size_t kChunk = 16;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void push_back(PodInfoPtr pod);
  // Removes the pod with `key` (the last pod takes its place) and returns it;
  // nullptr when no pod has that key.
  PodInfoPtr Remove(const std::string& key);
  const PodInfoPtr* Find(const std::string& key) const;

  class const_iterator {
   public:
    using value_type = PodInfoPtr;
    using difference_type = std::ptrdiff_t;
    using reference = const PodInfoPtr&;
    using pointer = const PodInfoPtr*;
    using iterator_category = std::forward_iterator_tag;
    const_iterator() = default;
    reference operator*() const { return (*(*chunks_)[chunk_])[pos_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      if (++pos_ == (*chunks_)[chunk_]->size()) {
        ++chunk_;
        pos_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& o) const { return chunk_ == o.chunk_ && pos_ == o.pos_; }

   private:
    friend class PodList;
    const_iterator(const Chunks* chunks, size_t chunk) : chunks_(chunks), chunk_(chunk) {}
    const Chunks* chunks_ = nullptr;
    size_t chunk_ = 0, pos_ = 0;
  };
  // Every chunk holds at least one pod, so the end is (chunk count, 0).
  const_iterator begin() const { return {&chunks_, 0}; }
  const_iterator end() const { return {&chunks_, chunks_.size()}; }

 private:
  // Chunk `i`, copied first when another list shares it.
  Chunk& Mutable(size_t i);

  Chunks chunks_;  // all full but the last, none empty
  size_t size_ = 0;
};

class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(api::ObjectPtr node) { SetNode(std::move(node)); }

  // nullptr while pods name a node the cache has not seen yet.
  const api::Object* node() const { return node_.get(); }
  const api::ObjectPtr& node_object() const { return node_; }
  const api::NodeView* view() const { return view_; }
  const std::string& name() const { return name_; }
  const api::Labels& labels() const;
  // Copied from the node's view so that the plugins run over every node of a
  // cycle find them in the NodeInfo they already read (one cache miss fewer).
  const api::ResourceList& allocatable() const { return allocatable_; }
  bool unschedulable() const { return unschedulable_; }
  bool has_taints() const { return has_taints_; }
  bool has_images() const { return has_images_; }

  // Sum of the pods' effective requests (and of their non-zero requests).
  const api::ResourceList& requested() const { return requested_; }
  const api::ResourceList& non_zero_requested() const { return non_zero_requested_; }
  const PodList& pods() const { return pods_; }
  // Pods with any pod affinity or anti-affinity term, and those with required anti-affinity.
  const std::vector<PodInfoPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const std::vector<api::HostPort>& used_ports() const { return used_ports_; }
  // Whether `port` conflicts with a used port (same protocol and port; the IPs
  // equal or either 0.0.0.0), kube's HostPortInfo.CheckConflict.
  bool PortConflicts(const api::HostPort& port) const;

  // Changes with every modification, from the cache's counter.
  int64_t generation() const { return generation_; }
  void set_generation(int64_t g) { generation_ = g; }
  // A small integer naming this node among the nodes of its snapshot (the
  // cache's slot, reused only after the node is gone): per-node data of a
  // cycle lives in vectors indexed by it (TopologyIndex, count caches).
  // -1 for a NodeInfo that belongs to no cache or snapshot.
  int32_t slot() const { return slot_; }
  void set_slot(int32_t slot) { slot_ = slot; }

  void SetNode(api::ObjectPtr node);
  void AddPod(PodInfoPtr pod);
  // False when no pod with that key is on the node.
  bool RemovePod(const std::string& key);
  const PodInfoPtr* FindPod(const std::string& key) const;

 private:
  api::ObjectPtr node_;
  const api::NodeView* view_ = nullptr;
  std::string name_;
  api::ResourceList allocatable_;
  bool unschedulable_ = false;
  bool has_taints_ = false;
  bool has_images_ = false;
  api::ResourceList requested_;
  api::ResourceList non_zero_requested_;
  PodList pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  std::vector<api::HostPort> used_ports_;
  int64_t generation_ = 0;
  int32_t slot_ = -1;
};

}  // namespace berth::scheduler
