#include "cluster/standalone_scheduler.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "api/time/duration.h"
#include "apiserver/http_server.h"
#include "client/event_recorder.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cluster/component_http.h"
#include "cluster/explain_route.h"
#include "cluster/informer_sources.h"
#include "cluster/leader_elected.h"
#include "cluster/profiling.h"
#include "cluster/scheduler_clients.h"
#include "cluster/scheduler_runner.h"
#include "client/termination_signals.h"
#include "cluster/web_ui.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "metrics/process.h"

namespace berth::cluster {
namespace {

// One run: the client, the endpoint and the runner of the current term.
// Members are declared in the order they are set up, so that they are
// destroyed in reverse (the runner and the endpoint before the client they use).
class StandaloneScheduler {
 public:
  StandaloneScheduler(const StandaloneSchedulerFlags& flags, const scheduler::Registry& registry,
                      scheduler::SchedulerConfig config)
      : f_(flags), registry_(registry), config_(std::move(config)) {}

  // The client, the scheduler's options and its drift guard.
  Status Connect(const std::function<Result<client::RestConfig>()>& load);
  // /healthz, /metrics, /ui/ and /debug/ on --listen; a taken default port
  // is logged, not an error.
  Status StartEndpoint();
  // A runner per term of leadership, until a termination signal.
  Result<int> RunElected(const client::LeaderElectionConfig& election);
  // One runner, until a termination signal.
  Result<int> RunAlone();

 private:
  // The runner of the current term (none while another replica leads), for
  // the endpoint; a request holds it alive until it is answered.
  std::shared_ptr<SchedulerRunner> Current();
  void SetCurrent(std::shared_ptr<SchedulerRunner> runner);
  // Fresh informers and cache each time; writes through `writes`.
  Result<std::shared_ptr<SchedulerRunner>> MakeRunner(client::Transport writes);
  void StopEndpoint() {
    if (endpoint_) endpoint_->Stop();
  }
  std::string ConfigPrefix() const { return f_.config.empty() ? "" : "--config " + f_.config + ": "; }

