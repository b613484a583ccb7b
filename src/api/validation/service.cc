// core/v1 Services and Endpoints: kube's pkg/apis/core/validation for a
// Service (types, ports, clusterIPs, headless and ExternalName services),
// its update rules, and Endpoints.

#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"
#include "api/validation/pod_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

// A Service's clusterIPs as its strategy normalizes them: clusterIPs, else [clusterIP].
json::array ClusterIps(const json::object* spec) {
  if (const json::array* ips = ArrayAt(spec, "clusterIPs"); ips && !ips->empty()) return *ips;
  if (auto ip = StringAt(spec, "clusterIP"); !ip.empty()) return json::array{json::value(ip)};
  return {};
}

bool IsHeadless(const json::array& ips) {
  return ips.size() == 1 && ips[0].is_string() && ips[0].get_string() == "None";
}

std::string_view ServiceType(const json::object* spec) {
  auto type = StringAt(spec, "type");
  return type.empty() ? "ClusterIP" : type;
}

void ValidateServicePorts(const json::object* spec, FieldErrors& errors) {
  const json::array* ports = ArrayAt(spec, "ports");
  if (!ports) return;
  std::set<std::string> names;
  std::set<std::pair<std::string, std::string>> keys;            // protocol, port
  std::set<std::pair<std::string, std::string>> node_port_keys;  // protocol, nodePort
  const bool cluster_ip_type = ServiceType(spec) == "ClusterIP";
  for (size_t i = 0; i < ports->size(); ++i) {
    const std::string path = IndexPath("spec.ports", i);
    const json::object* p = (*ports)[i].is_object() ? &(*ports)[i].get_object() : nullptr;
    auto name = StringAt(p, "name");
    if (name.empty()) {
      if (ports->size() > 1) errors.Required(path + ".name");
    } else {
      for (const auto& m : IsDns1123Label(name)) errors.Invalid(path + ".name", name, m);
      if (!names.insert(std::string(name)).second) errors.Duplicate(path + ".name", name);
    }
    const json::value* port = Present(p, "port");
    ValidatePortNumber(port ? *port : json::value(0), path + ".port", errors);
    std::string protocol(StringAt(p, "protocol"));
    if (protocol.empty()) protocol = "TCP";
    if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
      errors.NotSupported(path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
    }
    if (const json::value* target = Present(p, "targetPort")) {
      // 0 and "" are what a client sends for "unset"; defaulting makes them `port`.
      const bool unset = (target->is_number() && target->to_number<double>() == 0) ||
                         (target->is_string() && target->get_string().empty());
      if (!unset) ValidatePortNumberOrName(*target, path + ".targetPort", errors);
    }
    if (auto app = StringAt(p, "appProtocol"); Present(p, "appProtocol")) {
      for (const auto& m : IsQualifiedName(app)) errors.Invalid(path + ".appProtocol", app, m);
    }
    const json::value* node_port = Present(p, "nodePort");
    const bool has_node_port =
        node_port && !(node_port->is_number() && node_port->to_number<double>() == 0);
    if (has_node_port && cluster_ip_type) {
      errors.Forbidden(path + ".nodePort", "may not be used when `type` is 'ClusterIP'");
    }
    if (has_node_port && !node_port_keys.insert({protocol, json::serialize(*node_port)}).second) {
      errors.DuplicateGo(path + ".nodePort", json::serialize(*node_port));
    }
    if (port && !keys.insert({protocol, json::serialize(*port)}).second) {
      errors.DuplicateGo(
          path, "core.ServicePort{Name:\"\", Protocol:" + GoQuote(protocol) +
                    ", AppProtocol:(*string)(nil), Port:" + json::serialize(*port) +
                    ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}");
    }
  }
}

