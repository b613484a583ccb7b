#include "cmd/leader_election_flags.h"

namespace berth::cmd {

void AddLeaderElectionFlags(CLI::App& cmd, client::LeaderElectionFlags& f) {
  cmd.add_flag("--leader-elect", f.leader_elect,
               "Start a leader election client and gain leadership before executing the main loop. "
               "Enable this "
               "when running replicated components for high availability. (default true; "
               "--leader-elect=false turns it "
               "off)");
  cmd.add_option("--leader-elect-lease-duration", f.lease_duration,
                 "The duration that non-leader candidates will wait after observing a leadership "
                 "renewal until "
                 "attempting to acquire leadership of a led but unrenewed leader slot.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-renew-deadline", f.renew_deadline,
                 "The interval between attempts by the acting master to renew a leadership slot "
                 "before it stops "
                 "leading. This must be less than the lease duration.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-retry-period", f.retry_period,
                 "The duration the clients should wait between attempting acquisition and renewal "
                 "of a leadership.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-resource-lock", f.resource_lock,
                 "The type of resource object that is used for locking during leader election. "
                 "Supported options "
                 "are 'leases'.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-resource-name", f.resource_name,
                 "The name of resource object that is used for locking during leader election.")
      ->capture_default_str();
  cmd.add_option(
         "--leader-elect-resource-namespace", f.resource_namespace,
         "The namespace of resource object that is used for locking during leader election.")
      ->capture_default_str();
}

}  // namespace berth::cmd
