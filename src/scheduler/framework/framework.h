#pragma once
// One scheduling profile: the configured plugins of each extension point,
// run in order (kube-scheduler's frameworkImpl). Built once from a
// ProfileConfig; immutable afterwards, so concurrent cycles share it.
//
// The framework times its own extension points: each run of PreFilter,
// Filter (over nodes, once per cycle), PreScore, Score, Reserve, Permit,
// PreBind and Bind is observed in
// scheduler_framework_extension_point_duration_seconds when Build was given
// that family (FrameworkMetrics). Without it nothing is timed and no clock is
// read.

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/time/clock.h"
#include "metrics/metrics.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/plugin_durations.h"
#include "scheduler/framework/plugin_evaluations.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/waiting_pods.h"

namespace berth::scheduler {

class Parallelizer;

// Go's %v of a []string, "[a b c]", as kube's messages print plugin lists.
std::string GoList(const std::vector<std::string>& items);

// Where a framework records how long its extension points take.
struct FrameworkMetrics {
  // scheduler_framework_extension_point_duration_seconds, labelled
  // {extension_point, status, profile}. nullptr: nothing is recorded.
  // REQUIRES: outlives the framework.
  metrics::Family<metrics::Histogram>* extension_point_duration = nullptr;
  // The durations' time source. nullptr: api::RealClock. REQUIRES: outlives the framework.
  const api::Clock* clock = nullptr;
  // scheduler_plugin_execution_duration_seconds {plugin, extension_point,
  // status}, recorded in the cycles whose CycleState asks for it. nullptr:
  // never. REQUIRES: outlives the framework.
  metrics::Family<metrics::Histogram>* plugin_execution_duration = nullptr;
  // scheduler_plugin_evaluation_total {plugin, extension_point, profile}
  // (see plugin_evaluations.h). nullptr: not counted. REQUIRES: outlives the framework.
  metrics::Family<metrics::Counter>* plugin_evaluation = nullptr;
};

class Framework final : public FilterRunner {
 public:
  // Instantiates the profile's plugins and reads its NodeSelection. Errors
  // (BadRequest) name the field: an unknown plugin
  // ("profiles[0].plugins.score.enabled[0]: plugin \"X\" does not exist"), a
  // pluginConfig entry naming no plugin, bad args (of every plugin that has a
  // pluginConfig entry, enabled or not, as kube validates them), a plugin at a point it does not extend, and
  // in api::FieldErrors' words a negative weight
  // ("….enabled[1].weight: Invalid value: -1: must not be negative"), a second
  // queueSort plugin, or no queueSort or bind plugin ("Required value").
  static Result<std::unique_ptr<Framework>> Build(const ProfileConfig& profile, const Registry& registry,
                                                  const Handle& handle, std::string_view field_path = "profiles[0]",
                                                  const FrameworkMetrics& metrics = {});

  const std::string& scheduler_name() const { return scheduler_name_; }
  NodeSelectionStrategy node_selection() const { return node_selection_; }
  std::optional<int32_t> percentage_of_nodes_to_score() const { return percentage_of_nodes_to_score_; }
  const QueueSortPlugin& queue_sort() const { return *queue_sort_; }
  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }

