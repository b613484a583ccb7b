#pragma once
// POST pods/NAME/eviction, kube's EvictionREST: a pod's deletion that
// respects its PodDisruptionBudget.
//
// - A pod that cannot count against a budget (Succeeded, Failed, Pending, or
//   already being deleted) is deleted at once.
// - No budget covers the pod: deleted. More than one: refused (500, as kube).
// - One budget: an unready pod is deleted without using the budget when
//   the budget's unhealthyPodEvictionPolicy is AlwaysAllow, or (IfHealthyBudget,
//   the default) when the budget is satisfied; otherwise the budget must allow
//   a disruption: its status is current (observedGeneration) and
//   disruptionsAllowed > 0. Then disruptionsAllowed is decremented and the pod
//   recorded in status.disruptedPods in one write guarded by the budget's
//   resourceVersion, and the pod deleted gracefully. A budget that forbids it
//   answers 429 TooManyRequests with a DisruptionBudget cause.
// A pod evicted gets the condition DisruptionTarget (EvictionByEvictionAPI)
// before its deletion, as kube's PodDisruptionConditions have it.
// Success is 201 with a v1 Status "Success".

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

class EvictionSubresource final : public Subresource {
 public:
  EvictionSubresource();
  // POST only.
  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;
};

}  // namespace berth::apiserver
