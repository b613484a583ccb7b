#include "controllers/endpoints/endpoints_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/endpoints/subsets.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

// kube's podToEndpointAddressForService: the pod's first IP of the Service's
// family (spec.ipFamilies[0]; without families, the cluster IP's, or for a
// headless Service the pod IP's); "" when it has none.
std::string AddressForService(const api::Object& service, const api::Object& pod) {
  const json::object* spec = api::Spec(service);
  bool ipv6 = false;
  const json::array* families = api::ArrayAt(spec, "ipFamilies");
  if (families && !families->empty()) {
    ipv6 = (*families)[0].is_string() && (*families)[0].get_string() == "IPv6";
  } else if (IsServiceIPSet(service)) {
    ipv6 = IsIPv6(api::StringAt(spec, "clusterIP"));
  } else {
    ipv6 = IsIPv6(api::StringAt(api::StatusOf(pod), "podIP"));
  }
  for (const auto& ip : PodIPs(pod)) {
    if (IsIPv6(ip) == ipv6) return ip;
  }
  return {};
}

// The labels an Endpoints carries but the Service does not.
bool EndpointsOnlyLabel(std::string_view key) {
  return key == kHeadlessServiceLabel || key == kSkipMirrorLabel;
}

bool LabelsCurrent(const api::Object& endpoints, const api::Object& service) {
  json::object have;
  const json::object* labels = api::ObjectAt(api::Metadata(endpoints), "labels");
  if (!labels || api::StringAt(labels, kSkipMirrorLabel) != "true") return false;
  for (const auto& [k, v] : *labels) {
    if (!EndpointsOnlyLabel(k)) have[k] = v;
  }
  const json::object* want = api::ObjectAt(api::Metadata(service), "labels");
  return have == (want ? *want : json::object());
}

// The EndpointPort of a Service port the pod serves on `number`.
json::object EndpointPort(const json::object& port, int64_t number) {
  json::object endpoint_port;
  if (std::string_view name = api::StringAt(port, "name"); !name.empty())
    endpoint_port["name"] = name;
  endpoint_port["port"] = number;
  std::string_view protocol = api::StringAt(port, "protocol");
  endpoint_port["protocol"] = protocol.empty() ? "TCP" : protocol;
  if (const json::value* app = port.if_contains("appProtocol"); app && app->is_string()) {
    endpoint_port["appProtocol"] = *app;
  }
  return endpoint_port;
}

// Each selected pod's address (ready or not) once per Service port it
// serves, or on its own for a headless Service without ports.
std::vector<AddressForPort> AddressesForPorts(const api::Object& service,
                                              const std::vector<api::ObjectPtr>& pods) {
  const json::object* spec = api::Spec(service);
  const bool publish_not_ready = api::BoolAt(spec, "publishNotReadyAddresses");
  const json::array* service_ports = api::ArrayAt(spec, "ports");
  std::vector<AddressForPort> entries;
  for (const auto& pod : pods) {
    if (!ShouldPodBeInEndpoints(*pod, publish_not_ready)) continue;
    std::string ip = AddressForService(service, *pod);
    if (ip.empty()) continue;
    json::object address{{"ip", ip}};
    if (ShouldSetHostname(*pod, service))
      address["hostname"] = api::StringAt(api::Spec(*pod), "hostname");
    std::string_view node_name = api::StringAt(api::Spec(*pod), "nodeName");
    if (!node_name.empty()) address["nodeName"] = node_name;
    address["targetRef"] = json::object{{"kind", "Pod"},
                                        {"namespace", pod->namespace_name()},
                                        {"name", pod->name()},
                                        {"uid", pod->uid()}};
    const bool ready = publish_not_ready || api::IsPodReady(*pod);
    if (!service_ports || service_ports->empty()) {
      // A headless Service may have no ports: addresses alone.
      if (api::StringAt(spec, "clusterIP") == "None")
        entries.push_back({address, ready, std::nullopt});
      continue;
    }
    for (const auto& p : *service_ports) {
      const json::object* port = p.if_object();
      if (!port) continue;
      auto number = FindPort(*pod, *port);
      if (!number) continue;
      entries.push_back({address, ready, EndpointPort(*port, *number)});
    }
  }
  return entries;
}

// Whether `current` already has these subsets, the Service's labels and
// the over-capacity annotation when truncated.
bool EndpointsCurrent(const api::Object& current, const api::Object& service,
                      const json::array& subsets, bool truncated) {
  const json::array* have = api::ArrayAt(current.json(), "subsets");
  const bool annotated = !api::Annotation(current, kOverCapacityAnnotation).empty();
  return (have ? *have : json::array()) == subsets && LabelsCurrent(current, service) &&
         annotated == truncated;
}

