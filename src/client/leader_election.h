#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, as client-go's
// tools/leaderelection does it for kube-scheduler and
// kube-controller-manager, so berth's replicas and kube's components read
// each other's Leases the same way.
//
// The Lease's spec is the election record: holderIdentity,
// leaseDurationSeconds, acquireTime, renewTime, leaseTransitions. A
// candidate takes the lease when nobody holds it or when the record it
// observed has not changed for leaseDurationSeconds, judged by its own steady
// clock from the moment it first saw that record (the times written in the
// record are never compared with the local clock, so clock skew between
// machines does not matter, only their rates). Every write is a PUT guarded
// by the Lease's resourceVersion, so of two candidates only one wins.
//
// The leader renews every retry period. It stops leading when no renewal
// succeeded within the renew deadline, counted from the start of the last
// successful one; since others wait a full lease duration (longer than the
// renew deadline) after they saw that renewal, the leader stops before the
// lease can expire anywhere else. HoldsLease() says so at once, from the
// clock alone, even while the election's own thread is still blocked on a
// request or the process was paused: guard every write with it
// (LeaderOnlyTransport).
//
// Departures from client-go, each for a shorter or safer handover:
// - a follower may also learn of renewals from a watch (Observe);
// - a follower also tries at the moment the lease it observes would expire,
//   not only every jittered retry period;
// - leaseDurationSeconds is the lease duration rounded up to whole seconds
//   (client-go rounds down, so a 1.5 s lease would be written as 1 s and
//   followers could take over while the leader still acts);
// - the leader stops at once when it sees another holder in the record,
//   and a renewal that returns after the renew deadline does not extend
//   leadership (the process steps down and competes again);
// - OnStoppedLeading is called only after OnStartedLeading was.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "api/object.h"
#include "api/status.h"
#include "api/time/clock.h"
#include "client/event_recorder.h"
#include "client/rest_client.h"
#include "metrics/metrics.h"

namespace berth::client {

struct LeaderElectionConfig {
  // The Lease: kube's --leader-elect-resource-namespace / -resource-name.
  std::string lock_namespace = "kube-system";
  std::string lock_name;
  // This candidate, as kube writes it: hostname + "_" + a random UUID
  // (NewLeaderIdentity). Must not be empty.
  std::string identity;
  // The `name` label of leader_election_master_status (client-go's
  // LeaderElectionConfig.Name: "kube-scheduler" ...); empty: lock_name.
  std::string name;
  // How long followers wait without seeing the record change before they
  // take the lease.
  std::chrono::milliseconds lease_duration{15000};
  // How long the leader keeps trying to renew before it gives up.
  std::chrono::milliseconds renew_deadline{10000};
  // How often the leader renews, and (with jitter) followers try.
  std::chrono::milliseconds retry_period{2000};
  // Stop() gives the lease up (holderIdentity "", leaseDurationSeconds 1)
  // so that a follower takes over at its next try. Whoever stops the elector
  // must have stopped every write the lease guards first.
  bool release_on_cancel = true;
};

// Called on the election's thread, one at a time and without its locks
// held; they must return promptly (start or stop the work elsewhere): the
// next renewal waits for them.
struct LeaderCallbacks {
  std::function<void()> on_started_leading;
  // After on_started_leading only: leadership was lost, or Stop() ended it.
  std::function<void()> on_stopped_leading;
  // The holder changed (the first one observed included); "" when released.
  std::function<void(const std::string& identity)> on_new_leader;
};

// kube's checks of the configuration (component-base's
// ValidateLeaderElectionConfiguration under `field_path`, e.g.
// "leaderElection", then client-go's NewLeaderElector's). Invalid with one
// cause per problem.
Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config,
                                    const std::string& field_path);

// hostname + "_" + a random (version 4) UUID, kube's holderIdentity.
std::string NewLeaderIdentity();

class LeaderElector {
 public:
  struct Options {
    api::Clock* clock = nullptr;              // nullptr: api::RealClock
    metrics::Registry* registry = nullptr;    // leader_election_master_status; nullptr: none
    const EventRecorder* recorder = nullptr;  // "became leader" / "stopped leading" on the Lease
    uint64_t seed = 0;                        // the followers' retry jitter; 0: random
  };

