#include "controllers/endpointslice/slice_plan.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/endpointslice/pod_endpoints.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

std::vector<std::string> AddressTypesOf(const api::Object& service) {
  std::set<std::string> types;
  if (const json::array* families = api::ArrayAt(api::Spec(service), "ipFamilies")) {
    for (const auto& f : *families) {
      if (f.is_string() && f.get_string() == "IPv4") types.insert("IPv4");
      if (f.is_string() && f.get_string() == "IPv6") types.insert("IPv6");
    }
  }
  if (!types.empty()) return {types.begin(), types.end()};
  if (IsServiceIPSet(service)) {
    return {IsIPv6(api::StringAt(api::Spec(service), "clusterIP")) ? "IPv6" : "IPv4"};
  }
  return {"IPv4", "IPv6"};
}

json::array EndpointPorts(const api::Object& service, const api::Object& pod) {
  json::array out;
  const json::array* ports = api::ArrayAt(api::Spec(service), "ports");
  if (!ports) return out;
  for (const auto& p : *ports) {
    const json::object* port = p.if_object();
    if (!port) continue;
    auto number = FindPort(pod, *port);
    if (!number) continue;
    std::string_view protocol = api::StringAt(port, "protocol");
    json::object ep{{"name", api::StringAt(port, "name")},
                    {"protocol", protocol.empty() ? "TCP" : protocol},
                    {"port", *number}};
    if (const json::value* app = port->if_contains("appProtocol"); app && app->is_string())
      ep["appProtocol"] = *app;
    out.push_back(std::move(ep));
  }
  return out;
}

std::string PortsKey(const json::array* ports) {
  std::vector<std::string> parts;
  if (ports) {
    for (const auto& p : *ports) {
      const json::object* port = p.if_object();
      const json::value* app = port ? port->if_contains("appProtocol") : nullptr;
      parts.push_back(std::string(api::StringAt(port, "name")) + '\x1f' +
                      std::to_string(api::IntAt(port, "port")) + '\x1f' +
                      std::string(api::StringAt(port, "protocol")) + '\x1f' +
                      (app && app->is_string() ? "=" + std::string(app->get_string()) : "-"));
    }
  }
  std::sort(parts.begin(), parts.end());
  std::string key;
  for (const auto& part : parts) key += part + '\x1e';
  return key;
}

json::object PodToEndpoint(const api::Object& pod, const api::Object* node,
                           const api::Object& service, std::string_view address_type) {
  const bool serving = api::IsPodReady(pod);
  const bool terminating = api::BeingDeleted(pod);
  const bool ready =
      api::BoolAt(api::Spec(service), "publishNotReadyAddresses") || (serving && !terminating);
  json::array addresses;
  for (const auto& ip : PodIPs(pod)) {
    if (IsIPv6(ip) == (address_type == "IPv6")) addresses.emplace_back(ip);
  }
  json::object ep;
  ep["addresses"] = std::move(addresses);
  ep["conditions"] =
      json::object{{"ready", ready}, {"serving", serving}, {"terminating", terminating}};
  if (ShouldSetHostname(pod, service)) ep["hostname"] = api::StringAt(api::Spec(pod), "hostname");
  ep["targetRef"] = json::object{{"kind", "Pod"},
                                 {"namespace", pod.namespace_name()},
                                 {"name", pod.name()},
                                 {"uid", pod.uid()}};
  std::string_view node_name = api::StringAt(api::Spec(pod), "nodeName");
  if (!node_name.empty()) ep["nodeName"] = node_name;
  if (node) {
    if (auto zone = node->labels().Get("topology.kubernetes.io/zone"); zone && !zone->empty())
      ep["zone"] = *zone;
  }
  return ep;
}

