#include "cmd/scheduler_runtime.h"

#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "apiserver/admission.h"
#include "cmd/in_process_transport.h"
#include "scheduler/framework/registry.h"

namespace berth::cmd {

namespace json = boost::json;

using apiserver::NowRfc3339;

void RecordFailedScheduling(const client::EventRecorder& events, const api::Object& pod,
                            const std::string& message) {
  events.Event(pod, "Warning", "FailedScheduling", message);
}

void RecordScheduled(const client::EventRecorder& events, const api::Object& pod,
                     const std::string& node) {
  events.Event(pod, "Normal", "Scheduled",
               "Successfully assigned " + pod.namespace_name() + "/" + pod.name() + " to " + node);
}

InProcessSchedulerClient::InProcessSchedulerClient(apiserver::ApiServer& api, store::Store& store)
    : api_(api),
      store_(store),
      events_client_(InProcessTransport(api)),
      broadcaster_(events_client_),
      events_(&broadcaster_, client::EventSource{"default-scheduler", ""}) {}

Status InProcessSchedulerClient::BindPod(const api::Object& pod, const std::string& node) {
  auto bound = api_.BindPod(pod.namespace_name(), pod.name(), node, pod.uid(), 0, nullptr);
  return bound.ok() ? Status::Ok() : bound.status();
}

Status InProcessSchedulerClient::ReportFailure(const api::Object& pod, std::string_view reason,
                                               const std::string& message) {
  // The PodScheduled condition, as kube-scheduler's status patch sets it.
  auto updated = store::GuaranteedUpdate(store_, pod.StorageKey(), [&](const api::ObjectPtr& current)
                                                                       -> Result<api::ObjectPtr> {
    if (current->uid() != pod.uid()) return Status::Conflict("pod was replaced");
    if (!current->FieldValue("spec.nodeName").empty()) return Status::Conflict("pod is bound");
    return current->Edit([&](json::object& p) {
      json::value& status = p["status"];
      if (!status.is_object()) status = json::object();
      json::value& conditions = status.get_object()["conditions"];
      if (!conditions.is_array()) conditions = json::array();
      json::object condition{{"type", "PodScheduled"},
                             {"status", "False"},
                             {"lastProbeTime", nullptr},
                             {"lastTransitionTime", NowRfc3339()},
                             {"reason", reason},
                             {"message", message}};
      bool replaced = false;
      for (auto& c : conditions.get_array()) {
        if (c.is_object() && c.get_object()["type"] == "PodScheduled") {
          json::object& old = c.get_object();
          if (old["status"] == "False" && old["reason"] == json::value(reason) &&
              old["message"] == json::value(message)) {
            condition["lastTransitionTime"] = old["lastTransitionTime"];
          }
          c = condition;
          replaced = true;
        }
      }
      if (!replaced) conditions.get_array().push_back(condition);
      if (status.get_object().find("phase") == status.get_object().end()) status.get_object()["phase"] = "Pending";
    });
  });
  RecordFailedScheduling(events_, pod, message);
  return updated.ok() ? Status::Ok() : updated.status();
}

void InProcessSchedulerClient::ReportScheduled(const api::Object& pod, const std::string& node) {
  RecordScheduled(events_, pod, node);
}

Result<std::unique_ptr<InProcessScheduler>> InProcessScheduler::Create(apiserver::ApiServer& api,
                                                                       store::Store& store,
                                                                       const scheduler::SchedulerConfig& config,
                                                                       scheduler::SchedulerOptions options) {
  auto s = std::unique_ptr<InProcessScheduler>(new InProcessScheduler());
  s->client_ = std::make_unique<InProcessSchedulerClient>(api, store);
  auto sched = scheduler::Scheduler::Create(config, scheduler::InTreeRegistry(), options, s->client_.get());
  if (!sched.ok()) return sched.status();
  s->scheduler_ = std::move(sched).value();
  scheduler::Scheduler* sc = s->scheduler_.get();
  s->informers_.push_back(std::make_unique<client::StoreInformer>(
      store, api::Kind::kNamespace,
      client::StoreInformer::Handlers{[sc](const api::ObjectPtr& o) { sc->OnNamespace(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnNamespace(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnNamespaceDelete(o->name()); }}));
  s->informers_.push_back(std::make_unique<client::StoreInformer>(
      store, api::Kind::kNode,
      client::StoreInformer::Handlers{[sc](const api::ObjectPtr& o) { sc->OnNodeAdd(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnNodeUpdate(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnNodeDelete(o->name()); }}));
  s->informers_.push_back(std::make_unique<client::StoreInformer>(
      store, api::Kind::kPod,
      client::StoreInformer::Handlers{[sc](const api::ObjectPtr& o) { sc->OnPodAdd(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnPodUpdate(o); },
                                      [sc](const api::ObjectPtr& o) { sc->OnPodDelete(o); }}));
  return s;
}

Status InProcessScheduler::Start() {
  for (auto& informer : informers_) {
    Status s = informer->Start();
    if (!s.ok()) return s;
  }
  scheduler_->Start();
  started_ = true;
  return Status::Ok();
}

void InProcessScheduler::Stop() {
  for (auto& informer : informers_) informer->Stop();
  if (scheduler_) scheduler_->Stop();
  if (client_) client_->StopEvents();
}

InProcessScheduler::~InProcessScheduler() { Stop(); }

Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--config " + path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  auto config = scheduler::ParseSchedulerConfig(ss.str());
  if (!config.ok()) return Status::BadRequest("--config " + path + ": " + config.status().message());
  return config;
}

}  // namespace berth::cmd
