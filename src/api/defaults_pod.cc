// kube's defaults of a pod spec (SetDefaults_PodSpec, _Container, _Probe ...
// as far as berth reads them) and the pod's QoS class.

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/json_fields.h"

namespace berth::api {

namespace json = boost::json;

namespace {

void SetIfAbsent(json::object& o, std::string_view key, json::value value) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) o[key] = std::move(value);
}

// kube: imagePullPolicy Always for ":latest" or untagged images, else IfNotPresent.
std::string_view PullPolicyFor(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return "IfNotPresent";
  auto slash = image.rfind('/');
  auto colon = image.rfind(':');
  bool tagged = colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
  if (!tagged || image.substr(colon + 1) == "latest") return "Always";
  return "IfNotPresent";
}

void DefaultContainer(json::object& c) {
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  if (auto it = c.find("image"); it != c.end() && it->value().is_string()) {
    SetIfAbsent(c, "imagePullPolicy", json::string(PullPolicyFor(it->value().get_string())));
  }
  json::object& resources = MutableObject(c, "resources");
  // A limit without a request defaults the request to the limit. Boost.JSON's
  // operator[] may grow the object even when the key is there, so the limits
  // are looked up only after "requests" is in place.
  if (const json::value* lim = resources.if_contains("limits"); lim && lim->is_object()) {
    json::object& requests = MutableObject(resources, "requests");
    for (const auto& kv : resources.at("limits").get_object()) {
      if (!requests.contains(kv.key())) requests[kv.key()] = kv.value();
    }
  }
  if (auto ports = c.find("ports"); ports != c.end() && ports->value().is_array()) {
    for (auto& p : ports->value().get_array()) {
      if (p.is_object()) SetIfAbsent(p.get_object(), "protocol", "TCP");
    }
  }
}

}  // namespace

void DefaultPodSpec(json::object& spec) {
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  SetIfAbsent(spec, "enableServiceLinks", true);
  for (std::string_view list : {"containers", "initContainers"}) {
    if (auto it = spec.find(list); it != spec.end() && it->value().is_array()) {
      for (auto& c : it->value().get_array()) {
        if (c.is_object()) DefaultContainer(c.get_object());
      }
    }
  }
}

std::string QosClass(const json::object& spec) {
  bool any = false, guaranteed = true;
  auto containers = spec.find("containers");
  if (containers == spec.end() || !containers->value().is_array()) return "BestEffort";
  for (const auto& c : containers->value().get_array()) {
    if (!c.is_object()) continue;
    const json::object* resources = ObjectAt(c.get_object(), "resources");
    const json::object* requests = ObjectAt(resources, "requests");
    const json::object* limits = ObjectAt(resources, "limits");
    if ((requests && !requests->empty()) || (limits && !limits->empty())) any = true;
    for (std::string_view name : {"cpu", "memory"}) {
      const json::value* req = requests ? requests->if_contains(name) : nullptr;
      const json::value* lim = limits ? limits->if_contains(name) : nullptr;
      if (!lim || !req || *req != *lim) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace berth::api
