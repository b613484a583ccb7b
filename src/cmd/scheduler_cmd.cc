// berth scheduler: the scheduler on its own, against any Kubernetes-compatible
// API server (berth's, or kube-apiserver) reached as kube-scheduler reaches it:
// a kubeconfig, TLS, a token or client certificate, and --kube-api-qps/-burst
// (cmd/client_flags.h). The same runner as inside `berth serve`, with HTTP
// informers and client.

#include <cstdio>
#include <memory>
#include <mutex>

#include "api/time/duration.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cluster/component_http.h"
#include "cluster/explain_route.h"
#include "cluster/informer_sources.h"
#include "cluster/profiling.h"
#include "cluster/scheduler_clients.h"
#include "cluster/scheduler_runner.h"
#include "cluster/web_ui.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "cmd/leader_election_flags.h"
#include "cmd/termination_signals.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "metrics/process.h"

namespace berth::cmd {
namespace {

struct SchedulerFlags {
  ClientFlags client;
  std::string config;
  int concurrent = 2;
  uint64_t seed = 0;
  std::string cache_resync_period = "30s";
  std::string listen = "127.0.0.1:10259";
  bool listen_set = false;  // --listen given: failing to bind it is an error
  LeaderElectionFlags leader{.resource_name = "kube-scheduler"};
  bool profiling = true;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth scheduler: %s\n", message.c_str());
  return 1;
}

int RunScheduler(const SchedulerFlags& f, const scheduler::Registry& registry) {
  if (f.profiling) cluster::EnableHeapSampling();
  scheduler::SchedulerConfig config;
  if (!f.config.empty()) {
    auto loaded = cluster::LoadSchedulerConfig(f.config);
    if (!loaded.ok()) return Fail(loaded.status().message());
    config = std::move(loaded).value();
  }
  Result<client::LeaderElectionConfig> election = client::LeaderElectionConfig{};
  if (f.leader.leader_elect) {
    election = LeaderElectionConfigFromFlags(f.leader, "leaderElection");
    if (!election.ok()) return Fail(election.status().message());
  }
  TerminationSignals signals;
  // The process's own metrics, beside the current term's scheduler's:
  // leader_election_master_status and the client's rest_client_*.
  metrics::Registry component_metrics;
  auto rest_config = f.client.Load();
  if (!rest_config.ok()) return Fail(rest_config.status().message());
  rest_config->user_agent = "berth-scheduler";
  const std::string server = rest_config->server;
  // One client for everything, as kube-scheduler has: its QPS limit covers
  // the informers' lists, the binds and the drift guard's lists together
  // (watches, on connections of their own, are not limited).
  auto http = client::HttpClient::Connect(*rest_config);
  if (!http.ok()) return Fail(server + ": " + http.status().message());
  http.value()->RegisterMetrics(component_metrics);
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
  // The runner of the current term (none while another replica leads), for
  // the endpoint; a request holds it alive until it is answered.
  std::mutex current_mu;
  std::shared_ptr<cluster::SchedulerRunner> current;
  auto current_runner = [&]() {
    std::lock_guard lock(current_mu);
    return current;
  };
  auto set_current = [&](std::shared_ptr<cluster::SchedulerRunner> runner) {
    std::lock_guard lock(current_mu);
    current = std::move(runner);
  };
  std::unique_ptr<apiserver::HttpServer> endpoint;
  if (!f.listen.empty()) {
    // The explanation is the current term's runner's, kept alive until answered.
    apiserver::Route explain{std::string(cluster::kExplainPrefix), [&](apiserver::Request& request) {
                               auto r = current_runner();
                               auto scheduler = [&r]() -> scheduler::Scheduler* { return r ? &r->scheduler() : nullptr; };
                               return cluster::ExplainRoute(scheduler).handler(request);
                             }};
    std::vector<apiserver::Route> routes = {cluster::WebUiRoute(), cluster::ApiReadThroughRoute(*rest_config), explain};
    if (f.profiling) {
      for (auto& route : cluster::ProfilingRoutes()) routes.push_back(std::move(route));
    }
    auto process = std::make_shared<metrics::Registry>();  // process_*, as kube-scheduler's /metrics has
    metrics::AddProcessMetrics(*process);
    auto started = cluster::StartComponentHttp(
        {.listen = f.listen,
         .metrics =
             [&, process] {
               auto r = current_runner();
               return (r ? r->scheduler().RenderMetrics() : std::string()) + component_metrics.Render() +
                      process->Render();
             },
         .routes = routes});
    if (started.ok()) {
      endpoint = std::move(started).value();
      const std::string url =
          "http://" + f.listen.substr(0, f.listen.rfind(':')) + ":" + std::to_string(endpoint->port());
      BERTH_LOG("berth scheduler: serving /healthz, /metrics, /ui/ and /debug/ on " + url, {"address", url});
    } else if (f.listen_set) {
      return Fail(started.status().message());
    } else {
      // The default port taken (another scheduler on this machine): scheduling goes on.
      BERTH_LOG_ERROR(started.status().message(), "berth scheduler: not serving /metrics");
    }
  }
  auto stop_endpoint = [&] {
    if (endpoint) endpoint->Stop();
  };
  // A runner per term of leadership (one, without leader election): fresh
  // informers and cache each time, writes refused once the lease is lost.
  auto make_runner = [&](client::Transport writes) -> Result<std::shared_ptr<cluster::SchedulerRunner>> {
    auto runner = cluster::SchedulerRunner::Create(
        config, options, cluster::HttpInformerSources(*http.value()),
        std::make_unique<cluster::ApiSchedulerClient>(std::move(writes)), registry, resync);
    if (!runner.ok()) {
      return Status::BadRequest((f.config.empty() ? "" : "--config " + f.config + ": ") + runner.status().message());
    }
    if (Status s = runner.value()->Start(); !s.ok()) return s;
    return std::shared_ptr<cluster::SchedulerRunner>(std::move(runner).value());
  };
  if (f.leader.leader_elect) {
    // The configuration's plugins are checked now, not at the first term.
    if (auto checked = cluster::SchedulerRunner::Create(config, options, cluster::HttpInformerSources(*http.value()),
                                                        nullptr, registry);
        !checked.ok()) {
      stop_endpoint();
      return Fail((f.config.empty() ? "" : "--config " + f.config + ": ") + checked.status().message());
    }
    // The Lease and its events go over a connection of their own, so that
    // renewals never wait behind bindings.
    auto lease = client::HttpClient::Connect(*rest_config);
    if (!lease.ok()) {
      stop_endpoint();
      return Fail(server + ": " + lease.status().message());
    }
    client::RestClient event_client(client::HttpTransport(*lease.value()));
    client::EventBroadcaster broadcaster(event_client);
    std::string component = config.profiles.empty() ? "default-scheduler" : config.profiles[0].scheduler_name;
    client::EventRecorder events(&broadcaster, {component, ""});
    LeaderWork work{
        [&](const client::LeaderElector& elector) -> Status {
          auto started = make_runner(client::LeaderOnlyTransport(client::HttpTransport(*http.value()), elector));
          if (!started.ok()) return started.status();
          set_current(std::move(started).value());
          BERTH_LOG("berth scheduler: scheduling for " + server, {"server", server});
          return Status::Ok();
        },
        [&] {
          if (auto runner = current_runner()) runner->Stop();
          set_current(nullptr);
        }};
    int code = RunLeaderElected("scheduler", election.value(), *lease.value(), signals, work, &events,
                                &component_metrics);
    stop_endpoint();
    broadcaster.Stop();
    BERTH_LOG("berth scheduler: stopped");
    return code;
  }
  auto runner = make_runner(client::HttpTransport(*http.value()));
  if (!runner.ok()) {
    stop_endpoint();
    return Fail(runner.status().message());
  }
  set_current(runner.value());
  BERTH_LOG("berth scheduler: scheduling for " + server, {"server", server});
  signals.Wait();
  stop_endpoint();
  runner.value()->Stop();
  BERTH_LOG("berth scheduler: stopped");
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
  cmd->add_flag("--profiling", f.profiling, "Enable profiling via web interface host:port/debug/pprof/")
      ->capture_default_str();
  cmd->add_option("--listen", f.listen,
                  "Where the scheduler serves /healthz, /metrics and /ui/ (HOST:PORT on loopback, port 0: any free "
                  "one; \"\": nowhere)")
      ->capture_default_str();
  AddLeaderElectionFlags(*cmd, f.leader);
  cmd->callback([cmd, &registry] {
    f.listen_set = cmd->count("--listen") > 0;
    SetExitCode(RunScheduler(f, registry));
  });
}

}  // namespace berth::cmd
