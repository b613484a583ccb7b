// kube's defaults of a pod spec (SetDefaults_PodSpec, _Container, _Probe,
// _Volume and the volume sources' in pkg/apis/core/v1/defaults.go, with the
// declarative ones of zz_generated.defaults.go) and the pod's QoS class.

#include "api/defaults_internal.h"

#include <algorithm>

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/json_fields.h"
#include "api/quantity_json.h"

namespace berth::api {

namespace json = boost::json;

namespace {

// A Go pointer field: set when absent or null.
void SetIfAbsent(json::object& o, std::string_view key, json::value value) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) o[key] = std::move(value);
}

// The object member `key` of `o` to default, when it is one.
json::object* Member(json::object& o, std::string_view key) {
  json::value* v = o.if_contains(key);
  return v ? v->if_object() : nullptr;
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

// SetDefaults_HTTPGetAction.
void DefaultHttpGet(json::object& handler) {
  if (json::object* get = Member(handler, "httpGet")) {
    SetIfZero(*get, "path", "/");
    SetIfZero(*get, "scheme", "HTTP");
  }
}

// SetDefaults_Probe, with its handler's httpGet and grpc.service ("").
void DefaultProbe(json::object& probe) {
  SetIfZero(probe, "timeoutSeconds", 1);
  SetIfZero(probe, "periodSeconds", 10);
  SetIfZero(probe, "successThreshold", 1);
  SetIfZero(probe, "failureThreshold", 3);
  DefaultHttpGet(probe);
  if (json::object* grpc = Member(probe, "grpc")) SetIfAbsent(*grpc, "service", "");
}

// SetDefaults_ObjectFieldSelector on `holder`'s fieldRef.
void DefaultFieldRef(json::object& holder) {
  if (json::object* ref = Member(holder, "fieldRef")) SetIfZero(*ref, "apiVersion", "v1");
}

// SetDefaults_Container, the ports' protocol, env's field references,
// probes and lifecycle handlers. `requests_from_limits`: a limit without a
// request defaults the request to the limit (berth does it in pod templates
// too; kube in pods alone).
void DefaultContainer(json::object& c, bool requests_from_limits) {
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  if (auto it = c.find("image"); it != c.end() && it->value().is_string()) {
    SetIfAbsent(c, "imagePullPolicy", json::string(PullPolicyFor(it->value().get_string())));
  }
  json::object& resources = MutableObject(c, "resources");
  // Boost.JSON's operator[] may grow the object even when the key is there,
  // so the limits are looked up only after "requests" is in place.
  if (const json::value* lim = resources.if_contains("limits");
      requests_from_limits && lim && lim->is_object()) {
    json::object& requests = MutableObject(resources, "requests");
    for (const auto& kv : resources.at("limits").get_object()) {
      if (!requests.contains(kv.key())) requests[kv.key()] = kv.value();
    }
  }
  ForEachItem(c, "ports", [](json::object& port) { SetIfAbsent(port, "protocol", "TCP"); });
  ForEachItem(c, "env", [](json::object& env) {
    if (json::object* from = Member(env, "valueFrom")) DefaultFieldRef(*from);
  });
  for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (json::object* p = Member(c, probe)) DefaultProbe(*p);
  }
  if (json::object* lifecycle = Member(c, "lifecycle")) {
    for (std::string_view hook : {"postStart", "preStop"}) {
      if (json::object* handler = Member(*lifecycle, hook)) DefaultHttpGet(*handler);
    }
  }
}

// The projected volume's and the downward API's own defaults.
void DefaultProjection(json::object& projected) {
  SetIfAbsent(projected, "defaultMode", 420);
  ForEachItem(projected, "sources", [](json::object& source) {
    if (json::object* downward = Member(source, "downwardAPI"))
      ForEachItem(*downward, "items", DefaultFieldRef);
    if (json::object* token = Member(source, "serviceAccountToken"))
      SetIfAbsent(*token, "expirationSeconds", 3600);
  });
}

// SetDefaults_Volume: a volume naming no source is an emptyDir.
void DefaultVolume(json::object& volume) {
  const bool has_source =
      std::any_of(volume.begin(), volume.end(), [](const json::key_value_pair& member) {
        return member.key() != "name" && !member.value().is_null();
      });
  if (!has_source) volume["emptyDir"] = json::object();
  DefaultVolumeSource(volume);
}

}  // namespace