std::string EndpointIdentity(const json::object& endpoint) {
  const json::object* target = api::ObjectAt(endpoint, "targetRef");
  std::vector<std::string> addresses;
  if (const json::array* list = api::ArrayAt(endpoint, "addresses")) {
    for (const auto& a : *list) {
      if (a.is_string()) addresses.emplace_back(a.get_string());
    }
  }
  std::sort(addresses.begin(), addresses.end());
  std::string id = std::string(api::StringAt(target, "namespace")) + '/' +
                   std::string(api::StringAt(target, "name"));
  id += '\x1f';
  for (const auto& a : addresses) id += a + ',';
  id += '\x1f';
  id += api::StringAt(endpoint, "hostname");
  return id;
}

namespace {

bool SameMember(const json::object* a, const json::object* b, std::string_view key) {
  const json::value* va = a ? a->if_contains(key) : nullptr;
  const json::value* vb = b ? b->if_contains(key) : nullptr;
  if (va && va->is_null()) va = nullptr;
  if (vb && vb->is_null()) vb = nullptr;
  if (!va || !vb) return !va && !vb;
  return *va == *vb;
}

// kube's EndpointsEqualBeyondHash: what the identity leaves out (node, zone,
// conditions, the target reference but its resourceVersion).
bool EqualBeyondIdentity(const json::object& a, const json::object& b) {
  if (!SameMember(&a, &b, "nodeName") || !SameMember(&a, &b, "zone")) return false;
  const json::object* ca = api::ObjectAt(a, "conditions");
  const json::object* cb = api::ObjectAt(b, "conditions");
  for (std::string_view c : {"ready", "serving", "terminating"}) {
    if (!SameMember(ca, cb, c)) return false;
  }
  const json::object* ta = api::ObjectAt(a, "targetRef");
  const json::object* tb = api::ObjectAt(b, "targetRef");
  if ((ta == nullptr) != (tb == nullptr)) return false;
  if (!ta) return true;
  for (std::string_view f : {"kind", "namespace", "name", "uid", "apiVersion", "fieldPath"}) {
    if (!SameMember(ta, tb, f)) return false;
  }
  return true;
}

bool IsReservedLabel(std::string_view key) {
  return key == kServiceNameLabel || key == kManagedByLabel || key == kHeadlessServiceLabel;
}

bool OwnedBy(const api::Object& slice, const api::Object& service) {
  const json::array* refs = api::ArrayAt(api::Metadata(slice), "ownerReferences");
  if (!refs) return false;
  for (const auto& r : *refs) {
    const json::object* ref = r.if_object();
    if (api::StringAt(ref, "uid") == service.uid() && api::StringAt(ref, "kind") == "Service" &&
        api::StringAt(ref, "apiVersion") == "v1") {
      return true;
    }
  }
  return false;
}

json::object NewSlice(const api::Object& service, const json::array& ports,
                      std::string_view address_type) {
  json::object meta{{"generateName", service.name() + "-"},
                    {"namespace", service.namespace_name()},
                    {"labels", SliceLabels(nullptr, service, nullptr)},
                    {"ownerReferences", json::array{ControllerRef(service)}}};
  json::object slice{{"apiVersion", "discovery.k8s.io/v1"},
                     {"kind", "EndpointSlice"},
                     {"metadata", std::move(meta)},
                     {"addressType", address_type},
                     {"endpoints", nullptr}};
  if (!ports.empty()) slice["ports"] = ports;
  return slice;
}

size_t EndpointCount(const json::object& slice) {
  const json::array* endpoints = api::ArrayAt(slice, "endpoints");
  return endpoints ? endpoints->size() : 0;
}

// kube's placeholderSliceCompare: an existing slice that is exactly the
// placeholder would be (namespace, labels, owner, no endpoints, no ports).
bool IsPlaceholder(const api::Object& slice, const json::object& placeholder) {
  const json::object& o = slice.json();
  if (EndpointCount(o) != 0) return false;
  const json::array* ports = api::ArrayAt(o, "ports");
  if (ports && !ports->empty()) return false;
  if (api::StringAt(o, "addressType") != api::StringAt(placeholder, "addressType")) return false;
  const json::object* want_meta = api::ObjectAt(placeholder, "metadata");
  const json::object* labels = api::ObjectAt(api::Metadata(slice), "labels");
  const json::object* want_labels = api::ObjectAt(want_meta, "labels");
  if ((labels ? *labels : json::object()) != (want_labels ? *want_labels : json::object()))
    return false;
  const json::array* refs = api::ArrayAt(api::Metadata(slice), "ownerReferences");
  const json::array* want_refs = api::ArrayAt(want_meta, "ownerReferences");
  return refs && want_refs && *refs == *want_refs;
}

// One slice being worked on: an existing one (its name) or a new one.
struct Working {
  api::ObjectPtr original;  // null for a new slice
  json::object json;
};

class PortGroupPlan {
 public:
  PortGroupPlan(const api::Object& service, size_t max) : service_(service), max_(max) {}

