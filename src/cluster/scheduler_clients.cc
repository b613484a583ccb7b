#include "cluster/scheduler_clients.h"

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "apiserver/admission.h"
#include "cluster/in_process_transport.h"

namespace berth::cluster {

namespace json = boost::json;

namespace {

std::string PodPath(const api::Object& pod) {
  return "/api/v1/namespaces/" + pod.namespace_name() + "/pods/" + pod.name();
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
  // kube-scheduler's condition, set on the conditions the scheduler saw:
  // lastTransitionTime moves only when the condition's status does (it stays
  // as it was while the pod keeps failing). The patch sends that condition alone.
  json::object status;
  if (const json::array* seen = api::ArrayAt(api::StatusOf(pod), "conditions")) status["conditions"] = *seen;
  api::SetCondition(status, {"PodScheduled", "False", std::string(reason), message}, apiserver::NowRfc3339());
  json::object patch{
      {"status", json::object{{"conditions", json::array{*api::FindCondition(&status, "PodScheduled")}}}}};
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
