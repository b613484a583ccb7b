// berth controller-manager: the controllers on their own, against a
// Kubernetes-compatible API server (the shared client flags:
// cmd/client_flags.h) — e.g. `berth serve
// --no-controllers` elsewhere. The same manager as inside `berth serve`, with
// an HTTP transport and HTTP informers (which relist after a lost watch).

#include <cstdio>

#include "client/http_client.h"
#include "cluster/controller_manager.h"
#include "cluster/informer_sources.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "cmd/leader_election_flags.h"
#include "cmd/termination_signals.h"
#include "log/log.h"

namespace berth::cmd {
namespace {

struct ControllerManagerFlags {
  ClientFlags client;
  std::vector<std::string> controllers{"*"};
  std::string node_monitor_grace_period = "40s";
  std::string node_monitor_period = "5s";
  int64_t terminated_pod_gc_threshold = 12500;
  int64_t max_endpoints_per_slice = 100;
  std::string endpoint_updates_batch_period = "0s";
  LeaderElectionFlags leader{.resource_name = "kube-controller-manager"};
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth controller-manager: %s\n", message.c_str());
  return 1;
}

int RunControllerManager(const ControllerManagerFlags& f) {
  cluster::ControllerManagerOptions options;
  options.controllers = f.controllers;
  if (auto selected = cluster::SelectControllers(options.controllers); !selected.ok()) {
    return Fail(selected.status().message());
  }
  Status flags = cluster::ParseNodeLifecycleFlags(f.node_monitor_grace_period, f.node_monitor_period,
                                                  options.lifecycle);
  if (!flags.ok()) return Fail(flags.message());
  options.podgc.terminated_pod_threshold = f.terminated_pod_gc_threshold;
  flags = cluster::ParseEndpointFlags(f.max_endpoints_per_slice, f.endpoint_updates_batch_period, options);
  if (!flags.ok()) return Fail(flags.message());

  Result<client::LeaderElectionConfig> election = client::LeaderElectionConfig{};
  if (f.leader.leader_elect) {
    election = LeaderElectionConfigFromFlags(f.leader, "generic.leaderElection");
    if (!election.ok()) return Fail(election.status().message());
  }
  TerminationSignals signals;
  auto rest_config = f.client.Load();
  if (!rest_config.ok()) return Fail(rest_config.status().message());
  rest_config->user_agent = "berth-controller-manager";
  const std::string server = rest_config->server;
  // One client, one QPS limit, as kube-controller-manager's (watches on
  // connections of their own, not limited).
  auto http = client::HttpClient::Connect(*rest_config);
  if (!http.ok()) return Fail(server + ": " + http.status().message());
  if (f.leader.leader_elect) {
    // The Lease and its events go over a client of their own, so that
    // renewals never wait behind the controllers' writes.
    auto lease = client::HttpClient::Connect(*rest_config);
    if (!lease.ok()) return Fail(server + ": " + lease.status().message());
    client::RestClient event_client(client::HttpTransport(*lease.value()));
    client::EventBroadcaster broadcaster(event_client);
    client::EventRecorder events(&broadcaster, {"kube-controller-manager", ""});
    // A manager per term of leadership, its writes refused once the lease is lost.
    std::unique_ptr<cluster::ControllerManager> manager;
    LeaderWork work{
        [&](const client::LeaderElector& elector) -> Status {
          auto started = cluster::ControllerManager::Start(
              client::LeaderOnlyTransport(client::HttpTransport(*http.value()), elector),
              cluster::HttpInformerSources(*http.value()), options);
          if (!started.ok()) return started.status();
          manager = std::move(started).value();
          BERTH_LOG("berth controller-manager: controlling " + server, {"server", server});
          return Status::Ok();
        },
        [&] {
          if (manager) manager->Stop();
          manager.reset();
        }};
    int code = RunLeaderElected("controller-manager", election.value(), *lease.value(), signals,
                                work, &events);
    broadcaster.Stop();
    BERTH_LOG("berth controller-manager: stopped");
    return code;
  }
  auto started = cluster::ControllerManager::Start(client::HttpTransport(*http.value()),
                                                   cluster::HttpInformerSources(*http.value()), options);
  if (!started.ok()) return Fail(started.status().message());
  BERTH_LOG("berth controller-manager: controlling " + server, {"server", server});
  signals.Wait();
  started.value()->Stop();
  BERTH_LOG("berth controller-manager: stopped");
  return 0;
}

}  // namespace

void AddControllerManagerCommand(CLI::App& app) {
  static ControllerManagerFlags f;
  auto* cmd = app.add_subcommand("controller-manager",
                                 "Run the controllers against a Kubernetes-compatible API server over HTTP");
  f.client.AddTo(cmd, 20, 30);  // kube-controller-manager's defaults
  cmd->add_option("--controllers", f.controllers, cluster::ControllersHelp())
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--node-monitor-grace-period", f.node_monitor_grace_period,
                  "How long a node's kubelet may be silent before the node is marked unreachable")
      ->capture_default_str();
  cmd->add_option("--node-monitor-period", f.node_monitor_period, "How often node health is checked")
      ->capture_default_str();
  cmd->add_option("--terminated-pod-gc-threshold", f.terminated_pod_gc_threshold,
                  "Terminated pods kept before the pod garbage collector deletes the oldest (<= 0: never)")
      ->capture_default_str();
  cmd->add_option("--max-endpoints-per-slice", f.max_endpoints_per_slice,
                    "The most endpoints an EndpointSlice holds")
      ->capture_default_str();
  cmd->add_option("--endpoint-updates-batch-period", f.endpoint_updates_batch_period,
                    "How long pod changes are batched before a Service's endpoints are synced")
      ->capture_default_str();
  AddLeaderElectionFlags(*cmd, f.leader);
  cmd->callback([] { SetExitCode(RunControllerManager(f)); });
}

}  // namespace berth::cmd
