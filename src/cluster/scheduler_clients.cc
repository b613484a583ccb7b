#include "cluster/scheduler_clients.h"

#include <boost/json.hpp>

#include "apiserver/admission.h"
#include "cluster/in_process_transport.h"

namespace berth::cluster {

namespace json = boost::json;

namespace {

std::string PodPath(const api::Object& pod) {
  return "/api/v1/namespaces/" + pod.namespace_name() + "/pods/" + pod.name();
}

// The pod's PodScheduled condition as the scheduler last saw it (null when none).
const json::object* PodScheduledCondition(const api::Object& pod) {
  const auto& o = pod.json();
  auto status = o.find("status");
  if (status == o.end() || !status->value().is_object()) return nullptr;
  auto conditions = status->value().get_object().find("conditions");
  if (conditions == status->value().get_object().end() || !conditions->value().is_array()) return nullptr;
  for (const auto& c : conditions->value().get_array()) {
    if (!c.is_object()) continue;
    auto type = c.get_object().find("type");
    if (type != c.get_object().end() && type->value() == "PodScheduled") return &c.get_object();
  }
  return nullptr;
}

}  // namespace

ApiSchedulerClient::ApiSchedulerClient(client::Transport transport)
    : transport_(transport),
      rest_(std::move(transport)),
      broadcaster_(rest_),
      events_(&broadcaster_, client::EventSource{"default-scheduler", ""}) {}

ApiSchedulerClient::~ApiSchedulerClient() { StopEvents(); }

void ApiSchedulerClient::StopEvents() { broadcaster_.Stop(); }

Status ApiSchedulerClient::BindPod(const api::Object& pod, const std::string& node) {
  json::object binding{{"apiVersion", "v1"},
                       {"kind", "Binding"},
                       {"metadata", json::object{{"name", pod.name()},
                                                 {"namespace", pod.namespace_name()},
                                                 {"uid", pod.uid()}}},
                       {"target", json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  auto r = transport_("POST", PodPath(pod) + "/binding", json::serialize(binding), "application/json");
  if (!r.ok()) return r.status();
  if (r.value().status >= 300) return client::StatusFromResponse(r.value().status, r.value().body);
  return Status::Ok();
}

Status ApiSchedulerClient::ReportFailure(const api::Object& pod, std::string_view reason,
                                         const std::string& message) {
  // kube-scheduler's condition: lastTransitionTime moves only when the
  // condition's status does (it stays False while the pod keeps failing).
  std::string transition = apiserver::NowRfc3339();
  if (const json::object* old = PodScheduledCondition(pod)) {
    auto status = old->find("status");
    auto time = old->find("lastTransitionTime");
    if (status != old->end() && status->value() == "False" && time != old->end() && time->value().is_string()) {
      transition = std::string(time->value().get_string());
    }
  }
  json::object condition{{"type", "PodScheduled"},
                         {"status", "False"},
                         {"lastTransitionTime", transition},
                         {"reason", reason},
                         {"message", message}};
  json::object patch{{"status", json::object{{"conditions", json::array{std::move(condition)}}}}};
  auto patched = rest_.Patch(api::Kind::kPod, pod.namespace_name(), pod.name(), json::serialize(patch),
                             "application/strategic-merge-patch+json", "status");
  events_.Event(pod, "Warning", "FailedScheduling", message);
  return patched.ok() ? Status::Ok() : patched.status();
}

void ApiSchedulerClient::ReportScheduled(const api::Object& pod, const std::string& node) {
  events_.Event(pod, "Normal", "Scheduled",
                "Successfully assigned " + pod.namespace_name() + "/" + pod.name() + " to " + node);
}

InProcessSchedulerClient::InProcessSchedulerClient(apiserver::ApiServer& api)
    : ApiSchedulerClient(InProcessTransport(api, "default-scheduler")), api_(api) {}

Status InProcessSchedulerClient::BindPod(const api::Object& pod, const std::string& node) {
  auto bound = api_.BindPod(pod.namespace_name(), pod.name(), node, pod.uid(), 0, nullptr);
  return bound.ok() ? Status::Ok() : bound.status();
}

}  // namespace berth::cluster
