// berth controller-manager: the controllers (ReplicaSet, Deployment, garbage
// collector, node lifecycle) on their own, against a Kubernetes-compatible
// API server over HTTP — e.g. `berth serve --no-controllers` elsewhere.
// Writes go through the REST API; informers list and watch over HTTP and
// relist after a lost watch.


#include <cstdio>

#include "client/http_client.h"
#include "client/http_informer.h"
#include "cmd/commands.h"
#include "cmd/controller_runtime.h"
#include "cmd/termination_signals.h"

namespace berth::cmd {
namespace {

struct ControllerManagerFlags {
  std::string server = "http://127.0.0.1:8080";
  std::string node_monitor_grace_period = "40s";
  std::string node_monitor_period = "5s";
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth controller-manager: %s\n", message.c_str());
  return 1;
}

int RunControllerManager(const ControllerManagerFlags& o) {
  ControllerManagerOptions options;
  Status flags = ParseNodeLifecycleFlags(o.node_monitor_grace_period, o.node_monitor_period, options.lifecycle);
  if (!flags.ok()) return Fail(flags.message());

  TerminationSignals signals;

  auto writer = client::HttpClient::Connect(o.server);
  if (!writer.ok()) return Fail("--server " + o.server + ": " + writer.status().message());
  // Informers hold watch connections of their own.
  auto reader = client::HttpClient::Connect(o.server);
  if (!reader.ok()) return Fail("--server " + o.server + ": " + reader.status().message());
  client::HttpClient& http = *writer.value();
  client::HttpClient& watch_http = *reader.value();
  auto started = ControllerManager::Start(
      client::HttpTransport(http),
      [&watch_http](api::Kind kind, client::InformerHandlers handlers) -> std::unique_ptr<client::InformerSource> {
        return std::make_unique<client::HttpInformer>(watch_http, client::RestClient::CollectionPath(kind, ""),
                                                      std::move(handlers));
      },
      options);
  if (!started.ok()) return Fail(started.status().message());
  std::fprintf(stderr, "berth controller-manager: controlling %s\n", o.server.c_str());
  std::fflush(stderr);
  signals.Wait();
  started.value()->Stop();
  std::fprintf(stderr, "berth controller-manager: stopped\n");
  return 0;
}

}  // namespace

void AddControllerManagerCommand(CLI::App& app) {
  static ControllerManagerFlags o;
  auto* cmd = app.add_subcommand("controller-manager",
                                 "Run the controllers against a Kubernetes-compatible API server over HTTP");
  cmd->add_option("--server", o.server, "The API server (http://HOST:PORT)")->capture_default_str();
  cmd->add_option("--node-monitor-grace-period", o.node_monitor_grace_period,
                  "How long a node's kubelet may be silent before the node is marked unreachable")
      ->capture_default_str();
  cmd->add_option("--node-monitor-period", o.node_monitor_period, "How often node health is checked")
      ->capture_default_str();
  cmd->callback([] { SetExitCode(RunControllerManager(o)); });
}

}  // namespace berth::cmd
