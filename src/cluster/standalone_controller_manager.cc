#include "cluster/standalone_controller_manager.h"

#include <cstdio>
#include <memory>
#include <utility>

#include "client/event_recorder.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cluster/informer_sources.h"
#include "cluster/leader_elected.h"
#include "client/termination_signals.h"
#include "log/log.h"

namespace berth::cluster {
namespace {

// A manager per term of leadership, its writes refused once the lease is
// lost, until a termination signal.
Result<int> RunElected(const ControllerManagerOptions& options, const client::LeaderElectionConfig& election,
                       const client::RestConfig& rest_config, client::HttpClient& http,
                       client::TerminationSignals& signals) {
  const std::string& server = rest_config.server;
  // The Lease and its events go over a client of their own, so that
  // renewals never wait behind the controllers' writes.
  auto lease = client::HttpClient::Connect(rest_config);
  if (!lease.ok()) return Status(lease.status().code(), server + ": " + lease.status().message());
  client::RestClient event_client(client::HttpTransport(*lease.value()));
  client::EventBroadcaster broadcaster(event_client);
  client::EventRecorder events(&broadcaster, {"kube-controller-manager", ""});
  std::unique_ptr<ControllerManager> manager;
  LeaderWork work{
      [&](const client::LeaderElector& elector) -> Status {
        auto started = ControllerManager::Start(client::LeaderOnlyTransport(client::HttpTransport(http), elector),
                                                HttpInformerSources(http), options);
        if (!started.ok()) return started.status();
        manager = std::move(started).value();
        BERTH_LOG("berth controller-manager: controlling " + server, {"server", server});
        return Status::Ok();
      },
      [&] {
        if (manager) manager->Stop();
        manager.reset();
      }};
  int code = RunLeaderElected("controller-manager", election, *lease.value(), signals, work, &events);
  broadcaster.Stop();
  BERTH_LOG("berth controller-manager: stopped");
  return code;
}

}  // namespace

Result<ControllerManagerOptions> ControllerManagerOptionsFromFlags(const StandaloneControllerManagerFlags& f) {
  ControllerManagerOptions options;
  options.controllers = f.controllers;
  if (auto selected = SelectControllers(options.controllers); !selected.ok()) return selected.status();
  Status flags = ParseNodeLifecycleFlags(f.node_monitor_grace_period, f.node_monitor_period, options.lifecycle);
  if (!flags.ok()) return flags;
  options.podgc.terminated_pod_threshold = f.terminated_pod_gc_threshold;
  flags = ParseEndpointFlags(f.max_endpoints_per_slice, f.endpoint_updates_batch_period, options);
  if (!flags.ok()) return flags;
  return options;
}

int RunStandaloneControllerManager(const StandaloneControllerManagerFlags& f,
                                   const std::function<Result<client::RestConfig>()>& load, std::FILE* err) {
  auto fail = [err](const Status& s) {
    std::fprintf(err, "berth controller-manager: %s\n", s.message().c_str());
    return 1;
  };
  auto options = ControllerManagerOptionsFromFlags(f);
  if (!options.ok()) return fail(options.status());
  Result<client::LeaderElectionConfig> election = client::LeaderElectionConfig{};
  if (f.leader.leader_elect) {
    election = client::LeaderElectionConfigFromFlags(f.leader, "generic.leaderElection");
    if (!election.ok()) return fail(election.status());
  }
  client::TerminationSignals signals;
  auto rest_config = load();
  if (!rest_config.ok()) return fail(rest_config.status());
  rest_config->user_agent = "berth-controller-manager";
  options->root_ca.root_ca = rest_config->ca_pem;  // kube's fallback without --root-ca-file
  const std::string server = rest_config->server;
  // One client, one QPS limit, as kube-controller-manager's (watches on
  // connections of their own, not limited).
  auto http = client::HttpClient::Connect(*rest_config);
  if (!http.ok()) return fail(Status(http.status().code(), server + ": " + http.status().message()));
  if (f.leader.leader_elect) {
    auto code = RunElected(*options, *election, *rest_config, *http.value(), signals);
    return code.ok() ? code.value() : fail(code.status());
  }
  auto started = ControllerManager::Start(client::HttpTransport(*http.value()), HttpInformerSources(*http.value()),
                                          *options);
  if (!started.ok()) return fail(started.status());
  BERTH_LOG("berth controller-manager: controlling " + server, {"server", server});
  signals.Wait();
  started.value()->Stop();
  BERTH_LOG("berth controller-manager: stopped");
  return 0;
}

}  // namespace berth::cluster
