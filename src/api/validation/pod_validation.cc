#include "api/validation/pod_validation.h"

#include <algorithm>
#include <set>

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/json_fields.h"
#include "api/quantity_json.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"

namespace berth::api {

namespace json = boost::json;

namespace {

std::string Index(std::string_view base, size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

// kube's validateContainerResourceName: a standard resource or an extended
// (qualified, not kubernetes.io) one. Extended resources are integers and
// cannot be overcommitted.
bool IsExtendedResource(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view domain = name.substr(0, slash);
  return domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io") && !name.starts_with("requests.");
}

void ResourceNames(const std::map<std::string, Quantity>& list, const std::string& path, FieldErrors& errors) {
  for (const auto& [name, quantity] : list) {
    const std::string field = path + "[" + name + "]";
    if (IsExtendedResource(name)) {
      for (const auto& p : IsQualifiedName(name)) errors.Invalid(field, name, p);
      if (quantity.MilliValue() % 1000 != 0) errors.Invalid(field, quantity.ToString(), "must be an integer");
    } else if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && !name.starts_with("hugepages-")) {
      errors.Invalid(field, name, "must be a standard resource for containers");
    }
  }
}

void ValidateResources(const json::object& c, const std::string& c_path, FieldErrors& errors) {
  const json::object* resources = ObjectAt(&c, "resources");
  const std::string requests_path = c_path + ".resources.requests";
  const std::string limits_path = c_path + ".resources.limits";
  auto limits = ValidateResourceList(ObjectAt(resources, "limits"), limits_path, errors);
  auto requests = ValidateResourceList(ObjectAt(resources, "requests"), requests_path, errors);
  ResourceNames(limits, limits_path, errors);
  ResourceNames(requests, requests_path, errors);
  for (const auto& [resource, request] : requests) {
    auto limit = limits.find(resource);
    const bool overcommit = !IsExtendedResource(resource) && !resource.starts_with("hugepages-");
    if (limit != limits.end()) {
      if (!overcommit && request.Compare(limit->second) != 0) {
        errors.Invalid(requests_path, request.ToString(),
                       "must be equal to " + resource + " limit of " + limit->second.ToString());
      } else if (request.Compare(limit->second) > 0) {
        errors.Invalid(requests_path, request.ToString(),
                       "must be less than or equal to " + resource + " limit of " + limit->second.ToString());
      }
    } else if (!overcommit) {
      errors.Required(limits_path, "Limit must be set for non overcommitable resources");
    }
  }
}

void ValidateContainers(const json::object* spec, const std::string& path, std::string_view list, bool required,
                        const std::set<std::string>& volumes, std::set<std::string>& names, FieldErrors& errors) {
  std::string field = path + "." + std::string(list);
  auto it = spec ? spec->find(list) : nullptr;
  if (!spec || it == spec->end() || !it->value().is_array() || it->value().get_array().empty()) {
    if (required) errors.Required(field);
    return;
  }
  const json::array& containers = it->value().get_array();
  for (size_t i = 0; i < containers.size(); ++i) {
    std::string c_path = Index(field, i);
    if (!containers[i].is_object()) {
      errors.InvalidValue(c_path, containers[i], "must be an object");
      continue;
    }
    const json::object& c = containers[i].get_object();
    std::string name(StringAt(c, "name"));
    if (name.empty()) {
      errors.Required(c_path + ".name");
    } else {
      for (const auto& p : IsDns1123Label(name)) errors.Invalid(c_path + ".name", name, p);
      if (!names.insert(name).second) errors.Duplicate(c_path + ".name", name);
    }
    if (StringAt(c, "image").empty()) errors.Required(c_path + ".image");
    ValidateResources(c, c_path, errors);
    validation::ValidateContainerPorts(c, c_path, errors);
    validation::ValidateVolumeMounts(c, volumes, c_path, errors);
  }
}

// validateOnlyAddedTolerations: every old toleration is still there, up to its tolerationSeconds.
void CheckOnlyAddedTolerations(const json::object& next, const json::object& current,
                               FieldErrors& errors) {
  // Each list copied once without tolerationSeconds, then compared.
  auto without_seconds = [](const json::array* list) {
    json::array out = list ? *list : json::array();
    for (auto& t : out) {
      if (t.is_object()) t.get_object().erase("tolerationSeconds");
    }
    return out;
  };
  const json::array before = without_seconds(ArrayAt(current, "tolerations"));
  const json::array after = without_seconds(ArrayAt(next, "tolerations"));
  for (const auto& old : before) {
    if (std::find(after.begin(), after.end(), old) == after.end()) {
      errors.Forbidden("spec.tolerations",
                       "existing toleration can not be modified except its tolerationSeconds");
      return;
    }
  }
}

std::vector<std::string> GateNames(const json::object& spec) {
  std::vector<std::string> names;
  if (const json::array* gates = ArrayAt(spec, "schedulingGates")) {
    for (const auto& g : *gates) {
      const json::value* name = g.is_object() ? g.get_object().if_contains("name") : nullptr;
      names.push_back(name && name->is_string() ? std::string(name->get_string()) : std::string());
    }
  }
  return names;
}

// The value of `key`, "null" when absent, cut to a readable length.
std::string Shown(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  std::string text = it == o.end() ? "null" : json::serialize(it->value());
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

}  // namespace

std::map<std::string, Quantity> ValidateResourceList(const json::object* list, const std::string& path,
                                                     FieldErrors& errors) {
  std::map<std::string, Quantity> parsed;
  if (!list) return parsed;
  for (const auto& kv : *list) {
    std::string field = path + "[" + std::string(kv.key()) + "]";
    std::optional<std::string> read = QuantityText(kv.value());
    std::string text = read ? std::move(*read) : json::serialize(kv.value());
    auto q = Quantity::Parse(text);
    if (!q.ok()) {
      errors.Invalid(field, text, q.status().message());
      continue;
    }
    if (q->Sign() < 0) {
      errors.Invalid(field, text, "must be greater than or equal to 0");
      continue;
    }
    parsed.emplace(std::string(kv.key()), q.value());
  }
  return parsed;
}

void ValidatePodSpec(const json::object* spec, const std::string& path, FieldErrors& errors,
                     const std::set<std::string>& more_volumes) {
  if (!spec) {
    errors.Required(path);
    return;
  }
  std::set<std::string> volumes = validation::ValidateVolumes(*spec, path, errors);
  volumes.insert(more_volumes.begin(), more_volumes.end());
  std::set<std::string> names;
  ValidateContainers(spec, path, "containers", true, volumes, names, errors);
  ValidateContainers(spec, path, "initContainers", false, volumes, names, errors);
  if (auto restart = StringAt(*spec, "restartPolicy");
      !restart.empty() && restart != "Always" && restart != "OnFailure" && restart != "Never") {
    errors.NotSupported(path + ".restartPolicy", restart, {"Always", "Never", "OnFailure"});
  }
  validation::ValidateSchedulingFields(*spec, path, errors);
}

namespace {

// A pod's spec with today's defaults. kube defaults what it reads from
// storage as well as what it decodes from a request, so a pod stored before
// a default was added, or validated without its defaults, compares with its
// update as kube compares them.
json::object DefaultedSpec(const Object& pod) {
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(&pod.json(), "spec");
  json::object holder{{"spec", spec ? *spec : kEmpty}};
  ApplyDefaults(Kind::kPod, holder);
  return std::move(holder["spec"].as_object());
}

}  // namespace

Status ValidatePodUpdate(const Object& next, const Object& current) {
  const json::object next_spec = DefaultedSpec(next);
  const json::object cur_spec = DefaultedSpec(current);
  FieldErrors errors;

  // Scheduling gates may only be removed.
  const std::vector<std::string> old_gates = GateNames(cur_spec);
  const std::vector<std::string> new_gates = GateNames(next_spec);
  for (size_t i = 0; i < new_gates.size(); ++i) {
    if (std::find(old_gates.begin(), old_gates.end(), new_gates[i]) == old_gates.end()) {
      errors.Forbidden(
          Index("spec.schedulingGates", i) + ".name",
          "only deletion is allowed, but found new scheduling gate '" + new_gates[i] + "'");
    }
  }

  // activeDeadlineSeconds may be set, or lowered; never raised or unset.
  const json::value* new_deadline = next_spec.if_contains("activeDeadlineSeconds");
  const json::value* old_deadline = cur_spec.if_contains("activeDeadlineSeconds");
  if (new_deadline && new_deadline->is_null()) new_deadline = nullptr;
  if (old_deadline && old_deadline->is_null()) old_deadline = nullptr;
  if (new_deadline) {
    if (!new_deadline->is_int64() || new_deadline->get_int64() < 0 ||
        new_deadline->get_int64() > 2147483647) {
      errors.InvalidValue("spec.activeDeadlineSeconds", *new_deadline,
                          "must be between 0 and 2147483647, inclusive");
      return errors.ToStatus("Pod", next.name());
    }
    if (old_deadline && old_deadline->is_int64() &&
        old_deadline->get_int64() < new_deadline->get_int64()) {
      errors.InvalidValue("spec.activeDeadlineSeconds", *new_deadline,
                          "must be less than or equal to previous value");
      return errors.ToStatus("Pod", next.name());
    }
  } else if (old_deadline) {
    errors.InvalidValue("spec.activeDeadlineSeconds", json::value(nullptr),
                        "must not update from a positive integer to nil value");
  }

  CheckOnlyAddedTolerations(next_spec, cur_spec, errors);

  // A gated pod's nodeSelector may only gain entries.
  json::object munged = next_spec;
  if (!old_gates.empty()) {
    const json::object* old_selector = ObjectAt(&cur_spec, "nodeSelector");
    const json::object* new_selector = ObjectAt(&next_spec, "nodeSelector");
    bool only_added = true;
    if (old_selector) {
      for (const auto& kv : *old_selector) {
        const json::value* v = new_selector ? new_selector->if_contains(kv.key()) : nullptr;
        if (!v || *v != kv.value()) only_added = false;
      }
    }
    if (!only_added) {
      errors.InvalidValue(
          "spec.nodeSelector", new_selector ? json::value(*new_selector) : json::value(nullptr),
          "only additions to spec.nodeSelector are allowed (no mutations or deletions)");
    }
    if (old_selector) {
      munged["nodeSelector"] = *old_selector;
    } else {
      munged.erase("nodeSelector");
    }
  }

  // The rest must be as it was: take what may change from the old spec and compare.
  for (std::string_view list : {"containers", "initContainers"}) {
    const json::array* before = ArrayAt(cur_spec, list);
    auto it = munged.find(list);
    if (!before || it == munged.end() || !it->value().is_array()) continue;
    json::array& after = it->value().get_array();
    for (size_t i = 0; i < after.size() && i < before->size(); ++i) {
      if (!after[i].is_object() || !(*before)[i].is_object()) continue;
      if (const json::value* image = (*before)[i].get_object().if_contains("image")) {
        after[i].get_object()["image"] = *image;
      } else {
        after[i].get_object().erase("image");
      }
    }
  }
  for (std::string_view key : {"activeDeadlineSeconds", "tolerations", "schedulingGates"}) {
    if (const json::value* old = cur_spec.if_contains(key)) {
      munged[key] = *old;
    } else {
      munged.erase(key);
    }
  }
  const json::value* old_grace = cur_spec.if_contains("terminationGracePeriodSeconds");
  const json::value* new_grace = munged.if_contains("terminationGracePeriodSeconds");
  if (old_grace && old_grace->is_int64() && old_grace->get_int64() < 0 && new_grace &&
      new_grace->is_int64() && new_grace->get_int64() == 1) {
    munged["terminationGracePeriodSeconds"] = *old_grace;
  }
  if (munged != cur_spec) {
    // kube appends a Go diff of the two specs; this names the fields that differ.
    std::string diff;
    std::set<std::string> keys;
    for (const auto& kv : cur_spec) keys.insert(std::string(kv.key()));
    for (const auto& kv : munged) keys.insert(std::string(kv.key()));
    for (const auto& key : keys) {
      const json::value* a = cur_spec.if_contains(key);
      const json::value* b = munged.if_contains(key);
      if ((a == nullptr) == (b == nullptr) && (!a || *a == *b)) continue;
      diff +=
          "\n  - " + key + ": " + Shown(cur_spec, key) + "\n  + " + key + ": " + Shown(munged, key);
    }
    errors.Forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
        "set "
        "to 1 if it was previously negative)" +
            diff);
  }
  return errors.ToStatus("Pod", next.name());
}

}  // namespace berth::api
