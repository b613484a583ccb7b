#include "cluster/scheduler_clients.h"

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "apiserver/admission/admission.h"
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
  return Send("POST", PodPath(pod) + "/binding", binding, "application/json");
}

Status ApiSchedulerClient::Send(const std::string& method, const std::string& target, const json::object& body,
                                const std::string& content_type) {
  auto r = transport_(method, target, json::serialize(body), content_type);
  if (!r.ok()) return r.status();
  if (r.value().status >= 300) return client::StatusFromResponse(r.value().status, r.value().body);
  return Status::Ok();
}

Status ApiSchedulerClient::ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message,
                                         const std::optional<std::string>& nominated_node) {
  // kube-scheduler's condition, set on the conditions the scheduler saw:
  // lastTransitionTime moves only when the condition's status does (it stays
  // as it was while the pod keeps failing). The patch sends that condition
  // alone, with the nomination, and only what changed (kube's updatePod
  // writes nothing when the pod fails again for the same reason).
  json::object status;
  if (const json::array* seen = api::ArrayAt(api::StatusOf(pod), "conditions")) status["conditions"] = *seen;
  const bool changed =
      api::SetCondition(status, {"PodScheduled", "False", std::string(reason), message}, apiserver::NowRfc3339());
  json::object written;
  if (changed) written["conditions"] = json::array{*api::FindCondition(&status, "PodScheduled")};
  if (nominated_node && *nominated_node != pod.As<api::PodView>()->nominated_node_name) {
    written["nominatedNodeName"] = nominated_node->empty() ? json::value(nullptr) : json::value(*nominated_node);
  }
  Status patched = Status::Ok();
  if (!written.empty()) {
    patched = Send("PATCH", PodPath(pod) + "/status", json::object{{"status", std::move(written)}},
                   "application/strategic-merge-patch+json");
  }
  events_.Event(pod, "Warning", "FailedScheduling", message);
  return patched;
}

Status ApiSchedulerClient::PreemptPod(const api::Object& victim, const api::Object& preemptor,
                                      const std::string& node) {
  // As kube-scheduler evicts: the victim is marked DisruptionTarget (so its
  // owner and its kubelet know why it goes), deleted gracefully, and told.
  json::object status;
  if (const json::array* seen = api::ArrayAt(api::StatusOf(victim), "conditions")) status["conditions"] = *seen;
  const std::string scheduler_name = preemptor.As<api::PodView>()->scheduler_name;
  bool changed = api::SetCondition(status,
                                   {"DisruptionTarget", "True", "PreemptionByScheduler",
                                    scheduler_name + ": preempting to accommodate a higher priority pod"},
                                   apiserver::NowRfc3339());
  if (changed) {
    json::object patch{
        {"status", json::object{{"conditions", json::array{*api::FindCondition(&status, "DisruptionTarget")}}}}};
    Status patched = Send("PATCH", PodPath(victim) + "/status", patch, "application/strategic-merge-patch+json");
    if (!patched.ok()) return patched.code() == StatusCode::kNotFound ? Status::Ok() : patched;
  }
  client::DeleteOptions options;
  options.uid_precondition = victim.uid();
  Status deleted = rest_.Delete(api::Kind::kPod, victim.namespace_name(), victim.name(), options);
  // Gone already: nothing left to evict.
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound && deleted.code() != StatusCode::kConflict) {
    return deleted;
  }
  events_.Event(victim, "Normal", "Preempted", "Preempted by pod " + preemptor.uid() + " on node " + node);
  return Status::Ok();
}

Status ApiSchedulerClient::SetNominatedNodeName(const api::Object& pod, const std::string& node) {
  json::object patch{{"status", json::object{{"nominatedNodeName", node.empty() ? json::value(nullptr)
                                                                                 : json::value(node)}}}};
  return Send("PATCH", PodPath(pod) + "/status", patch, "application/merge-patch+json");
}

Status ApiSchedulerClient::UpdatePersistentVolume(const json::object& pv) {
  auto updated = rest_.Update(api::Kind::kPersistentVolume, pv);
  return updated.ok() ? Status::Ok() : updated.status();
}

Status ApiSchedulerClient::UpdatePersistentVolumeClaim(const json::object& pvc) {
  auto updated = rest_.Update(api::Kind::kPersistentVolumeClaim, pvc);
  return updated.ok() ? Status::Ok() : updated.status();
}

void ApiSchedulerClient::ReportScheduled(const api::Object& pod, const std::string& node) {
  events_.Event(pod, "Normal", "Scheduled",
                "Successfully assigned " + pod.namespace_name() + "/" + pod.name() + " to " + node);
}

InProcessSchedulerClient::InProcessSchedulerClient(apiserver::ApiServer& api)
    : ApiSchedulerClient(InProcessTransport(api, "default-scheduler", "system:kube-scheduler")) {}

}  // namespace berth::cluster