  const StandaloneSchedulerFlags& f_;
  const scheduler::Registry& registry_;
  const scheduler::SchedulerConfig config_;
  client::TerminationSignals signals_;
  // The process's own metrics, beside the current term's scheduler's:
  // leader_election_master_status and the client's rest_client_*.
  metrics::Registry component_metrics_;
  client::RestConfig rest_config_;
  std::string server_;
  std::unique_ptr<client::HttpClient> http_;
  scheduler::SchedulerOptions options_;
  CacheResync resync_;
  std::mutex current_mu_;
  std::shared_ptr<SchedulerRunner> current_;  // guarded by current_mu_
  std::unique_ptr<apiserver::HttpServer> endpoint_;
};

Status StandaloneScheduler::Connect(const std::function<Result<client::RestConfig>()>& load) {
  auto rest_config = load();
  if (!rest_config.ok()) return rest_config.status();
  rest_config_ = std::move(rest_config).value();
  rest_config_.user_agent = "berth-scheduler";
  server_ = rest_config_.server;
  // One client for everything, as kube-scheduler has: its QPS limit covers
  // the informers' lists, the binds and the drift guard's lists together
  // (watches, on connections of their own, are not limited).
  auto http = client::HttpClient::Connect(rest_config_);
  if (!http.ok()) return Status(http.status().code(), server_ + ": " + http.status().message());
  http_ = std::move(http).value();
  http_->RegisterMetrics(component_metrics_);
  options_.concurrent = f_.concurrent;
  options_.seed = f_.seed;
  auto period = api::ParseGoDuration(f_.cache_resync_period);
  if (!period || period->count() < 0) {
    return Status::BadRequest("--cache-resync-period " + f_.cache_resync_period +
                              ": expected a duration such as 30s");
  }
  auto rest = std::make_shared<client::RestClient>(client::HttpTransport(*http_));
  resync_ = CacheResync{
      .list = [rest](api::Kind kind) -> Result<std::pair<std::vector<api::ObjectPtr>, int64_t>> {
        int64_t revision = 0;
        auto items = rest->List(kind, "", "", &revision);
        if (!items.ok()) return items.status();
        return std::pair{std::move(items).value(), revision};
      },
      .period = std::chrono::duration_cast<std::chrono::milliseconds>(*period)};
  return Status::Ok();
}

Status StandaloneScheduler::StartEndpoint() {
  if (f_.listen.empty()) return Status::Ok();
  // The explanation is the current term's runner's, kept alive until answered.
  apiserver::Route explain{std::string(kExplainPrefix), [this](apiserver::Request& request) {
                             auto r = Current();
                             auto scheduler = [&r]() -> scheduler::Scheduler* { return r ? &r->scheduler() : nullptr; };
                             return ExplainRoute(scheduler).handler(request);
                           }};
  std::vector<apiserver::Route> routes = {WebUiRoute(), ApiReadThroughRoute(rest_config_), explain};
  if (f_.profiling) {
    for (auto& route : ProfilingRoutes()) routes.push_back(std::move(route));
  }
  auto process = std::make_shared<metrics::Registry>();  // process_*, as kube-scheduler's /metrics has
  metrics::AddProcessMetrics(*process);
  auto started = StartComponentHttp(
      {.listen = f_.listen,
       .metrics =
           [this, process] {
             auto r = Current();
             return (r ? r->scheduler().RenderMetrics() : std::string()) + component_metrics_.Render() +
                    process->Render();
           },
       .routes = routes});
  if (started.ok()) {
    endpoint_ = std::move(started).value();
    const std::string url =
        "http://" + f_.listen.substr(0, f_.listen.rfind(':')) + ":" + std::to_string(endpoint_->port());
    BERTH_LOG("berth scheduler: serving /healthz, /metrics, /ui/ and /debug/ on " + url, {"address", url});
  } else if (f_.listen_set) {
    return started.status();
  } else {
    // The default port taken (another scheduler on this machine): scheduling goes on.
    BERTH_LOG_ERROR(started.status().message(), "berth scheduler: not serving /metrics");
  }
  return Status::Ok();
}

std::shared_ptr<SchedulerRunner> StandaloneScheduler::Current() {
  std::lock_guard lock(current_mu_);
  return current_;
}

void StandaloneScheduler::SetCurrent(std::shared_ptr<SchedulerRunner> runner) {
  std::lock_guard lock(current_mu_);
  current_ = std::move(runner);
}

Result<std::shared_ptr<SchedulerRunner>> StandaloneScheduler::MakeRunner(client::Transport writes) {
  auto runner = SchedulerRunner::Create(config_, options_, HttpInformerSources(*http_),
                                        std::make_unique<ApiSchedulerClient>(std::move(writes)), registry_,
                                        resync_);
  if (!runner.ok()) return Status::BadRequest(ConfigPrefix() + runner.status().message());
  if (Status s = runner.value()->Start(); !s.ok()) return s;
  return std::shared_ptr<SchedulerRunner>(std::move(runner).value());
}

Result<int> StandaloneScheduler::RunElected(const client::LeaderElectionConfig& election) {
  // The configuration's plugins are checked now, not at the first term.
  if (auto checked = SchedulerRunner::Create(config_, options_, HttpInformerSources(*http_), nullptr, registry_);
      !checked.ok()) {
    StopEndpoint();
    return Status(checked.status().code(), ConfigPrefix() + checked.status().message());
  }
  // The Lease and its events go over a connection of their own, so that
  // renewals never wait behind bindings.
  auto lease = client::HttpClient::Connect(rest_config_);
  if (!lease.ok()) {
    StopEndpoint();
    return Status(lease.status().code(), server_ + ": " + lease.status().message());
  }
  client::RestClient event_client(client::HttpTransport(*lease.value()));
  client::EventBroadcaster broadcaster(event_client);
  std::string component = config_.profiles.empty() ? "default-scheduler" : config_.profiles[0].scheduler_name;
  client::EventRecorder events(&broadcaster, {component, ""});
  LeaderWork work{
      [&](const client::LeaderElector& elector) -> Status {
        auto started = MakeRunner(client::LeaderOnlyTransport(client::HttpTransport(*http_), elector));
        if (!started.ok()) return started.status();
        SetCurrent(std::move(started).value());
        BERTH_LOG("berth scheduler: scheduling for " + server_, {"server", server_});
        return Status::Ok();
      },
      [&] {
        if (auto runner = Current()) runner->Stop();
        SetCurrent(nullptr);
      }};
  int code = RunLeaderElected("scheduler", election, *lease.value(), signals_, work, &events, &component_metrics_);
  StopEndpoint();
  broadcaster.Stop();
  BERTH_LOG("berth scheduler: stopped");
  return code;
}

Result<int> StandaloneScheduler::RunAlone() {
  auto runner = MakeRunner(client::HttpTransport(*http_));
  if (!runner.ok()) {
    StopEndpoint();
    return runner.status();
  }
  SetCurrent(runner.value());
  BERTH_LOG("berth scheduler: scheduling for " + server_, {"server", server_});
  signals_.Wait();
  StopEndpoint();
  runner.value()->Stop();
  BERTH_LOG("berth scheduler: stopped");
  return 0;
}

}  // namespace

int RunStandaloneScheduler(const StandaloneSchedulerFlags& f, const scheduler::Registry& registry,
                           const std::function<Result<client::RestConfig>()>& rest_config, std::FILE* err) {
  auto fail = [err](const Status& s) {
    std::fprintf(err, "berth scheduler: %s\n", s.message().c_str());
    return 1;
  };
  if (f.profiling) EnableHeapSampling();
  scheduler::SchedulerConfig config;
  if (!f.config.empty()) {
    auto loaded = LoadSchedulerConfig(f.config);
    if (!loaded.ok()) return fail(loaded.status());
    config = std::move(loaded).value();
  }
  Result<client::LeaderElectionConfig> election = client::LeaderElectionConfig{};
  if (f.leader.leader_elect) {
    election = client::LeaderElectionConfigFromFlags(f.leader, "leaderElection");
    if (!election.ok()) return fail(election.status());
  }
  StandaloneScheduler run(f, registry, std::move(config));
  if (Status s = run.Connect(rest_config); !s.ok()) return fail(s);
  if (Status s = run.StartEndpoint(); !s.ok()) return fail(s);
  auto code = f.leader.leader_elect ? run.RunElected(election.value()) : run.RunAlone();
  return code.ok() ? code.value() : fail(code.status());
}

}  // namespace berth::cluster