// The Endpoints to write: `current` (or a new one named after the Service)
// with the trigger-time and over-capacity annotations, the Service's labels
// and `subsets`.
json::object NextEndpoints(const api::ObjectPtr& current, const api::Object& service,
                           json::array subsets, const std::string& trigger_time, bool truncated) {
  json::object next =
      current ? ForUpdate(*current)
              : json::object{{"apiVersion", "v1"},
                             {"kind", "Endpoints"},
                             {"metadata", json::object{{"name", service.name()},
                                                       {"namespace", service.namespace_name()}}}};
  json::object& meta = api::MutableObject(next, "metadata");
  json::object& annotations = api::MutableObject(meta, "annotations");
  if (trigger_time.empty()) {
    annotations.erase(kLastChangeTriggerTimeAnnotation);
  } else {
    annotations[kLastChangeTriggerTimeAnnotation] = trigger_time;
  }
  if (truncated) {
    annotations[kOverCapacityAnnotation] = "truncated";
  } else {
    annotations.erase(kOverCapacityAnnotation);
  }
  if (annotations.empty()) meta.erase("annotations");
  json::object labels;
  if (const json::object* service_labels = api::ObjectAt(api::Metadata(service), "labels"))
    labels = *service_labels;
  labels[kSkipMirrorLabel] = "true";
  if (IsServiceIPSet(service)) {
    labels.erase(kHeadlessServiceLabel);
  } else {
    labels[kHeadlessServiceLabel] = "";
  }
  meta["labels"] = std::move(labels);
  if (subsets.empty()) {
    next.erase("subsets");
  } else {
    next["subsets"] = std::move(subsets);
  }
  return next;
}

}  // namespace

EndpointsController::EndpointsController(const ControllerContext& context, EndpointsOptions options)
    : ServiceEndpointsController("endpoint", context, options.workers, options.batch_period),
      endpoints_(context.informers.For(api::Kind::kEndpoints)),
      events_(context.events, {"endpoint-controller", ""}) {
  endpoints_.AddHandlers(
      {nullptr, nullptr, [this](const api::ObjectPtr& o) { Enqueue(client::ObjectKey(*o)); }});
}

void EndpointsController::Start() {
  Run();
  for (const auto& endpoints : endpoints_.List()) {
    if (api::ObjectAt(api::Metadata(*endpoints), "annotations") &&
        api::ObjectAt(api::Metadata(*endpoints), "annotations")->contains(kLeaderAnnotation)) {
      continue;
    }
    Enqueue(client::ObjectKey(*endpoints));
  }
}

Status EndpointsController::Reconcile(const std::string& key) {
  api::ObjectPtr service = services_.Get(key);
  if (!service) {
    trigger_times_.Forget(key);
    auto slash = key.find('/');
    if (slash == std::string::npos) return Status::Ok();
    Status s = client_.Delete(api::Kind::kEndpoints, key.substr(0, slash), key.substr(slash + 1));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    return Status::Ok();
  }
  if (!ManagesEndpoints(*service)) return Status::Ok();
  const std::vector<api::ObjectPtr> pods = SelectedPods(*service);
  const std::string trigger_time = trigger_times_.Compute(*service, pods);

  json::array subsets = RepackSubsets(AddressesForPorts(*service, pods));
  // Truncated before comparing (kube compares first, so it rewrites an
  // over-capacity Endpoints on every sync; the result is the same).
  const bool truncated = TruncateSubsets(subsets);

  api::ObjectPtr current = endpoints_.Get(key);
  if (current && EndpointsCurrent(*current, *service, subsets, truncated)) return Status::Ok();

  json::object next = NextEndpoints(current, *service, std::move(subsets), trigger_time, truncated);
  auto written = current ? client_.Update(api::Kind::kEndpoints, next)
                         : client_.Create(api::Kind::kEndpoints, service->namespace_name(), next);
  if (written.ok()) return Status::Ok();
  const Status& error = written.status();
  if (!current && NamespaceTerminating(error)) return Status::Ok();
  if (error.code() != StatusCode::kConflict && error.code() != StatusCode::kAlreadyExists) {
    if (auto object = api::Object::FromJson(json::value(next)); object.ok()) {
      if (current) {
        events_.Event(*object.value(), "Warning", "FailedToUpdateEndpoint",
                      "Failed to update endpoint " + key + ": " + error.message());
      } else {
        events_.Event(*object.value(), "Warning", "FailedToCreateEndpoint",
                      "Failed to create endpoint for service " + key + ": " + error.message());
      }
    }
  }
  return error;
}

}  // namespace berth::controllers
