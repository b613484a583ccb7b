#include "scheduler/framework/plugin_evaluations.h"

#include <algorithm>

namespace berth::scheduler {

namespace {

// kube's extension_point label values (metrics.PreFilter, ...).
constexpr const char* kPointLabels[] = {"PreFilter", "Filter", "PreScore", "Score"};

}  // namespace

void PluginEvaluations::SetPlugins(Point point, const std::vector<std::string>& names) {
  if (!family_) return;
  std::vector<metrics::Counter*>& counters = counters_[point];
  counters.clear();
  for (const std::string& name : names)
    counters.push_back(&family_->WithLabels({name, kPointLabels[point], profile_}));
}

void PluginEvaluations::AddFilterRuns(const CycleState& state, size_t ran, uint64_t nodes) const {
  if (!family_ || nodes == 0) return;
  const std::vector<metrics::Counter*>& counters = counters_[kFilter];
  ran = std::min(ran, counters.size());
  for (size_t i = 0; i < ran; ++i) {
    if (!state.FilterSkippedAt(i)) counters[i]->Increment(static_cast<double>(nodes));
  }
}

}  // namespace berth::scheduler
