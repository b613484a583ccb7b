// core/v1 kinds: kube's pkg/apis/core/validation for ConfigMap, Secret,
// Service, Endpoints, LimitRange, ResourceQuota, PodTemplate,
// ReplicationController, and the update rules of those and of
// PersistentVolumeClaims.

#include <boost/json.hpp>
#include <map>
#include <set>
#include <variant>

#include "api/base64.h"
#include "api/json_fields.h"
#include "api/json_parse.h"
#include "api/name_validation.h"
#include "api/pod_validation.h"
#include "api/quantity.h"
#include "api/validation_groups.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

constexpr int64_t kMaxSecretSize = 1 << 20;  // ConfigMaps share it

std::string_view JsonKind(const json::value& v) {
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  if (v.is_bool()) return "bool";
  if (v.is_string()) return "string";
  return "number";
}

// Go's json.Unmarshal of `text` into a map[string]interface{}: "" when it
// succeeds, else Go's error for the common failures.
std::string GoJsonObjectError(std::string_view text) {
  boost::system::error_code ec;
  json::value v = api::ParseJson(text, ec);
  if (ec) {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || ec == json::error::incomplete)
      return "unexpected end of JSON input";
    const char c = text[first];
    if (std::string_view("{[\"tfn-0123456789").find(c) == std::string_view::npos) {
      return std::string("invalid character '") + c + "' looking for beginning of value";
    }
    return ec.message();
  }
  if (v.is_object() || v.is_null()) return "";
  return "json: cannot unmarshal " + std::string(JsonKind(v)) +
         " into Go value of type map[string]interface {}";
}

// The decoded bytes of each base64 member of `map` (skipping what does not decode).
std::map<std::string, std::string, std::less<>> DecodedMembers(const json::object* map) {
  std::map<std::string, std::string, std::less<>> out;
  if (!map) return out;
  for (const auto& kv : *map) {
    if (!kv.value().is_string()) continue;
    auto decoded = Base64Decode(kv.value().get_string());
    if (auto* bytes = std::get_if<std::string>(&decoded))
      out.emplace(std::string(kv.key()), std::move(*bytes));
  }
  return out;
}

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

}  // namespace

Status CheckBase64Fields(const Object& object) {
  const bool secret = object.kind() == Kind::kSecret;
  const json::object* map = ObjectAt(&object.json(), secret ? "data" : "binaryData");
  if (!map) return Status::Ok();
  const std::string kind(object.info().name);
  const std::string prefix = kind + " in version \"v1\" cannot be handled as a " + kind + ": ";
  for (const auto& kv : *map) {
    if (!kv.value().is_string()) {
      return Status::BadRequest(prefix + "json: cannot unmarshal " +
                                std::string(JsonKind(kv.value())) + " into Go struct field " +
                                kind + (secret ? ".data" : ".binaryData") + " of type []uint8");
    }
    auto decoded = Base64Decode(kv.value().get_string());
    if (auto* bad = std::get_if<Base64Corrupt>(&decoded)) {
      return Status::BadRequest(prefix + "illegal base64 data at input byte " +
                                std::to_string(bad->offset));
    }
  }
  return Status::Ok();
}

void ValidateConfigMap(const Object& object, FieldErrors& errors) {
  const json::object* data = ObjectAt(&object.json(), "data");
  const json::object* binary = ObjectAt(&object.json(), "binaryData");
  int64_t total = 0;
  if (data) {
    for (const auto& kv : *data) {
      const std::string path = KeyPath("data", kv.key());
      for (const auto& m : IsConfigMapKey(kv.key())) errors.Invalid(path, kv.key(), m);
      if (binary && binary->contains(kv.key()))
        errors.Invalid(path, kv.key(), "duplicate of key present in binaryData");
      if (kv.value().is_string()) total += static_cast<int64_t>(kv.value().get_string().size());
    }
  }
  if (binary) {
    for (const auto& kv : *binary) {
      for (const auto& m : IsConfigMapKey(kv.key()))
        errors.Invalid(KeyPath("binaryData", kv.key()), kv.key(), m);
    }
    for (const auto& [key, bytes] : DecodedMembers(binary))
      total += static_cast<int64_t>(bytes.size());
  }
  if (total > kMaxSecretSize) errors.TooLong("[]", kMaxSecretSize);
}

