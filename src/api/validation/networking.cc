// networking.k8s.io/v1 (Ingress, IngressClass, NetworkPolicy) and
// discovery.k8s.io/v1 (EndpointSlice): kube's pkg/apis/networking/validation
// and pkg/apis/discovery/validation.

#include <arpa/inet.h>

#include <array>
#include <boost/json.hpp>
#include <optional>
#include <set>

#include "api/json_fields.h"
#include "api/selector.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

struct Cidr {
  std::array<unsigned char, 16> address{};
  bool v6 = false;
  int prefix = 0;
};

std::optional<Cidr> ParseCidr(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  Cidr cidr;
  const std::string ip(text.substr(0, slash));
  cidr.v6 = ip.find(':') != std::string::npos;
  if (inet_pton(cidr.v6 ? AF_INET6 : AF_INET, ip.c_str(), cidr.address.data()) != 1)
    return std::nullopt;
  std::string_view bits = text.substr(slash + 1);
  if (bits.empty() || bits.size() > 3) return std::nullopt;
  for (char c : bits) {
    if (c < '0' || c > '9') return std::nullopt;
    cidr.prefix = cidr.prefix * 10 + (c - '0');
  }
  if (cidr.prefix > (cidr.v6 ? 128 : 32)) return std::nullopt;
  return cidr;
}

bool Contains(const Cidr& outer, const Cidr& inner) {
  if (outer.v6 != inner.v6) return false;
  for (int bit = 0; bit < outer.prefix; ++bit) {
    const int byte = bit / 8, mask = 0x80 >> (bit % 8);
    if ((outer.address[byte] & mask) != (inner.address[byte] & mask)) return false;
  }
  return true;
}

void ValidateSelector(const json::object* o, std::string_view key, const std::string& path,
                      FieldErrors& errors) {
  if (const json::value* sel = Present(o, key)) {
    if (auto parsed = LabelSelector::FromJson(*sel); !parsed.ok()) {
      errors.InvalidValue(path, *sel, parsed.status().message());
    }
  }
}

void ValidateTypedReference(const json::object* ref, const std::string& path, FieldErrors& errors) {
  if (const json::value* group = Present(ref, "apiGroup"); group && group->is_string()) {
    for (const auto& m : IsDns1123Subdomain(group->get_string())) {
      errors.Invalid(path + ".apiGroup", group->get_string(), m);
    }
  }
  for (std::string_view key : {"kind", "name"}) {
    const std::string_view value = StringAt(ref, key);
    if (value.empty()) {
      errors.Required(path + "." + std::string(key), std::string(key) + " is required");
    } else {
      for (const auto& m : IsValidPathSegmentName(value))
        errors.Invalid(path + "." + std::string(key), value, m);
    }
  }
}

void ValidateIngressBackend(const json::object* backend, const std::string& path,
                            FieldErrors& errors) {
  const json::object* resource = ObjectAt(backend, "resource");
  const json::object* service = ObjectAt(backend, "service");
  if (resource && service) {
    errors.Invalid(path, "", "cannot set both resource and service backends");
    return;
  }
  if (resource) {
    ValidateTypedReference(resource, path + ".resource", errors);
    return;
  }
  if (!service) {
    errors.Invalid(path, "", "resource or service backend is required");
    return;
  }
  const std::string_view name = StringAt(service, "name");
  if (name.empty()) {
    errors.Required(path + ".service.name");
  } else {
    for (const auto& m : IsDns1035Label(name)) errors.Invalid(path + ".service.name", name, m);
  }
  const json::object* port = ObjectAt(service, "port");
  const std::string_view port_name = StringAt(port, "name");
  const json::value* number = Present(port, "number");
  const bool has_number = number && !(number->is_number() && number->to_number<double>() == 0);
  if (!port_name.empty() && has_number) {
    errors.Invalid(path, "", "cannot set both port name & port number");
  } else if (!port_name.empty()) {
    for (const auto& m : IsValidPortName(port_name))
      errors.Invalid(path + ".service.port.name", port_name, m);
  } else if (has_number) {
    ValidatePortNumber(*number, path + ".service.port.number", errors);
  } else {
    errors.Required(path, "port name or number is required");
  }
}

void ValidateHost(std::string_view host, const std::string& path, FieldErrors& errors) {
  const auto problems = host.find('*') != std::string_view::npos ? IsWildcardDns1123Subdomain(host)
                                                                 : IsDns1123Subdomain(host);
  for (const auto& m : problems) errors.Invalid(path, host, m);
}

