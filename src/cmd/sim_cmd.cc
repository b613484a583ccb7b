// berth sim node-add|node-down|node-up|volume-health: flags (the client's:
// cmd/client_flags.h) → cluster::AddSimNode, SetSimNodeDown, SetVolumeHealth
// (src/cluster/sim_fleet_edits.h).

#include <cstdio>

#include "cluster/sim_fleet_edits.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"

namespace berth::cmd {
namespace {

struct SimFlags {
  cluster::SimNodeAddFlags node;  // node.node: NAME of node-add, node-down and node-up
  std::string volume;
  std::string healthy;  // "true" or "false"
  ClientFlags client;
};

}  // namespace

void AddSimCommand(CLI::App& app) {
  static SimFlags o;
  static const cluster::SimConnect connect = [] { return o.client.Connect("berth-sim"); };
  auto* sim = app.add_subcommand("sim", "Failure injection for simulated nodes and volumes");
  sim->require_subcommand(1);
  auto* down = sim->add_subcommand("node-down", "Stop a simulated node's heartbeat and kubelet");
  auto* up = sim->add_subcommand("node-up", "Restart a simulated node's heartbeat and kubelet");
  for (auto* cmd : {down, up}) {
    cmd->add_option("NAME", o.node.node, "The node")->required();
    o.client.AddTo(cmd, 50, 100);
  }
  auto* add = sim->add_subcommand("node-add", "Add a simulated node (with a kubelet) to a running server");
  add->add_option("NAME", o.node.node, "The node's name")->required();
  o.client.AddTo(add, 50, 100);
  add->add_option("--cpu", o.node.cpu, "Capacity: CPU")->capture_default_str();
  add->add_option("--memory", o.node.memory, "Capacity: memory")->capture_default_str();
  add->add_option("--pods", o.node.pods, "Capacity: pods")->capture_default_str();
  add->add_option("--zone", o.node.zone, "The topology.kubernetes.io/zone label");
  add->add_option("--label", o.node.labels, "A label KEY=VALUE (repeatable)");
  add->add_option("--taint", o.node.taints, "A taint KEY[=VALUE]:EFFECT (repeatable)");
  add->callback([] { SetExitCode(cluster::AddSimNode(o.node, connect, stdout, stderr)); });
  auto* health = sim->add_subcommand("volume-health", "Mark a PersistentVolume healthy (true) or unhealthy (false)");
  health->add_option("PV", o.volume, "The PersistentVolume")->required();
  health->add_option("HEALTHY", o.healthy, "true or false")->required();
  o.client.AddTo(health, 50, 100);
  health->callback([] { SetExitCode(cluster::SetVolumeHealth(o.volume, o.healthy, connect, stdout, stderr)); });
  down->callback([] { SetExitCode(cluster::SetSimNodeDown(o.node.node, true, connect, stdout, stderr)); });
  up->callback([] { SetExitCode(cluster::SetSimNodeDown(o.node.node, false, connect, stdout, stderr)); });
}

}  // namespace berth::cmd
