#pragma once
// kube's leader election flags for `berth scheduler` and `berth
// controller-manager` (--leader-elect, --leader-elect-lease-duration ...),
// into client::LeaderElectionFlags (client/leader_election_flags.h); the
// loop they drive is cluster/leader_elected.h.

#include <CLI/App.hpp>

#include "client/leader_election_flags.h"

namespace berth::cmd {

void AddLeaderElectionFlags(CLI::App& cmd, client::LeaderElectionFlags& flags);

}  // namespace berth::cmd