  PluginStatus RunPreEnqueue(const PodInfo& pod) const;
  PluginStatus RunPreFilter(CycleState& state, const PodInfo& pod) const;
  // Filter on one node. Stops at the first rejection; its status names the
  // plugin. Not timed (it runs per node); see RunFilterOverNodes. Counted in
  // scheduler_plugin_evaluation_total, as RunFilterWithNominatedPods is.
  PluginStatus RunFilter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  // Filter over nodes (kube's findNodesThatPassFilters loop): RunFilter
  // (RunFilterWithNominatedPods while any pod is nominated) on
  // nodes[(start + i) % n] for i = 0, 1, … until `wanted` nodes passed or
  // every node was tried; on `parallelizer`'s threads too when it is not
  // null. `feasible` receives up to `wanted` passing nodes (in no fixed order
  // when parallel), `rejected` every failing node with its status. Returns
  // how many nodes passed (counted beyond `wanted` when parallel). The Filter
  // point is timed once per call: Success when a node passed, else
  // Unschedulable. REQUIRES: start < nodes.size() when nodes is not empty.
  size_t RunFilterOverNodes(const CycleState& state, const PodInfo& pod,
                            std::span<const std::shared_ptr<const NodeInfo>> nodes, size_t start, size_t wanted,
                            Parallelizer* parallelizer, std::vector<const NodeInfo*>& feasible,
                            std::vector<NodeStatus>& rejected) const;
  // kube's RunPostFilterPlugins: the first plugin that succeeds decides; an
  // UnschedulableAndUnresolvable or an error ends the run; otherwise the
  // rejections' reasons are joined (the message FitError appends).
  PluginStatus RunPostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                             PostFilterResult* result) const;
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }
  // FilterRunner (preemption's dry runs and the nominated-pods filter).
  PluginStatus RunFilterWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                          const NodeInfo& node) const override;
  PluginStatus RunPreFilterAddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                  const NodeInfo& node) const override;
  PluginStatus RunPreFilterRemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                     const NodeInfo& node) const override;
  bool ChangesStateForPods(const CycleState& state) const override { return HasActivePreFilterExtensions(state); }
  PluginStatus RunPreScore(CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes) const;
  // Adds each plugin's normalised, weighted score of nodes[i] into totals[i].
  // `scratch` is reused between calls (no allocation per node once warm).
  PluginStatus RunScore(const CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes,
                        std::span<int64_t> totals, std::vector<NodeScore>& scratch) const;
  PluginStatus RunReserve(CycleState& state, const PodInfo& pod, const std::string& node) const;
  void RunUnreserve(CycleState& state, const PodInfo& pod, const std::string& node) const;
  // kube's RunPermitPlugins: a rejection by any plugin (its status, naming
  // it), an error ("running Permit plugin \"P\": …"), or Wait when some
  // plugins asked to wait: the pod is then added to `waiting` with each such
  // plugin's timeout (cut to kMaxPermitWait). Else Success.
  PluginStatus RunPermit(CycleState& state, const PodInfoPtr& pod, const std::string& node,
                         WaitingPods& waiting) const;
  PluginStatus RunPreBind(CycleState& state, const PodInfo& pod, const std::string& node) const;
  PluginStatus RunBind(CycleState& state, const PodInfo& pod, const std::string& node) const;
  void RunPostBind(CycleState& state, const PodInfo& pod, const std::string& node) const;

  // Plugin names per extension point (for tests and `berth scheduler --print-config`).
  std::vector<std::string> PluginNames(std::string_view extension_point) const;
  int32_t ScoreWeight(std::string_view plugin) const;

  // The Filter and Score plugins in the profile's order, with each Score
  // plugin's weight: what `berth explain` runs one by one (the positions are
  // those of CycleState's skip bits).
  struct WeightedScore {
    const ScorePlugin* plugin;
    int64_t weight;
  };
  std::span<const FilterPlugin* const> filter_plugins() const { return filter_; }
  // A copy sharing this profile's plugins whose extension points are not
  // timed: a dry run (`berth explain`) leaves the scheduler's metrics alone.
  std::unique_ptr<Framework> Untimed() const;
  std::span<const WeightedScore> score_plugins() const { return score_; }

 private:
  // One run of Build and its steps (framework.cc).
  class Builder;
  // The timed extension points, in the order of kPointNames in framework.cc.
  enum Point { kPreFilter, kFilter, kPreScore, kScore, kReserve, kPermit, kPreBind, kBind, kPointCount };
  // Runs `run` and, when durations are recorded, observes how long it took
  // under `point` and the status `run` returned.
  template <typename Run>
  auto Timed(Point point, Run&& run) const;
  void ObservePoint(Point point, Code code, api::Clock::time_point since) const;
  // Whether a PreFilter plugin with extensions has data this cycle (its
  // Filter is not skipped): RunPreFilterExtension would call it.
  bool HasActivePreFilterExtensions(const CycleState& state) const;
  // AddPod (add) or RemovePod of every PreFilter plugin with extensions.
  PluginStatus RunPreFilterExtension(CycleState& state, bool add, const PodInfo& pod, const PodInfo& other,
                                     const NodeInfo& node) const;

  const Handle* handle_ = nullptr;
  std::string scheduler_name_;
  NodeSelectionStrategy node_selection_ = NodeSelectionStrategy::kTopScore;
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

  const api::Clock* clock_ = nullptr;
  metrics::Family<metrics::Histogram>* extension_point_duration_ = nullptr;  // nullptr: not timed
  PluginDurations plugin_durations_;
  PluginEvaluations evaluations_;
  // The plugins' metrics (durations, evaluations), once the plugins are
  // known. In framework_metrics.cc.
  void InitPluginMetrics(const FrameworkMetrics& metrics);
  // Filter on one node, uncounted: `ran` receives how many plugin positions
  // the run reached (PluginEvaluations::AddFilterRuns).
  PluginStatus FilterNode(const CycleState& state, const PodInfo& pod, const NodeInfo& node, size_t& ran) const;
  // The same with the node's nominated pods first (RunFilterWithNominatedPods);
  // a first pass that let the node through is counted here, the pass `ran`
  // describes is left to the caller.
  PluginStatus FilterNodeWithNominatedPods(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                           size_t& ran) const;
  // Success children of extension_point_duration_ (the common case), looked up once.
  std::array<metrics::Histogram*, kPointCount> point_success_{};
};

}  // namespace berth::scheduler
