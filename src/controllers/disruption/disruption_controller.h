#pragma once
// The disruption controller (kube's DisruptionController,
// `disruption-controller`): keeps each PodDisruptionBudget's status, which
// the eviction subresource reads and decrements.
//
// For a budget over `pods` (its selector, its namespace):
// - expectedPods and desiredHealthy: with maxUnavailable, or a percentage
//   minAvailable, expectedPods is the sum of the scale of the pods'
//   controllers (a Deployment's replicas for pods of its ReplicaSets, else the
//   ReplicaSet's), and the percentage is of that, rounded up;
//   desiredHealthy = minAvailable, or expectedPods - maxUnavailable (at least
//   0). An integer minAvailable counts the selected pods instead, needs no
//   controllers, and is what pods without a controller call for (they are
//   left out of the scale, with an UnmanagedPods warning). A pod whose
//   controller is of a kind berth has no scale for is a sync failure.
// - currentHealthy: Ready pods not being deleted and not in disruptedPods.
// - disruptionsAllowed = currentHealthy - desiredHealthy, never below 0, and
//   0 while expectedPods is 0.
// - disruptedPods: the eviction subresource's record of pods it is deleting;
//   an entry older than api::kDisruptedPodTimeout (2 minutes) whose pod still
//   exists is dropped (a NotDeleted warning on the pod) and the budget
//   rechecked when the next entry would expire.
// - the DisruptionAllowed condition: True/SufficientPods, False/
//   InsufficientPods, or after a failed sync False/SyncFailed with the error
//   (and disruptionsAllowed 0: failing safe).
// Status goes through the status subresource, guarded by the budget's
// resourceVersion (controllers::ForUpdate); unchanged status is not written.
// Time (disruptedPods expiry, condition stamps) comes from the context's clock.

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controllers/controller.h"

namespace berth::controllers {

class DisruptionController final : public Controller {
 public:
  explicit DisruptionController(const ControllerContext& context, int workers = 2);

  // A budget's computed status.
  struct BudgetStatus {
    int64_t current_healthy = 0;
    int64_t desired_healthy = 0;
    int64_t expected_pods = 0;
    int64_t disruptions_allowed = 0;
    boost::json::object disrupted_pods;  // pod name → RFC 3339 time
    // When the oldest kept disruptedPods entry expires; unset: none kept.
    std::optional<std::chrono::system_clock::time_point> recheck_at;
    std::vector<std::string> unmanaged_pods;  // selected pods without a controller
    std::vector<std::string> expired_pods;    // disruptedPods entries dropped at `now`
  };
  // kube's arithmetic for `budget` over the pods it selects. `expected_scale`
  // sums the scale of the pods' controllers (called only when the budget
  // needs it). Exposed for tests.
  static Result<BudgetStatus> Compute(const api::Object& budget,
                                      const std::vector<api::ObjectPtr>& pods,
                                      const std::function<Result<int64_t>()>& expected_scale,
                                      std::chrono::system_clock::time_point now);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // kube's getExpectedScale: the summed scale of the controllers of `pods`,
  // each counted once; pods without a controller are left out. NotFound
  // ("found no controllers for pod ...") when a controller is missing or of
  // a kind without a scale berth knows (ReplicaSet, Deployment).
  Result<int64_t> ExpectedScale(const std::vector<api::ObjectPtr>& pods) const;
  Status WriteStatus(const api::Object& budget, const BudgetStatus& computed);
  Status FailSafe(const api::Object& budget, const Status& error);

  client::SharedInformer& budgets_;
  client::SharedInformer& pods_;
  client::SharedInformer& replicasets_;
  client::SharedInformer& deployments_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
