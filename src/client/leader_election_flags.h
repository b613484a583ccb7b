#pragma once
// kube's leader election flags as written (--leader-elect,
// --leader-elect-lease-duration, ...; component-base's
// LeaderElectionConfiguration) and the LeaderElectionConfig they make, with
// kube's words for what is wrong with them. `berth scheduler` and `berth
// controller-manager` take them (cmd/leader_election_flags.h adds the flags).

#include <string>

#include "api/status.h"
#include "client/leader_election.h"

namespace berth::client {

struct LeaderElectionFlags {
  bool leader_elect = true;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string resource_lock = "leases";
  std::string resource_name;  // the command's: kube-scheduler, kube-controller-manager
  std::string resource_namespace = "kube-system";
};

// The election's configuration from the flags, with a new identity (kube's
// hostname_UUID); errors as kube words them, fields under `field_path`
// ("leaderElection" for the scheduler, "generic.leaderElection" for the
// controller manager).
Result<LeaderElectionConfig> LeaderElectionConfigFromFlags(const LeaderElectionFlags& flags,
                                                           const std::string& field_path);

}  // namespace berth::client
