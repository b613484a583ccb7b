// core/v1 kinds: kube's pkg/apis/core/validation for ConfigMap, Secret,
// LimitRange, ResourceQuota, PodTemplate, ReplicationController, and the
// update rules of those and of PersistentVolumeClaims (Services and
// Endpoints: validation/service.cc).

#include <boost/json.hpp>
#include <map>
#include <set>
#include <variant>

#include "api/codec/base64.h"
#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/quantity_json.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"
#include "api/validation/pod_validation.h"
#include "api/validation/warnings.h"

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
    auto q = QuantityFromJson(*v);
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

namespace {

void ValidatePod(const Object& object, FieldErrors& errors) {
  ValidatePodSpec(ObjectAt(&object.json(), "spec"), "spec", errors);
}

void ValidatePersistentVolumeClaim(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
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
}

void ValidatePersistentVolume(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
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
}

void ValidateNode(const Object& object, FieldErrors& errors) {
  const json::object& o = object.json();
  ValidateNodeTaints(ArrayAt(ObjectAt(&o, "spec"), "taints"), "spec.taints", errors);
  if (const json::object* allocatable = ObjectAt(ObjectAt(&o, "status"), "allocatable")) {
    ValidateResourceList(allocatable, "status.allocatable", errors);
  }
  if (const json::object* capacity = ObjectAt(ObjectAt(&o, "status"), "capacity")) {
    ValidateResourceList(capacity, "status.capacity", errors);
  }
}

}  // namespace

void AddCoreRules(KindRuleTable& table) {
  table.Set(Kind::kNamespace, {.name_problems = IsDns1123Label});
  table.Set(Kind::kPod, {.validate = ValidatePod, .validate_update = ValidatePodUpdate, .warnings = PodWarnings});
  table.Set(Kind::kNode, {.validate = ValidateNode});
  table.Set(Kind::kConfigMap, {.check_encoding = CheckBase64Fields,
                               .validate = ValidateConfigMap,
                               .validate_update = CollectedUpdateErrors<ValidateConfigMapUpdate>});
  table.Set(Kind::kSecret, {.check_encoding = CheckBase64Fields,
                            .validate = ValidateSecret,
                            .validate_update = CollectedUpdateErrors<ValidateSecretUpdate>});
  table.Set(Kind::kService, {.name_problems = IsDns1035Label,
                             .validate = ValidateService,
                             .validate_update = CollectedUpdateErrors<ValidateServiceUpdate>});
  table.Set(Kind::kEndpoints, {.validate = ValidateEndpoints});
  table.Set(Kind::kLimitRange, {.validate = ValidateLimitRange});
  table.Set(Kind::kResourceQuota,
            {.validate = ValidateResourceQuota, .validate_update = CollectedUpdateErrors<ValidateResourceQuotaUpdate>});
  table.Set(Kind::kPodTemplate, {.validate = ValidatePodTemplate, .warnings = PodTemplateWarnings});
  table.Set(Kind::kReplicationController,
            {.validate = ValidateReplicationController, .warnings = WorkloadTemplateWarnings});
  table.Set(Kind::kPersistentVolumeClaim,
            {.validate = ValidatePersistentVolumeClaim,
             .validate_update = CollectedUpdateErrors<ValidatePersistentVolumeClaimUpdate>});
  table.Set(Kind::kPersistentVolume, {.validate = ValidatePersistentVolume});
  table.Set(Kind::kEvent, {.validate = ValidateEventLegacy});
}

}  // namespace berth::api::validation