void SetIfZero(json::object& o, std::string_view key, json::value value) {
  auto it = o.find(key);
  const bool zero = it == o.end() || it->value().is_null() ||
                    (it->value().is_string() && it->value().get_string().empty()) ||
                    (it->value().is_number() && it->value().to_number<double>() == 0);
  if (zero) o[key] = std::move(value);
}

void DefaultVolumeSource(json::object& volume) {
  if (json::object* host_path = Member(volume, "hostPath")) SetIfAbsent(*host_path, "type", "");
  for (std::string_view source : {"secret", "configMap"}) {
    if (json::object* s = Member(volume, source)) SetIfAbsent(*s, "defaultMode", 420);
  }
  if (json::object* downward = Member(volume, "downwardAPI")) {
    SetIfAbsent(*downward, "defaultMode", 420);
    ForEachItem(*downward, "items", DefaultFieldRef);
  }
  if (json::object* projected = Member(volume, "projected")) DefaultProjection(*projected);
  if (json::object* iscsi = Member(volume, "iscsi")) SetIfZero(*iscsi, "iscsiInterface", "default");
  if (json::object* rbd = Member(volume, "rbd")) {
    SetIfZero(*rbd, "pool", "rbd");
    SetIfZero(*rbd, "user", "admin");
    SetIfZero(*rbd, "keyring", "/etc/ceph/keyring");
  }
  if (json::object* azure = Member(volume, "azureDisk")) {
    SetIfAbsent(*azure, "cachingMode", "ReadWrite");
    SetIfAbsent(*azure, "kind", "Shared");
    SetIfAbsent(*azure, "fsType", "ext4");
    SetIfAbsent(*azure, "readOnly", false);
  }
  if (json::object* scale_io = Member(volume, "scaleIO")) {
    SetIfZero(*scale_io, "storageMode", "ThinProvisioned");
    SetIfZero(*scale_io, "fsType", "xfs");
  }
  if (json::object* ephemeral = Member(volume, "ephemeral")) {
    if (json::object* claim = Member(*ephemeral, "volumeClaimTemplate")) {
      if (json::object* spec = Member(*claim, "spec"))
        SetIfAbsent(*spec, "volumeMode", "Filesystem");
    }
  }
}

namespace {

// kube's v1 conversion: the deprecated serviceAccount names the account
// when serviceAccountName does not, and always repeats serviceAccountName.
void DefaultServiceAccountAlias(json::object& spec) {
  const json::value* name = spec.if_contains("serviceAccountName");
  const bool named = name && name->is_string() && !name->get_string().empty();
  if (!named) {
    const json::value* alias = spec.if_contains("serviceAccount");
    if (alias && alias->is_string() && !alias->get_string().empty()) spec["serviceAccountName"] = *alias;
    return;
  }
  json::value copy = *name;  // the insertion below may move the members
  spec["serviceAccount"] = std::move(copy);
}

}  // namespace

void DefaultPodSpec(json::object& spec) {
  CanonicalizePodSpecQuantities(spec);
  SetIfAbsent(spec, "restartPolicy", "Always");
  SetIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "securityContext", json::object());
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  SetIfAbsent(spec, "enableServiceLinks", true);
  DefaultServiceAccountAlias(spec);
  for (std::string_view list : {"containers", "initContainers"}) {
    ForEachItem(spec, list, [](json::object& c) { DefaultContainer(c, true); });
  }
  ForEachItem(spec, "ephemeralContainers", [](json::object& c) { DefaultContainer(c, false); });
  ForEachItem(spec, "volumes", DefaultVolume);
}

void DefaultPod(json::object& pod) {
  json::object& spec = MutableObject(pod, "spec");
  DefaultPodSpec(spec);
  // SetDefaults_Pod: with the host's network, a container port is the host's.
  if (!BoolAt(&spec, "hostNetwork")) return;
  for (std::string_view list : {"containers", "initContainers"}) {
    ForEachItem(spec, list, [](json::object& c) {
      ForEachItem(c, "ports", [](json::object& port) {
        if (IntAt(&port, "hostPort") == 0 && port.contains("containerPort"))
          port["hostPort"] = port["containerPort"];
      });
    });
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
