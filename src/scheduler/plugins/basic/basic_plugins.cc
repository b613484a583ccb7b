#include "scheduler/plugins/basic/basic_plugins.h"

#include <algorithm>

namespace berth::scheduler {

bool PrioritySort::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  int32_t pa = a.pod->view->priority, pb = b.pod->view->priority;
  if (pa != pb) return pa > pb;
  return a.timestamp < b.timestamp;
}

QueueSortKey PrioritySort::SortKey(const QueuedPodInfo& pod) const {
  // Higher priority first, then earlier.
  return {-static_cast<int64_t>(pod.pod->view->priority), pod.timestamp.time_since_epoch().count()};
}

PluginStatus SchedulingGates::PreEnqueue(const PodInfo& pod) const {
  const auto& gates = pod.view->scheduling_gates;
  if (gates.empty()) return {};
  std::string list;
  for (const auto& g : gates) list += (list.empty() ? "" : " ") + g;
  return {Code::kUnschedulableAndUnresolvable, "waiting for scheduling gates: [" + list + "]"};
}

PluginStatus NodeUnschedulable::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (!node.node()) return PluginStatus::Unresolvable("node(s) had unknown conditions");
  if (!node.unschedulable()) return {};
  static const api::Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", api::TaintEffect::kNoSchedule,
                                              "NoSchedule"};
  if (api::Tolerated(pod.view->tolerations, kUnschedulableTaint)) return {};
  return PluginStatus::Unresolvable(std::string(kReason));
}

PluginStatus NodeName::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  const std::string& wanted = pod.view->node_name;
  if (wanted.empty() || wanted == node.name()) return {};
  return PluginStatus::Unresolvable(std::string(kReason));
}

PluginStatus NodePorts::PreFilter(CycleState& state, const PodInfo& pod) const {
  return pod.view->host_ports.empty() ? PluginStatus::Skip() : PluginStatus::Success();
}

PluginStatus NodePorts::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  for (const auto& port : pod.view->host_ports) {
    if (node.PortConflicts(port)) return PluginStatus::Unschedulable(std::string(kReason));
  }
  return {};
}

PluginStatus TaintToleration::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (!node.has_taints()) return {};
  for (const auto& taint : node.view()->taints) {
    if (taint.effect != api::TaintEffect::kNoSchedule && taint.effect != api::TaintEffect::kNoExecute) continue;
    if (api::Tolerated(pod.view->tolerations, taint)) continue;
    return PluginStatus::Unresolvable("node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}");
  }
  return {};
}

namespace {

// The pod's tolerations that can tolerate PreferNoSchedule taints.
struct PreferNoScheduleTolerations : StateData {
  std::vector<api::Toleration> tolerations;
};

}  // namespace

PluginStatus TaintToleration::PreScore(CycleState& state, const PodInfo& pod,
                                       std::span<const NodeInfo* const>) const {
  auto data = std::make_unique<PreferNoScheduleTolerations>();
  for (const auto& t : pod.view->tolerations) {
    if (!t.effect || *t.effect == api::TaintEffect::kPreferNoSchedule) data->tolerations.push_back(t);
  }
  state.Write(kName, std::move(data));
  return {};
}

PluginStatus TaintToleration::Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                    int64_t* score) const {
  *score = 0;
  if (!node.has_taints()) return {};
  const auto* data = state.Get<PreferNoScheduleTolerations>(kName);
  const std::vector<api::Toleration>& tolerations = data ? data->tolerations : pod.view->tolerations;
  for (const auto& taint : node.view()->taints) {
    if (taint.effect != api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::Tolerated(tolerations, taint)) ++*score;
  }
  return {};
}

PluginStatus TaintToleration::NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const {
  DefaultNormalizeScore(scores, /*reverse=*/true);
  return {};
}

std::string NormalizedImageName(std::string_view image) {
  size_t slash = image.rfind('/');
  std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  if (last.find(':') == std::string_view::npos && last.find('@') == std::string_view::npos) {
    return std::string(image) + ":latest";
  }
  return std::string(image);
}

PluginStatus ImageLocality::Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                  int64_t* score) const {
  constexpr int64_t kMb = 1024 * 1024;
  constexpr int64_t kMinThreshold = 23 * kMb;
  constexpr int64_t kMaxContainerThreshold = 1000 * kMb;
  *score = 0;
  const Snapshot& snapshot = state.snapshot();
  int64_t total_nodes = static_cast<int64_t>(snapshot.size());
  int64_t sum = 0;
  if (node.has_images() && total_nodes > 0) {
    for (const auto& image : pod.view->images) {
      std::string wanted = NormalizedImageName(image);
      // kube looks the normalised name up among the names the node reports,
      // as written, and spreads it over the nodes that report that same name.
      for (const auto& present : node.view()->images) {
        if (std::find(present.names.begin(), present.names.end(), wanted) == present.names.end()) continue;
        int64_t spread = snapshot.ImageNodeCount(wanted);
        sum += static_cast<int64_t>(static_cast<double>(present.size_bytes) *
                                    (static_cast<double>(spread) / static_cast<double>(total_nodes)));
        break;
      }
    }
  }
  int64_t containers = std::max<int64_t>(1, static_cast<int64_t>(pod.view->images.size()));
  int64_t max_threshold = kMaxContainerThreshold * containers;
  sum = std::clamp(sum, kMinThreshold, max_threshold);
  *score = kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
  return {};
}

PluginStatus DefaultBinder::Bind(CycleState&, const PodInfo& pod, const std::string& node) const {
  Status s = handle_.BindPod(*pod.object, node);
  if (!s.ok()) return PluginStatus::Error(s.message());
  return {};
}

}  // namespace berth::scheduler
