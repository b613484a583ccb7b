#include "scheduler/framework/registry.h"

#include "scheduler/plugins/basic/basic_plugins.h"
#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_label_weights/node_label_weights.h"
#include "scheduler/plugins/node_resources/node_resources_fit.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

namespace berth::scheduler {

namespace {

// A plugin without arguments: any given are an error naming the first.
template <typename P, typename... Ctor>
PluginFactory NoArgs(Ctor... ctor) {
  return [=](const boost::json::object& args, const Handle& handle) -> Result<std::shared_ptr<Plugin>> {
    if (!args.empty()) return Status::BadRequest(std::string(args.begin()->key()) + ": unknown field");
    if constexpr (std::is_constructible_v<P, const Handle&>) {
      return std::shared_ptr<Plugin>(std::make_shared<P>(handle));
    } else {
      return std::shared_ptr<Plugin>(std::make_shared<P>());
    }
  };
}

}  // namespace

Registry InTreeRegistry() {
  Registry r;
  r.Register("PrioritySort", NoArgs<PrioritySort>());
  r.Register("SchedulingGates", NoArgs<SchedulingGates>());
  r.Register("NodeUnschedulable", NoArgs<NodeUnschedulable>());
  r.Register("NodeName", NoArgs<NodeName>());
  r.Register("NodePorts", NoArgs<NodePorts>());
  r.Register("TaintToleration", NoArgs<TaintToleration>());
  r.Register("ImageLocality", NoArgs<ImageLocality>());
  r.Register("DefaultBinder", NoArgs<DefaultBinder>());
  r.Register("NodeAffinity", NewNodeAffinity);
  r.Register("NodeResourcesFit", NewNodeResourcesFit);
  r.Register("NodeResourcesBalancedAllocation", NewNodeResourcesBalancedAllocation);
  r.Register("PodTopologySpread", NewPodTopologySpread);
  r.Register("InterPodAffinity", NewInterPodAffinity);
  r.Register("DefaultPreemption", NewDefaultPreemption);
  r.Register("NodeLabelWeights", NewNodeLabelWeights);
  return r;
}

}  // namespace berth::scheduler
