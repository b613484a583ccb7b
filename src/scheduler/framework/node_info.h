#pragma once
// What the scheduler knows about a pod and a node: PodInfo wraps a pod object
// and its typed view; NodeInfo aggregates a node with the pods on it (bound or
// assumed), their summed requests and host ports. Both are values: the cache
// changes a NodeInfo and bumps its generation; snapshots share unchanged ones.

#include <cstdint>
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
  const std::vector<PodInfoPtr>& pods() const { return pods_; }
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
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  std::vector<api::HostPort> used_ports_;
  int64_t generation_ = 0;
  int32_t slot_ = -1;
};

bool HostPortsConflict(const api::HostPort& a, const api::HostPort& b);

}  // namespace berth::scheduler
