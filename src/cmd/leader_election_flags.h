#pragma once
// kube's leader election flags for `berth scheduler` and `berth
// controller-manager` (--leader-elect, --leader-elect-lease-duration ...),
// and the loop both run: the work (the scheduler runner, the controllers)
// starts each time this process becomes the leader and stops the moment it
// is not, until SIGINT or SIGTERM.
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

#include <CLI/App.hpp>
#include <functional>
#include <string>

#include "api/status.h"
#include "client/http_client.h"
#include "client/leader_election.h"
#include "client/rest_client.h"
#include "cmd/termination_signals.h"

namespace berth::cmd {

struct LeaderElectionFlags {
  bool leader_elect = true;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string resource_lock = "leases";
  std::string resource_name;  // the command's: kube-scheduler, kube-controller-manager
  std::string resource_namespace = "kube-system";
};

void AddLeaderElectionFlags(CLI::App& cmd, LeaderElectionFlags& flags);

// The election's configuration from the flags, with a new identity (kube's
// hostname_UUID); errors as kube words them, fields under `field_path`
// ("leaderElection" for the scheduler, "generic.leaderElection" for the
// controller manager).
Result<client::LeaderElectionConfig> LeaderElectionConfigFromFlags(const LeaderElectionFlags& flags,
                                                                   const std::string& field_path);

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
// Lease; `registry`, if set, gets leader_election_master_status.
int RunLeaderElected(const std::string& command, const client::LeaderElectionConfig& config,
                     client::HttpClient& lease_client, TerminationSignals& signals,
                     const LeaderWork& work, const client::EventRecorder* events = nullptr,
                     metrics::Registry* registry = nullptr);

}  // namespace berth::cmd
