#include "api/quota.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/quantity_json.h"

namespace berth::api {

namespace json = boost::json;

namespace {

bool IsTerminal(const json::object& pod) {
  std::string_view phase = StringAt(ObjectAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

int64_t Milli(const json::value& v) {
  auto q = QuantityFromJson(v);
  return q.ok() ? q.value().MilliValue() : 0;
}

// kube's pod requests/limits for quota: containers summed, at least the
// largest init container, plus the pod's overhead.
QuotaUsage PodResources(const json::object& spec, std::string_view which) {
  QuotaUsage sum, init;
  auto add = [&](const json::value* list, QuotaUsage& into, bool max) {
    if (!list || !list->is_array()) return;
    for (const auto& c : list->get_array()) {
      const json::object* r = c.is_object() ? ObjectAt(ObjectAt(c.get_object(), "resources"), which) : nullptr;
      if (!r) continue;
      for (const auto& [name, value] : *r) {
        int64_t& slot = into[std::string(name)];
        slot = max ? std::max(slot, Milli(value)) : slot + Milli(value);
      }
    }
  };
  add(spec.if_contains("containers"), sum, false);
  add(spec.if_contains("initContainers"), init, true);
  for (const auto& [name, amount] : init) sum[name] = std::max(sum[name], amount);
  if (const json::object* overhead = ObjectAt(spec, "overhead")) {
    for (const auto& [name, value] : *overhead) {
      if (auto it = sum.find(std::string(name)); it != sum.end()) it->second += Milli(value);
    }
  }
  return sum;
}

bool IsBestEffort(const json::object& spec) {
  for (std::string_view list : {"containers", "initContainers"}) {
    const json::value* containers = spec.if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (const auto& c : containers->get_array()) {
      const json::object* resources = c.is_object() ? ObjectAt(c.get_object(), "resources") : nullptr;
      for (std::string_view which : {"requests", "limits"}) {
        const json::object* r = ObjectAt(resources, which);
        if (r && (r->contains("cpu") || r->contains("memory"))) return false;
      }
    }
  }
  return true;
}

bool ScopeMatches(std::string_view scope, const json::object& spec) {
  if (scope == "BestEffort") return IsBestEffort(spec);
  if (scope == "NotBestEffort") return !IsBestEffort(spec);
  if (scope == "Terminating") return spec.contains("activeDeadlineSeconds");
  if (scope == "NotTerminating") return !spec.contains("activeDeadlineSeconds");
  return false;
}

}  // namespace

QuotaUsage UsageOf(Kind kind, const json::object& object) {
  QuotaUsage usage;
  const KindInfo& info = Info(kind);
  std::string count = "count/" + std::string(info.resource);
  if (!info.group.empty()) count += "." + std::string(info.group);
  if (kind == Kind::kPod) {
    if (IsTerminal(object)) return usage;
    usage["pods"] = usage[count] = 1000;
    const json::object* spec = ObjectAt(object, "spec");
    if (!spec) return usage;
    for (const auto& [name, amount] : PodResources(*spec, "requests")) {
      usage["requests." + name] = amount;
      if (name == "cpu" || name == "memory" || name == "ephemeral-storage") usage[name] = amount;
    }
    for (const auto& [name, amount] : PodResources(*spec, "limits")) usage["limits." + name] = amount;
    return usage;
  }
  usage[count] = 1000;
  if (kind == Kind::kService) {
    usage["services"] = 1000;
    const json::object* spec = ObjectAt(object, "spec");
    std::string_view type = StringAt(spec, "type");
    if (type == "NodePort" || type == "LoadBalancer") {
      const json::value* ports = spec ? spec->if_contains("ports") : nullptr;
      usage["services.nodeports"] = 1000 * static_cast<int64_t>(ports && ports->is_array() ? ports->get_array().size() : 0);
    }
    if (type == "LoadBalancer") usage["services.loadbalancers"] = 1000;
  } else if (kind == Kind::kPersistentVolumeClaim) {
    usage["persistentvolumeclaims"] = 1000;
    const json::object* spec = ObjectAt(object, "spec");
    const json::value* storage = nullptr;
    if (const json::object* requests = ObjectAt(ObjectAt(spec, "resources"), "requests")) {
      storage = requests->if_contains("storage");
    }
    const int64_t amount = storage ? Milli(*storage) : 0;
    usage["requests.storage"] = amount;
    if (std::string_view sc = StringAt(spec, "storageClassName"); !sc.empty()) {
      const std::string prefix = std::string(sc) + ".storageclass.storage.k8s.io/";
      usage[prefix + "requests.storage"] = amount;
      usage[prefix + "persistentvolumeclaims"] = 1000;
    }
  } else if (kind == Kind::kConfigMap || kind == Kind::kSecret || kind == Kind::kReplicationController ||
             kind == Kind::kResourceQuota) {
    usage[std::string(info.resource)] = 1000;
  }
  return usage;
}

QuotaUsage QuotaIncrease(const QuotaUsage& before, const QuotaUsage& after) {
  QuotaUsage grown;
  for (const auto& [name, amount] : after) {
    auto was = before.find(name);
    int64_t previous = was == before.end() ? 0 : was->second;
    if (amount > previous) grown.emplace(name, amount - previous);
  }
  return grown;
}

std::vector<std::string> MissingPodResources(const json::object& pod, const json::object& hard) {
  std::vector<std::string> missing;
  const json::object* spec = ObjectAt(pod, "spec");
  const json::value* containers = spec ? spec->if_contains("containers") : nullptr;
  if (!containers || !containers->is_array()) return missing;
  for (std::string_view resource : {"limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}) {
    std::string_view which = resource.substr(0, resource.find('.'));
    std::string_view name = resource.substr(resource.find('.') + 1);
    // "cpu" and "memory" in a quota mean the requests.
    if (!hard.contains(resource) && !(which == "requests" && hard.contains(name))) continue;
    std::vector<std::string> without;
    for (const auto& c : containers->get_array()) {
      if (!c.is_object()) continue;
      const json::object* r = ObjectAt(ObjectAt(c.get_object(), "resources"), which);
      if (!r || !r->contains(name)) without.emplace_back(StringAt(c.get_object(), "name"));
    }
    if (without.empty()) continue;
    std::string names;
    for (const auto& n : without) names += (names.empty() ? "" : ",") + n;
    missing.push_back(std::string(resource) + " for: " + names);
  }
  return missing;
}

bool QuotaCovers(const json::object& quota, Kind kind, const json::object& object) {
  const json::object* spec = ObjectAt(quota, "spec");
  const json::value* scopes = spec ? spec->if_contains("scopes") : nullptr;
  const json::object* selector = ObjectAt(spec, "scopeSelector");
  const bool scoped = (scopes && scopes->is_array() && !scopes->get_array().empty()) || selector;
  if (!scoped) return true;
  if (kind != Kind::kPod) return false;
  const json::object* pod_spec = ObjectAt(object, "spec");
  static const json::object kEmpty;
  const json::object& ps = pod_spec ? *pod_spec : kEmpty;
  if (scopes && scopes->is_array()) {
    for (const auto& s : scopes->get_array()) {
      if (!s.is_string() || !ScopeMatches(s.get_string(), ps)) return false;
    }
  }
  const json::value* expressions = selector ? selector->if_contains("matchExpressions") : nullptr;
  if (expressions && expressions->is_array()) {
    for (const auto& e : expressions->get_array()) {
      if (!e.is_object()) continue;
      const json::object& x = e.get_object();
      std::string_view scope = StringAt(x, "scopeName");
      std::string_view op = StringAt(x, "operator");
      if (scope != "PriorityClass") {
        bool matches = ScopeMatches(scope, ps);
        if ((op == "DoesNotExist") == matches) return false;
        continue;
      }
      std::string_view klass = StringAt(ps, "priorityClassName");
      bool listed = false;
      if (const json::value* values = x.if_contains("values"); values && values->is_array()) {
        for (const auto& v : values->get_array()) listed = listed || (v.is_string() && v.get_string() == klass);
      }
      if (op == "In" && !listed) return false;
      if (op == "NotIn" && listed) return false;
      if (op == "Exists" && klass.empty()) return false;
      if (op == "DoesNotExist" && !klass.empty()) return false;
    }
  }
  return true;
}

std::string QuotaQuantity(const std::string& resource, int64_t milli) {
  const bool bytes = resource.find("memory") != std::string::npos || resource.find("storage") != std::string::npos;
  if (bytes && milli % 1000 == 0) return Quantity::FromInt(milli / 1000, Quantity::Format::kBinarySI).ToString();
  return Quantity::FromMilli(milli).ToString();
}

QuotaUsage ReadQuotaList(const json::object* list) {
  QuotaUsage out;
  if (!list) return out;
  for (const auto& [name, value] : *list) {
    if (auto q = QuantityFromJson(value); q.ok()) out[std::string(name)] = q.value().MilliValue();
  }
  return out;
}

}  // namespace berth::api
