#pragma once
// Pod garbage collection (kube's pod-garbage-collector-controller, PodGC).
// Every gc period (kube: 20 s) it looks at the cached pods and nodes and
// force-deletes (grace period 0):
//
// - terminated pods (phase Succeeded or Failed) beyond
//   --terminated-pod-gc-threshold (12500; <= 0 turns this off), evicted ones
//   first, then the oldest by creationTimestamp, then by name;
// - orphans: pods bound to a node that no longer exists. A node missing
//   from the cache is quarantined for 40 s, then read from the API: only if
//   it is still not found are its pods deleted, after being marked Failed
//   with the condition DisruptionTarget=True, reason DeletionByPodGC
//   ("PodGC: node no longer exists");
// - terminating pods on a node that is not Ready and carries the
//   node.kubernetes.io/out-of-service taint (NoExecute);
// - terminating pods never bound to a node.
//
// A pod not yet Succeeded or Failed is marked Failed before its deletion,
// as kube does (a Job then counts it as failed and replaces it).
// Time comes from the context's clock: its alarm drives the period and its
// steady time the quarantine.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/conditions.h"
#include "controllers/controller.h"

namespace berth::controllers {

struct PodGCOptions {
  int64_t terminated_pod_threshold = 12500;
  std::chrono::milliseconds gc_period{20000};
  std::chrono::milliseconds quarantine{40000};
};

class PodGCController final : public Controller {
 public:
  PodGCController(const ControllerContext& context, PodGCOptions options);
  ~PodGCController() override;

  void Start();  // the worker and the gc period's alarm

  // The one key every pass runs under.
  static constexpr char kKey[] = "podgc";

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  Status GcTerminated(const std::vector<api::ObjectPtr>& pods);
  Status GcOrphaned(const std::vector<api::ObjectPtr>& pods);
  Status GcTerminatingOutOfService(const std::vector<api::ObjectPtr>& pods);
  Status GcUnscheduledTerminating(const std::vector<api::ObjectPtr>& pods);
  // Marks `pod` Failed (with `condition` when given) unless it already
  // finished, then deletes it with grace period 0. NotFound is success.
  Status MarkFailedAndDelete(const api::Object& pod, const api::Condition* condition);

  PodGCOptions options_;
  client::SharedInformer& pods_;
  client::SharedInformer& nodes_;
  // Node name → when it was first missing from the cache; only Reconcile
  // touches it (one key, one worker at a time).
  std::unordered_map<std::string, api::Clock::time_point> quarantined_;
  std::unique_ptr<api::Ticker> ticker_;
};

}  // namespace berth::controllers
