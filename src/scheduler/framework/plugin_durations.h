#pragma once
// scheduler_plugin_execution_duration_seconds{plugin, extension_point,
// status}: how long each plugin's call takes, recorded as kube records it —
// only in the cycles picked for it (CycleState::record_plugin_metrics, a
// tenth of them, kube's pluginMetricsSamplePercent), and there for every call:
// Filter and Score once per plugin and node. Outside those cycles a call costs
// one branch more.

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/clock.h"
#include "metrics/metrics.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/status.h"

namespace berth::scheduler {

// kube's share of scheduling cycles whose plugin durations are recorded (%).
inline constexpr int kPluginMetricsSamplePercent = 10;

class PluginDurations {
 public:
  // The extension points, by kube's label names (metrics.PreFilter, ...).
  enum Point {
    kPreFilter, kFilter, kPostFilter, kPreScore, kScore, kScoreNormalize,
    kReserve, kUnreserve, kPermit, kPreBind, kBind, kPostBind, kPointCount
  };
  static constexpr int kCodeCount = 7;

  // `family` null: nothing is recorded. REQUIRES: family and clock outlive this.
  void Init(metrics::Family<metrics::Histogram>* family, const api::Clock* clock) {
    family_ = family;
    clock_ = clock;
  }
  // The plugins at `point`, in the order the framework calls them (their
  // index is Time's `index`). Called once per point while the framework is built.
  void SetPlugins(Point point, std::vector<std::string> names);

  bool Recording(const CycleState& state) const { return family_ && state.record_plugin_metrics(); }

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
