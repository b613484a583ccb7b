#pragma once
// Internal to framework.cc and framework_build.cc: the extension_point label
// of each Framework::Point, and the status label of each Code, as kube's
// metrics spell them.

namespace berth::scheduler::framework_labels {

inline constexpr const char* kPointNames[] = {"PreFilter", "Filter", "PreScore", "Score",
                                              "Reserve",   "Permit", "PreBind",  "Bind"};
inline constexpr const char* kCodeNames[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                             "Wait",    "Skip",  "Pending"};

}  // namespace berth::scheduler::framework_labels
