#pragma once
// A Deployment's Progressing condition, as kube's deployment controller keeps
// it (pkg/controller/deployment/progress.go and sync.go), so that `kubectl
// rollout status` reports what it reports against kube:
//
// - True NewReplicaSetCreated ("Created new replica set \"X\"") when the
//   sync created the new ReplicaSet; True FoundNewReplicaSet ("Found new
//   replica set \"X\"") when the new one exists but no condition does yet;
// - True ReplicaSetUpdated ("ReplicaSet \"X\" is progressing.") whenever the
//   counts move forward (more updated, ready or available replicas, fewer old
//   ones): lastUpdateTime is then now, which restarts the deadline;
// - True NewReplicaSetAvailable ("ReplicaSet \"X\" has successfully
//   progressed.") once every replica is updated and available; a completed
//   rollout is not judged again until the template changes;
// - False ProgressDeadlineExceeded ("ReplicaSet \"X\" has timed out
//   progressing.") when progressDeadlineSeconds pass after lastUpdateTime
//   without any of the above;
// - Unknown DeploymentPaused / DeploymentResumed while paused / on resume
//   (a timed-out condition is left as it is);
// - no Progressing condition at all when the Deployment has no deadline
//   (progressDeadlineSeconds absent or 2147483647).
// "Deployment \"D\"" stands for the ReplicaSet in the messages when there is
// no new ReplicaSet yet.

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace berth::controllers {

struct RolloutCounts {
  int64_t replicas = 0, updated = 0, ready = 0, available = 0;
};

struct ProgressInput {
  std::string deployment;                // its name
  std::string new_replica_set;           // "" when there is none yet
  bool created_new_replica_set = false;  // by this sync
  bool paused = false;
  int64_t spec_replicas = 1;
  std::optional<int64_t> deadline_seconds;  // nullopt: no deadline
  RolloutCounts before;                     // the status the sync started from
  RolloutCounts now;                        // the status it computed
};

// Sets the Progressing condition in `status` (the new status, still holding
// the conditions it started with). Returns how long until the deadline
// should be checked again (kube's requeueStuckDeployment: lastUpdateTime +
// deadline - now, plus a second), or nullopt when there is nothing to wait
// for (complete, timed out, paused, no deadline).
std::optional<std::chrono::milliseconds> UpdateProgressing(
    boost::json::object& status, const ProgressInput& in,
    std::chrono::system_clock::time_point now);

// progressDeadlineSeconds as kube reads it: nullopt when absent or MaxInt32.
std::optional<int64_t> ProgressDeadline(const boost::json::object* spec);

}  // namespace berth::controllers
