#include "apiserver/admission.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

void SetIfAbsent(json::object& o, std::string_view key, json::value value) {
  auto it = o.find(key);
  if (it == o.end() || it->value().is_null()) o[key] = std::move(value);
}

bool HasSpec(api::Kind kind) {
  switch (kind) {
    case api::Kind::kDeployment:
    case api::Kind::kReplicaSet:
    case api::Kind::kPodDisruptionBudget:
    case api::Kind::kStatefulSet:
    case api::Kind::kDaemonSet:
    case api::Kind::kReplicationController:
    case api::Kind::kJob:
    case api::Kind::kCronJob:
    case api::Kind::kHorizontalPodAutoscaler:
    case api::Kind::kIngress:
    case api::Kind::kNetworkPolicy:
    case api::Kind::kCustomResourceDefinition:
      return true;
    default:
      return false;
  }
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
  json::object& resources = api::MutableObject(c, "resources");
  // A limit without a request defaults the request to the limit. Boost.JSON's
  // operator[] may grow the object even when the key is there, so the limits
  // are looked up only after "requests" is in place.
  if (const json::value* lim = resources.if_contains("limits"); lim && lim->is_object()) {
    json::object& requests = api::MutableObject(resources, "requests");
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

bool Tolerates(const json::array& tolerations, std::string_view key) {
  for (const auto& t : tolerations) {
    if (!t.is_object()) continue;
    const auto& o = t.get_object();
    auto k = o.find("key");
    auto op = o.find("operator");
    auto effect = o.find("effect");
    bool key_matches = (k == o.end() || (k->value().is_string() && k->value().get_string().empty()))
                           ? (op != o.end() && op->value() == "Exists")
                           : k->value() == json::value(json::string(key));
    bool effect_matches = effect == o.end() || effect->value() == "" || effect->value() == "NoExecute";
    if (key_matches && effect_matches) return true;
  }
  return false;
}

// kube's QoS class: Guaranteed when every container has equal cpu and memory
// requests and limits; BestEffort when nothing is requested or limited.
std::string QosClass(const json::object& spec) {
  bool any = false, guaranteed = true;
  auto containers = spec.find("containers");
  if (containers == spec.end() || !containers->value().is_array()) return "BestEffort";
  for (const auto& c : containers->value().get_array()) {
    if (!c.is_object()) continue;
    const json::object* resources = api::ObjectAt(c.get_object(), "resources");
    const json::object* requests = api::ObjectAt(resources, "requests");
    const json::object* limits = api::ObjectAt(resources, "limits");
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

}  // namespace

Admission::Admission(AdmissionOptions options, uint64_t seed) : options_(options), rng_(seed) {}

std::string Admission::NewUid() {
  uint64_t hi, lo;
  {
    std::lock_guard lk(mu_);
    hi = rng_();
    lo = rng_();
  }
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  // 8-4-4-4-12 lower-case hex digits; written by hand (snprintf's format
  // parsing was a visible part of every create).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(36, '-');
  size_t at = 0;
  auto put = [&](uint64_t bits, int digits) {
    for (int i = digits - 1; i >= 0; --i) out[at++] = kHex[(bits >> (4 * i)) & 0xf];
  };
  put(hi >> 32, 8);
  ++at;
  put(hi >> 16, 4);
  ++at;
  put(hi, 4);
  ++at;
  put(lo >> 48, 4);
  ++at;
  put(lo, 12);
  return out;
}

std::string Admission::GenerateName(std::string_view base) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string name(base.substr(0, std::min<size_t>(base.size(), 58)));
  std::lock_guard lk(mu_);
  for (int i = 0; i < 5; ++i) name += kAlphabet[rng_() % kAlphabet.size()];
  return name;
}

void Admission::PrepareCreate(api::Kind kind, json::object& object) {
  json::object& meta = api::MutableObject(object, "metadata");
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = NowRfc3339();
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (HasSpec(kind)) meta["generation"] = 1;
  ApplyDefaults(kind, object);
}

void Admission::DefaultPodSpec(json::object& spec, bool is_pod) {
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
  if (!is_pod) return;
  // DefaultTolerationSeconds admission.
  json::value& tv = spec["tolerations"];
  if (!tv.is_array()) tv = json::array();
  json::array& tolerations = tv.get_array();
  auto add = [&](std::string_view key, int64_t seconds) {
    if (Tolerates(tolerations, key)) return;
    json::object t;
    t["key"] = key;
    t["operator"] = "Exists";
    t["effect"] = "NoExecute";
    t["tolerationSeconds"] = seconds;
    tolerations.push_back(std::move(t));
  };
  add("node.kubernetes.io/not-ready", options_.default_not_ready_toleration_seconds);
  add("node.kubernetes.io/unreachable", options_.default_unreachable_toleration_seconds);
}

void Admission::ApplyDefaults(api::Kind kind, json::object& object) {
  switch (kind) {
    case api::Kind::kPod: {
      json::object& spec = api::MutableObject(object, "spec");
      DefaultPodSpec(spec, true);
      // Before MutableObject(object, "status"): growing `object` moves `spec`.
      json::string qos_class(QosClass(spec));
      json::object& status = api::MutableObject(object, "status");
      SetIfAbsent(status, "phase", "Pending");
      SetIfAbsent(status, "qosClass", std::move(qos_class));
      break;
    }
    case api::Kind::kDeployment:
    case api::Kind::kReplicaSet: {
      json::object& spec = api::MutableObject(object, "spec");
      SetIfAbsent(spec, "replicas", 1);
      SetIfAbsent(spec, "revisionHistoryLimit", 10);
      if (kind == api::Kind::kDeployment) {
        SetIfAbsent(spec, "progressDeadlineSeconds", 600);
        json::object& strategy = api::MutableObject(spec, "strategy");
        SetIfAbsent(strategy, "type", "RollingUpdate");
        if (strategy["type"] == "RollingUpdate") {
          json::object& ru = api::MutableObject(strategy, "rollingUpdate");
          SetIfAbsent(ru, "maxUnavailable", "25%");
          SetIfAbsent(ru, "maxSurge", "25%");
        }
      } else {
        spec.erase("revisionHistoryLimit");
      }
      json::object& tmpl = api::MutableObject(spec, "template");
      DefaultPodSpec(api::MutableObject(tmpl, "spec"), false);
      break;
    }
    case api::Kind::kNamespace: {
      json::object& spec = api::MutableObject(object, "spec");
      SetIfAbsent(spec, "finalizers", json::array{"kubernetes"});
      SetIfAbsent(api::MutableObject(object, "status"), "phase", "Active");
      break;
    }
    case api::Kind::kPersistentVolumeClaim: {
      SetIfAbsent(api::MutableObject(object, "spec"), "volumeMode", "Filesystem");
      SetIfAbsent(api::MutableObject(object, "status"), "phase", "Pending");
      break;
    }
    case api::Kind::kPersistentVolume: {
      json::object& spec = api::MutableObject(object, "spec");
      SetIfAbsent(spec, "persistentVolumeReclaimPolicy", "Retain");
      SetIfAbsent(spec, "volumeMode", "Filesystem");
      SetIfAbsent(api::MutableObject(object, "status"), "phase", "Pending");
      break;
    }
    case api::Kind::kStorageClass:
      SetIfAbsent(object, "reclaimPolicy", "Delete");
      SetIfAbsent(object, "volumeBindingMode", "Immediate");
      break;
    case api::Kind::kPriorityClass:
      SetIfAbsent(object, "preemptionPolicy", "PreemptLowerPriority");
      break;
    default:
      break;
  }
}

void Admission::DefaultPodUpdate(json::object& pod) { DefaultPodSpec(api::MutableObject(pod, "spec"), true); }

void Admission::PrepareUpdate(api::Kind kind, const json::object& current, json::object& next) {
  const json::object* cur_meta = api::ObjectAt(current, "metadata");
  json::object& meta = api::MutableObject(next, "metadata");
  if (cur_meta) {
    for (std::string_view key : {"uid", "creationTimestamp", "deletionTimestamp",
                                 "deletionGracePeriodSeconds", "generation"}) {
      if (auto it = cur_meta->find(key); it != cur_meta->end()) {
        meta[key] = it->value();
      } else {
        meta.erase(key);
      }
    }
  }
  if (HasSpec(kind)) {
    const json::value* before = current.if_contains("spec");
    const json::value* after = next.if_contains("spec");
    bool changed = (before == nullptr) != (after == nullptr) || (before && *before != *after);
    if (changed) {
      int64_t generation = 0;
      if (auto g = meta.find("generation"); g != meta.end() && g->value().is_int64()) {
        generation = g->value().get_int64();
      }
      meta["generation"] = generation + 1;
    }
  }
}

}  // namespace berth::apiserver
