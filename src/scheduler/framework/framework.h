#pragma once
// One scheduling profile: the configured plugins of each extension point,
// run in order (kube-scheduler's frameworkImpl). Built once from a
// ProfileConfig; immutable afterwards, so concurrent cycles share it.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scheduler/framework/config.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace berth::scheduler {

class Framework {
 public:
  // Instantiates the profile's plugins. Errors name the field: an unknown
  // plugin ("profiles[0].plugins.score.enabled: unknown plugin \"X\""), bad
  // args, a weight on a plugin without Score, or no QueueSort/Bind plugin.
  static Result<std::unique_ptr<Framework>> Build(const ProfileConfig& profile, const Registry& registry,
                                                  const Handle& handle, std::string_view field_path = "profiles[0]");

  const std::string& scheduler_name() const { return scheduler_name_; }
  std::optional<int32_t> percentage_of_nodes_to_score() const { return percentage_of_nodes_to_score_; }
  const QueueSortPlugin& queue_sort() const { return *queue_sort_; }
  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }

  PluginStatus RunPreEnqueue(const PodInfo& pod) const;
  PluginStatus RunPreFilter(CycleState& state, const PodInfo& pod) const;
  // Stops at the first rejection; its status names the plugin.
  PluginStatus RunFilter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  PluginStatus RunPostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                             PostFilterResult* result) const;
  PluginStatus RunPreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes) const;
  // Adds each plugin's normalised, weighted score of nodes[i] into totals[i].
  // `scratch` is reused between calls (no allocation per node once warm).
  PluginStatus RunScore(const CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes,
                        std::span<int64_t> totals, std::vector<NodeScore>& scratch) const;
  PluginStatus RunReserve(CycleState& state, const PodInfo& pod, const std::string& node) const;
  void RunUnreserve(CycleState& state, const PodInfo& pod, const std::string& node) const;
  // Success, or Wait with the shortest timeout any plugin asked for, or a rejection.
  PermitDecision RunPermit(CycleState& state, const PodInfo& pod, const std::string& node) const;
  PluginStatus RunPreBind(CycleState& state, const PodInfo& pod, const std::string& node) const;
  PluginStatus RunBind(CycleState& state, const PodInfo& pod, const std::string& node) const;
  void RunPostBind(CycleState& state, const PodInfo& pod, const std::string& node) const;

  // Plugin names per extension point (for tests and `berth scheduler --print-config`).
  std::vector<std::string> PluginNames(std::string_view extension_point) const;
  int32_t ScoreWeight(std::string_view plugin) const;

 private:
  struct WeightedScore {
    const ScorePlugin* plugin;
    int64_t weight;
  };
  std::string scheduler_name_;
  std::optional<int32_t> percentage_of_nodes_to_score_;
  std::vector<std::shared_ptr<Plugin>> owned_;
  const QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<const PreEnqueuePlugin*> pre_enqueue_;
  std::vector<const PreFilterPlugin*> pre_filter_;
  std::vector<const FilterPlugin*> filter_;
  std::vector<const PostFilterPlugin*> post_filter_;
  std::vector<const PreScorePlugin*> pre_score_;
  std::vector<WeightedScore> score_;
  std::vector<const ReservePlugin*> reserve_;
  std::vector<const PermitPlugin*> permit_;
  std::vector<const PreBindPlugin*> pre_bind_;
  std::vector<const BindPlugin*> bind_;
  std::vector<const PostBindPlugin*> post_bind_;
  // For each preFilter / preScore plugin, the position of the same plugin in
  // filter_ / score_ (-1: none), so a Skip costs one bit per cycle.
  std::vector<int> pre_filter_to_filter_;
  std::vector<int> pre_score_to_score_;
};

}  // namespace berth::scheduler
