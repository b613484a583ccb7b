// berth scheduler: the scheduler on its own, against any Kubernetes-compatible
// API server (berth's, or kube-apiserver) reached as kube-scheduler reaches it:
// a kubeconfig, TLS, a token or client certificate, and --kube-api-qps/-burst
// (cmd/client_flags.h). The same runner as inside `berth serve`, with HTTP
// informers and client.

#include <cstdio>

#include "api/duration.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cluster/informer_sources.h"
#include "cluster/scheduler_clients.h"
#include "cluster/scheduler_runner.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "cmd/termination_signals.h"

namespace berth::cmd {
namespace {

struct SchedulerFlags {
  ClientFlags client;
  std::string config;
  int concurrent = 2;
  uint64_t seed = 0;
  std::string cache_resync_period = "30s";
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
  auto rest_config = f.client.Load();
  if (!rest_config.ok()) return Fail(rest_config.status().message());
  rest_config->user_agent = "berth-scheduler";
  const std::string server = rest_config->server;
  // One client for everything, as kube-scheduler has: its QPS limit covers
  // the informers' lists, the binds and the drift guard's lists together
  // (watches, on connections of their own, are not limited).
  auto http = client::HttpClient::Connect(std::move(rest_config).value());
  if (!http.ok()) return Fail(server + ": " + http.status().message());
  scheduler::SchedulerOptions options;
  options.concurrent = f.concurrent;
  options.seed = f.seed;
  auto period = api::ParseGoDuration(f.cache_resync_period);
  if (!period || period->count() < 0) {
    return Fail("--cache-resync-period " + f.cache_resync_period + ": expected a duration such as 30s");
  }
  auto rest = std::make_shared<client::RestClient>(client::HttpTransport(*http.value()));
  cluster::CacheResync resync{
      .list = [rest](api::Kind kind) -> Result<std::pair<std::vector<api::ObjectPtr>, int64_t>> {
        int64_t revision = 0;
        auto items = rest->List(kind, "", "", &revision);
        if (!items.ok()) return items.status();
        return std::pair{std::move(items).value(), revision};
      },
      .period = std::chrono::duration_cast<std::chrono::milliseconds>(*period)};
  auto runner = cluster::SchedulerRunner::Create(
      config, options, cluster::HttpInformerSources(*http.value()),
      std::make_unique<cluster::ApiSchedulerClient>(client::HttpTransport(*http.value())), registry,
      std::move(resync));
  if (!runner.ok()) return Fail((f.config.empty() ? "" : "--config " + f.config + ": ") + runner.status().message());
  if (metrics::Registry* registry = runner.value()->scheduler().MetricsRegistry()) {
    http.value()->RegisterMetrics(*registry);
  }
  if (Status s = runner.value()->Start(); !s.ok()) return Fail(s.message());
  std::fprintf(stderr, "berth scheduler: scheduling for %s\n", server.c_str());
  std::fflush(stderr);
  signals.Wait();
  runner.value()->Stop();
  std::fprintf(stderr, "berth scheduler: stopped\n");
  return 0;
}

}  // namespace

void AddSchedulerCommand(CLI::App& app, const scheduler::Registry& registry) {
  static SchedulerFlags f;
  auto* cmd = app.add_subcommand("scheduler", "Run the scheduler against a Kubernetes-compatible API server");
  f.client.AddTo(cmd, 50, 100);  // kube-scheduler's defaults
  cmd->add_option("--config", f.config, "A KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  cmd->add_option("--concurrent", f.concurrent, "Scheduling cycles at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", f.seed, "Seed for every random choice (0: random)");
  cmd->add_option("--cache-resync-period", f.cache_resync_period,
                  "How often the scheduler compares its cache with the API server and repairs what differs "
                  "(0: never)")
      ->capture_default_str();
  cmd->callback([&registry] { SetExitCode(RunScheduler(f, registry)); });
}

}  // namespace berth::cmd
