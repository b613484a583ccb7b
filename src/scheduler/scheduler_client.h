#pragma once
// What the scheduler writes to the API: bindings and the "why is my pod
// pending" answers. Inside `berth serve` it is implemented in process (the
// API server's own binding logic, no HTTP, no JSON on the way); standalone,
// over HTTP. Called from binding and scheduling threads concurrently.

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/object.h"
#include "api/status.h"

namespace berth::scheduler {

class SchedulerClient {
 public:
  virtual ~SchedulerClient() = default;
  // POST pods/{name}/binding. Conflict when the pod is already bound or gone.
  virtual Status BindPod(const api::Object& pod, const std::string& node) = 0;
  // Sets the pod's PodScheduled condition to False with `reason`
  // ("Unschedulable", "SchedulerError") and `message` and, when
  // `nominated_node` is set, status.nominatedNodeName ("" removes it), in one
  // write as kube's updatePod does (none when neither changed); and records a
  // Warning Event FailedScheduling with the same message.
  virtual Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message,
                               const std::optional<std::string>& nominated_node) = 0;
  // After a successful binding: records kube's Normal event Scheduled
  // ("Successfully assigned NS/NAME to NODE"). Must not block on the API.
  virtual void ReportScheduled(const api::Object& pod, const std::string& node) = 0;
  // Preemption's eviction of `victim` to make room for `preemptor` on
  // `node`, as kube-scheduler does it: the condition DisruptionTarget
  // (reason PreemptionByScheduler), a graceful delete, and a Normal event
  // Preempted ("Preempted by pod UID on node NODE"). A client that cannot
  // evict says so. Called from the scheduler's API task threads, after the
  // cycle that chose the victim (kube's asynchronous preemption).
  virtual Status PreemptPod(const api::Object& victim, const api::Object& preemptor, const std::string& node) {
    return Status::Internal("this scheduler client cannot evict pods");
  }
  // Writes status.nominatedNodeName ("" removes it).
  virtual Status SetNominatedNodeName(const api::Object& pod, const std::string& node) { return Status::Ok(); }
  // VolumeBinding's PreBind writes (kube's binder): a PersistentVolume with
  // its claimRef, a claim with its selected-node annotation. A PUT of the
  // whole object, Conflict when its resourceVersion is not the stored one.
  virtual Status UpdatePersistentVolume(const boost::json::object& pv) {
    return Status::Internal("this scheduler client cannot write PersistentVolumes");
  }
  virtual Status UpdatePersistentVolumeClaim(const boost::json::object& pvc) {
    return Status::Internal("this scheduler client cannot write PersistentVolumeClaims");
  }
};

}  // namespace berth::scheduler