  // `transport` carries the Lease's requests only (give it a connection of
  // its own, so that renewals do not queue behind the work they guard).
  // Invalid or BadRequest when the configuration is (see above).
  static Result<std::unique_ptr<LeaderElector>> Create(LeaderElectionConfig config,
                                                       Transport transport,
                                                       LeaderCallbacks callbacks, Options options);
  ~LeaderElector();  // Stop()
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts competing: the first try at once, on the clock's alarm thread.
  void Start();
  // Ends the election: waits for a try under way, calls on_stopped_leading
  // if leading, and releases the lease when release_on_cancel. Idempotent.
  // REQUIRES: not called from a callback.
  void Stop();

  // A version of the Lease seen elsewhere, e.g. by a watch: a follower that
  // learns of each renewal as it happens, rather than at its next try,
  // counts the lease's expiry from the renewal itself and takes over up to
  // a jittered retry period sooner. Versions not newer than the last one
  // seen (by resourceVersion) are ignored, so a late event never rolls the
  // record back; other objects are ignored. Any thread.
  void Observe(const api::Object& lease);

  // True while this candidate leads and its last renewal is younger than
  // the renew deadline by the clock now. Any thread.
  bool HoldsLease() const;
  // The last observed record names this candidate (client-go's IsLeader).
  bool IsLeader() const;
  // The holder of the last observed record ("" before the first read).
  std::string GetLeader() const;
  const LeaderElectionConfig& config() const { return config_; }
  // "kube-system/kube-scheduler".
  std::string Describe() const { return config_.lock_namespace + "/" + config_.lock_name; }

 private:
  struct Record {
    std::string holder;
    int64_t lease_duration_seconds = 0;
    std::string acquire_time, renew_time;
    int64_t transitions = 0;
    bool operator==(const Record&) const = default;
  };

  LeaderElector(LeaderElectionConfig config, Transport transport, LeaderCallbacks callbacks,
                Options options);
  void Fire();
  // One try; returns when to try next.
  std::chrono::nanoseconds Step();
  bool TryAcquireOrRenew();
  std::chrono::nanoseconds NextTryAsFollower();
  void StartLeading(api::Clock::time_point renewed_at);
  void StopLeading(const std::string& why);
  bool Release();
  void MaybeReportTransition();
  void SetObserved(Record record, int64_t version);
  boost::json::object LeaseWith(const Record& record) const;
  static Record RecordOf(const api::Object& lease);
  bool LeaseValidLocked(api::Clock::time_point now) const;
  bool IsLeaderLocked() const { return observed_.holder == config_.identity; }

  const LeaderElectionConfig config_;
  RestClient client_;
  const LeaderCallbacks callbacks_;
  api::Clock& clock_;
  const Options options_;
  metrics::Gauge* master_status_ = nullptr;

  mutable std::mutex mu_;
  Record observed_;                     // guarded by mu_
  int64_t observed_version_ = 0;        // guarded by mu_: the resourceVersion observed_ came from
  api::Clock::time_point observed_at_;  // guarded by mu_: when observed_ last changed
  bool leading_ = false;                // guarded by mu_
  // guarded by mu_: when the last successful write while leading started
  api::Clock::time_point renewed_at_;

  // The election's thread only (and Stop, once the alarm is gone).
  api::ObjectPtr lease_;  // the Lease as last read or written
  std::string reported_leader_;
  std::mt19937_64 rng_;

  std::mutex alarm_mu_;
  std::unique_ptr<api::Clock::Alarm> alarm_;  // guarded by alarm_mu_; Stop takes it out
  bool stopped_ = false;                      // guarded by alarm_mu_
};

// `inner` for reads (GET); every other request is refused with
// ServiceUnavailable unless `elector` holds the lease at that moment, so a
// replica that lost the lease writes nothing more, whatever its threads were
// doing. REQUIRES: `elector` outlives the transport.
Transport LeaderOnlyTransport(Transport inner, const LeaderElector& elector);

}  // namespace berth::client