void ValidateIngressPath(const json::object* p, const std::string& path, FieldErrors& errors) {
  const json::value* type = Present(p, "pathType");
  if (!type) {
    errors.Required(path + ".pathType", "pathType must be specified");
    return;
  }
  const std::string_view type_name = StringAt(p, "pathType");
  const std::string_view value = StringAt(p, "path");
  if (type_name == "Exact" || type_name == "Prefix") {
    if (!value.starts_with('/')) errors.Invalid(path + ".path", value, "must be an absolute path");
    if (!value.empty()) {
      for (std::string_view seq : {"//", "/./", "/../", "%2f", "%2F"}) {
        if (value.find(seq) != std::string_view::npos) {
          errors.Invalid(path + ".path", value, "must not contain '" + std::string(seq) + "'");
        }
      }
      for (std::string_view suffix : {"/..", "/."}) {
        if (value.ends_with(suffix))
          errors.Invalid(path + ".path", value, "cannot end with '" + std::string(suffix) + "'");
      }
    }
  } else if (type_name == "ImplementationSpecific") {
    if (!value.empty() && !value.starts_with('/'))
      errors.Invalid(path + ".path", value, "must be an absolute path");
  } else {
    errors.NotSupported(path + ".pathType", type_name,
                        {"Exact", "ImplementationSpecific", "Prefix"});
  }
  ValidateIngressBackend(ObjectAt(p, "backend"), path + ".backend", errors);
}

void ValidateNetworkPolicyPort(const json::object* port, const std::string& path,
                               FieldErrors& errors) {
  if (auto protocol = StringAt(port, "protocol");
      Present(port, "protocol") && protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
    errors.NotSupported(path + ".protocol", protocol, {"TCP", "UDP", "SCTP"});
  }
  const json::value* number = Present(port, "port");
  const json::value* end = Present(port, "endPort");
  if (!number) {
    if (end)
      errors.InvalidValue(path + ".endPort", *end,
                          "may not be specified when `port` is not specified");
    return;
  }
  if (number->is_string()) {
    if (end)
      errors.InvalidValue(path + ".endPort", *end,
                          "may not be specified when `port` is non-numeric");
    for (const auto& m : IsValidPortName(number->get_string()))
      errors.Invalid(path + ".port", number->get_string(), m);
    return;
  }
  ValidatePortNumber(*number, path + ".port", errors);
  if (end) {
    if (end->is_number() && number->is_number() &&
        end->to_number<int64_t>() < number->to_number<int64_t>()) {
      errors.InvalidValue(path + ".endPort", *number, "must be greater than or equal to `port`");
    }
    ValidatePortNumber(*end, path + ".endPort", errors);
  }
}

void ValidateNetworkPolicyPeer(const json::object* peer, const std::string& path,
                               FieldErrors& errors) {
  int peers = 0;
  for (std::string_view key : {"podSelector", "namespaceSelector"}) {
    if (Present(peer, key)) {
      ++peers;
      ValidateSelector(peer, key, path + "." + std::string(key), errors);
    }
  }
  const json::object* block = ObjectAt(peer, "ipBlock");
  if (block) {
    ++peers;
    const std::string_view cidr_text = StringAt(block, "cidr");
    if (cidr_text.empty()) {
      errors.Required(path + ".ipBlock.cidr");
    } else if (auto cidr = ParseCidr(cidr_text); !cidr) {
      errors.Invalid(path + ".ipBlock.cidr", cidr_text, "not a valid CIDR");
    } else if (const json::array* except = ArrayAt(block, "except")) {
      for (size_t i = 0; i < except->size(); ++i) {
        const std::string except_path = IndexPath(path + ".ipBlock.except", i);
        std::string_view text =
            (*except)[i].is_string() ? std::string_view((*except)[i].get_string()) : "";
        auto inner = ParseCidr(text);
        if (!inner) {
          errors.Invalid(except_path, text, "not a valid CIDR");
          break;
        }
        if (!Contains(*cidr, *inner) || cidr->prefix >= inner->prefix) {
          errors.Invalid(except_path, text, "must be a strict subset of `cidr`");
        }
      }
    }
  }
  if (peers == 0) {
    errors.Required(path, "must specify a peer");
  } else if (peers > 1 && block) {
    errors.Forbidden(path, "may not specify both ipBlock and another peer");
  }
}

}  // namespace

