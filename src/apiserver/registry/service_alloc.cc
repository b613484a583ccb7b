#include "apiserver/registry/service_alloc.h"

#include <algorithm>
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
    ok = a.ec == std::errc() && a.ptr == node_ports.data() + dash && b.ec == std::errc() &&
         b.ptr == node_ports.data() + node_ports.size() && lo >= 1 &&
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

namespace {

std::string TypeOf(const json::object& spec) {
  std::string_view type = api::StringAt(spec, "type");
  return type.empty() ? "ClusterIP" : std::string(type);
}

// kube's needsClusterIP and needsNodePort.
bool NeedsClusterIp(const json::object& spec) { return TypeOf(spec) != "ExternalName"; }
bool NeedsNodePorts(const json::object& spec) {
  const std::string type = TypeOf(spec);
  return type == "NodePort" || type == "LoadBalancer";
}

const json::object& SpecOf(const json::object& service) {
  static const json::object kEmpty;
  const json::object* spec = api::ObjectAt(service, "spec");
  return spec ? *spec : kEmpty;
}

std::vector<int64_t> NodePortsOf(const json::object& spec) {
  std::vector<int64_t> out;
  if (const json::array* ports = api::ArrayAt(spec, "ports")) {
    for (const auto& p : *ports) out.push_back(p.is_object() ? api::IntAt(&p.get_object(), "nodePort") : 0);
  }
  return out;
}

bool SameJson(const json::object& a, const json::object& b, std::string_view key) {
  const json::value* x = a.if_contains(key);
  const json::value* y = b.if_contains(key);
  return (!x && !y) || (x && y && *x == *y);
}

}  // namespace

// What the Services other than `self` ("namespace/name"; empty on create) use.
ServiceAllocator::InUse ServiceAllocator::Used(store::Store& store, std::string_view self) const {
  auto listed = store.List({.prefix = api::StoragePrefix(api::Kind::kService)});
  if (!listed.ok()) return {listed.status()};
  InUse used;
  for (const auto& s : listed->items) {
    if (!self.empty() && s->namespace_name() + "/" + s->name() == self) continue;
    const json::object& other = SpecOf(s->json());
    if (auto ip = ParseIpv4(api::StringAt(other, "clusterIP"))) used.ips.insert(*ip);
    for (int64_t n : NodePortsOf(other)) {
      if (n > 0) used.node_ports.insert(n);
    }
  }
  return used;
}

// spec.clusterIP (and clusterIPs, ipFamilies, ipFamilyPolicy): the lowest free
// address, or the one asked for when it is free and in the range.
void ServiceAllocator::AllocateClusterIp(json::object& spec, InUse& used, api::FieldErrors& errors) const {
  const uint32_t size = uint32_t{1} << (32 - ranges_.prefix);
  std::string asked(api::StringAt(spec, "clusterIP"));
  if (asked.empty()) {
    // kube hands out addresses at random; the lowest free one is as good
    // and reproducible. The network and broadcast addresses are never used.
    for (uint32_t i = 1; i + 1 < size; ++i) {
      if (!used.ips.count(ranges_.ip_base + i)) {
        asked = FormatIpv4(ranges_.ip_base + i);
        break;
      }
    }
    if (asked.empty()) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(""), "failed to allocate IP: range is full");
      return;
    }
  } else if (asked != "None") {
    auto ip = ParseIpv4(asked);
    if (!ip || *ip <= ranges_.ip_base || *ip >= ranges_.ip_base + size - 1) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(asked),
                       "failed to allocate IP " + asked + ": provided IP is not in the valid range. The range of "
                       "valid IPs is " + ranges_.cidr);
      return;
    }
    if (used.ips.count(*ip)) {
      errors.InvalidGo("spec.clusterIPs", GoStrings(asked),
                       "failed to allocate IP " + asked + ": provided IP is already allocated");
      return;
    }
  }
  spec["clusterIP"] = asked;
  spec["clusterIPs"] = json::array{json::string(asked)};
  if (asked != "None" && !spec.contains("ipFamilies")) spec["ipFamilies"] = json::array{"IPv4"};
  if (asked != "None" && !spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";
}

