#pragma once
// scheduler_plugin_execution_duration_seconds{plugin, extension_point,
// status}: how long each plugin's call takes, recorded only in the cycles
// picked for it (CycleState::record_plugin_metrics, a tenth of them, kube's
// pluginMetricsSamplePercent). There every call of the once-per-cycle points
// is timed, as kube does; of Filter and Score, which run once per node, the
// calls on one node in kNodeSampleEvery (by the node's slot, a different
// share each cycle): timing all of them, as kube does, cost a sampled cycle
// at 5,000 nodes ~0.5 ms (two clock reads and an observation per plugin and
// node) and the scheduler ~25 % more CPU per pod. The counts of Filter and
// Score observations are therefore about 1/kNodeSampleEvery of kube's; the
// distribution is the same. Outside sampled cycles a call costs one branch.

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/time/clock.h"
#include "metrics/metrics.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/status.h"

namespace berth::scheduler {

// kube's share of scheduling cycles whose plugin durations are recorded (%).
inline constexpr int kPluginMetricsSamplePercent = 10;
// Of the per-node calls (Filter, Score) of such a cycle, one node in this many is timed.
inline constexpr uint32_t kNodeSampleEvery = 32;

class PluginDurations {
 public:
  // The extension points, by kube's label names (metrics.PreFilter, ...).
  enum Point {
    kPreFilter, kFilter, kPostFilter, kPreScore, kScore, kScoreNormalize,
    kReserve, kUnreserve, kPermit, kPreBind, kBind, kPostBind, kPointCount
  };
  static constexpr int kCodeCount = 7;

  PluginDurations() = default;
  // A copy records nothing (the copy of a framework Framework::Untimed makes
  // for a dry run): it shares no slots and has no family.
  PluginDurations(const PluginDurations&) {}
  PluginDurations& operator=(const PluginDurations&) = delete;

  // `family` null: nothing is recorded. REQUIRES: family and clock outlive this.
  void Init(metrics::Family<metrics::Histogram>* family, const api::Clock* clock) {
    family_ = family;
    clock_ = clock;
  }
  // The plugins at `point`, in the order the framework calls them (their
  // index is Time's `index`). Called once per point while the framework is built.
  void SetPlugins(Point point, std::vector<std::string> names);

  bool Recording(const CycleState& state) const { return family_ && state.record_plugin_metrics(); }
  bool RecordingNode(const CycleState& state, int32_t node_slot) const {
    return Recording(state) &&
           (static_cast<uint32_t>(node_slot) + state.plugin_node_phase()) % kNodeSampleEvery == 0;
  }

  // Runs `run` (returning PluginStatus, or void: Success), observed under the
  // index-th plugin of `point` when the cycle is recorded.
  template <typename Run>
  auto Time(const CycleState& state, Point point, size_t index, Run&& run) const {
    if (!Recording(state)) return run();
    const api::Clock::time_point since = clock_->Now();
    if constexpr (std::is_void_v<decltype(run())>) {
      run();
      Observe(point, index, Code::kSuccess, since);
    } else {
      auto result = run();
      Observe(point, index, result.code(), since);
      return result;
    }
  }
  // The same for a per-node call: timed on the sampled share of nodes only.
  template <typename Run>
  auto TimeOnNode(const CycleState& state, Point point, size_t index, int32_t node_slot, Run&& run) const {
    if (!RecordingNode(state, node_slot)) return run();
    const api::Clock::time_point since = clock_->Now();
    auto result = run();
    Observe(point, index, result.code(), since);
    return result;
  }
  void Observe(Point point, size_t index, Code code, api::Clock::time_point since) const;

 private:
  // One plugin at one point: its histogram per status code, resolved on first use.
  struct Slot {
    std::string plugin;
    mutable std::array<std::atomic<metrics::Histogram*>, kCodeCount> by_code{};
  };
  metrics::Family<metrics::Histogram>* family_ = nullptr;
  const api::Clock* clock_ = nullptr;
  std::array<std::unique_ptr<Slot[]>, kPointCount> slots_;
  std::array<size_t, kPointCount> counts_{};
};

}  // namespace berth::scheduler