void ValidateIngress(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  const json::array* rules = ArrayAt(spec, "rules");
  const json::object* default_backend = ObjectAt(spec, "defaultBackend");
  if ((!rules || rules->empty()) && !default_backend) {
    errors.InvalidGo("spec", rules ? "[]networking.IngressRule{}" : "[]networking.IngressRule(nil)",
                     "either `defaultBackend` or `rules` must be specified");
  }
  if (default_backend) ValidateIngressBackend(default_backend, "spec.defaultBackend", errors);
  for (size_t i = 0; rules && i < rules->size(); ++i) {
    const std::string path = IndexPath("spec.rules", i);
    const json::object* rule = (*rules)[i].is_object() ? &(*rules)[i].get_object() : nullptr;
    if (const std::string_view host = StringAt(rule, "host"); !host.empty()) {
      if (IsIpAddress(host))
        errors.Invalid(path + ".host", host, "must be a DNS name, not an IP address");
      ValidateHost(host, path + ".host", errors);
    }
    if (const json::object* http = ObjectAt(rule, "http")) {
      const json::array* paths = ArrayAt(http, "paths");
      if (!paths || paths->empty()) errors.Required(path + ".http.paths");
      for (size_t j = 0; paths && j < paths->size(); ++j) {
        ValidateIngressPath((*paths)[j].is_object() ? &(*paths)[j].get_object() : nullptr,
                            IndexPath(path + ".http.paths", j), errors);
      }
    }
  }
  if (const json::array* tls = ArrayAt(spec, "tls")) {
    for (size_t i = 0; i < tls->size(); ++i) {
      const json::object* entry = (*tls)[i].is_object() ? &(*tls)[i].get_object() : nullptr;
      if (const json::array* hosts = ArrayAt(entry, "hosts")) {
        for (size_t h = 0; h < hosts->size(); ++h) {
          std::string_view host =
              (*hosts)[h].is_string() ? std::string_view((*hosts)[h].get_string()) : "";
          ValidateHost(host, IndexPath(IndexPath("spec.tls", i) + ".hosts", h), errors);
        }
      }
      if (auto secret = StringAt(entry, "secretName"); !secret.empty()) {
        for (const auto& m : IsDns1123Subdomain(secret))
          errors.Invalid(IndexPath("spec.tls", i) + ".secretName", secret, m);
      }
    }
  }
  if (const json::value* class_name = Present(spec, "ingressClassName");
      class_name && class_name->is_string()) {
    for (const auto& m : IsDns1123Subdomain(class_name->get_string())) {
      errors.Invalid("spec.ingressClassName", class_name->get_string(), m);
    }
    if (const json::value* annotation =
            Present(ObjectAt(ObjectAt(&object.json(), "metadata"), "annotations"),
                    "kubernetes.io/ingress.class")) {
      errors.Invalid("annotations.kubernetes.io/ingress.class",
                     annotation->is_string() ? std::string_view(annotation->get_string()) : "",
                     "can not be set when the class field is also set");
    }
  }
}

void ValidateIngressClass(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  const std::string_view controller = StringAt(spec, "controller");
  if (controller.size() > 250) errors.TooLong("spec.controller", 250);
  const size_t slash = controller.find('/');
  if (controller.empty()) {
    errors.Required("spec.controller");
  } else if (slash == std::string_view::npos || slash == 0 || slash + 1 == controller.size()) {
    errors.Invalid("spec.controller", controller,
                   "must be a domain-prefixed path (such as \"acme.io/foo\")");
  } else {
    const std::string_view host = controller.substr(0, slash);
    const std::string_view path = controller.substr(slash + 1);
    for (const auto& m : IsDns1123Subdomain(host)) errors.Invalid("spec.controller", host, m);
    bool ok = true;
    for (char c : path) {
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) ||
                  std::string_view("/-._~%!$&'()*+,;=:").find(c) != std::string_view::npos);
    }
    if (!ok) {
      errors.Invalid(
          "spec.controller", path,
          "must be a valid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
    }
  }
  if (const json::object* params = ObjectAt(spec, "parameters")) {
    ValidateTypedReference(params, "spec.parameters", errors);
    const std::string_view scope = StringAt(params, "scope");
    const bool has_namespace = Present(params, "namespace") != nullptr;
    if (Present(params, "scope") && scope != "Cluster" && scope != "Namespace") {
      errors.NotSupported("spec.parameters.scope", scope, {"Cluster", "Namespace"});
    } else if (scope == "Namespace") {
      if (!has_namespace) {
        errors.Required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'");
      } else {
        const std::string_view ns = StringAt(params, "namespace");
        for (const auto& m : IsDns1123Label(ns)) errors.Invalid("spec.parameters.namespace", ns, m);
      }
    } else if (has_namespace) {  // scope Cluster, or absent (defaults to Cluster)
      errors.Forbidden("spec.parameters.namespace", "`parameters.scope` is set to 'Cluster'");
    }
  }
}

