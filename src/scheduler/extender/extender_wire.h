#pragma once
// The JSON that kube-scheduler and its extenders exchange
// (k8s.io/kube-scheduler/extender/v1), so that an extender written for
// kube-scheduler works unchanged. Go writes these structs without JSON tags:
// keys are the field names ("Pod", "NodeNames", "FailedNodes"), an unset
// pointer or map is null. Go reads keys without regard to case and ignores
// unknown ones; the decoders here do the same.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.h"
#include "api/status.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

// kube's extender scores run from 0 to this; they are scaled to kMaxNodeScore.
inline constexpr int64_t kMaxExtenderPriority = 10;

// ExtenderArgs: the pod, and the nodes as a v1 NodeList (`node_names_only`
// false) or their names (NodeNames, for a nodeCacheCapable extender).
std::string EncodeExtenderArgs(const api::Object& pod, std::span<const NodeInfo* const> nodes,
                               bool node_names_only);

// ExtenderFilterResult. `nodes`: the names in Nodes.items (nullopt when Nodes
// was null or absent); `node_names`: NodeNames likewise.
struct ExtenderFilterResult {
  std::optional<std::vector<std::string>> nodes;
  std::optional<std::vector<std::string>> node_names;
  std::vector<std::pair<std::string, std::string>> failed_nodes;  // node → reason
  std::vector<std::pair<std::string, std::string>> failed_and_unresolvable_nodes;  // node → reason
  std::string error;
};
Result<ExtenderFilterResult> DecodeExtenderFilterResult(std::string_view json);

// HostPriorityList.
struct HostPriority {
  std::string host;
  int64_t score = 0;
};
Result<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view json);

// ExtenderBindingArgs and ExtenderBindingResult (its Error, "" for none).
std::string EncodeExtenderBindingArgs(const api::Object& pod, const std::string& node);
Result<std::string> DecodeExtenderBindingResult(std::string_view json);

// ExtenderPreemptionArgs: the candidates' victims as whole pods
// (NodeNameToVictims) or, for a nodeCacheCapable extender, as UIDs
// (NodeNameToMetaVictims).
std::string EncodeExtenderPreemptionArgs(
    const api::Object& pod, std::span<const std::pair<std::string, PreemptionVictims>> candidates,
    bool meta_victims);
// ExtenderPreemptionResult: node → the UIDs of its victims, and its PDB violations.
struct MetaVictims {
  std::vector<std::string> pod_uids;
  int64_t pdb_violations = 0;
};
Result<std::vector<std::pair<std::string, MetaVictims>>> DecodeExtenderPreemptionResult(
    std::string_view json);

}  // namespace berth::scheduler