  // kube's reconcileByPortMapping for the slices `existing` (owned, same
  // ports) and the `group` desired.
  void Run(std::vector<api::ObjectPtr> existing, PortGroup& group, std::string_view address_type,
           std::vector<json::object>& create, std::vector<json::object>& update,
           std::vector<api::ObjectPtr>& remove) {
    std::sort(
        existing.begin(), existing.end(),
        [](const api::ObjectPtr& a, const api::ObjectPtr& b) { return a->name() < b->name(); });
    auto& desired = group.endpoints;
    std::map<std::string, Working> slices;
    std::set<std::string> unchanged, to_update, to_delete;
    for (const auto& slice : existing) {
      const json::array* endpoints = api::ArrayAt(slice->json(), "endpoints");
      json::array kept;
      bool updated = false;
      if (endpoints) {
        for (const auto& e : *endpoints) {
          const json::object* ep = e.if_object();
          if (!ep) continue;
          auto it = desired.find(EndpointIdentity(*ep));
          if (it == desired.end()) continue;
          if (!EqualBeyondIdentity(it->second, *ep)) updated = true;
          kept.push_back(std::move(it->second));
          desired.erase(it);
        }
      }
      bool labels_changed = false;
      json::object labels =
          SliceLabels(api::ObjectAt(api::Metadata(*slice), "labels"), service_, &labels_changed);
      Working w{slice, ForUpdate(*slice)};
      if (updated || kept.size() != (endpoints ? endpoints->size() : 0)) {
        if (kept.empty()) {
          to_delete.insert(slice->name());
        } else {
          w.json["endpoints"] = std::move(kept);
          api::MutableObject(w.json, "metadata")["labels"] = std::move(labels);
          to_update.insert(slice->name());
        }
      } else if (labels_changed) {
        api::MutableObject(w.json, "metadata")["labels"] = std::move(labels);
        to_update.insert(slice->name());
      } else {
        unchanged.insert(slice->name());
      }
      slices.emplace(slice->name(), std::move(w));
    }

    // 2. Fill the slices being updated, fullest first.
    if (!desired.empty() && !to_update.empty()) {
      std::vector<Working*> order;
      for (const auto& name : to_update) order.push_back(&slices.at(name));
      std::stable_sort(order.begin(), order.end(), [](Working* a, Working* b) {
        return EndpointCount(a->json) > EndpointCount(b->json);
      });
      for (Working* w : order) Fill(w->json, desired);
    }

    // 3. The rest: into the unchanged slice it fits best, or new slices.
    while (!desired.empty()) {
      Working* fill = nullptr;
      if (desired.size() < max_ && !unchanged.empty()) {
        size_t closest = max_;
        for (const auto& name : unchanged) {
          Working& w = slices.at(name);
          size_t total = desired.size() + EndpointCount(w.json);
          if (total > max_ || max_ - total >= closest) continue;
          closest = max_ - total;
          fill = &w;
          if (closest == 0) break;
        }
      }
      if (fill) {
        Fill(fill->json, desired);
        unchanged.erase(fill->original->name());
        to_update.insert(fill->original->name());
      } else {
        json::object slice = NewSlice(service_, group.ports, address_type);
        Fill(slice, desired);
        create.push_back(std::move(slice));
      }
    }
    for (const auto& name : to_update) update.push_back(std::move(slices.at(name).json));
    for (const auto& name : to_delete) remove.push_back(slices.at(name).original);
  }

