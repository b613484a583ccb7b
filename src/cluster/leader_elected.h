#pragma once
// The loop `berth scheduler` and `berth controller-manager` run under kube's
// leader election (client/leader_election_flags.h): the work (the scheduler
// runner, the controllers) starts each time this process becomes the leader
// and stops the moment it is not, until SIGINT or SIGTERM.
//
// `berth serve` has none of this: its scheduler and controllers live in the
// one process that also serves the API, so there is nobody to compete with.
// Several API servers on one etcd run with --no-scheduler --no-controllers
// and leave scheduling and controlling to elected `berth scheduler` and
// `berth controller-manager` replicas (docs/scale-out.md).
//
// Departure from kube: kube-scheduler and kube-controller-manager exit when
// they lose the lease and rely on their supervisor to start them again; a
// berth replica stops its work and stays in the election as a follower
// (the next term starts the work afresh: new informers, new caches).

#include <functional>
#include <string>

#include "api/status.h"
#include "client/event_recorder.h"
#include "client/http_client.h"
#include "client/leader_election.h"
#include "client/termination_signals.h"
#include "metrics/metrics.h"

namespace berth::cluster {

// What runs while this process leads. `start` gets the elector, to guard the
// work's writes with client::LeaderOnlyTransport; an error from it ends the
// command. `stop` must return once the work has stopped.
struct LeaderWork {
  std::function<Status(const client::LeaderElector&)> start;
  std::function<void()> stop;
};

// Competes for the lease over `lease_client` and runs `work` while leading,
// until a termination signal; then stops the work and releases the lease.
// Returns the command's exit status. Besides trying every retry period, it
// watches the Leases of the lock's namespace, so that a follower counts the
// lease's expiry from each renewal as it happens (client::LeaderElector::
// Observe). `events`, if set, records kube's LeaderElection events on the
// Lease; `registry`, if set, gets leader_election_master_status. `command`
// names the process in its log lines ("berth COMMAND: leading: started").
int RunLeaderElected(const std::string& command, const client::LeaderElectionConfig& config,
                     client::HttpClient& lease_client, client::TerminationSignals& signals,
                     const LeaderWork& work, const client::EventRecorder* events = nullptr,
                     metrics::Registry* registry = nullptr);

}  // namespace berth::cluster
