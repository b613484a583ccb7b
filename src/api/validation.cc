#include "api/validation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/selector.h"

namespace berth::api {

namespace json = boost::json;

namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool MatchesDns1123Label(std::string_view v) {
  if (v.empty() || !IsLowerAlnum(v.front()) || !IsLowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// A string as Go's %q prints it in kube's messages: quoted, with quotes,
// backslashes and control characters escaped.
std::string Quote(std::string_view v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "\"";
  for (char c : v) {
    switch (c) {
      case '"':
        s += "\\\"";
        break;
      case '\\':
        s += "\\\\";
        break;
      case '\n':
        s += "\\n";
        break;
      case '\t':
        s += "\\t";
        break;
      case '\r':
        s += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          s += "\\x";
          s += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
          s += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
          s += c;
        }
    }
  }
  s += '"';
  return s;
}

std::string Index(std::string_view base, size_t i) { return std::string(base) + "[" + std::to_string(i) + "]"; }

std::string QuantityText(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  return json::serialize(v);
}

void ValidateMetadata(const Object& object, bool label_name, FieldErrors& errors) {
  const json::object* meta = ObjectAt(&object.json(), "metadata");
  const std::string& name = object.name();
  if (name.empty()) {
    errors.Required("metadata.name", "name or generateName is required");
  } else {
    auto problems = label_name ? IsDns1123Label(name) : IsDns1123Subdomain(name);
    for (const auto& p : problems) errors.Invalid("metadata.name", name, p);
  }
  if (object.info().namespaced && object.namespace_name().empty()) errors.Required("metadata.namespace");
  for (const auto& [key, value] : object.labels()) {
    for (const auto& p : IsQualifiedName(key)) errors.Invalid("metadata.labels", key, p);
    for (const auto& p : IsValidLabelValue(value)) errors.Invalid("metadata.labels", value, p);
  }
  if (const json::object* annotations = ObjectAt(meta, "annotations")) {
    for (const auto& kv : *annotations) {
      for (const auto& p : IsQualifiedName(kv.key())) errors.Invalid("metadata.annotations", kv.key(), p);
    }
  }
}

// Checks a resource list's quantities; returns the parsed values by name.
std::map<std::string, Quantity> ValidateResourceList(const json::object* list, const std::string& path,
                                                     FieldErrors& errors) {
  std::map<std::string, Quantity> parsed;
  if (!list) return parsed;
  for (const auto& kv : *list) {
    std::string field = path + "[" + std::string(kv.key()) + "]";
    std::string text = QuantityText(kv.value());
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

void ValidateContainers(const json::object* spec, const std::string& path, std::string_view list,
                        bool required, FieldErrors& errors) {
  std::string field = path + "." + std::string(list);
  auto it = spec ? spec->find(list) : nullptr;
  if (!spec || it == spec->end() || !it->value().is_array() || it->value().get_array().empty()) {
    if (required) errors.Required(field);
    return;
  }
  std::set<std::string> names;
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
    const json::object* resources = ObjectAt(&c, "resources");
    auto requests = ValidateResourceList(ObjectAt(resources, "requests"), c_path + ".resources.requests", errors);
    auto limits = ValidateResourceList(ObjectAt(resources, "limits"), c_path + ".resources.limits", errors);
    for (const auto& [resource, request] : requests) {
      auto limit = limits.find(resource);
      if (limit != limits.end() && request.Compare(limit->second) > 0) {
        errors.Invalid(c_path + ".resources.requests", request.ToString(),
                       "must be less than or equal to " + resource + " limit of " + limit->second.ToString());
      }
    }
    if (auto ports = c.find("ports"); ports != c.end() && ports->value().is_array()) {
      const json::array& pa = ports->value().get_array();
      for (size_t p = 0; p < pa.size(); ++p) {
        if (!pa[p].is_object()) continue;
        for (std::string_view key : {"containerPort", "hostPort"}) {
          auto v = pa[p].get_object().find(key);
          if (v == pa[p].get_object().end()) {
            if (key == "containerPort") errors.Required(Index(c_path + ".ports", p) + ".containerPort");
            continue;
          }
          int64_t port = v->value().is_number() ? v->value().to_number<int64_t>() : -1;
          if (port < (key == "hostPort" ? 0 : 1) || port > 65535) {
            errors.InvalidValue(Index(c_path + ".ports", p) + "." + std::string(key), v->value(),
                                "must be between 1 and 65535, inclusive");
          }
        }
      }
    }
  }
}

void ValidatePodSpec(const json::object* spec, const std::string& path, FieldErrors& errors) {
  if (!spec) {
    errors.Required(path);
    return;
  }
  ValidateContainers(spec, path, "containers", true, errors);
  ValidateContainers(spec, path, "initContainers", false, errors);
  if (auto restart = StringAt(*spec, "restartPolicy");
      !restart.empty() && restart != "Always" && restart != "OnFailure" && restart != "Never") {
    errors.NotSupported(path + ".restartPolicy", restart, {"Always", "Never", "OnFailure"});
  }
}

void ValidateWorkload(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  if (!spec) {
    errors.Required("spec");
    return;
  }
  if (auto r = spec->find("replicas"); r != spec->end() && r->value().is_number() && r->value().to_number<int64_t>() < 0) {
    errors.InvalidValue("spec.replicas", r->value(), "must be greater than or equal to 0");
  }
  auto sel = spec->find("selector");
  const json::object* tmpl = ObjectAt(spec, "template");
  const json::object* tmpl_meta = ObjectAt(tmpl, "metadata");
  if (sel == spec->end() || sel->value().is_null()) {
    errors.Required("spec.selector");
  } else {
    auto selector = LabelSelector::FromJson(sel->value());
    if (!selector.ok()) {
      errors.InvalidValue("spec.selector", sel->value(), selector.status().message());
    } else if (selector->Empty()) {
      errors.InvalidValue("spec.selector", sel->value(),
                          "empty selector is invalid for deployment");
    } else {
      Labels labels;
      if (const json::object* l = ObjectAt(tmpl_meta, "labels")) {
        for (const auto& kv : *l) {
          if (kv.value().is_string()) labels.Set(kv.key(), kv.value().get_string());
        }
      }
      if (!selector->Matches(labels)) {
        const json::object* l = ObjectAt(tmpl_meta, "labels");
        errors.InvalidValue("spec.template.metadata.labels",
                            l ? json::value(*l) : json::value(nullptr),
                            "`selector` does not match template `labels`");
      }
    }
  }
  ValidatePodSpec(ObjectAt(tmpl, "spec"), "spec.template.spec", errors);
}

}  // namespace

std::vector<std::string> IsDns1123Label(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back("must be no more than 63 characters");
  if (!MatchesDns1123Label(value)) {
    out.push_back("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                  "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
                  "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return out;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back("must be no more than 253 characters");
  bool ok = !value.empty();
  size_t start = 0;
  while (ok && start <= value.size()) {
    size_t dot = value.find('.', start);
    std::string_view part = value.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!MatchesDns1123Label(part)) ok = false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) {
    out.push_back("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                  "regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return out;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> out;
  std::string_view name = value;
  auto slash = value.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      out.push_back("prefix part must be non-empty");
    } else {
      for (auto& p : IsDns1123Subdomain(prefix)) out.push_back("prefix part " + p);
    }
  }
  constexpr std::string_view kNameMessage =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
      "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  if (name.empty()) {
    out.push_back("name part must be non-empty");
  } else {
    if (name.size() > 63) out.push_back("name part must be no more than 63 characters");
    bool ok = IsAlnum(name.front()) && IsAlnum(name.back());
    for (char c : name) ok = ok && (IsAlnum(c) || c == '-' || c == '_' || c == '.');
    if (!ok) out.emplace_back(kNameMessage);
  }
  return out;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  if (value.size() > 63) out.push_back("must be no more than 63 characters");
  bool ok = IsAlnum(value.front()) && IsAlnum(value.back());
  for (char c : value) ok = ok && (IsAlnum(c) || c == '-' || c == '_' || c == '.');
  if (!ok) {
    out.push_back("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                  "'my_value',  or '12345', regex used for validation is "
                  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return out;
}

void FieldErrors::Required(std::string field, std::string_view detail) {
  std::string message = "Required value";
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueRequired", std::move(message), std::move(field)});
}

void FieldErrors::Invalid(std::string field, std::string_view value, std::string_view detail) {
  std::string message = "Invalid value: " + Quote(value);
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
}

namespace {

// A map of strings as kube's messages print one (Go's %#v: keys sorted).
std::string GoStringMap(const json::object& o) {
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  for (const auto& kv : o) entries.emplace_back(kv.key(), kv.value().get_string());
  std::sort(entries.begin(), entries.end());
  std::string out = "map[string]string{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ", ";
    out += Quote(entries[i].first) + ":" + Quote(entries[i].second);
  }
  return out + "}";
}

}  // namespace

void FieldErrors::InvalidValue(std::string field, const json::value& value,
                               std::string_view detail) {
  std::string message = "Invalid value: ";
  const bool string_map =
      value.is_object() && std::all_of(value.get_object().begin(), value.get_object().end(),
                                       [](const auto& kv) { return kv.value().is_string(); });
  if (value.is_string()) {
    message += Quote(value.get_string());
  } else if (string_map) {
    message += GoStringMap(value.get_object());
  } else {
    message += json::serialize(value);
  }
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
}

void FieldErrors::Duplicate(std::string field, std::string_view value) {
  causes_.push_back({"FieldValueDuplicate", "Duplicate value: " + Quote(value), std::move(field)});
}

void FieldErrors::NotSupported(std::string field, std::string_view value, const std::vector<std::string>& supported) {
  std::string message = "Unsupported value: " + Quote(value) + ": supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) {
    if (i) message += ", ";
    message += Quote(supported[i]);
  }
  causes_.push_back({"FieldValueNotSupported", std::move(message), std::move(field)});
}

void FieldErrors::Forbidden(std::string field, std::string_view detail) {
  causes_.push_back({"FieldValueForbidden", "Forbidden: " + std::string(detail), std::move(field)});
}

Status FieldErrors::ToStatus(std::string_view kind, std::string_view name) const {
  if (causes_.empty()) return Status::Ok();
  std::string message = std::string(kind) + " " + Quote(name) + " is invalid: ";
  if (causes_.size() > 1) message += '[';
  for (size_t i = 0; i < causes_.size(); ++i) {
    if (i) message += ", ";
    message += causes_[i].field + ": " + causes_[i].message;
  }
  if (causes_.size() > 1) message += ']';
  return Status::Invalid(std::move(message), causes_);
}

namespace {

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

Status ValidatePodUpdate(const Object& next, const Object& current) {
  static const json::object kEmpty;
  const json::object* next_spec_p = ObjectAt(&next.json(), "spec");
  const json::object* cur_spec_p = ObjectAt(&current.json(), "spec");
  const json::object& next_spec = next_spec_p ? *next_spec_p : kEmpty;
  const json::object& cur_spec = cur_spec_p ? *cur_spec_p : kEmpty;
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

Status ValidateObject(const Object& object) {
  FieldErrors errors;
  const json::object& o = object.json();
  ValidateMetadata(object, object.kind() == Kind::kNamespace, errors);
  switch (object.kind()) {
    case Kind::kPod:
      ValidatePodSpec(ObjectAt(&o, "spec"), "spec", errors);
      break;
    case Kind::kDeployment:
    case Kind::kReplicaSet:
      ValidateWorkload(object, errors);
      break;
    case Kind::kPersistentVolumeClaim: {
      const json::object* spec = ObjectAt(&o, "spec");
      auto modes = spec ? spec->find("accessModes") : nullptr;
      if (!spec || modes == spec->end() || !modes->value().is_array() || modes->value().get_array().empty()) {
        errors.Required("spec.accessModes", "at least 1 access mode is required");
      }
      const json::object* requests = ObjectAt(ObjectAt(spec, "resources"), "requests");
      if (!requests || !requests->contains("storage")) {
        errors.Required("spec.resources[storage]");
      } else {
        ValidateResourceList(requests, "spec.resources.requests", errors);
      }
      break;
    }
    case Kind::kPersistentVolume: {
      const json::object* spec = ObjectAt(&o, "spec");
      const json::object* capacity = ObjectAt(spec, "capacity");
      if (!capacity || !capacity->contains("storage")) {
        errors.Required("spec.capacity");
      } else {
        ValidateResourceList(capacity, "spec.capacity", errors);
      }
      auto modes = spec ? spec->find("accessModes") : nullptr;
      if (!spec || modes == spec->end() || !modes->value().is_array() || modes->value().get_array().empty()) {
        errors.Required("spec.accessModes");
      }
      break;
    }
    case Kind::kPriorityClass: {
      auto v = o.find("value");
      if (v == o.end() || !v->value().is_number()) {
        errors.Required("value");
      } else if (v->value().to_number<int64_t>() > 1'000'000'000 && !object.name().starts_with("system-")) {
        errors.InvalidValue("value", v->value(),
                            "maximum allowed value of a user defined priority is 1000000000");
      }
      break;
    }
    case Kind::kNode: {
      if (const json::object* allocatable = ObjectAt(ObjectAt(&o, "status"), "allocatable")) {
        ValidateResourceList(allocatable, "status.allocatable", errors);
      }
      if (const json::object* capacity = ObjectAt(ObjectAt(&o, "status"), "capacity")) {
        ValidateResourceList(capacity, "status.capacity", errors);
      }
      break;
    }
    default:
      break;
  }
  return errors.ToStatus(object.info().name, object.name());
}

}  // namespace berth::api