 private:
  void Fill(json::object& slice, std::map<std::string, json::object>& desired) {
    json::array& endpoints = api::MutableArray(slice, "endpoints");
    while (!desired.empty() && endpoints.size() < max_) {
      auto first = desired.begin();
      endpoints.push_back(std::move(first->second));
      desired.erase(first);
    }
  }

  const api::Object& service_;
  size_t max_;
};

}  // namespace

json::object SliceLabels(const json::object* current, const api::Object& service, bool* changed) {
  json::object current_labels, service_labels;
  if (current) {
    for (const auto& [k, v] : *current) {
      if (!IsReservedLabel(k)) current_labels[k] = v;
    }
  }
  if (const json::object* labels = api::ObjectAt(api::Metadata(service), "labels")) {
    for (const auto& [k, v] : *labels) {
      if (!IsReservedLabel(k)) service_labels[k] = v;
    }
  }
  if (changed) *changed = current_labels != service_labels;
  if (!IsServiceIPSet(service)) service_labels[kHeadlessServiceLabel] = "";
  service_labels[kServiceNameLabel] = service.name();
  service_labels[kManagedByLabel] = kEndpointSliceControllerName;
  return service_labels;
}

SlicePlan PlanSlices(const api::Object& service, DesiredSlices desired,
                     const std::vector<api::ObjectPtr>& existing, size_t max_endpoints_per_slice) {
  SlicePlan plan;
  const size_t max = std::max<size_t>(1, max_endpoints_per_slice);
  for (const auto& slice : existing) {
    if (!desired.count(std::string(api::StringAt(slice->json(), "addressType"))))
      plan.remove.push_back(slice);
  }
  for (auto& [address_type, groups] : desired) {
    std::vector<json::object> create, update;
    std::vector<api::ObjectPtr> remove;
    size_t of_type = 0;
    std::map<std::string, std::vector<api::ObjectPtr>> by_ports;
    for (const auto& slice : existing) {
      if (api::StringAt(slice->json(), "addressType") != address_type) continue;
      ++of_type;
      if (OwnedBy(*slice, service)) {
        by_ports[PortsKey(api::ArrayAt(slice->json(), "ports"))].push_back(slice);
      } else {
        remove.push_back(slice);
      }
    }
    PortGroupPlan group_plan(service, max);
    for (auto& [key, group] : groups) {
      auto it = by_ports.find(key);
      group_plan.Run(it == by_ports.end() ? std::vector<api::ObjectPtr>() : it->second, group,
                     address_type, create, update, remove);
    }
    for (const auto& [key, slices] : by_ports) {
      if (!groups.count(key)) remove.insert(remove.end(), slices.begin(), slices.end());
    }
    // A Service without endpoints keeps one empty slice.
    if (of_type == remove.size() && create.empty()) {
      json::object placeholder = NewSlice(service, json::array(), address_type);
      if (remove.size() == 1 && IsPlaceholder(*remove.front(), placeholder)) {
        remove.clear();
      } else {
        create.push_back(std::move(placeholder));
      }
    }
    for (auto& c : create) plan.create.push_back(std::move(c));
    for (auto& u : update) plan.update.push_back(std::move(u));
    plan.remove.insert(plan.remove.end(), remove.begin(), remove.end());
  }
  // A create paired with a delete becomes an update of the slice to delete.
  for (size_t i = 0; i < plan.remove.size() && !plan.create.empty();) {
    const api::Object& doomed = *plan.remove[i];
    json::object& fresh = plan.create.back();
    if (api::StringAt(doomed.json(), "addressType") == api::StringAt(fresh, "addressType") &&
        OwnedBy(doomed, service)) {
      json::object& meta = api::MutableObject(fresh, "metadata");
      meta["name"] = doomed.name();
      meta["resourceVersion"] = std::to_string(doomed.resource_version());
      plan.update.push_back(std::move(fresh));
      plan.create.pop_back();
      plan.remove.erase(plan.remove.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return plan;
}

}  // namespace berth::controllers
