#pragma once
// The simulated fleet of `berth serve`: --sim-nodes uniform nodes spread over
// --sim-zones zones (topology.kubernetes.io/zone zone-a, zone-b, ...), plus
// the groups of a --sim-config file.

#include <string>

#include "api/status.h"
#include "controllers/simnode/sim_nodes.h"

namespace berth::cluster {

struct SimFleetFlags {
  int nodes = 0;
  std::string cpu = "8";
  std::string memory = "32Gi";
  int64_t pods = 110;
  int zones = 3;
  std::string node_prefix = "sim-node-";
  std::string config_file;  // --sim-config
  std::string heartbeat_period = "10s";
  // How long restartPolicy Never/OnFailure pods without
  // sim.berth.dev/run-duration run (--sim-default-run-duration).
  std::string default_run_duration = "2s";
};

// BadRequest naming the flag that is wrong.
Result<controllers::SimNodesOptions> BuildSimFleet(const SimFleetFlags& flags);

}  // namespace berth::cluster
