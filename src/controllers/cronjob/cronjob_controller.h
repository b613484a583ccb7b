#pragma once
// The CronJob controller (kube's cronjob-controller, ControllerV2): at each
// activation of spec.schedule (cron syntax or a descriptor, in spec.timeZone,
// UTC by default) it creates a Job from spec.jobTemplate named
// <cronjob>-<scheduled time in minutes since the epoch>, annotated
// batch.kubernetes.io/cronjob-scheduled-timestamp (the scheduled time in the
// CronJob's zone) and controlled by the CronJob; and it keeps status.active
// (references to its unfinished Jobs), lastScheduleTime and
// lastSuccessfulTime. As kube:
//
// - only the most recent missed activation is started; more than 100 missed
//   ones also record TooManyMissedTimes; startingDeadlineSeconds ignores
//   activations older than that many seconds;
// - concurrencyPolicy Forbid skips an activation while a Job is active
//   (JobAlreadyActive), Replace deletes the active Jobs first, Allow runs
//   them side by side; suspend starts nothing;
// - finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit
//   are deleted, those that started first going first;
// - events: SuccessfulCreate, SawCompletedJob, SuccessfulDelete,
//   MissingJob, UnexpectedJob, JobAlreadyActive, MissSchedule,
//   TooManyMissedTimes, UnknownTimeZone, UnparseableSchedule,
//   InvalidSchedule, FailedCreate, FailedDelete.
//
// Every time it reads is the context clock's wall time, and each CronJob is
// queued again for its next activation on that clock: a FakeClock runs a
// day of schedules in a test without waiting. A schedule without a TZ= prefix
// or spec.timeZone is read in UTC (kube reads it in the controller manager's
// local zone, UTC in its usual container).
//
// A Job counts as finished when its Complete or Failed condition is True:
// whichever Job controller runs sets those.

#include <string>

#include "controllers/controller.h"
#include "controllers/cronjob/schedule.h"

namespace berth::controllers {

inline constexpr char kCronJobScheduledTimestampAnnotation[] =
    "batch.kubernetes.io/cronjob-scheduled-timestamp";

class CronJobController final : public Controller {
 public:
  explicit CronJobController(const ControllerContext& context, int workers = 2);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct Sync;
  void CleanupFinishedJobs(Sync& s);
  Status SyncCronJob(Sync& s);
  // The steps of SyncCronJob; `cj` is the CronJob as read (s.cj may be a
  // fresher copy). False or a Status: the sync stops there.
  Status SyncActiveWithJobs(Sync& s, const api::Object& cj);
  Status DropMissingActiveJobs(Sync& s, const api::Object& cj);
  bool LoadJobTimeZone(Sync& s, const api::Object& cj);
  bool ParseSchedule(Sync& s, const api::Object& cj);
  Status StartDueJob(Sync& s, const api::Object& cj, WallTime now);
  Status DeleteActiveJobs(Sync& s, const api::Object& cj);
  Status CreateScheduledJob(Sync& s, const api::Object& cj, const std::string& job_name,
                            WallTime scheduled, WallTime created, WallTime now);
  bool DeleteJob(Sync& s, const api::Object& job);
  Status WriteStatus(Sync& s);

  client::SharedInformer& cronjobs_;
  client::SharedInformer& jobs_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
