// The scheduler's metrics computed at scrape time (the queue's and the
// cache's sizes) and the choice of the cycles whose plugins are timed.

#include "scheduler/scheduler.h"

namespace berth::scheduler {

std::pair<bool, uint32_t> Scheduler::NextCycleRecordsPlugins() {
  // kube picks each cycle at random with pluginMetricsSamplePercent; every
  // tenth cycle is the same share without touching the scheduler's seeded
  // random numbers (decisions stay reproducible). Each sampled cycle times
  // the next share of the nodes.
  constexpr uint64_t kEvery = 100 / kPluginMetricsSamplePercent;
  const uint64_t n = cycles_started_.fetch_add(1, std::memory_order_relaxed);
  return {n % kEvery == 0, static_cast<uint32_t>(n / kEvery)};
}

void Scheduler::AddPendingPodsGauge() {
  metrics_.AddCallbackGauge("scheduler_scheduler_cache_size",
                            "[ALPHA] Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
                            {"type"}, [this] {
                              const auto assumed = static_cast<double>(cache_.AssumedPodCount());
                              return std::vector<metrics::Registry::Sample>{
                                  {{"assumed_pods"}, assumed},
                                  {{"nodes"}, static_cast<double>(cache_.NodeCount())},
                                  {{"pods"}, static_cast<double>(cache_.PodCount())}};
                            });
  metrics_.AddCallbackGauge(
      "scheduler_unschedulable_pods",
      "[ALPHA] The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all "
      "plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.",
      {"plugin", "profile"}, [this] {
        std::vector<metrics::Registry::Sample> out;
        for (const auto& [key, n] : queue_->UnschedulableByPlugin()) {
          out.push_back({{key.first, key.second}, static_cast<double>(n)});
        }
        return out;
      });
  metrics_.AddCallbackGauge("scheduler_pending_pods",
                            "[STABLE] Number of pending pods, by the queue type. 'active' means number of pods in "
                            "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
                            "of pods in unschedulablePods that the scheduler attempted to schedule and failed; "
                            "'gated' is the number of unschedulable pods that the scheduler never attempted to "
                            "schedule because they are gated.",
                            {"queue"}, [this] {
                              auto c = queue_->counts();
                              return std::vector<metrics::Registry::Sample>{
                                  {{"active"}, static_cast<double>(c.active)},
                                  {{"backoff"}, static_cast<double>(c.backoff)},
                                  {{"unschedulable"}, static_cast<double>(c.unschedulable)},
                                  {{"gated"}, static_cast<double>(c.gated)}};
                            });
}

}  // namespace berth::scheduler
