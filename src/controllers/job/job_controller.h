#pragma once
// The Job controller (kube's pkg/controller/job): runs a batch/v1 Job's pods
// to completion and reports its status.
//
// - Pods come from spec.template with a controller ownerReference, the labels
//   batch.kubernetes.io/controller-uid, batch.kubernetes.io/job-name (and the
//   legacy controller-uid, job-name), and the finalizer
//   batch.kubernetes.io/job-tracking. Indexed Jobs' pods also carry their
//   completion index (annotation, label, hostname "<job>-<index>", env
//   JOB_COMPLETION_INDEX).
// - Active pods: min(parallelism, completions - succeeded); with completions
//   unset (work-queue Jobs) parallelism until the first success, after which
//   nothing new starts and the Job completes once none is active.
// - Finished pods are counted as kube tracks them: a finished pod's uid goes
//   into status.uncountedTerminatedPods, then its finalizer is removed, then
//   the uid moves into status.succeeded / status.failed. A pod is thus
//   counted exactly once even across restarts and stale caches, and the pod
//   object is kept until counted.
// - Failures: podFailurePolicy (FailJob, Ignore, Count, FailIndex),
//   backoffLimit (and restarts of OnFailure pods), activeDeadlineSeconds,
//   and for Indexed Jobs backoffLimitPerIndex / maxFailedIndexes
//   (job_per_index.cc). A failing Job first gets FailureTarget, its active
//   pods are deleted, and once none is left terminating it gets Failed with
//   the same reason and message. Success likewise: SuccessCriteriaMet, then
//   Complete.
// - Failed pods are replaced after the pod failure backoff (backoff.h).
// - Pods are claimed as kube's ControllerRefManager claims them: an orphan
//   the Job's selector matches is adopted (controller ownerReference and
//   tracking finalizer in one write), a pod it controls whose labels stop
//   matching is released (both removed). The selector is spec.selector, or
//   batch.kubernetes.io/controller-uid=<uid>, the one kube's API server
//   generates (berth's does not yet).
// - The tracking finalizer comes off pods no running Job counts: orphans,
//   pods of a deleted or finished Job (kube's orphan-pod queue). A Job's
//   deletion queues its pods at once, so a namespace being deleted is not
//   held by them.
// - suspend deletes the active pods (condition Suspended); resuming resets
//   status.startTime.
// - Throughput: a sync counts at most kMaxUncountedPods finished pods and
//   creates at most kMaxPodCreateDeletePerSync pods, as kube's; when it stops
//   at either limit the Job is synced again at once rather than after the
//   batch period kube would wait.
//
// Not done: successPolicy, spec.managedBy, the job_* metrics.

#include <boost/json/object.hpp>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "controllers/controller.h"
#include "controllers/job/backoff.h"
#include "controllers/replicaset/expectations.h"

namespace berth::controllers {

class JobController final : public Controller {
 public:
  // kube's limits: pods created or deleted in one sync, and finished pods
  // counted in one sync (which bounds status.uncountedTerminatedPods).
  static constexpr int kMaxPodCreateDeletePerSync = 500;
  static constexpr int kMaxUncountedPods = 500;
  // Pod events and status writes are batched: a Job syncs at most this often for them.
  static constexpr std::chrono::milliseconds kSyncBatchPeriod{1000};

  explicit JobController(const ControllerContext& context, int workers = 5);

  // One reconcile's view of a Job (job_sync.h); internal to the controller's files.
  struct Sync;

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  enum class PodChange { kAdded, kUpdated, kDeleted };
  void JobEvent(const api::ObjectPtr& job, bool deleted);
  void PodEvent(const api::ObjectPtr& pod, PodChange change);
  // The Jobs in `pod`'s namespace whose selector matches its labels: those
  // that may adopt it.
  std::vector<std::string> SelectingJobs(const api::Object& pod);
  // Queues the pods `job` controls that still hold the tracking finalizer
  // under the orphan-pod prefix (kube's cleanupPodFinalizers).
  void EnqueueOrphanPods(const api::Object& job);
  // Reconcile's steps. A pod queued under the orphan-pod prefix: its
  // finalizer comes off unless a running Job counts it.
  Status ReconcileOrphanPod(const std::string& key);
  // A deleted Job's state goes.
  void ForgetJob(const std::string& key);
  // True (and the Job queued again shortly) while the informer has not yet
  // seen the Job's last status write.
  bool AwaitsOwnStatusWrite(const std::string& key, const api::Object& job);
  // sync.pods, sync.active and their counts: the pods the Job claims
  // (adopting and releasing first).
  Status ClaimPods(Sync& sync);
  // Why the Job is finishing, if it is (sets sync.finished): a condition
  // already recorded, podFailurePolicy, backoffLimit, the deadline, failed indexes.
  void DecideFinished(Sync& sync);
  // A finishing Job's active pods are deleted; otherwise pods are managed,
  // completion is noticed and the Suspended condition kept.
  Status FinishOrManage(Sync& sync);
  // Creates or deletes pods to reach the wanted active count (sync.active_count follows).
  Status ManagePods(Sync& sync);
  Status CreatePods(Sync& sync, int64_t count);
  // Deletes `pods`; `remove_finalizer` first takes the tracking finalizer off
  // (pods deleted while the Job runs). Returns how many were deleted.
  int64_t DeletePods(Sync& sync, const std::vector<api::ObjectPtr>& pods, bool remove_finalizer,
                     Status& error);
  Status TrackStatusAndRemoveFinalizers(Sync& sync, bool needs_flush);
  // Takes the tracking finalizer off `pods`; the uids whose removal worked
  // leave `with_finalizer`. Returns the first error.
  Status RemoveTrackingFinalizers(Sync& sync, const std::vector<api::ObjectPtr>& pods,
                                  std::unordered_set<std::string>& with_finalizer);
  // The events of a Job that has just finished (sync.finished).
  void RecordFinished(const Sync& sync);
  Status WriteStatus(Sync& sync);
  Status RemoveFinalizer(const api::Object& pod);
  Status CleanUpFinishedJob(const api::Object& job);

  // Finalizer removals sent but not yet seen in the pod informer, by Job key
  // (pod uids): those pods are not counted again meanwhile.
  std::unordered_set<std::string> ExpectedRemovals(const std::string& key);
  void ExpectRemoval(const std::string& key, const std::string& uid);
  void RemovalObserved(const std::string& key, const std::string& uid);

  client::SharedInformer& jobs_;
  client::SharedInformer& pods_;
  Expectations expectations_;
  client::EventRecorder events_;

  std::mutex mu_;
  std::unordered_map<std::string, std::unordered_set<std::string>> removals_;  // guarded by mu_
  std::unordered_map<std::string, job::BackoffRecord> backoff_;                // guarded by mu_
  std::unordered_map<std::string, int64_t>
      generations_;  // last seen metadata.generation; guarded by mu_
  // The resourceVersion of each Job's last status write: a sync waits until
  // the informer has caught up with it instead of counting from an older
  // status and failing on the conflict (which would back the Job off).
  std::unordered_map<std::string, int64_t> written_versions_;  // guarded by mu_
};

}  // namespace berth::controllers
