#pragma once
// `berth sim`: edits of a running `berth serve`'s simulated fleet
// (cluster/sim_fleet.h), over its API.
//
// node-add NAME: a simulated node joins the fleet (its Node is created with
// the label sim.berth.dev/node=true; the server's simulated kubelets take it
// up: lease, Ready, pods run).
//
// node-down|node-up NAME: failure injection. Sets or clears the node's
// sim.berth.dev/down annotation; that node's simulated kubelet stops (or
// resumes) heartbeating and working, and the node lifecycle controller does
// the rest (Unknown, unreachable taints, evictions; Ready again). Nodes
// that are not simulated (no sim.berth.dev/node=true label) are refused.
//
// volume-health PV true|false: marks a PersistentVolume healthy or not
// (berth's health pre-check of CSI volumes): false sets the annotation
// sim.berth.dev/volume-healthy: "false", which the PV controller and the
// scheduler's volume filter read (they never bind an unhealthy volume);
// true removes it.
//
// Each prints one line on `out` when done ("node/NAME added") and returns
// the exit status: 0; 1 when the server refused, with its words on `err`;
// 2 for a bad argument (named) or no connection.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "client/http_client.h"

namespace berth::cluster {

// A client of the server (cmd/client_flags.h's flags), made once the
// arguments are checked.
using SimConnect = std::function<Result<std::unique_ptr<client::HttpClient>>()>;

// node-add's arguments and flags as written.
struct SimNodeAddFlags {
  std::string node;  // NAME
  std::string cpu = "8";
  std::string memory = "32Gi";
  int64_t pods = 110;
  std::string zone;
  std::vector<std::string> labels;  // KEY=VALUE
  std::vector<std::string> taints;  // KEY[=VALUE]:EFFECT
};

int AddSimNode(const SimNodeAddFlags& flags, const SimConnect& connect, std::FILE* out, std::FILE* err);
// node-down (`down`) or node-up of the simulated node `name`.
int SetSimNodeDown(const std::string& name, bool down, const SimConnect& connect, std::FILE* out,
                   std::FILE* err);
// `healthy_argument`: HEALTHY as written, "true" or "false".
int SetVolumeHealth(const std::string& volume, const std::string& healthy_argument, const SimConnect& connect,
                    std::FILE* out, std::FILE* err);

}  // namespace berth::cluster
