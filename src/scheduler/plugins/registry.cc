#include "scheduler/framework/registry.h"

#include "scheduler/plugins/basic/basic_plugins.h"
#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_label_weights/node_label_weights.h"
#include "scheduler/plugins/node_resources/node_resources_fit.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"
#include "scheduler/plugins/volume_limits/node_volume_limits.h"
#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"
#include "scheduler/plugins/volume_zone/volume_zone.h"
#include "scheduler/plugins/volume_zone_affinity/volume_zone_affinity.h"

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
  r.Register("VolumeBinding", NewVolumeBinding);
  r.Register("VolumeRestrictions", NoArgs<VolumeRestrictions>());
  r.Register("NodeVolumeLimits", NoArgs<NodeVolumeLimits>());
  r.Register("VolumeZone", NoArgs<VolumeZone>());
  r.Register("VolumeZoneAffinity", NoArgs<VolumeZoneAffinity>());
  return r;
}

}  // namespace berth::scheduler
