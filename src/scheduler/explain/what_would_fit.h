#pragma once
// What would make a node take a pod that one Filter plugin rejected there:
// the smallest change, in words a user acts on ("cpu: short by 1500m (needs
// 2, 500m free of 4 allocatable)", "add a toleration for taint
// dedicated=gpu:NoSchedule", "node lacks label disktype=ssd"). One function
// per plugin that knows more than its reason; any other plugin's reason is
// repeated as it is.
//
// The hints read the pod's spec and the node as the snapshot has them; they
// restate the plugin's rule rather than call into its state, so for the
// topology-spread skew they count matching pods in the pod's namespace by the
// constraint's labelSelector only (matchLabelKeys and minDomains are not
// applied) — close to, not always exactly, the plugin's arithmetic.

#include <string>
#include <vector>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

struct FitHint {
  std::vector<std::string> changes;
  // The resources short, as a fraction of the node's allocatable, summed
  // (0 when no resource is short).
  double shortfall = 0;
};

// `plugin`: the Filter plugin that rejected the pod on `node` with `reasons`.
FitHint WhatWouldFit(const FilterPlugin& plugin, const std::vector<std::string>& reasons,
                     const PodInfo& pod, const NodeInfo& node, const Snapshot& snapshot);

// Kubernetes' canonical text of an amount of a resource ("1500m" of cpu,
// "512Mi" of memory, "3" pods).
std::string FormatAmount(std::string_view resource, int64_t amount);

}  // namespace berth::scheduler
