// kube's LimitRanger admission plugin: the LimitRanges of a namespace give
// its pods' containers default requests and limits (annotated
// kubernetes.io/limit-ranger), and refuse pods and claims outside their
// min, max and maxLimitRequestRatio.

#include <algorithm>
#include <map>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "api/quantity.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

using Quantities = std::map<std::string, api::Quantity, std::less<>>;

Quantities Read(const json::object* list) {
  Quantities out;
  if (!list) return out;
  for (const auto& [name, value] : *list) {
    if (!value.is_string()) continue;
    if (auto q = api::Quantity::Parse(value.get_string()); q.ok()) out.emplace(std::string(name), q.value());
  }
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// kube's minConstraint / maxConstraint / limitRequestRatioConstraint (values
// compared in thousandths, as kube does when they fit).
void MinConstraint(std::string_view type, const std::string& resource, const api::Quantity& enforced,
                   const Quantities& requests, const Quantities& limits, std::vector<std::string>& errors) {
  auto req = requests.find(resource);
  auto lim = limits.find(resource);
  const std::string head = "minimum " + resource + " usage per " + std::string(type) + " is " + enforced.ToString();
  if (req == requests.end()) {
    errors.push_back(head + ".  No request is specified");
  } else if (req->second.MilliValue() < enforced.MilliValue()) {
    errors.push_back(head + ", but request is " + req->second.ToString());
  } else if (lim != limits.end() && lim->second.MilliValue() < enforced.MilliValue()) {
    errors.push_back(head + ", but limit is " + lim->second.ToString());
  }
}

void MaxConstraint(std::string_view type, const std::string& resource, const api::Quantity& enforced,
                   const Quantities& requests, const Quantities& limits, std::vector<std::string>& errors) {
  auto req = requests.find(resource);
  auto lim = limits.find(resource);
  const std::string head = "maximum " + resource + " usage per " + std::string(type) + " is " + enforced.ToString();
  if (lim == limits.end()) {
    errors.push_back(head + ".  No limit is specified");
  } else if (lim->second.MilliValue() > enforced.MilliValue()) {
    errors.push_back(head + ", but limit is " + lim->second.ToString());
  } else if (req != requests.end() && req->second.MilliValue() > enforced.MilliValue()) {
    errors.push_back(head + ", but request is " + req->second.ToString());
  }
}

// A claim's max is checked against its request (it has no limit).
void MaxRequestConstraint(std::string_view type, const std::string& resource, const api::Quantity& enforced,
                          const Quantities& requests, std::vector<std::string>& errors) {
  auto req = requests.find(resource);
  const std::string head = "maximum " + resource + " usage per " + std::string(type) + " is " + enforced.ToString();
  if (req == requests.end()) {
    errors.push_back(head + ".  No request is specified");
  } else if (req->second.MilliValue() > enforced.MilliValue()) {
    errors.push_back(head + ", but request is " + req->second.ToString());
  }
}

void RatioConstraint(std::string_view type, const std::string& resource, const api::Quantity& enforced,
                     const Quantities& requests, const Quantities& limits, std::vector<std::string>& errors) {
  auto req = requests.find(resource);
  auto lim = limits.find(resource);
  const std::string head =
      resource + " max limit to request ratio per " + std::string(type) + " is " + enforced.ToString();
  if (req == requests.end() || req->second.MilliValue() == 0) {
    errors.push_back(head + ", but no request is specified or request is 0");
    return;
  }
  if (lim == limits.end() || lim->second.MilliValue() == 0) {
    errors.push_back(head + ", but no limit is specified or limit is 0");
    return;
  }
  const double observed = static_cast<double>(lim->second.MilliValue()) / static_cast<double>(req->second.MilliValue());
  if (observed * 1000 > static_cast<double>(enforced.MilliValue())) {
    char ratio[64];
    std::snprintf(ratio, sizeof ratio, "%f", observed);
    errors.push_back(head + ", but provided ratio is " + ratio);
  }
}

void CheckItem(std::string_view type, const json::object& item, const Quantities& requests, const Quantities& limits,
               std::vector<std::string>& errors) {
  for (const auto& [resource, q] : Read(api::ObjectAt(item, "min"))) MinConstraint(type, resource, q, requests, limits, errors);
  for (const auto& [resource, q] : Read(api::ObjectAt(item, "max"))) MaxConstraint(type, resource, q, requests, limits, errors);
  for (const auto& [resource, q] : Read(api::ObjectAt(item, "maxLimitRequestRatio"))) {
    RatioConstraint(type, resource, q, requests, limits, errors);
  }
}

// A pod's requests or limits (`which`): its containers' sum, at least its
// largest init container's, plus its overhead for what is counted.
Quantities PodTotal(const json::object& spec, std::string_view which) {
  std::map<std::string, std::pair<int64_t, api::Quantity::Format>, std::less<>> sum, init_max;
  auto add = [&](const json::value& containers, bool init) {
    if (!containers.is_array()) return;
    for (const auto& c : containers.get_array()) {
      const json::object* o = c.if_object();
      if (!o) continue;
      for (const auto& [name, q] : Read(api::ObjectAt(api::ObjectAt(*o, "resources"), which))) {
        auto& slot = (init ? init_max : sum)[name];
        if (slot.first == 0) slot.second = q.format();
        slot.first = init ? std::max(slot.first, q.MilliValue()) : slot.first + q.MilliValue();
      }
    }
  };
  if (const json::value* c = spec.if_contains("containers")) add(*c, false);
  if (const json::value* c = spec.if_contains("initContainers")) add(*c, true);
  for (const auto& [name, v] : init_max) {
    auto& slot = sum[name];
    if (v.first > slot.first) slot = v;
  }
  for (const auto& [name, q] : Read(api::ObjectAt(spec, "overhead"))) {
    if (auto it = sum.find(name); it != sum.end()) it->second.first += q.MilliValue();
  }
  Quantities out;
  for (const auto& [name, v] : sum) out.emplace(name, api::Quantity::FromMilli(v.first, v.second));
  return out;
}

class LimitRanger final : public AdmissionPlugin {
 public:
  explicit LimitRanger(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "LimitRanger"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod, api::Kind::kPersistentVolumeClaim}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Applies(a) || !object || a.kind.kind != api::Kind::kPod) return Status::Ok();
    auto ranges = RangesOf(a.ns);
    if (ranges.empty()) return Status::Ok();
    // The defaults of the Container items, the first range to name a
    // resource winning (kube applies each range in turn).
    Quantities default_limits, default_requests;
    for (const auto& range : ranges) {
      for (const json::object* item : Items(*range, "Container")) {
        for (auto& [name, q] : Read(api::ObjectAt(*item, "default"))) default_limits.emplace(name, q);
        for (auto& [name, q] : Read(api::ObjectAt(*item, "defaultRequest"))) default_requests.emplace(name, q);
      }
    }
    if (default_limits.empty() && default_requests.empty()) return Status::Ok();
    std::vector<std::string> notes;
    json::object& spec = api::MutableObject(*object, "spec");
    for (auto [list, type] : {std::pair{"initContainers", "init container"}, std::pair{"containers", "container"}}) {
      json::value* containers = spec.if_contains(list);
      if (!containers || !containers->is_array()) continue;
      for (auto& c : containers->get_array()) {
        json::object* container = c.if_object();
        if (!container) continue;
        json::object& resources = api::MutableObject(*container, "resources");
        std::vector<std::string> set_limits = Fill(resources, "limits", default_limits);
        std::vector<std::string> set_requests = Fill(resources, "requests", default_requests);
        if (resources.empty()) container->erase("resources");
        const std::string who = std::string(type) + " " + std::string(api::StringAt(*container, "name"));
        if (!set_requests.empty()) notes.push_back(Join(set_requests, ", ") + " request for " + who);
        if (!set_limits.empty()) notes.push_back(Join(set_limits, ", ") + " limit for " + who);
      }
    }
    if (!notes.empty()) {
      json::object& annotations = api::MutableObject(api::MutableObject(*object, "metadata"), "annotations");
      annotations["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + Join(notes, "; ");
    }
    return Status::Ok();
  }

  Status Validate(const AdmissionAttributes& a) override {
    if (!Applies(a) || !a.object) return Status::Ok();
    auto ranges = RangesOf(a.ns);
    if (ranges.empty()) return Status::Ok();
    std::vector<std::string> errors;
    const json::object* spec = api::ObjectAt(*a.object, "spec");
    if (!spec) return Status::Ok();
    for (const auto& range : ranges) {
      if (a.kind.kind == api::Kind::kPersistentVolumeClaim) {
        const Quantities requests = Read(api::ObjectAt(api::ObjectAt(*spec, "resources"), "requests"));
        for (const json::object* item : Items(*range, "PersistentVolumeClaim")) {
          for (const auto& [r, q] : Read(api::ObjectAt(*item, "min"))) {
            MinConstraint("PersistentVolumeClaim", r, q, requests, {}, errors);
          }
          for (const auto& [r, q] : Read(api::ObjectAt(*item, "max"))) {
            MaxRequestConstraint("PersistentVolumeClaim", r, q, requests, errors);
          }
        }
        continue;
      }
      for (const json::object* item : Items(*range, "Container")) {
        for (std::string_view list : {"containers", "initContainers"}) {
          const json::value* containers = spec->if_contains(list);
          if (!containers || !containers->is_array()) continue;
          for (const auto& c : containers->get_array()) {
            const json::object* resources = c.is_object() ? api::ObjectAt(c.get_object(), "resources") : nullptr;
            CheckItem("Container", *item, Read(api::ObjectAt(resources, "requests")),
                      Read(api::ObjectAt(resources, "limits")), errors);
          }
        }
      }
      for (const json::object* item : Items(*range, "Pod")) {
        CheckItem("Pod", *item, PodTotal(*spec, "requests"), PodTotal(*spec, "limits"), errors);
      }
    }
    if (errors.empty()) return Status::Ok();
    // kube's aggregate error: one as it is, several in brackets.
    return AdmissionForbidden(a, errors.size() == 1 ? errors[0] : "[" + Join(errors, ", ") + "]");
  }

 private:
  // kube: pods on create only (their containers' resources do not change),
  // claims on create and update; never a subresource.
  static bool Applies(const AdmissionAttributes& a) {
    if (!a.subresource.empty() || a.operation == AdmissionOperation::kDelete) return false;
    return a.kind.kind != api::Kind::kPod || a.operation == AdmissionOperation::kCreate;
  }

  std::vector<api::ObjectPtr> RangesOf(std::string_view ns) {
    auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kLimitRange, ns)});
    if (!listed.ok()) return {};
    return std::move(listed->items);
  }

  static std::vector<const json::object*> Items(const api::Object& range, std::string_view type) {
    std::vector<const json::object*> out;
    const json::object* spec = api::ObjectAt(range.json(), "spec");
    const json::value* limits = spec ? spec->if_contains("limits") : nullptr;
    if (!limits || !limits->is_array()) return out;
    for (const auto& item : limits->get_array()) {
      if (item.is_object() && api::StringAt(item.get_object(), "type") == type) out.push_back(&item.get_object());
    }
    return out;
  }

  // Sets the defaults `resources[which]` lacks; the names set, sorted.
  static std::vector<std::string> Fill(json::object& resources, std::string_view which, const Quantities& defaults) {
    std::vector<std::string> set;
    if (defaults.empty()) return set;
    json::object& list = api::MutableObject(resources, which);
    for (const auto& [name, q] : defaults) {
      if (list.contains(name)) continue;
      list[name] = q.ToString();
      set.push_back(name);
    }
    if (list.empty()) resources.erase(which);
    return set;  // std::map order: sorted, as kube sorts them
  }

  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewLimitRanger(const AdmissionPluginContext& context) {
  return std::make_unique<LimitRanger>(context.store);
}

}  // namespace berth::apiserver
