#include "scheduler/framework/api_dispatcher.h"

#include "scheduler/framework/node_info.h"

namespace berth::scheduler {

// Each eviction is two writes and each failure report one, every one
// waiting for durability; kube starts a goroutine per preemption. Many
// threads keep many writes in flight, which the store commits together
// (PreemptionBasic/500Nodes: 8 threads ~340 pods/s, 32 ~500, 64 ~560
// before failure reports were sent from here too). They mostly sleep.
constexpr int kApiThreads = 64;

ApiDispatcher::ApiDispatcher(SchedulerClient* client, PlacedFn placed)
    : client_(client), placed_(std::move(placed)), tasks_(kApiThreads, "sched-api") {}

void ApiDispatcher::ReportFailure(FailureReport report) {
  if (!client_) return;
  std::string key = PodKey(*report.pod);
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = reports_.try_emplace(key);
    it->second = std::move(report);
    if (!inserted) return;  // the pod's report task sends it next
  }
  tasks_.Submit([this, key = std::move(key)] { SendReports(key); });
}

void ApiDispatcher::SendReports(const std::string& pod_key) {
  while (true) {
    FailureReport next;
    {
      std::lock_guard lock(mu_);
      auto it = reports_.find(pod_key);
      if (!it->second) {
        reports_.erase(it);
        sent_.notify_all();
        return;
      }
      next = std::move(*it->second);
      it->second.reset();
      // Assumed (being bound) or bound since: the failure is history.
      if (placed_(pod_key)) continue;
    }
    client_->ReportFailure(*next.pod, next.reason, next.message, next.nominated_node);
  }
}

void ApiDispatcher::WaitForFailureReport(const std::string& pod_key) const {
  std::unique_lock lock(mu_);
  sent_.wait(lock, [&] { return !reports_.count(pod_key); });
}

}  // namespace berth::scheduler
