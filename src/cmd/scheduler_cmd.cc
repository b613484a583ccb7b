// berth scheduler: the scheduler on its own, against any Kubernetes-compatible
// API server over HTTP (berth's, or kube-apiserver through `kubectl proxy`):
// the same runner as inside `berth serve`, with HTTP informers and client.

#include <cstdio>

#include "api/duration.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cluster/component_http.h"
#include "cluster/informer_sources.h"
#include "cluster/scheduler_clients.h"
#include "cluster/scheduler_runner.h"
#include "cmd/commands.h"
#include "cmd/termination_signals.h"
#include "metrics/process.h"

namespace berth::cmd {
namespace {

struct SchedulerFlags {
  std::string server = "http://127.0.0.1:8080";
  std::string config;
  int concurrent = 2;
  uint64_t seed = 0;
  std::string cache_resync_period = "30s";
  std::string listen = "127.0.0.1:10259";
  bool listen_set = false;  // --listen given: failing to bind it is an error
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth scheduler: %s\n", message.c_str());
  return 1;
}

int RunScheduler(const SchedulerFlags& f, const scheduler::Registry& registry) {
  scheduler::SchedulerConfig config;
  if (!f.config.empty()) {
    auto loaded = cluster::LoadSchedulerConfig(f.config);
    if (!loaded.ok()) return Fail(loaded.status().message());
    config = std::move(loaded).value();
  }
  TerminationSignals signals;
  auto writer = client::HttpClient::Connect(f.server);
  if (!writer.ok()) return Fail("--server " + f.server + ": " + writer.status().message());
  // Informers hold watch connections of their own.
  auto reader = client::HttpClient::Connect(f.server);
  if (!reader.ok()) return Fail("--server " + f.server + ": " + reader.status().message());
  scheduler::SchedulerOptions options;
  options.concurrent = f.concurrent;
  options.seed = f.seed;
  auto period = api::ParseGoDuration(f.cache_resync_period);
  if (!period || period->count() < 0) {
    return Fail("--cache-resync-period " + f.cache_resync_period + ": expected a duration such as 30s");
  }
  // The drift guard lists over a connection of its own.
  auto lister = client::HttpClient::Connect(f.server);
  if (!lister.ok()) return Fail("--server " + f.server + ": " + lister.status().message());
  auto rest = std::make_shared<client::RestClient>(client::HttpTransport(*lister.value()));
  cluster::CacheResync resync{
      .list = [rest](api::Kind kind) -> Result<std::pair<std::vector<api::ObjectPtr>, int64_t>> {
        int64_t revision = 0;
        auto items = rest->List(kind, "", "", &revision);
        if (!items.ok()) return items.status();
        return std::pair{std::move(items).value(), revision};
      },
      .period = std::chrono::duration_cast<std::chrono::milliseconds>(*period)};
  auto runner = cluster::SchedulerRunner::Create(
      config, options, cluster::HttpInformerSources(*reader.value()),
      std::make_unique<cluster::ApiSchedulerClient>(client::HttpTransport(*writer.value())), registry,
      std::move(resync));
  if (!runner.ok()) return Fail((f.config.empty() ? "" : "--config " + f.config + ": ") + runner.status().message());
  if (Status s = runner.value()->Start(); !s.ok()) return Fail(s.message());
  std::unique_ptr<apiserver::HttpServer> endpoint;
  if (!f.listen.empty()) {
    cluster::SchedulerRunner* r = runner.value().get();
    auto process = std::make_shared<metrics::Registry>();  // process_*, as kube-scheduler's /metrics has
    metrics::AddProcessMetrics(*process);
    auto started = cluster::StartComponentHttp(
        {.listen = f.listen, .metrics = [r, process] { return r->scheduler().RenderMetrics() + process->Render(); },
         .routes = {}});
    if (started.ok()) {
      endpoint = std::move(started).value();
      std::fprintf(stderr, "berth scheduler: serving /healthz and /metrics on http://%s:%u\n",
                   f.listen.substr(0, f.listen.rfind(':')).c_str(), endpoint->port());
    } else if (f.listen_set) {
      runner.value()->Stop();
      return Fail(started.status().message());
    } else {
      // The default port taken (another scheduler on this machine): scheduling goes on.
      std::fprintf(stderr, "berth scheduler: not serving /metrics: %s\n", started.status().message().c_str());
    }
  }
  std::fprintf(stderr, "berth scheduler: scheduling for %s\n", f.server.c_str());
  std::fflush(stderr);
  signals.Wait();
  if (endpoint) endpoint->Stop();
  runner.value()->Stop();
  std::fprintf(stderr, "berth scheduler: stopped\n");
  return 0;
}

}  // namespace

void AddSchedulerCommand(CLI::App& app, const scheduler::Registry& registry) {
  static SchedulerFlags f;
  auto* cmd = app.add_subcommand("scheduler", "Run the scheduler against a Kubernetes-compatible API server");
  cmd->add_option("--server", f.server, "The API server (http://HOST:PORT)")->capture_default_str();
  cmd->add_option("--config", f.config, "A KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  cmd->add_option("--concurrent", f.concurrent, "Scheduling cycles at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", f.seed, "Seed for every random choice (0: random)");
  cmd->add_option("--cache-resync-period", f.cache_resync_period,
                  "How often the scheduler compares its cache with the API server and repairs what differs "
                  "(0: never)")
      ->capture_default_str();
  cmd->add_option("--listen", f.listen,
                  "Where the scheduler serves /healthz and /metrics (HOST:PORT on loopback, port 0: any free one; "
                  "\"\": nowhere)")
      ->capture_default_str();
  cmd->callback([cmd, &registry] {
    f.listen_set = cmd->count("--listen") > 0;
    SetExitCode(RunScheduler(f, registry));
  });
}

}  // namespace berth::cmd
