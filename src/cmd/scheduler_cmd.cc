// berth scheduler: the scheduler on its own, against any Kubernetes-compatible
// API server over HTTP (berth's, or kube-apiserver through `kubectl proxy`).
// Lists and watches nodes, namespaces and pods; binds with POST
// pods/{name}/binding; reports failures as a PodScheduled condition (strategic
// merge patch of the status) and a FailedScheduling event; records the event
// Scheduled for every binding.

#include <boost/json.hpp>
#include <cstdio>

#include "apiserver/admission.h"
#include "client/event_recorder.h"
#include "client/http_client.h"
#include "client/http_informer.h"
#include "cmd/commands.h"
#include "cmd/scheduler_runtime.h"
#include "cmd/termination_signals.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"

namespace berth::cmd {
namespace {

namespace json = boost::json;

struct SchedulerOptions {
  std::string server = "http://127.0.0.1:8080";
  std::string config;
  int concurrent = 2;
  uint64_t seed = 0;
};

class HttpSchedulerClient final : public scheduler::SchedulerClient {
 public:
  explicit HttpSchedulerClient(client::HttpClient& http)
      : http_(http),
        rest_(client::HttpTransport(http)),
        broadcaster_(rest_),
        events_(&broadcaster_, client::EventSource{"default-scheduler", ""}) {}

  Status BindPod(const api::Object& pod, const std::string& node) override {
    json::object binding{{"apiVersion", "v1"},
                         {"kind", "Binding"},
                         {"metadata", json::object{{"name", pod.name()}, {"namespace", pod.namespace_name()},
                                                   {"uid", pod.uid()}}},
                         {"target", json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    auto r = http_.Request("POST", PodPath(pod) + "/binding", json::serialize(binding));
    if (!r.ok()) return r.status();
    if (r.value().status >= 300) {
      return Status::Conflict("binding " + pod.name() + ": HTTP " + std::to_string(r.value().status) + ": " +
                              r.value().body);
    }
    return Status::Ok();
  }

  Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message) override {
    std::string now = apiserver::NowRfc3339();
    json::object patch{{"status", json::object{{"conditions", json::array{json::object{
                                                                  {"type", "PodScheduled"},
                                                                  {"status", "False"},
                                                                  {"reason", reason},
                                                                  {"message", message},
                                                                  {"lastTransitionTime", now},
                                                              }}}}}};
    auto r = http_.Request("PATCH", PodPath(pod) + "/status", json::serialize(patch),
                           "application/strategic-merge-patch+json");
    RecordFailedScheduling(events_, pod, message);
    if (!r.ok()) return r.status();
    return Status::Ok();
  }

  void ReportScheduled(const api::Object& pod, const std::string& node) override {
    RecordScheduled(events_, pod, node);
  }

  // Writes the events still queued; later ones are dropped.
  void StopEvents() { broadcaster_.Stop(); }

 private:
  static std::string PodPath(const api::Object& pod) {
    return "/api/v1/namespaces/" + pod.namespace_name() + "/pods/" + pod.name();
  }
  client::HttpClient& http_;
  client::RestClient rest_;
  client::EventBroadcaster broadcaster_;
  client::EventRecorder events_;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth scheduler: %s\n", message.c_str());
  return 1;
}

int RunScheduler(const SchedulerOptions& o) {
  scheduler::SchedulerConfig config;
  if (!o.config.empty()) {
    auto loaded = LoadSchedulerConfig(o.config);
    if (!loaded.ok()) return Fail(loaded.status().message());
    config = std::move(loaded).value();
  }
  TerminationSignals signals;

  auto http = client::HttpClient::Connect(o.server);
  if (!http.ok()) return Fail(http.status().message());
  HttpSchedulerClient writer(*http.value());
  scheduler::SchedulerOptions options;
  options.concurrent = o.concurrent;
  options.seed = o.seed;
  auto created = scheduler::Scheduler::Create(config, scheduler::InTreeRegistry(), options, &writer);
  if (!created.ok()) {
    return Fail((o.config.empty() ? "" : "--config " + o.config + ": ") + created.status().message());
  }
  scheduler::Scheduler& s = *created.value();
  // Informers use their own connections (a watch holds one).
  auto reader = client::HttpClient::Connect(o.server);
  if (!reader.ok()) return Fail(reader.status().message());
  client::HttpInformer namespaces(*reader.value(), "/api/v1/namespaces",
                                  {[&](const api::ObjectPtr& n) { s.OnNamespace(n); },
                                   [&](const api::ObjectPtr& n) { s.OnNamespace(n); },
                                   [&](const api::ObjectPtr& n) { s.OnNamespaceDelete(n->name()); }});
  client::HttpInformer nodes(*reader.value(), "/api/v1/nodes",
                             {[&](const api::ObjectPtr& n) { s.OnNodeAdd(n); },
                              [&](const api::ObjectPtr& n) { s.OnNodeUpdate(n); },
                              [&](const api::ObjectPtr& n) { s.OnNodeDelete(n->name()); }});
  client::HttpInformer pods(*reader.value(), "/api/v1/pods",
                            {[&](const api::ObjectPtr& p) { s.OnPodAdd(p); },
                             [&](const api::ObjectPtr& p) { s.OnPodUpdate(p); },
                             [&](const api::ObjectPtr& p) { s.OnPodDelete(p); }});
  for (auto* informer : {&namespaces, &nodes, &pods}) {
    Status started = informer->Start();
    if (!started.ok()) return Fail(started.message());
  }
  s.Start();
  std::fprintf(stderr, "berth scheduler: scheduling for %s\n", o.server.c_str());
  std::fflush(stderr);
  signals.Wait();
  for (auto* informer : {&pods, &nodes, &namespaces}) informer->Stop();
  s.Stop();
  writer.StopEvents();
  std::fprintf(stderr, "berth scheduler: stopped\n");
  return 0;
}

}  // namespace

void AddSchedulerCommand(CLI::App& app) {
  static SchedulerOptions o;
  auto* cmd = app.add_subcommand("scheduler", "Run the scheduler against a Kubernetes-compatible API server");
  cmd->add_option("--server", o.server, "The API server (http://HOST:PORT)")->capture_default_str();
  cmd->add_option("--config", o.config, "A KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  cmd->add_option("--concurrent", o.concurrent, "Scheduling cycles at once")->capture_default_str()->check(CLI::Range(1, 256));
  cmd->add_option("--seed", o.seed, "Seed for every random choice (0: random)");
  cmd->callback([] { SetExitCode(RunScheduler(o)); });
}

}  // namespace berth::cmd