void ValidateSecret(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  const json::object* data = ObjectAt(&o, "data");
  if (data) {
    for (const auto& kv : *data) {
      for (const auto& m : IsConfigMapKey(kv.key()))
        errors.Invalid(KeyPath("data", kv.key()), kv.key(), m);
    }
  }
  const auto decoded = DecodedMembers(data);
  int64_t total = 0;
  for (const auto& [key, bytes] : decoded) total += static_cast<int64_t>(bytes.size());
  if (total > kMaxSecretSize) errors.TooLong("data", kMaxSecretSize);

  auto has = [&](std::string_view key) { return decoded.find(key) != decoded.end(); };
  auto require = [&](std::string_view key) {
    if (!has(key)) errors.Required(KeyPath("data", key));
    return has(key);
  };
  auto json_object = [&](std::string_view key) {
    if (!require(key)) return;
    if (auto problem = GoJsonObjectError(decoded.find(key)->second); !problem.empty()) {
      errors.Invalid(KeyPath("data", key), "<secret contents redacted>", problem);
    }
  };
  const std::string_view type = StringAt(o, "type");
  if (type == "kubernetes.io/service-account-token") {
    if (Annotation(object, "kubernetes.io/service-account.name").empty()) {
      errors.Required("metadata.annotations[kubernetes.io/service-account.name]");
    }
  } else if (type == "kubernetes.io/dockercfg") {
    json_object(".dockercfg");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    json_object(".dockerconfigjson");
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has("username") && !has("password")) {
      errors.Required("data[username]");
      errors.Required("data[password]");
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (!has("ssh-privatekey") || decoded.find("ssh-privatekey")->second.empty()) {
      errors.Required("data[ssh-privatekey]");
    }
  } else if (type == "kubernetes.io/tls") {
    require("tls.crt");
    require("tls.key");
  }
}

