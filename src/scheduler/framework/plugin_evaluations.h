#pragma once
// scheduler_plugin_evaluation_total{plugin, extension_point, profile}: how
// many times each plugin ran at PreFilter, Filter, PreScore and Score, as
// kube counts them: PreFilter and PreScore once per cycle unless the plugin
// answered Skip; Filter and Score once per node the plugin ran on (a Filter
// plugin after the one that rejected a node did not run there; a plugin
// whose PreFilter skipped runs nowhere).
//
// Counting each Filter and Score call as it happens, as kube does, would
// put an atomic increment per plugin and node on the hot path, shared by
// the filter threads and the concurrent cycles. The framework adds them up
// instead: Filter over a cycle's nodes is counted once, from the outcomes
// (a node that passed ran every plugin not skipped; a rejected one ran the
// plugins up to the one that rejected it), Score once per plugin (the
// nodes it scored). Filter calls on single nodes (the nominated node tried
// first, the check when a pod is assumed, preemption's dry runs, the first
// pass with nominated pods) count as they happen. A copy (the dry-run
// framework of `berth explain`) counts nothing.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metrics.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class PluginEvaluations {
 public:
  enum Point { kPreFilter, kFilter, kPreScore, kScore, kPointCount };

  PluginEvaluations() = default;
  PluginEvaluations(const PluginEvaluations&) {}
  PluginEvaluations& operator=(const PluginEvaluations&) = delete;

  // `family` null: nothing is counted. REQUIRES: family outlives this.
  void Init(metrics::Family<metrics::Counter>* family, std::string profile) {
    family_ = family;
    profile_ = std::move(profile);
  }
  // The plugins at `point` in the order the framework calls them. Their
  // series are created at once (at 0), as kube's instrumented plugins do.
  void SetPlugins(Point point, const std::vector<std::string>& names);

  bool enabled() const { return family_ != nullptr; }
  // The index-th plugin of `point` ran `n` more times.
  void Add(Point point, size_t index, uint64_t n = 1) const {
    if (family_ && n > 0) counters_[point][index]->Increment(static_cast<double>(n));
  }
  // `nodes` Filter runs that reached the first `ran` plugins (all of them:
  // the node passed; i + 1: the i-th rejected it; 0: none ran), skipping the
  // plugins whose PreFilter answered Skip this cycle.
  void AddFilterRuns(const CycleState& state, size_t ran, uint64_t nodes) const;

 private:
  metrics::Family<metrics::Counter>* family_ = nullptr;
  std::string profile_;
  std::array<std::vector<metrics::Counter*>, kPointCount> counters_;
};

}  // namespace berth::scheduler
