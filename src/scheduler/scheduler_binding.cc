// The end of a pod's attempt: a failed scheduling cycle reported (its
// nomination recorded, the report sent by the handle's ApiDispatcher), and the
// binding cycle (Permit's wait, PreBind, Bind, PostBind) on the binding
// threads, ending in FinishBinding or FailBinding.

#include <algorithm>

#include "scheduler/scheduler.h"
#include "scheduler/cluster_events.h"
#include "scheduler/scheduler_internal.h"
#include "log/log.h"

namespace berth::scheduler {

using Clock = api::Clock;

void Scheduler::FailCycle(const Framework& fw, QueuedPodInfo info, CycleFailure failure,
                          Clock::time_point cycle_start) {
  // The attempt is counted before HandleFailure's stats, so that a reader who
  // sees the failure in stats() finds it in the metrics too.
  ObserveAttempt(fw, failure.unschedulable ? kUnschedulable : kError,
                 Seconds(cycle_start, clock_.Now()));
  HandleFailure(fw, std::move(info), failure.status, std::move(failure.message),
                failure.unschedulable, failure.nominated_node, std::move(failure.plugins));
}

void Scheduler::HandleFailure(const Framework& fw, QueuedPodInfo info, const PluginStatus& status,
                              std::string message, bool unschedulable,
                              const std::optional<std::string>& nominated_node, std::vector<std::string> plugins) {
  {
    std::lock_guard lock(stats_mu_);
    (unschedulable ? stats_.unschedulable : stats_.errors)++;
  }
  if (unschedulable) schedule_failed_.Increment();
  if (unschedulable) {
    BERTH_VLOG(2, "Unable to schedule pod; no fit; waiting",
               {"pod", log::KObj(info.pod->namespace_name(), info.pod->name())}, {"err", message});
  } else {
    BERTH_LOG_ERROR(message, "Error scheduling pod; retrying",
                    {"pod", log::KObj(info.pod->namespace_name(), info.pod->name())});
  }
  info.unschedulable_plugins = std::move(plugins);
  if (info.unschedulable_plugins.empty() && !status.plugin().empty()) {
    info.unschedulable_plugins.push_back(status.plugin());
  }
  api::ObjectPtr pod = info.pod->object;
  queue_->Requeue(std::move(info), unschedulable);
  // kube writes the nomination with the failure, in one patch.
  handle_->api().ReportFailure({std::move(pod), unschedulable ? "Unschedulable" : "SchedulerError",
                                std::move(message), nominated_node});
}

void Scheduler::RecordNomination(const PodInfoPtr& pod,
                                 const std::optional<std::string>& nominated_node) {
  if (!nominated_node) return;
  // The pod waits for the room its preemption is freeing, which pods of
  // lower priority leave alone. A nomination dropped or moved frees the
  // room it held for the pods of equal or lower priority that respected it
  // (kube moves them when it sees nominatedNodeName change).
  bool freed = false;
  if (nominated_node->empty()) {
    freed = handle_->nominator().Remove(pod->key);
  } else {
    std::string before = handle_->nominator().Nominate(pod, *nominated_node);
    freed = !before.empty() && before != *nominated_node;
  }
  if (freed) queue_->MoveAllToActiveOrBackoff(events::kUnscheduledPodUpdate, {}, pod->view->priority);
}

void Scheduler::BindingLoop() {
  while (true) {
    std::unique_ptr<Binding> binding;
    {
      std::unique_lock lock(bind_mu_);
      bind_cv_.wait(lock, [&] { return stopping_ || !bindings_.empty(); });
      if (bindings_.empty()) return;
      binding = std::move(bindings_.front());
      bindings_.pop_front();
    }
    RunBindingCycle(std::move(binding));
  }
}

void Scheduler::RunBindingCycle(std::unique_ptr<Binding> b) {
  std::optional<PluginStatus> permit = std::move(b->permit);
  if (!permit) permit = WaitOnPermit(b);
  if (!permit) return;  // parked until the pod is allowed or rejected
  if (b->waiting) {
    permit_wait_duration_.WithLabels({CodeLabel(permit->code())})
        .Observe(Seconds(b->reserved, clock_.Now()));
  }
  const Framework& fw = *b->framework;
  const PodInfo& pod = *b->info.pod;
  CycleState& state = *b->state;
  PluginStatus status = std::move(*permit);
  if (status.ok()) status = fw.RunPreBind(state, pod, b->node);
  if (status.ok()) status = Bind(fw, state, pod, b->node);
  if (status.ok()) {
    FinishBinding(*b);
  } else {
    FailBinding(*b, status);
  }
  binding_in_flight_--;
  binding_goroutines_->Add(-1);
}

PluginStatus Scheduler::Bind(const Framework& fw, CycleState& state, const PodInfo& pod,
                             const std::string& node) {
  // A failure report of this pod being sent must land first (the bind
  // plugins' path waits in BindPod too; an extender's binding skips it).
  handle_->api().WaitForFailureReport(pod.key);
  BERTH_VLOG(3, "Attempting to bind pod to node", {"pod", log::KObj(pod.namespace_name(), pod.name())},
             {"node", node});
  if (std::optional<Status> bound = extenders_->Bind(pod, node)) {
    return bound->ok() ? PluginStatus::Success() : PluginStatus::Error(bound->message());
  }
  return fw.RunBind(state, pod, node);
}

std::optional<PluginStatus> Scheduler::WaitOnPermit(std::unique_ptr<Binding>& b) {
  if (!b->waiting) return PluginStatus::Success();
  Binding* parked = b.get();
  const std::string uid = b->info.pod->uid();
  // Parked before Park: the pod may be settled on another thread as soon as
  // the continuation is registered.
  {
    std::lock_guard lock(bind_mu_);
    parked_.emplace(parked, std::move(b));
  }
  std::optional<PluginStatus> outcome = handle_->waiting_pods().Park(
      uid, [this, parked](PluginStatus s) { ResumeBinding(parked, std::move(s)); });
  if (outcome) {
    bool none_parked;
    {
      std::lock_guard lock(bind_mu_);
      b = std::move(parked_.extract(parked).mapped());
      none_parked = parked_.empty();
    }
    if (none_parked) parked_cv_.notify_all();  // Stop may be waiting for this
    return outcome;
  }
  binding_in_flight_--;  // waiting: not in flight for WaitForIdle (see there)
  return std::nullopt;
}

void Scheduler::ResumeBinding(Binding* parked, PluginStatus outcome) {
  binding_in_flight_++;
  bool none_parked;
  {
    std::lock_guard lock(bind_mu_);
    std::unique_ptr<Binding> b = std::move(parked_.extract(parked).mapped());
    b->permit = std::move(outcome);
    bindings_.push_back(std::move(b));
    none_parked = parked_.empty();
  }
  bind_cv_.notify_one();
  if (none_parked) parked_cv_.notify_all();
}

void Scheduler::FinishBinding(Binding& b) {
  const Framework& fw = *b.framework;
  const PodInfo& pod = *b.info.pod;
  const Clock::time_point now = clock_.Now();
  cache_.FinishBinding(pod.key, now);
  BERTH_VLOG(2, "Successfully bound pod to node", {"pod", log::KObj(pod.namespace_name(), pod.name())},
             {"node", b.node}, {"evaluatedNodes", b.evaluated_nodes}, {"feasibleNodes", b.feasible_nodes});
  fw.RunPostBind(*b.state, pod, b.node);
  bool wake = false;
  {
    std::lock_guard lock(stats_mu_);
    stats_.scheduled++;
    wake = scheduled_wake_at_ != 0 && stats_.scheduled >= scheduled_wake_at_;
    if (options_.record_bound_pods && bound_pods_.size() < 10'000'000) {
      bound_pods_.push_back({pod.key, b.info.initial_attempt, b.cycle_start, b.reserved, now});
    }
  }
  if (wake) scheduled_cv_.notify_all();
  if (client_) client_->ReportScheduled(*pod.object, b.node);
  {
    // kube's attempts label: the count, "15+" from 15 on.
    const int attempts = b.info.attempts;
    const std::string label = attempts >= 15 ? "15+" : std::to_string(attempts);
    const double since_queued = Seconds(b.info.initial_attempt, now);
    pod_scheduling_duration_.WithLabels({label}).Observe(since_queued);
    pod_scheduling_sli_duration_.WithLabels({label}).Observe(since_queued);
    pod_scheduling_attempts_.Observe(attempts);
  }
  ObserveAttempt(fw, kScheduled, Seconds(b.cycle_start, now));
  queue_->Done(pod.key);
}

void Scheduler::FailBinding(Binding& b, const PluginStatus& status) {
  const Framework& fw = *b.framework;
  const PodInfo& pod = *b.info.pod;
  fw.RunUnreserve(*b.state, pod, b.node);
  cache_.ForgetPod(pod.key);
  {
    std::lock_guard lock(stats_mu_);
    stats_.bind_failures++;
  }
  const bool rejected = status.IsRejected();
  if (rejected) {
    BERTH_VLOG(2, "Unable to schedule pod; no fit; waiting", {"pod", log::KObj(pod.namespace_name(), pod.name())},
               {"err", status.Message()});
  } else {
    BERTH_LOG_ERROR(status.Message(), "Error scheduling pod; retrying",
                    {"pod", log::KObj(pod.namespace_name(), pod.name())}, {"node", b.node});
  }
  ObserveAttempt(fw, rejected ? kUnschedulable : kError, Seconds(b.cycle_start, clock_.Now()));
  api::ObjectPtr object = pod.object;
  const std::string key = pod.key;
  queue_->Requeue(std::move(b.info), rejected);
  // The node's resources are free again: pods waiting for them may fit
  // (not this pod, when rejected: it waits for a cluster event).
  // kube's label for a binding undone: the assumed pod deleted.
  queue_->MoveAllToActiveOrBackoff(events::kAssignedPodDelete, rejected ? std::string_view(key) : std::string_view());
  // Stopping: the pod stays Pending in the API for the next scheduler.
  if (!client_ || shutting_down_) return;
  if (rejected) {
    // A rejection at Permit (or by PreBind/Bind) as kube reports it: the
    // plugin's message, reason Unschedulable.
    handle_->api().ReportFailure({object, "Unschedulable", status.Message(), std::nullopt});
  } else {
    handle_->api().ReportFailure(
        {object, "SchedulerError", "binding rejected: " + status.Message(), std::nullopt});
  }
}

}  // namespace berth::scheduler