// NodePort and LoadBalancer services cannot be headless; an ExternalName
// service has no cluster IPs or families, only a DNS name.
void ValidateTypeSpecifics(const json::object* spec, std::string_view type,
                           const json::array& cluster_ips, bool headless, FieldErrors& errors) {
  if (type == "LoadBalancer" || type == "NodePort") {
    if (headless) {
      errors.Invalid("spec.clusterIPs[0]", "None",
                     "may not be set to 'None' for " + std::string(type) + " services");
    }
  } else if (type == "ExternalName") {
    if (!cluster_ips.empty())
      errors.Forbidden("spec.clusterIPs", "may not be set for ExternalName services");
    if (const json::array* families = ArrayAt(spec, "ipFamilies"); families && !families->empty()) {
      errors.Forbidden("spec.ipFamilies", "may not be set for ExternalName services");
    }
    if (Present(spec, "ipFamilyPolicy")) {
      errors.Forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services");
    }
    std::string_view cname = StringAt(spec, "externalName");
    if (cname.ends_with('.')) cname.remove_suffix(1);
    if (cname.empty()) {
      errors.Required("spec.externalName");
    } else {
      for (const auto& m : IsDns1123Subdomain(cname)) errors.Invalid("spec.externalName", cname, m);
    }
  }
}

void ValidateSessionAffinity(const json::object* spec, FieldErrors& errors) {
  std::string_view affinity = StringAt(spec, "sessionAffinity");
  if (affinity.empty()) affinity = "None";
  if (affinity != "None" && affinity != "ClientIP") {
    errors.NotSupported("spec.sessionAffinity", affinity, {"ClientIP", "None"});
  } else if (affinity == "None" && Present(spec, "sessionAffinityConfig")) {
    errors.Forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None");
  } else if (affinity == "ClientIP") {
    const json::value* timeout =
        Present(ObjectAt(ObjectAt(spec, "sessionAffinityConfig"), "clientIP"), "timeoutSeconds");
    if (timeout && (!timeout->is_number() || timeout->to_number<double>() <= 0 ||
                    timeout->to_number<double>() > 86400)) {
      errors.InvalidValue("spec.sessionAffinityConfig.clientIP.timeoutSeconds", *timeout,
                          "must be greater than 0 and less than 86400");
    }
  }
}