// The nodePort of each port: the lowest free one when 0, the one asked for
// when free and in the range. `kept` ports (an update's own) are not checked.
void ServiceAllocator::AllocateNodePorts(json::object& spec, InUse& used, const std::set<int64_t>& kept,
                                         api::FieldErrors& errors) const {
  json::array* ports = spec.if_contains("ports") ? spec["ports"].if_array() : nullptr;
  if (!ports) return;
  for (size_t i = 0; i < ports->size(); ++i) {
    json::object* port = (*ports)[i].if_object();
    if (!port) continue;
    const std::string path = "spec.ports[" + std::to_string(i) + "].nodePort";
    int64_t wanted = api::IntAt(port, "nodePort");
    if (wanted != 0 && kept.count(wanted)) {
      used.node_ports.insert(wanted);
      continue;
    }
    if (wanted == 0) {
      for (int64_t p = ranges_.node_port_min; p <= ranges_.node_port_max; ++p) {
        if (!used.node_ports.count(p)) {
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
    } else if (used.node_ports.count(wanted)) {
      errors.InvalidValue(path, json::value(wanted), "provided port is already allocated");
      continue;
    }
    used.node_ports.insert(wanted);
    (*port)["nodePort"] = wanted;
  }
}

Result<std::unique_lock<std::mutex>> ServiceAllocator::Allocate(json::object& service, store::Store& store) {
  std::unique_lock lock(mu_);
  json::object& spec = api::MutableObject(service, "spec");
  if (!NeedsClusterIp(spec)) return lock;
  InUse used = Used(store, "");
  if (!used.listed.ok()) return used.listed;
  api::FieldErrors errors;
  AllocateClusterIp(spec, used, errors);
  if (errors.empty() && NeedsNodePorts(spec)) AllocateNodePorts(spec, used, {}, errors);
  if (!errors.empty()) {
    return errors.ToStatus("Service", std::string(api::StringAt(api::ObjectAt(service, "metadata"), "name")));
  }
  return lock;
}

void ServiceAllocator::PrepareUpdate(json::object& next, const json::object& current) {
  const json::object& before = SpecOf(current);
  json::object& after = api::MutableObject(next, "spec");
  // kube's dropTypeDependentFields: a type that no longer needs a value loses
  // the one it was given, unless the update changed it.
  if (NeedsClusterIp(before) && !NeedsClusterIp(after) && SameJson(before, after, "clusterIP") &&
      SameJson(before, after, "clusterIPs")) {
    after.erase("clusterIP");
    after.erase("clusterIPs");
    if (SameJson(before, after, "ipFamilies")) after.erase("ipFamilies");
    if (SameJson(before, after, "ipFamilyPolicy")) after.erase("ipFamilyPolicy");
  }
  // The traffic policies and load-balancer fields, the same way.
  const bool lb_before = TypeOf(before) == "LoadBalancer", lb_after = TypeOf(after) == "LoadBalancer";
  const auto drop_if_same = [&](bool needed_before, bool needed_after, std::string_view key) {
    if (needed_before && !needed_after && SameJson(before, after, key)) after.erase(key);
  };
  drop_if_same(NeedsClusterIp(before), NeedsClusterIp(after), "internalTrafficPolicy");
  drop_if_same(NeedsNodePorts(before), NeedsNodePorts(after), "externalTrafficPolicy");
  drop_if_same(lb_before, lb_after, "allocateLoadBalancerNodePorts");
  drop_if_same(lb_before, lb_after, "loadBalancerClass");
  drop_if_same(lb_before && api::StringAt(before, "externalTrafficPolicy") == "Local",
               lb_after && api::StringAt(after, "externalTrafficPolicy") == "Local", "healthCheckNodePort");
  if (NeedsNodePorts(before) && !NeedsNodePorts(after) && NodePortsOf(before) == NodePortsOf(after)) {
    if (json::array* ports = after.if_contains("ports") ? after["ports"].if_array() : nullptr) {
      for (auto& p : *ports) {
        if (p.is_object()) p.get_object().erase("nodePort");
      }
    }
  }
  // kube's patchAllocatedValues: an update that leaves allocated values out
  // keeps them.
  if (NeedsClusterIp(before) && NeedsClusterIp(after)) {
    if (api::StringAt(after, "clusterIP").empty() && before.contains("clusterIP")) {
      after["clusterIP"] = before.at("clusterIP");
    }
    const json::array* ips = api::ArrayAt(after, "clusterIPs");
    if ((!ips || ips->empty()) && before.contains("clusterIPs")) after["clusterIPs"] = before.at("clusterIPs");
  }
  if (NeedsNodePorts(before) && NeedsNodePorts(after)) KeepNodePorts(after, before);
}

// A port of the update without a nodePort takes the one its namesake had,
// unless another port of the update already uses it.
void ServiceAllocator::KeepNodePorts(json::object& after, const json::object& before) {
  json::array* ports = after.if_contains("ports") ? after["ports"].if_array() : nullptr;
  const json::array* old_ports = api::ArrayAt(before, "ports");
  if (!ports || !old_ports) return;
  std::set<int64_t> taken;
  for (int64_t n : NodePortsOf(after)) taken.insert(n);
  for (auto& p : *ports) {
    json::object* port = p.if_object();
    if (!port || api::IntAt(port, "nodePort") != 0) continue;
    for (const auto& o : *old_ports) {
      const json::object* old_port = o.if_object();
      if (!old_port || api::StringAt(*old_port, "name") != api::StringAt(*port, "name")) continue;
      const int64_t n = api::IntAt(old_port, "nodePort");
      if (n > 0 && !taken.count(n)) {
        (*port)["nodePort"] = n;
        taken.insert(n);
      }
      break;
    }
  }
}

Result<std::unique_lock<std::mutex>> ServiceAllocator::AllocateUpdate(json::object& next, const json::object& current,
                                                                      store::Store& store) {
  std::unique_lock lock(mu_);
  const json::object& before = SpecOf(current);
  json::object& after = api::MutableObject(next, "spec");
  if (!NeedsClusterIp(after)) return lock;
  const bool new_ip = !SameJson(before, after, "clusterIP") || !NeedsClusterIp(before);
  const std::vector<int64_t> after_ports = NodePortsOf(after);
  const bool new_ports = NeedsNodePorts(after) && (!NeedsNodePorts(before) || NodePortsOf(before) != after_ports ||
                                                   std::count(after_ports.begin(), after_ports.end(), 0) > 0);
  if (!new_ip && !new_ports) return lock;
  const json::object* meta = api::ObjectAt(current, "metadata");
  const std::string name(api::StringAt(meta, "name"));
  InUse used = Used(store, std::string(api::StringAt(meta, "namespace")) + "/" + name);
  if (!used.listed.ok()) return used.listed;
  api::FieldErrors errors;
  if (new_ip) AllocateClusterIp(after, used, errors);
  if (errors.empty() && new_ports) {
    std::set<int64_t> kept;
    if (NeedsNodePorts(before)) {
      for (int64_t n : NodePortsOf(before)) kept.insert(n);
    }
    AllocateNodePorts(after, used, kept, errors);
  }
  if (!errors.empty()) return errors.ToStatus("Service", name);
  return lock;
}

}  // namespace berth::apiserver
