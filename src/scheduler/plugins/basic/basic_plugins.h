#pragma once
// The small in-tree plugins, each a few lines of kube-scheduler's semantics:
// PrioritySort, SchedulingGates, NodeUnschedulable, NodeName, NodePorts,
// TaintToleration, ImageLocality and DefaultBinder. The larger ones have
// their own folders.

#include <memory>

#include <boost/json/object.hpp>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

// QueueSort: higher spec.priority first, then earlier queue timestamp.
class PrioritySort final : public QueueSortPlugin {
 public:
  static constexpr std::string_view kName = "PrioritySort";
  std::string_view Name() const override { return kName; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
  bool HasSortKey() const override { return true; }
  QueueSortKey SortKey(const QueuedPodInfo& pod) const override;
};

// PreEnqueue: a pod with spec.schedulingGates waits until they are removed.
class SchedulingGates final : public PreEnqueuePlugin {
 public:
  static constexpr std::string_view kName = "SchedulingGates";
  std::string_view Name() const override { return kName; }
  PluginStatus PreEnqueue(const PodInfo& pod) const override;
};

// Filter: spec.unschedulable nodes, unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
class NodeUnschedulable final : public FilterPlugin {
 public:
  static constexpr std::string_view kName = "NodeUnschedulable";
  static constexpr std::string_view kReason = "node(s) were unschedulable";
  std::string_view Name() const override { return kName; }
  PluginStatus Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override;
};

// Filter: spec.nodeName, when set, must name the node.
class NodeName final : public FilterPlugin {
 public:
  static constexpr std::string_view kName = "NodeName";
  static constexpr std::string_view kReason = "node(s) didn't match the requested node name";
  std::string_view Name() const override { return kName; }
  PluginStatus Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override;
};

// PreFilter + Filter: the pod's host ports must be free on the node.
class NodePorts final : public PreFilterPlugin, public FilterPlugin {
 public:
  static constexpr std::string_view kName = "NodePorts";
  static constexpr std::string_view kReason = "node(s) didn't have free ports for the requested pod ports";
  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState&, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override;
};

// Filter: NoSchedule and NoExecute taints must be tolerated. Score: fewer
// untolerated PreferNoSchedule taints score higher.
class TaintToleration final : public FilterPlugin, public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr std::string_view kName = "TaintToleration";
  std::string_view Name() const override { return kName; }
  PluginStatus Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus PreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const>) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const override;
};

// Score: nodes that already have the pod's images (weighted by how widely
// each image is spread, kube's rule) score higher.
class ImageLocality final : public ScorePlugin {
 public:
  static constexpr std::string_view kName = "ImageLocality";
  std::string_view Name() const override { return kName; }
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
};

// Bind: POST pods/{name}/binding through the handle.
class DefaultBinder final : public BindPlugin {
 public:
  static constexpr std::string_view kName = "DefaultBinder";
  explicit DefaultBinder(const Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }
  PluginStatus Bind(CycleState&, const PodInfo& pod, const std::string& node) const override;

 private:
  const Handle& handle_;
};

// "nginx" → "nginx:latest": how kube names an untagged image for ImageLocality.
std::string NormalizedImageName(std::string_view image);

}  // namespace berth::scheduler