void ValidateService(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  const std::string_view type = ServiceType(spec);
  const json::array cluster_ips = ClusterIps(spec);
  const bool headless = IsHeadless(cluster_ips);
  const json::array* ports = ArrayAt(spec, "ports");
  if ((!ports || ports->empty()) && !headless && type != "ExternalName")
    errors.Required("spec.ports");

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

  ValidateServicePorts(spec, errors);
  ValidateLabelMap(ObjectAt(spec, "selector"), "spec.selector", errors);

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

  // clusterIPs and IP families.
  if (type != "ExternalName") {
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

  if (const json::array* external_ips = ArrayAt(spec, "externalIPs")) {
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

void ValidateLimitRange(const Object& object, FieldErrors& errors) {
  const json::array* limits = ArrayAt(ObjectAt(&object.json(), "spec"), "limits");
  if (!limits) return;
  std::set<std::string> types;
  for (size_t i = 0; i < limits->size(); ++i) {
    const std::string path = IndexPath("spec.limits", i);
    const json::object* limit = (*limits)[i].is_object() ? &(*limits)[i].get_object() : nullptr;
    const std::string type(StringAt(limit, "type"));
    auto type_problems = IsQualifiedName(type);
    for (const auto& m : type_problems) errors.Invalid(path + ".type", type, m);
    if (type_problems.empty() && type.find('/') == std::string::npos && type != "Pod" &&
        type != "Container" && type != "PersistentVolumeClaim") {
      errors.Invalid(path + ".type", type, "must be a standard limit type or fully qualified");
    }
    if (!types.insert(type).second) errors.Duplicate(path + ".type", type);

    auto max = ValidateResourceList(ObjectAt(limit, "max"), path + ".max", errors);
    auto min = ValidateResourceList(ObjectAt(limit, "min"), path + ".min", errors);
    std::map<std::string, Quantity> defaults, default_requests;
    if (type == "Pod") {
      if (const json::object* d = ObjectAt(limit, "default"); d && !d->empty()) {
        errors.Forbidden(path + ".default", "may not be specified when `type` is 'Pod'");
      }
      if (const json::object* d = ObjectAt(limit, "defaultRequest"); d && !d->empty()) {
        errors.Forbidden(path + ".defaultRequest", "may not be specified when `type` is 'Pod'");
      }
    } else {
      defaults = ValidateResourceList(ObjectAt(limit, "default"), path + ".default", errors);
      default_requests =
          ValidateResourceList(ObjectAt(limit, "defaultRequest"), path + ".defaultRequest", errors);
    }
    if (type == "PersistentVolumeClaim" && !min.contains("storage") && !max.contains("storage")) {
      errors.Required(
          path + ".limits",
          "either minimum or maximum storage value is required, but neither was provided");
    }
    auto ratios = ValidateResourceList(ObjectAt(limit, "maxLimitRequestRatio"),
                                       path + ".maxLimitRequestRatio", errors);
    std::set<std::string> keys;
    for (const auto* list : {&max, &min, &defaults, &default_requests, &ratios}) {
      for (const auto& [k, q] : *list) keys.insert(k);
    }
    for (const auto& k : keys) {
      auto find = [&](const std::map<std::string, Quantity>& m) {
        auto it = m.find(k);
        return it == m.end() ? nullptr : &it->second;
      };
      const Quantity* lo = find(min);
      const Quantity* hi = find(max);
      const Quantity* def = find(defaults);
      const Quantity* req = find(default_requests);
      const Quantity* ratio = find(ratios);
      if (lo && hi && lo->Compare(*hi) > 0) {
        errors.Invalid(
            KeyPath(path + ".min", k), lo->ToString(),
            "min value " + lo->ToString() + " is greater than max value " + hi->ToString());
      }
      if (req && lo && lo->Compare(*req) > 0) {
        errors.Invalid(KeyPath(path + ".defaultRequest", k), req->ToString(),
                       "min value " + lo->ToString() + " is greater than default request value " +
                           req->ToString());
      }
      if (req && hi && req->Compare(*hi) > 0) {
        errors.Invalid(KeyPath(path + ".defaultRequest", k), req->ToString(),
                       "default request value " + req->ToString() + " is greater than max value " +
                           hi->ToString());
      }
      if (req && def && req->Compare(*def) > 0) {
        errors.Invalid(KeyPath(path + ".defaultRequest", k), req->ToString(),
                       "default request value " + req->ToString() +
                           " is greater than default limit value " + def->ToString());
      }
      if (def && lo && lo->Compare(*def) > 0) {
        errors.Invalid(
            KeyPath(path + ".default", k), lo->ToString(),
            "min value " + lo->ToString() + " is greater than default value " + def->ToString());
      }
      if (def && hi && def->Compare(*hi) > 0) {
        errors.Invalid(
            KeyPath(path + ".default", k), hi->ToString(),
            "default value " + def->ToString() + " is greater than max value " + hi->ToString());
      }
      if (ratio && ratio->Compare(Quantity::Parse("1").value()) < 0) {
        errors.Invalid(KeyPath(path + ".maxLimitRequestRatio", k), ratio->ToString(),
                       "ratio " + ratio->ToString() + " is less than 1");
      }
    }
  }
}

namespace {

constexpr std::string_view kQuotaScopes[] = {"Terminating",          "NotTerminating",
                                             "BestEffort",           "NotBestEffort",
                                             "PriorityClass",        "CrossNamespacePodAffinity",
                                             "VolumeAttributesClass"};

std::set<std::string> Scopes(const json::object* spec) {
  std::set<std::string> scopes;
  if (const json::array* list = ArrayAt(spec, "scopes")) {
    for (const auto& s : *list) scopes.insert(s.is_string() ? std::string(s.get_string()) : "");
  }
  return scopes;
}

}  // namespace

void ValidateResourceQuota(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateResourceList(ObjectAt(spec, "hard"), "spec.hard", errors);
  const json::array* scope_list = ArrayAt(spec, "scopes");
  const std::set<std::string> scopes = Scopes(spec);
  const std::string shown = GoStrings(scope_list, "[]core.ResourceQuotaScope");
  for (const auto& scope : scopes) {
    if (std::find(std::begin(kQuotaScopes), std::end(kQuotaScopes), scope) ==
        std::end(kQuotaScopes)) {
      errors.InvalidGo("spec.scopes", shown, "unsupported scope");
    }
  }
  if ((scopes.contains("BestEffort") && scopes.contains("NotBestEffort")) ||
      (scopes.contains("Terminating") && scopes.contains("NotTerminating"))) {
    errors.InvalidGo("spec.scopes", shown, "conflicting scopes");
  }
  const json::object* status = ObjectAt(&object.json(), "status");
  ValidateResourceList(ObjectAt(status, "hard"), "status.hard", errors);
  ValidateResourceList(ObjectAt(status, "used"), "status.used", errors);
}

void ValidatePodTemplate(const Object& object, FieldErrors& errors) {
  ValidatePodTemplateSpec(ObjectAt(&object.json(), "template"), "template", errors);
}

void ValidateReplicationController(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  NonNegative(spec, "minReadySeconds", "spec.minReadySeconds", errors);
  NonNegative(spec, "replicas", "spec.replicas", errors);
  const json::object* tmpl = ObjectAt(spec, "template");
  // An absent selector defaults to the template's labels.
  const json::object* selector = ObjectAt(spec, "selector");
  if (!selector || selector->empty()) selector = ObjectAt(ObjectAt(tmpl, "metadata"), "labels");
  if (!selector || selector->empty()) errors.Required("spec.selector");
  if (!tmpl) {
    errors.Required("spec.template");
    return;
  }
  if (selector && !selector->empty()) {
    const Labels labels = TemplateLabels(tmpl);
    bool matches = true;
    for (const auto& kv : *selector) {
      const auto value = labels.Get(kv.key());
      matches = matches && value && kv.value().is_string() && *value == kv.value().get_string();
    }
    if (!matches) {
      const json::object* l = ObjectAt(ObjectAt(tmpl, "metadata"), "labels");
      errors.InvalidGo("spec.template.metadata.labels",
                       l ? GoStringMap(*l) : "map[string]string(nil)",
                       "`selector` does not match template `labels`");
    }
  }
  ValidatePodTemplateSpec(tmpl, "spec.template", errors);
  ValidateRestartAlways(tmpl, "spec.template", "ReplicationController", errors);
}

// ---- Updates ----

namespace {

// kube's immutable ConfigMap/Secret: once `immutable: true`, it stays so and
// the listed members never change.
void CheckImmutableData(const json::object& next, const json::object& current,
                        std::initializer_list<std::string_view> members, FieldErrors& errors) {
  if (!BoolAt(&current, "immutable")) return;
  if (!BoolAt(&next, "immutable"))
    errors.Forbidden("immutable", "field is immutable when `immutable` is set");
  for (std::string_view member : members) {
    const json::value* a = Present(&next, member);
    const json::value* b = Present(&current, member);
    const bool empty_a = !a || (a->is_object() && a->get_object().empty());
    const bool empty_b = !b || (b->is_object() && b->get_object().empty());
    if (empty_a && empty_b) continue;
    if (empty_a != empty_b || *a != *b) {
      errors.Forbidden(std::string(member), "field is immutable when `immutable` is set");
    }
  }
}

}  // namespace

void ValidateConfigMapUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  CheckImmutableData(next.json(), current.json(), {"data", "binaryData"}, errors);
}

void ValidateSecretUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  auto type = [](const Object& o) {
    auto t = StringAt(o.json(), "type");
    return t.empty() ? std::string_view("Opaque") : t;
  };
  if (type(next) != type(current)) errors.Invalid("type", type(next), "field is immutable");
  CheckImmutableData(next.json(), current.json(), {"data"}, errors);
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

void ValidatePersistentVolumeClaimUpdate(const Object& next, const Object& current,
                                         FieldErrors& errors) {
  static const json::object kEmpty;
  const json::object* next_spec_p = ObjectAt(&next.json(), "spec");
  const json::object* cur_spec_p = ObjectAt(&current.json(), "spec");
  json::object after = next_spec_p ? *next_spec_p : kEmpty;
  json::object before = cur_spec_p ? *cur_spec_p : kEmpty;
  const bool bound = StringAt(ObjectAt(&next.json(), "status"), "phase") == "Bound";

  // volumeName may be set once; storageClassName may go from unset to set.
  if (StringAt(before, "volumeName").empty()) {
    if (const json::value* v = after.if_contains("volumeName"))
      before["volumeName"] = *v;
    else
      before.erase("volumeName");
  }
  if (!Present(&before, "storageClassName") && Present(&after, "storageClassName")) {
    auto beta = Annotation(current, "volume.beta.kubernetes.io/storage-class");
    if (beta.empty() || beta == StringAt(after, "storageClassName"))
      before["storageClassName"] = after["storageClassName"];
  }
  auto storage_of = [](const json::object& spec) -> const json::value* {
    return Present(ObjectAt(ObjectAt(&spec, "resources"), "requests"), "storage");
  };
  const json::value* new_size_v = storage_of(after);
  const json::value* old_size_v = storage_of(before);
  auto quantity = [](const json::value* v) -> std::optional<Quantity> {
    if (!v) return std::nullopt;
    auto q = Quantity::Parse(v->is_string() ? std::string(v->get_string()) : json::serialize(*v));
    return q.ok() ? std::optional<Quantity>(*q) : std::nullopt;
  };
  const auto new_size = quantity(new_size_v);
  const auto old_size = quantity(old_size_v);
  if (bound) {
    json::object& requests = MutableObject(MutableObject(after, "resources"), "requests");
    if (old_size_v)
      requests["storage"] = *old_size_v;
    else
      requests.erase("storage");
    if (Present(&after, "volumeAttributesClassName")) {
      if (const json::value* v = before.if_contains("volumeAttributesClassName"))
        after["volumeAttributesClassName"] = *v;
      else
        after.erase("volumeAttributesClassName");
    }
  }
  if (after != before) {
    std::string diff;
    std::set<std::string> keys;
    for (const auto& kv : before) keys.insert(std::string(kv.key()));
    for (const auto& kv : after) keys.insert(std::string(kv.key()));
    for (const auto& key : keys) {
      const json::value* a = before.if_contains(key);
      const json::value* b = after.if_contains(key);
      if ((a == nullptr) == (b == nullptr) && (!a || *a == *b)) continue;
      diff += "\n  - " + key + ": " + (a ? json::serialize(*a) : "null") + "\n  + " + key + ": " +
              (b ? json::serialize(*b) : "null");
    }
    errors.Forbidden("spec",
                     "spec is immutable after creation except resources.requests and "
                     "volumeAttributesClassName for bound claims" +
                         diff);
  }
  if (new_size && old_size && new_size->Compare(*old_size) < 0) {
    // kube (RecoverVolumeExpansionFailure) lets a claim shrink back to just above its capacity.
    const Quantity capacity =
        quantity(Present(ObjectAt(ObjectAt(&current.json(), "status"), "capacity"), "storage"))
            .value_or(Quantity::Parse("0").value());
    if (new_size->Compare(capacity) <= 0) {
      errors.Forbidden("spec.resources.requests.storage",
                       "field can not be less than status.capacity");
    }
  }
}

void ValidateResourceQuotaUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  const json::object* next_spec = ObjectAt(&next.json(), "spec");
  if (Scopes(next_spec) != Scopes(ObjectAt(&current.json(), "spec"))) {
    errors.InvalidGo("spec.scopes",
                     GoStrings(ArrayAt(next_spec, "scopes"), "[]core.ResourceQuotaScope"),
                     "field is immutable");
  }
}

}  // namespace berth::api::validation