// clusterIPs ("None" first only), ipFamilyPolicy and ipFamilies (at most
// two, each once).
void ValidateClusterIpsAndFamilies(const json::object* spec, const json::array& cluster_ips,
                                   FieldErrors& errors) {
  for (size_t i = 0; i < cluster_ips.size(); ++i) {
    std::string_view ip =
        cluster_ips[i].is_string() ? std::string_view(cluster_ips[i].get_string()) : "";
    if ((i == 0 && ip == "None") || IsIpAddress(ip)) continue;
    errors.Invalid(IndexPath("spec.clusterIPs", i), ip,
                   ip == "None"
                       ? "must be a valid IP address"
                       : "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
  }
  if (auto policy = StringAt(spec, "ipFamilyPolicy");
      Present(spec, "ipFamilyPolicy") && policy != "SingleStack" && policy != "PreferDualStack" &&
      policy != "RequireDualStack") {
    errors.NotSupported("spec.ipFamilyPolicy", policy,
                        {"PreferDualStack", "RequireDualStack", "SingleStack"});
  }
  if (const json::array* families = ArrayAt(spec, "ipFamilies")) {
    std::set<std::string> seen;
    for (size_t i = 0; i < families->size(); ++i) {
      std::string_view family =
          (*families)[i].is_string() ? std::string_view((*families)[i].get_string()) : "";
      if (family != "IPv4" && family != "IPv6") {
        errors.NotSupported(IndexPath("spec.ipFamilies", i), family, {"IPv4", "IPv6"});
      } else if (!seen.insert(std::string(family)).second) {
        errors.Duplicate(IndexPath("spec.ipFamilies", i), family);
      }
    }
    if (families->size() > 2) {
      errors.InvalidGo("spec.ipFamilies", GoStrings(families, "[]core.IPFamily"),
                       "may specify no more than two IP families");
    }
  }
}

void ValidateExternalIps(const json::object* spec, FieldErrors& errors) {
  const json::array* external_ips = ArrayAt(spec, "externalIPs");
  if (!external_ips) return;
  for (size_t i = 0; i < external_ips->size(); ++i) {
    std::string_view ip =
        (*external_ips)[i].is_string() ? std::string_view((*external_ips)[i].get_string()) : "";
    if (IsIpAddress(ip)) {
      ValidateEndpointIp(ip, IndexPath("spec.externalIPs", i), errors);
    } else {
      errors.Invalid(IndexPath("spec.externalIPs", i), ip,
                     "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }
  }
}

// spec.type is one of the four, and the load balancer's fields are set only
// for a LoadBalancer service.
void ValidateTypeAndLoadBalancerFields(const json::object* spec, std::string_view type,
                                       FieldErrors& errors) {
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" &&
      type != "ExternalName") {
    errors.NotSupported("spec.type", type,
                        {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});
  }
  if (const json::array* ranges = ArrayAt(spec, "loadBalancerSourceRanges");
      ranges && !ranges->empty() && type != "LoadBalancer") {
    errors.Forbidden("spec.LoadBalancerSourceRanges",
                     "may only be used when `type` is 'LoadBalancer'");
  }
  if (Present(spec, "allocateLoadBalancerNodePorts") && type != "LoadBalancer") {
    errors.Forbidden("spec.allocateLoadBalancerNodePorts",
                     "may only be used when `type` is 'LoadBalancer'");
  }
  if (Present(spec, "loadBalancerClass") && type != "LoadBalancer") {
    errors.Forbidden("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'");
  }
}

// externalTrafficPolicy (only for externally reachable services),
// internalTrafficPolicy and trafficDistribution.
void ValidateTrafficPolicies(const json::object* spec, std::string_view type,
                             FieldErrors& errors) {
  const json::array* external_ips = ArrayAt(spec, "externalIPs");
  const bool externally_accessible =
      type == "LoadBalancer" || type == "NodePort" ||
      (type == "ClusterIP" && external_ips && !external_ips->empty());
  if (auto policy = StringAt(spec, "externalTrafficPolicy"); !policy.empty()) {
    if (!externally_accessible) {
      errors.Invalid("spec.externalTrafficPolicy", policy,
                     "may only be set for externally-accessible services");
    } else if (policy != "Cluster" && policy != "Local") {
      errors.NotSupported("spec.externalTrafficPolicy", policy, {"Cluster", "Local"});
    }
  }
  if (auto policy = StringAt(spec, "internalTrafficPolicy");
      Present(spec, "internalTrafficPolicy") && policy != "Cluster" && policy != "Local") {
    errors.NotSupported("spec.internalTrafficPolicy", policy, {"Cluster", "Local"});
  }
  if (auto distribution = StringAt(spec, "trafficDistribution");
      Present(spec, "trafficDistribution") && distribution != "PreferClose") {
    errors.NotSupported("spec.trafficDistribution", distribution, {"PreferClose"});
  }
}

}  // namespace

void ValidateService(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  const std::string_view type = ServiceType(spec);
  const json::array cluster_ips = ClusterIps(spec);
  const bool headless = IsHeadless(cluster_ips);
  const json::array* ports = ArrayAt(spec, "ports");
  if ((!ports || ports->empty()) && !headless && type != "ExternalName")
    errors.Required("spec.ports");
  ValidateTypeSpecifics(spec, type, cluster_ips, headless, errors);
  ValidateServicePorts(spec, errors);
  ValidateLabelMap(ObjectAt(spec, "selector"), "spec.selector", errors);
  ValidateSessionAffinity(spec, errors);
  if (type != "ExternalName") ValidateClusterIpsAndFamilies(spec, cluster_ips, errors);
  ValidateExternalIps(spec, errors);
  ValidateTypeAndLoadBalancerFields(spec, type, errors);
  ValidateTrafficPolicies(spec, type, errors);
}

void ValidateEndpoints(const Object& object, FieldErrors& errors) {
  const json::array* subsets = ArrayAt(object.json(), "subsets");
  if (!subsets) return;
  for (size_t i = 0; i < subsets->size(); ++i) {
    const std::string path = IndexPath("subsets", i);
    const json::object* subset = (*subsets)[i].is_object() ? &(*subsets)[i].get_object() : nullptr;
    const json::array* ready = ArrayAt(subset, "addresses");
    const json::array* not_ready = ArrayAt(subset, "notReadyAddresses");
    if ((!ready || ready->empty()) && (!not_ready || not_ready->empty())) {
      errors.Required(path, "must specify `addresses` or `notReadyAddresses`");
    }
    for (const auto& [list, name] :
         {std::pair{ready, "addresses"}, {not_ready, "notReadyAddresses"}}) {
      if (!list) continue;
      for (size_t a = 0; a < list->size(); ++a) {
        const std::string address_path = IndexPath(path + "." + name, a);
        const json::object* address = (*list)[a].is_object() ? &(*list)[a].get_object() : nullptr;
        ValidateEndpointIp(StringAt(address, "ip"), address_path + ".ip", errors);
        if (auto host = StringAt(address, "hostname"); !host.empty()) {
          for (const auto& m : IsDns1123Label(host))
            errors.Invalid(address_path + ".hostname", host, m);
        }
        if (auto node = StringAt(address, "nodeName"); Present(address, "nodeName")) {
          for (const auto& m : IsDns1123Subdomain(node))
            errors.Invalid(address_path + ".nodeName", node, m);
        }
      }
    }
    const json::array* ports = ArrayAt(subset, "ports");
    for (size_t p = 0; ports && p < ports->size(); ++p) {
      const std::string port_path = IndexPath(path + ".ports", p);
      const json::object* port = (*ports)[p].is_object() ? &(*ports)[p].get_object() : nullptr;
      auto name = StringAt(port, "name");
      if (name.empty() && ports->size() > 1) {
        errors.Required(port_path + ".name");
      } else if (!name.empty()) {
        for (const auto& m : IsDns1123Label(name)) errors.Invalid(port_path + ".name", name, m);
      }
      const json::value* number = Present(port, "port");
      ValidatePortNumber(number ? *number : json::value(0), port_path + ".port", errors);
      if (auto protocol = StringAt(port, "protocol");
          !protocol.empty() && protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
        errors.NotSupported(port_path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
      }
    }
  }
}

void ValidateServiceUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  const json::object* next_spec = ObjectAt(&next.json(), "spec");
  const json::object* cur_spec = ObjectAt(&current.json(), "spec");
  if (ServiceType(next_spec) == "ExternalName" || ServiceType(cur_spec) == "ExternalName") return;
  const json::array after = ClusterIps(next_spec);
  const json::array before = ClusterIps(cur_spec);
  // An update that leaves clusterIPs out keeps the allocated ones (kube's
  // strategy copies them over).
  if (after.empty() || (IsHeadless(after) && IsHeadless(before))) return;
  const std::string shown = GoStrings(&after);
  if (after.size() == before.size()) {
    for (size_t i = 0; i < before.size(); ++i) {
      if (before[i] != after[i])
        errors.InvalidGo(IndexPath("spec.clusterIPs", i), shown, "may not change once set");
    }
  } else if (!before.empty() && before[0] != after[0]) {
    errors.InvalidGo("spec.clusterIPs[0]", shown, "may not change once set");
  }
  if (before.size() > after.size() && after.size() == 1 &&
      StringAt(next_spec, "ipFamilyPolicy") != "SingleStack") {
    const json::value* policy = Present(next_spec, "ipFamilyPolicy");
    errors.InvalidValue("spec.ipFamilyPolicy", policy ? *policy : json::value(nullptr),
                        "must be set to 'SingleStack' when releasing the secondary clusterIP");
  }
}

}  // namespace berth::api::validation
