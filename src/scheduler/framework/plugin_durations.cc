#include "scheduler/framework/plugin_durations.h"

#include <iterator>

namespace berth::scheduler {

namespace {

constexpr const char* kPointLabels[] = {"PreFilter", "Filter",  "PostFilter", "PreScore",
                                        "Score",     "ScoreExtensionNormalize",   "Reserve",
                                        "Unreserve", "Permit",  "PreBind",    "Bind",     "PostBind"};
constexpr const char* kCodeLabels[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                       "Wait",    "Skip",  "Pending"};
static_assert(std::size(kPointLabels) == PluginDurations::kPointCount);
static_assert(std::size(kCodeLabels) == PluginDurations::kCodeCount);

}  // namespace

void PluginDurations::SetPlugins(Point point, std::vector<std::string> names) {
  slots_[point] = std::make_unique<Slot[]>(names.size());
  for (size_t i = 0; i < names.size(); ++i) slots_[point][i].plugin = std::move(names[i]);
  counts_[point] = names.size();
}

void PluginDurations::Observe(Point point, size_t index, Code code, api::Clock::time_point since) const {
  const double seconds = std::chrono::duration<double>(clock_->Now() - since).count();
  const auto c = static_cast<size_t>(code);
  if (index >= counts_[point] || c >= kCodeCount) return;
  const Slot& slot = slots_[point][index];
  metrics::Histogram* h = slot.by_code[c].load(std::memory_order_acquire);
  if (!h) {
    // Several threads may resolve it at once: WithLabels returns the same child.
    h = &family_->WithLabels({slot.plugin, kPointLabels[point], kCodeLabels[c]});
    slot.by_code[c].store(h, std::memory_order_release);
  }
  h->Observe(seconds);
}

}  // namespace berth::scheduler
