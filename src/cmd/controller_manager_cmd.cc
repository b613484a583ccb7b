// berth controller-manager: flags (the client's: cmd/client_flags.h) →
// cluster::StandaloneControllerManagerFlags →
// cluster::RunStandaloneControllerManager (src/cluster/standalone_controller_manager.h).

#include <cstdio>

#include "cluster/standalone_controller_manager.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "cmd/leader_election_flags.h"

namespace berth::cmd {
namespace {

struct ControllerManagerFlags {
  ClientFlags client;
  cluster::StandaloneControllerManagerFlags manager;
};

}  // namespace

void AddControllerManagerCommand(CLI::App& app) {
  static ControllerManagerFlags f;
  auto* cmd = app.add_subcommand("controller-manager",
                                 "Run the controllers against a Kubernetes-compatible API server over HTTP");
  f.client.AddTo(cmd, 20, 30);  // kube-controller-manager's defaults
  cmd->add_option("--controllers", f.manager.controllers, cluster::ControllersHelp())
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--node-monitor-grace-period", f.manager.node_monitor_grace_period,
                  "How long a node's kubelet may be silent before the node is marked unreachable")
      ->capture_default_str();
  cmd->add_option("--node-monitor-period", f.manager.node_monitor_period, "How often node health is checked")
      ->capture_default_str();
  cmd->add_option("--terminated-pod-gc-threshold", f.manager.terminated_pod_gc_threshold,
                  "Terminated pods kept before the pod garbage collector deletes the oldest (<= 0: never)")
      ->capture_default_str();
  cmd->add_option("--max-endpoints-per-slice", f.manager.max_endpoints_per_slice,
                    "The most endpoints an EndpointSlice holds")
      ->capture_default_str();
  cmd->add_option("--endpoint-updates-batch-period", f.manager.endpoint_updates_batch_period,
                    "How long pod changes are batched before a Service's endpoints are synced")
      ->capture_default_str();
  AddLeaderElectionFlags(*cmd, f.manager.leader);
  cmd->callback([] {
    SetExitCode(cluster::RunStandaloneControllerManager(f.manager, [] { return f.client.Load(); }, stderr));
  });
}

}  // namespace berth::cmd
