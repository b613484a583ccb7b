#pragma once
// The TTL-after-finished controller (kube's pkg/controller/ttlafterfinished):
// deletes a finished Job (condition Complete or Failed True) whose
// spec.ttlSecondsAfterFinished has passed since it finished, with
// propagationPolicy Foreground so that its pods go first. The finish time is
// status.completionTime, else the terminal condition's lastTransitionTime.
// Before deleting, the Job is read again from the API server (not the cache)
// and the deletion is guarded by that version: a Job whose TTL was changed
// meanwhile is judged again instead of deleted.

#include <chrono>
#include <optional>

#include "controllers/controller.h"

namespace berth::controllers {

class TtlAfterFinishedController final : public Controller {
 public:
  explicit TtlAfterFinishedController(const ControllerContext& context, int workers = 5);

  // When `job` may be deleted: nullopt when it has no TTL, has not finished
  // or is already being deleted.
  static std::optional<std::chrono::system_clock::time_point> ExpiresAt(const api::Object& job);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  client::SharedInformer& jobs_;
};

}  // namespace berth::controllers
