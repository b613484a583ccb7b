#include "apiserver/registry/service_alloc.h"

#include <charconv>
#include <set>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/kinds.h"
#include "api/validation/field_errors.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

std::optional<uint32_t> ParseIpv4(std::string_view s) {
  uint32_t out = 0;
  for (int i = 0; i < 4; ++i) {
    size_t dot = s.find('.');
    std::string_view part = i < 3 ? s.substr(0, dot) : s;
    if ((i < 3 && dot == std::string_view::npos) || part.empty() || part.size() > 3) return std::nullopt;
    unsigned v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || p != part.data() + part.size() || v > 255) return std::nullopt;
    out = out << 8 | v;
    if (i < 3) s = s.substr(dot + 1);
  }
  return out;
}

std::string FormatIpv4(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string(ip >> 16 & 255) + "." + std::to_string(ip >> 8 & 255) +
         "." + std::to_string(ip & 255);
}

// Go's %#v of a []string{...}, as kube writes clusterIPs in messages.
std::string GoStrings(const std::string& ip) { return "[]string{\"" + ip + "\"}"; }

}  // namespace

Result<ServiceRanges> ParseServiceRanges(std::string_view cidr, std::string_view node_ports) {
  ServiceRanges r;
  r.cidr = std::string(cidr);
  size_t slash = cidr.find('/');
  auto base = ParseIpv4(cidr.substr(0, slash));
  int prefix = -1;
  if (slash != std::string_view::npos) {
    std::string_view p = cidr.substr(slash + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
    if (ec != std::errc() || end != p.data() + p.size()) prefix = -1;
  }
  if (!base || prefix < 8 || prefix > 30) {
    return Status::BadRequest("--service-cluster-ip-range " + std::string(cidr) +
                              ": want an IPv4 CIDR with a prefix of 8 to 30 bits (e.g. 10.96.0.0/12)");
  }
  r.prefix = prefix;
  r.ip_base = *base & (prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix));
  size_t dash = node_ports.find('-');
  int lo = 0, hi = 0;
  bool ok = dash != std::string_view::npos;
  if (ok) {
    auto a = std::from_chars(node_ports.data(), node_ports.data() + dash, lo);
    auto b = std::from_chars(node_ports.data() + dash + 1, node_ports.data() + node_ports.size(), hi);
    ok = a.ec == std::errc() && b.ec == std::errc() && b.ptr == node_ports.data() + node_ports.size() && lo >= 1 &&
         hi <= 65535 && lo <= hi;
  }
  if (!ok) {
    return Status::BadRequest("--service-node-port-range " + std::string(node_ports) +
                              ": want FIRST-LAST within 1-65535 (e.g. 30000-32767)");
  }
  r.node_port_min = lo;
  r.node_port_max = hi;
  return r;
}

std::string ServiceAllocator::FirstAddress() const { return FormatIpv4(ranges_.ip_base + 1); }

Result<std::unique_lock<std::mutex>> ServiceAllocator::Allocate(json::object& service, store::Store& store) {
  std::unique_lock lock(mu_);
  json::object& spec = api::MutableObject(service, "spec");
  const std::string type = api::StringAt(spec, "type").empty() ? "ClusterIP" : std::string(api::StringAt(spec, "type"));
  if (type == "ExternalName") return lock;
  auto listed = store.List({.prefix = api::StoragePrefix(api::Kind::kService)});
  if (!listed.ok()) return listed.status();
  std::set<uint32_t> ips;
  std::set<int64_t> node_ports;
  for (const auto& s : listed->items) {
    const json::object* other = api::ObjectAt(s->json(), "spec");
    if (auto ip = ParseIpv4(api::StringAt(other, "clusterIP"))) ips.insert(*ip);
    if (const json::array* ports = api::ArrayAt(other, "ports")) {
      for (const auto& p : *ports) {
        if (const json::object* port = p.if_object()) {
          if (int64_t n = api::IntAt(port, "nodePort"); n > 0) node_ports.insert(n);
        }
      }
    }
  }
  const std::string name(api::StringAt(api::ObjectAt(service, "metadata"), "name"));
  api::FieldErrors errors;
  const uint32_t size = uint32_t{1} << (32 - ranges_.prefix);
  std::string asked(api::StringAt(spec, "clusterIP"));
  if (asked.empty()) {
    // kube hands out addresses at random; the lowest free one is as good
    // and reproducible. The network and broadcast addresses are never used.
    for (uint32_t i = 1; i + 1 < size; ++i) {
      if (!ips.count(ranges_.ip_base + i)) {
        asked = FormatIpv4(ranges_.ip_base + i);
        break;
      }
    }
    if (asked.empty()) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(""), "failed to allocate IP: range is full");
    }
  } else if (asked != "None") {
    auto ip = ParseIpv4(asked);
    if (!ip || *ip <= ranges_.ip_base || *ip >= ranges_.ip_base + size - 1) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(asked),
                     "failed to allocate IP " + asked + ": provided IP is not in the valid range. The range of valid "
                     "IPs is " + ranges_.cidr);
    } else if (ips.count(*ip)) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(asked),
                     "failed to allocate IP " + asked + ": provided IP is already allocated");
    }
  }
  if (!errors.empty()) return errors.ToStatus("Service", name);
  spec["clusterIP"] = asked;
  spec["clusterIPs"] = json::array{json::string(asked)};
  if (asked != "None" && !spec.contains("ipFamilies")) spec["ipFamilies"] = json::array{"IPv4"};
  if (asked != "None" && !spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";

  if (type == "NodePort" || type == "LoadBalancer") {
    if (json::array* ports = spec.if_contains("ports") ? spec["ports"].if_array() : nullptr) {
      for (size_t i = 0; i < ports->size(); ++i) {
        json::object* port = (*ports)[i].if_object();
        if (!port) continue;
        const std::string path = "spec.ports[" + std::to_string(i) + "].nodePort";
        int64_t wanted = api::IntAt(port, "nodePort");
        if (wanted == 0) {
          for (int64_t p = ranges_.node_port_min; p <= ranges_.node_port_max; ++p) {
            if (!node_ports.count(p)) {
              wanted = p;
              break;
            }
          }
          if (wanted == 0) {
            errors.Invalid(path, "0", "failed to allocate a nodePort: range is full");
            continue;
          }
        } else if (wanted < ranges_.node_port_min || wanted > ranges_.node_port_max) {
          errors.InvalidValue(path, json::value(wanted),
                              "provided port is not in the valid range. The range of valid ports is " +
                                  std::to_string(ranges_.node_port_min) + "-" + std::to_string(ranges_.node_port_max));
          continue;
        } else if (node_ports.count(wanted)) {
          errors.InvalidValue(path, json::value(wanted), "provided port is already allocated");
          continue;
        }
        node_ports.insert(wanted);
        (*port)["nodePort"] = wanted;
      }
    }
  }
  if (!errors.empty()) return errors.ToStatus("Service", name);
  return lock;
}

}  // namespace berth::apiserver
