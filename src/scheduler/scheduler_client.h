#pragma once
// What the scheduler writes to the API: bindings and the "why is my pod
// pending" answers. Inside `berth serve` it is implemented in process (the
// API server's own binding logic, no HTTP, no JSON on the way); standalone,
// over HTTP. Called from binding and scheduling threads concurrently.

#include <string>
#include <string_view>

#include "api/object.h"
#include "api/status.h"

namespace berth::scheduler {

class SchedulerClient {
 public:
  virtual ~SchedulerClient() = default;
  // POST pods/{name}/binding. Conflict when the pod is already bound or gone.
  virtual Status BindPod(const api::Object& pod, const std::string& node) = 0;
  // Sets the pod's PodScheduled condition to False with `reason`
  // ("Unschedulable", "SchedulerError") and `message`, and records a Warning
  // Event FailedScheduling with the same message.
  virtual Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message) = 0;
  // After a successful binding: records kube's Normal event Scheduled
  // ("Successfully assigned NS/NAME to NODE"). Must not block on the API.
  virtual void ReportScheduled(const api::Object& pod, const std::string& node) = 0;
};

}  // namespace berth::scheduler
