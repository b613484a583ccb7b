#pragma once
// The scheduler's writes that go out without holding a cycle up (kube's
// API dispatcher): preemption's evictions, nominations cleared, and the
// failure reports (PodScheduled=False, the nomination, a FailedScheduling
// event). Sent from a pool of API task threads.
//
// Failure reports go out at most one at a time per pod, a newer report
// replacing one not yet sent (kube's dispatcher merges them too). A report
// for a pod placed since (assumed or bound) is dropped, and binding a pod
// first waits for a report of it being sent (WaitForFailureReport), so a
// stale PodScheduled=False never lands after the binding.
//
// Thread-safe.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/object.h"
#include "scheduler/scheduler_client.h"
#include "scheduler/task_pool.h"

namespace berth::scheduler {

class ApiDispatcher {
 public:
  // Whether the scheduler's cache holds the pod `namespace/name` on a node
  // (assumed or bound): its failure is history then.
  using PlacedFn = std::function<bool(const std::string& pod_key)>;
  // `client` may be nullptr (nothing is reported then). REQUIRES: `client`
  // and what `placed` reads outlive the dispatcher's Stop.
  ApiDispatcher(SchedulerClient* client, PlacedFn placed);
  ApiDispatcher(const ApiDispatcher&) = delete;
  ApiDispatcher& operator=(const ApiDispatcher&) = delete;

  SchedulerClient* client() const { return client_; }
  // Queues `call` for the API task threads.
  void Submit(std::function<void()> call) { tasks_.Submit(std::move(call)); }

  struct FailureReport {
    api::ObjectPtr pod;
    std::string reason;   // "Unschedulable", "SchedulerError"
    std::string message;  // the FailedScheduling event's message
    std::optional<std::string> nominated_node;
  };
  // Sends `report` through SchedulerClient::ReportFailure, or replaces the
  // pod's report not yet sent. Nothing without a client.
  void ReportFailure(FailureReport report);
  // Returns once no failure report of `pod_key` is queued or being sent.
  void WaitForFailureReport(const std::string& pod_key) const;

  // Calls queued or running.
  size_t pending() const { return tasks_.pending(); }
  // Sends what is queued, then joins the threads; later calls run on the
  // caller's thread. Idempotent.
  void Stop() { tasks_.Stop(); }

 private:
  // The pod's report task: sends its latest report until none is left.
  void SendReports(const std::string& pod_key);

  SchedulerClient* const client_;
  const PlacedFn placed_;
  mutable std::mutex mu_;
  mutable std::condition_variable sent_;
  // Pods with a report task; the value is the report it sends next (none: it is done).
  std::unordered_map<std::string, std::optional<FailureReport>> reports_;  // guarded by mu_
  // Declared last: stopped (its queued calls run) before the members they use go.
  TaskPool tasks_;
};

}  // namespace berth::scheduler
