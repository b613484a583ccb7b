// The scheduler's metrics computed at scrape time (the queue's and the
// cache's sizes) and the choice of the cycles whose plugins are timed.

#include "scheduler/scheduler.h"

#include "scheduler/cluster_events.h"
#include "scheduler/parallelizer.h"

namespace berth::scheduler {

void Scheduler::AddSchedulerMetrics() {
  plugin_evaluation_ = &metrics_.AddCounter(
      "scheduler_plugin_evaluation_total",
      "[ALPHA] Number of attempts to schedule pods by each plugin and the extension point (available only in "
      "PreFilter, Filter, PreScore, and Score).",
      {"plugin", "extension_point", "profile"});
  goroutines_ = &GoroutinesFamily(metrics_);
  binding_goroutines_ = &goroutines_->WithLabels({"binding"});
  // The VolumeBinding plugin's (kube registers them with the scheduler's
  // own, whatever the profiles; the plugin finds them by name).
  metrics_.AddCounter("scheduler_volume_binder_cache_requests_total",
                      "[ALPHA] Total number for request volume binding cache", {"operation"});
  metrics_.AddCounter("scheduler_volume_scheduling_stage_error_total", "[ALPHA] Volume scheduling stage error count",
                      {"operation"});
  event_handling_family_ = &metrics_.AddHistogram("scheduler_event_handling_duration_seconds",
                                                  "[ALPHA] Event handling latency in seconds.",
                                                  metrics::ExponentialBuckets(0.0001, 2, 12), {"event"});
  for (std::string_view event : events::AllLabels()) event_handling_[event] = nullptr;
}

void Scheduler::ObserveEvent(std::string_view event, api::Clock::time_point since) const {
  auto it = event_handling_.find(event);
  if (it == event_handling_.end()) return;
  metrics::Histogram* h = it->second.load(std::memory_order_acquire);
  if (!h) {
    // Two threads may both look it up: the family hands both the same child.
    h = &event_handling_family_->WithLabels({std::string(event)});
    it->second.store(h, std::memory_order_release);
  }
  h->Observe(std::chrono::duration<double>(clock_.Now() - since).count());
}

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
