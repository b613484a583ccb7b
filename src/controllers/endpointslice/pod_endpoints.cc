#include "controllers/endpointslice/pod_endpoints.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"

namespace berth::controllers {

namespace json = boost::json;

std::optional<std::vector<std::pair<std::string, std::string>>> ServiceSelector(
    const api::Object& service) {
  const json::object* selector = api::ObjectAt(api::Spec(service), "selector");
  if (!selector || selector->empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [key, value] : *selector) {
    pairs.emplace_back(std::string(key),
                       value.is_string() ? std::string(value.get_string()) : std::string());
  }
  return pairs;
}

bool ManagesEndpoints(const api::Object& service) {
  return api::StringAt(api::Spec(service), "type") != "ExternalName" &&
         ServiceSelector(service).has_value();
}

bool SelectorMatches(const std::vector<std::pair<std::string, std::string>>& selector,
                     const api::Labels& labels) {
  for (const auto& [key, value] : selector) {
    auto have = labels.Get(key);
    if (!have || *have != value) return false;
  }
  return true;
}

bool ShouldPodBeInEndpoints(const api::Object& pod, bool include_terminating) {
  std::string_view phase = api::StringAt(api::StatusOf(pod), "phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  if (PodIPs(pod).empty()) return false;
  if (!include_terminating && api::BeingDeleted(pod)) return false;
  return true;
}

bool ShouldSetHostname(const api::Object& pod, const api::Object& service) {
  const json::object* spec = api::Spec(pod);
  return !api::StringAt(spec, "hostname").empty() &&
         api::StringAt(spec, "subdomain") == service.name() &&
         pod.namespace_name() == service.namespace_name();
}

namespace {

std::optional<int64_t> NamedPort(const json::array* containers, std::string_view name,
                                 std::string_view protocol, bool sidecars_only) {
  if (!containers) return std::nullopt;
  for (const auto& c : *containers) {
    const json::object* container = c.if_object();
    if (!container) continue;
    if (sidecars_only && api::StringAt(container, "restartPolicy") != "Always") continue;
    const json::array* ports = api::ArrayAt(container, "ports");
    if (!ports) continue;
    for (const auto& p : *ports) {
      const json::object* port = p.if_object();
      if (!port || api::StringAt(port, "name") != name) continue;
      std::string_view port_protocol = api::StringAt(port, "protocol");
      if ((port_protocol.empty() ? "TCP" : port_protocol) != protocol) continue;
      return api::IntAt(port, "containerPort");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> FindPort(const api::Object& pod, const json::object& service_port) {
  const json::value* target = service_port.if_contains("targetPort");
  if (!target || target->is_null()) return api::IntAt(&service_port, "port");
  if (target->is_int64()) return target->get_int64();
  if (target->is_uint64()) return static_cast<int64_t>(target->get_uint64());
  if (!target->is_string()) return std::nullopt;
  std::string_view name = target->get_string();
  std::string_view protocol = api::StringAt(service_port, "protocol");
  if (protocol.empty()) protocol = "TCP";
  const json::object* spec = api::Spec(pod);
  if (auto port = NamedPort(api::ArrayAt(spec, "containers"), name, protocol, false)) return port;
  return NamedPort(api::ArrayAt(spec, "initContainers"), name, protocol, true);
}

std::vector<std::string> PodIPs(const api::Object& pod) {
  std::vector<std::string> ips;
  const json::object* status = api::StatusOf(pod);
  if (const json::array* list = api::ArrayAt(status, "podIPs")) {
    for (const auto& entry : *list) {
      std::string_view ip = api::StringAt(entry.if_object(), "ip");
      if (!ip.empty()) ips.emplace_back(ip);
    }
  }
  if (ips.empty()) {
    std::string_view ip = api::StringAt(status, "podIP");
    if (!ip.empty()) ips.emplace_back(ip);
  }
  return ips;
}

bool IsIPv6(std::string_view ip) { return ip.find(':') != std::string_view::npos; }

bool IsServiceIPSet(const api::Object& service) {
  std::string_view ip = api::StringAt(api::Spec(service), "clusterIP");
  return !ip.empty() && ip != "None";
}

bool NamespaceTerminating(const Status& s) {
  if (s.code() != StatusCode::kForbidden) return false;
  for (const auto& cause : s.causes()) {
    if (cause.type == "NamespaceTerminating") return true;
  }
  return false;
}

namespace {

// The pod's Ready condition's lastTransitionTime; "" without one.
std::string_view PodTriggerTime(const api::Object& pod) {
  const json::array* conditions = api::ArrayAt(api::StatusOf(pod), "conditions");
  if (!conditions) return {};
  for (const auto& c : *conditions) {
    if (api::StringAt(c.if_object(), "type") == "Ready")
      return api::StringAt(c.if_object(), "lastTransitionTime");
  }
  return {};
}

// a is later than b (RFC 3339 times; "" is the zero time).
bool After(std::string_view a, std::string_view b) {
  auto ta = api::ParseRfc3339(a);
  if (!ta) return false;
  auto tb = api::ParseRfc3339(b);
  return !tb || *ta > *tb;
}

void KeepEarliest(std::string& earliest, std::string_view t) {
  if (earliest.empty() || After(earliest, t)) earliest = std::string(t);
}

}  // namespace

std::string TriggerTimeTracker::Compute(const api::Object& service,
                                        const std::vector<api::ObjectPtr>& pods) {
  const std::string key = client::ObjectKey(service);
  State state;
  bool known = false;
  {
    std::lock_guard lock(mu_);
    if (auto it = states_.find(key); it != states_.end()) {
      state = it->second;
      known = true;
    }
  }
  std::string earliest;
  State next;
  for (const auto& pod : pods) {
    std::string_view t = PodTriggerTime(*pod);
    if (!api::ParseRfc3339(t)) continue;
    next.pod_times[pod->name()] = std::string(t);
    auto previous = state.pod_times.find(pod->name());
    if (After(t, previous == state.pod_times.end() ? std::string_view()
                                                   : std::string_view(previous->second))) {
      KeepEarliest(earliest, t);
    }
  }
  std::string_view created = api::StringAt(api::Metadata(service), "creationTimestamp");
  next.service_time = std::string(created);
  if (After(created, state.service_time)) KeepEarliest(earliest, created);
  {
    std::lock_guard lock(mu_);
    states_[key] = std::move(next);
  }
  if (!known) return std::string(created);
  return earliest;
}

void TriggerTimeTracker::Forget(const std::string& service_key) {
  std::lock_guard lock(mu_);
  states_.erase(service_key);
}

std::vector<std::string> PodServiceMemberships::Matching(const api::Object& pod) const {
  std::vector<std::string> keys;
  for (const auto& service : services_.ByIndex(client::kNamespaceIndex, pod.namespace_name())) {
    auto selector = ServiceSelector(*service);
    if (selector && SelectorMatches(*selector, pod.labels()))
      keys.push_back(client::ObjectKey(*service));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

namespace {

std::vector<std::string> Union(std::vector<std::string> a, const std::vector<std::string>& b) {
  for (const auto& key : b) {
    if (std::find(a.begin(), a.end(), key) == a.end()) a.push_back(key);
  }
  return a;
}

}  // namespace

std::vector<std::string> PodServiceMemberships::Update(const api::Object& pod) {
  std::vector<std::string> now = Matching(pod);
  std::lock_guard lock(mu_);
  auto it = last_.find(client::ObjectKey(pod));
  if (it == last_.end()) {
    // Pods of no Service are not remembered.
    if (!now.empty()) last_.emplace(client::ObjectKey(pod), now);
    return now;
  }
  std::vector<std::string> affected = Union(now, it->second);
  if (now.empty()) {
    last_.erase(it);
  } else {
    it->second = std::move(now);
  }
  return affected;
}

std::vector<std::string> PodServiceMemberships::Remove(const api::Object& pod) {
  std::vector<std::string> now = Matching(pod);
  std::lock_guard lock(mu_);
  auto it = last_.find(client::ObjectKey(pod));
  if (it == last_.end()) return now;
  std::vector<std::string> affected = Union(now, it->second);
  last_.erase(it);
  return affected;
}

}  // namespace berth::controllers
