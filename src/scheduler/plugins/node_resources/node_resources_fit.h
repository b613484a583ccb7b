#pragma once
// NodeResourcesFit (kube's noderesources Fit): Filter on cpu, memory,
// ephemeral-storage, pods and extended resources; Score by a strategy:
// LeastAllocated (the default, spreading), MostAllocated (bin packing) or
// RequestedToCapacityRatio (a utilisation → score curve). Each averages its
// resources' scores by weight, truncated; RequestedToCapacityRatio averages
// only the resources its curve scores above 0, rounded to the nearest.
//
// berth's argument `headroomPercent` (0–99, default 0) keeps that share of
// every resource but pods free on each node: a pod fits only if requests stay
// within allocatable × (100 − headroomPercent) / 100.
//
// NodeResourcesBalancedAllocation: Score favours nodes whose resource usage
// fractions stay close to each other after placing the pod.
//
// What the scores read, as kube's: the strategies count a container without a
// cpu or memory request as 100m / 200Mi (the pod's and the node's pods'
// non-zero requests); BalancedAllocation counts real requests. Both leave out
// an extended resource the pod does not request or the node does not have.

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "api/resources.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

struct ResourceWeight {
  std::string name;
  int64_t weight = 1;
  // api::CommonResourceField(name), when resolved: read without comparing names.
  int64_t api::ResourceList::*field = nullptr;
};

struct ShapePoint {
  int64_t utilization;  // 0–100
  int64_t score;        // 0–10
};

class NodeResourcesFit final : public PreFilterPlugin, public FilterPlugin, public ScorePlugin {
 public:
  enum class Strategy { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };
  static constexpr std::string_view kName = "NodeResourcesFit";

  std::string_view Name() const override { return kName; }
  PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const override;
  PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const override;
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;

  // The reasons `pod` does not fit `node` ("Insufficient cpu", "Too many pods"); empty when it fits.
  std::vector<std::string> InsufficientResources(const PodInfo& pod, const NodeInfo& node) const;

  Strategy strategy = Strategy::kLeastAllocated;
  std::vector<ResourceWeight> resources{{"cpu", 1, &api::ResourceList::milli_cpu},
                                        {"memory", 1, &api::ResourceList::memory}};
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  int64_t headroom_percent = 0;
};

class NodeResourcesBalancedAllocation final : public ScorePlugin {
 public:
  static constexpr std::string_view kName = "NodeResourcesBalancedAllocation";
  std::string_view Name() const override { return kName; }
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  std::vector<ResourceWeight> resources{{"cpu", 1, &api::ResourceList::milli_cpu},
                                        {"memory", 1, &api::ResourceList::memory}};
};

Result<std::shared_ptr<Plugin>> NewNodeResourcesFit(const boost::json::object& args, const Handle& handle);
Result<std::shared_ptr<Plugin>> NewNodeResourcesBalancedAllocation(const boost::json::object& args,
                                                                   const Handle& handle);

}  // namespace berth::scheduler
