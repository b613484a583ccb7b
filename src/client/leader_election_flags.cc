#include "client/leader_election_flags.h"

#include <chrono>

#include "api/time/duration.h"

namespace berth::client {

Result<LeaderElectionConfig> LeaderElectionConfigFromFlags(const LeaderElectionFlags& f,
                                                           const std::string& field_path) {
  LeaderElectionConfig config;
  struct {
    const char* flag;
    const std::string& text;
    std::chrono::milliseconds& out;
  } durations[] = {{"--leader-elect-lease-duration", f.lease_duration, config.lease_duration},
                   {"--leader-elect-renew-deadline", f.renew_deadline, config.renew_deadline},
                   {"--leader-elect-retry-period", f.retry_period, config.retry_period}};
  for (auto& d : durations) {
    auto parsed = api::ParseGoDuration(d.text);
    if (!parsed) {
      return Status::BadRequest("invalid argument \"" + d.text + "\" for \"" + d.flag +
                                "\" flag: time: invalid duration \"" + d.text + "\"");
    }
    d.out = *parsed;
  }
  // client-go's resourcelock.New.
  if (f.resource_lock == "endpoints" || f.resource_lock == "configmaps") {
    return Status::BadRequest(f.resource_lock + " lock is removed, migrate to " + f.resource_lock +
                              "leases (using version v0.27.x)");
  }
  if (f.resource_lock == "endpointsleases") {
    return Status::BadRequest("endpointsleases lock is removed, migrate to leases");
  }
  if (f.resource_lock == "configmapsleases") {
    return Status::BadRequest("configmapsleases lock is removed, migrated to leases");
  }
  if (f.resource_lock.empty()) return Status::Invalid(field_path + ".resourceLock: Required value");
  if (f.resource_lock != "leases")
    return Status::BadRequest("Invalid lock-type " + f.resource_lock);
  config.lock_namespace = f.resource_namespace;
  config.lock_name = f.resource_name;
  config.name = f.resource_name;
  config.identity = NewLeaderIdentity();
  if (Status s = ValidateLeaderElectionConfig(config, field_path); !s.ok()) return s;
  return config;
}

}  // namespace berth::client