void ValidateNetworkPolicy(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateSelector(spec, "podSelector", "spec.podSelector", errors);
  for (const auto& [direction, peers] : {std::pair{"ingress", "from"}, {"egress", "to"}}) {
    const json::array* rules = ArrayAt(spec, direction);
    for (size_t i = 0; rules && i < rules->size(); ++i) {
      const std::string path = IndexPath("spec." + std::string(direction), i);
      const json::object* rule = (*rules)[i].is_object() ? &(*rules)[i].get_object() : nullptr;
      if (const json::array* ports = ArrayAt(rule, "ports")) {
        for (size_t p = 0; p < ports->size(); ++p) {
          ValidateNetworkPolicyPort((*ports)[p].is_object() ? &(*ports)[p].get_object() : nullptr,
                                    IndexPath(path + ".ports", p), errors);
        }
      }
      if (const json::array* list = ArrayAt(rule, peers)) {
        for (size_t p = 0; p < list->size(); ++p) {
          ValidateNetworkPolicyPeer((*list)[p].is_object() ? &(*list)[p].get_object() : nullptr,
                                    IndexPath(path + "." + peers, p), errors);
        }
      }
    }
  }
  if (const json::array* types = ArrayAt(spec, "policyTypes")) {
    if (types->size() > 2) {
      errors.InvalidGo("spec.policyTypes", GoStrings(types, "[]networking.PolicyType"),
                       "may not specify more than two policyTypes");
      return;
    }
    for (size_t i = 0; i < types->size(); ++i) {
      std::string_view type =
          (*types)[i].is_string() ? std::string_view((*types)[i].get_string()) : "";
      if (type != "Ingress" && type != "Egress") {
        errors.NotSupported(IndexPath("spec.policyTypes", i), type, {"Ingress", "Egress"});
      }
    }
  }
}

void ValidateEndpointSlice(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  const std::string_view type = StringAt(o, "addressType");
  if (type.empty()) {
    errors.Required("addressType");
  } else if (type != "IPv4" && type != "IPv6" && type != "FQDN") {
    errors.NotSupported("addressType", type, {"FQDN", "IPv4", "IPv6"});
  }
  if (const json::array* endpoints = ArrayAt(o, "endpoints")) {
    for (size_t i = 0; i < endpoints->size(); ++i) {
      const std::string path = IndexPath("endpoints", i);
      const json::object* endpoint =
          (*endpoints)[i].is_object() ? &(*endpoints)[i].get_object() : nullptr;
      const json::array* addresses = ArrayAt(endpoint, "addresses");
      if (!addresses || addresses->empty()) {
        errors.Required(path + ".addresses", "must contain at least 1 address");
        continue;
      }
      for (size_t a = 0; a < addresses->size(); ++a) {
        std::string_view address =
            (*addresses)[a].is_string() ? std::string_view((*addresses)[a].get_string()) : "";
        const std::string address_path = IndexPath(path + ".addresses", a);
        if (type == "IPv4" && !IsIpAddress(address, AF_INET)) {
          errors.Invalid(address_path, address, "must be a valid IPv4 address");
        } else if (type == "IPv6" && !IsIpAddress(address, AF_INET6)) {
          errors.Invalid(address_path, address, "must be a valid IPv6 address");
        } else if (type == "FQDN") {
          for (const auto& m : IsDns1123Subdomain(address))
            errors.Invalid(address_path, address, m);
        }
      }
    }
  }
  if (const json::array* ports = ArrayAt(o, "ports")) {
    std::set<std::string> names;
    for (size_t i = 0; i < ports->size(); ++i) {
      const std::string path = IndexPath("ports", i);
      const json::object* port = (*ports)[i].is_object() ? &(*ports)[i].get_object() : nullptr;
      const std::string name(StringAt(port, "name"));
      if (!name.empty()) {
        for (const auto& m : IsDns1123Label(name)) errors.Invalid(path + ".name", name, m);
      }
      if (!names.insert(name).second) errors.Duplicate(path + ".name", name);
      if (const json::value* number = Present(port, "port"))
        ValidatePortNumber(*number, path + ".port", errors);
      if (auto protocol = StringAt(port, "protocol"); Present(port, "protocol") &&
                                                      protocol != "TCP" && protocol != "UDP" &&
                                                      protocol != "SCTP") {
        errors.NotSupported(path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
      }
    }
  }
}

void ValidateIngressClassUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  CheckImmutable(Present(ObjectAt(&next.json(), "spec"), "controller"),
                 Present(ObjectAt(&current.json(), "spec"), "controller"), "spec.controller",
                 errors);
}

void ValidateEndpointSliceUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  CheckImmutable(Present(&next.json(), "addressType"), Present(&current.json(), "addressType"),
                 "addressType", errors);
}

void AddNetworkingRules(KindRuleTable& table) {
  table.Set(Kind::kIngress, {.validate = ValidateIngress});
  table.Set(Kind::kIngressClass,
            {.validate = ValidateIngressClass, .validate_update = CollectedUpdateErrors<ValidateIngressClassUpdate>});
  table.Set(Kind::kNetworkPolicy, {.validate = ValidateNetworkPolicy});
  table.Set(Kind::kEndpointSlice,
            {.validate = ValidateEndpointSlice, .validate_update = CollectedUpdateErrors<ValidateEndpointSliceUpdate>});
}

}  // namespace berth::api::validation
