#pragma once
// kube-scheduler's FitError message: "0/N nodes are available: " then the
// nodes' reasons counted and sorted ("3 Insufficient cpu, 2 node(s) had
// untolerated taint {…}"), each part ending with ".", then a PostFilter
// plugin's message (preemption's "preemption: …") as one more part.

#include <span>
#include <string>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

// A reason that `count` nodes share, counted without a status per node.
struct ReasonCount {
  std::string_view reason;
  size_t count;
};

// `pre_filter`: a PreFilter rejection (its message stands for every node).
// `counted`: reasons of further nodes, given as counts. `absent`: the status
// of the nodes in neither (num_nodes - rejected.size() - the counts; nullptr:
// none counted). `post_filter`: appended when not empty.
std::string FitErrorMessage(size_t num_nodes, const PluginStatus* pre_filter, std::span<const NodeStatus> rejected,
                            const PluginStatus* absent = nullptr, std::string_view post_filter = {},
                            std::span<const ReasonCount> counted = {});

}  // namespace berth::scheduler
