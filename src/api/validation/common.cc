// Pieces the API groups' validation shares (validation_groups.h).

#include <arpa/inet.h>

#include <array>
#include <boost/json.hpp>
#include <cstring>

#include "api/json_fields.h"
#include "api/selector.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"
#include "api/validation/pod_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

const json::value* Present(const json::object* o, std::string_view key) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && !v->is_null() ? v : nullptr;
}

std::string IndexPath(std::string_view base, size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

std::string KeyPath(std::string_view base, std::string_view key) {
  return std::string(base) + "[" + std::string(key) + "]";
}

void NonNegative(const json::object* o, std::string_view key, const std::string& path,
                 FieldErrors& errors) {
  const json::value* v = Present(o, key);
  if (v && v->is_number() && v->to_number<double>() < 0) {
    errors.InvalidValue(path, *v, "must be greater than or equal to 0");
  }
}

void ValidateLabelMap(const json::object* labels, const std::string& path, FieldErrors& errors) {
  if (!labels) return;
  for (const auto& kv : *labels) {
    for (const auto& p : IsQualifiedName(kv.key())) errors.Invalid(path, kv.key(), p);
    std::string_view value =
        kv.value().is_string() ? std::string_view(kv.value().get_string()) : "";
    for (const auto& p : IsValidLabelValue(value)) errors.Invalid(path, value, p);
  }
}

void ValidatePortNumber(const json::value& port, const std::string& path, FieldErrors& errors) {
  const bool ok = port.is_int64()
                      ? port.get_int64() >= 1 && port.get_int64() <= 65535
                      : port.is_uint64() && port.get_uint64() >= 1 && port.get_uint64() <= 65535;
  if (!ok) errors.InvalidValue(path, port, "must be between 1 and 65535, inclusive");
}

void ValidatePortNumberOrName(const json::value& port, const std::string& path,
                              FieldErrors& errors) {
  if (port.is_string()) {
    for (const auto& p : IsValidPortName(port.get_string()))
      errors.Invalid(path, port.get_string(), p);
  } else {
    ValidatePortNumber(port, path, errors);
  }
}

void ValidateIntOrPercent(const json::value& value, const std::string& path, FieldErrors& errors,
                          int64_t* amount) {
  if (amount) *amount = 0;
  if (value.is_int64() || value.is_uint64()) {
    const int64_t n = value.to_number<int64_t>();
    if (n < 0) errors.InvalidValue(path, value, "must be greater than or equal to 0");
    if (amount) *amount = n;
    return;
  }
  if (!value.is_string()) {
    errors.InvalidValue(path, value, "must be an integer or percentage (e.g '5%')");
    return;
  }
  std::string_view s = value.get_string();
  bool digits = s.size() >= 2 && s.back() == '%';
  int64_t percent = 0;
  for (char c : s.substr(0, s.empty() ? 0 : s.size() - 1)) {
    digits = digits && c >= '0' && c <= '9';
    if (digits && percent <= 1000) percent = percent * 10 + (c - '0');
  }
  if (!digits) {
    errors.InvalidValue(path, value,
                        "a valid percent string must be a numeric string followed by an ending '%' "
                        "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
    return;
  }
  if (percent > 100) errors.InvalidValue(path, value, "must not be greater than 100%");
  if (amount) *amount = percent;
}

Labels TemplateLabels(const json::object* tmpl) {
  Labels labels;
  if (const json::object* l = ObjectAt(ObjectAt(tmpl, "metadata"), "labels")) {
    for (const auto& kv : *l) {
      if (kv.value().is_string()) labels.Set(kv.key(), kv.value().get_string());
    }
  }
  return labels;
}

void ValidatePodTemplateSpec(const json::object* tmpl, const std::string& path,
                             FieldErrors& errors, const std::set<std::string>& more_volumes) {
  static const json::object kEmpty;
  const json::object* meta = ObjectAt(tmpl, "metadata");
  ValidateLabelMap(ObjectAt(meta, "labels"), path + ".labels", errors);
  if (const json::object* annotations = ObjectAt(meta, "annotations")) {
    for (const auto& kv : *annotations) {
      for (const auto& p : IsQualifiedName(kv.key()))
        errors.Invalid(path + ".annotations", kv.key(), p);
    }
  }
  const json::object* spec = ObjectAt(tmpl, "spec");
  ValidatePodSpec(spec ? spec : &kEmpty, path + ".spec", errors, more_volumes);
  if (const json::array* ephemeral = ArrayAt(spec, "ephemeralContainers");
      ephemeral && !ephemeral->empty()) {
    errors.Forbidden(path + ".spec.ephemeralContainers",
                     "ephemeral containers not allowed in pod template");
  }
}

void ValidateSelectorForTemplate(const json::object* spec, const std::string& path,
                                 std::string_view what, FieldErrors& errors) {
  const json::value* sel = Present(spec, "selector");
  if (!sel) {
    errors.Required(path + ".selector");
    return;
  }
  auto selector = LabelSelector::FromJson(*sel);
  if (!selector.ok()) {
    errors.InvalidValue(path + ".selector", *sel, selector.status().message());
    return;
  }
  if (selector->Empty()) {
    errors.InvalidGo(path + ".selector", GoLabelSelector(sel),
                     "empty selector is invalid for " + std::string(what));
    return;
  }
  const json::object* tmpl = ObjectAt(spec, "template");
  if (!selector->Matches(TemplateLabels(tmpl))) {
    const json::object* l = ObjectAt(ObjectAt(tmpl, "metadata"), "labels");
    errors.InvalidGo(path + ".template.metadata.labels",
                     l ? GoStringMap(*l) : "map[string]string(nil)",
                     "`selector` does not match template `labels`");
  }
}

void ValidateRestartAlways(const json::object* tmpl, const std::string& path, std::string_view kind,
                           FieldErrors& errors) {
  const json::object* pod = ObjectAt(tmpl, "spec");
  if (auto policy = StringAt(pod, "restartPolicy"); !policy.empty() && policy != "Always") {
    errors.NotSupported(path + ".spec.restartPolicy", policy, {"Always"});
  }
  if (Present(pod, "activeDeadlineSeconds")) {
    errors.Forbidden(path + ".spec.activeDeadlineSeconds",
                     "activeDeadlineSeconds in " + std::string(kind) + " is not Supported");
  }
}

std::string GoStrings(const json::array* values, std::string_view type) {
  if (!values) return std::string(type) + "(nil)";
  std::string out = std::string(type) + "{";
  for (size_t i = 0; i < values->size(); ++i) {
    if (i) out += ", ";
    out += (*values)[i].is_string() ? GoQuote((*values)[i].get_string())
                                    : json::serialize((*values)[i]);
  }
  return out + "}";
}

std::string GoLabelSelector(const json::value* selector) {
  const json::object* o = selector && selector->is_object() ? &selector->get_object() : nullptr;
  const json::object* match_labels = ObjectAt(o, "matchLabels");
  std::string out = "v1.LabelSelector{MatchLabels:";
  out += match_labels ? GoStringMap(*match_labels) : "map[string]string(nil)";
  out += ", MatchExpressions:";
  const json::array* expressions = ArrayAt(o, "matchExpressions");
  if (!expressions) {
    out += "[]v1.LabelSelectorRequirement(nil)";
  } else {
    out += "[]v1.LabelSelectorRequirement{";
    for (size_t i = 0; i < expressions->size(); ++i) {
      const json::object* e =
          (*expressions)[i].is_object() ? &(*expressions)[i].get_object() : nullptr;
      if (i) out += ", ";
      out += "v1.LabelSelectorRequirement{Key:" + GoQuote(StringAt(e, "key")) +
             ", Operator:" + GoQuote(StringAt(e, "operator")) +
             ", Values:" + GoStrings(ArrayAt(e, "values")) + "}";
    }
    out += "}";
  }
  return out + "}";
}

void CheckImmutable(const json::value* next, const json::value* current, const std::string& path,
                    FieldErrors& errors) {
  if (next && next->is_null()) next = nullptr;
  if (current && current->is_null()) current = nullptr;
  if ((next == nullptr) == (current == nullptr) && (!next || *next == *current)) return;
  errors.InvalidValue(path, next ? *next : json::value(nullptr), "field is immutable");
}

bool IsIpAddress(std::string_view text, int family) {
  const std::string s(text);
  unsigned char buf[16];
  if (family != AF_INET6 && inet_pton(AF_INET, s.c_str(), buf) == 1) return true;
  return family != AF_INET && inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

void ValidateEndpointIp(std::string_view ip, const std::string& path, FieldErrors& errors) {
  const std::string text(ip);
  std::array<unsigned char, 16> bytes{};
  const bool v4 = inet_pton(AF_INET, text.c_str(), bytes.data()) == 1;
  const bool v6 = !v4 && inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1;
  if (!v4 && !v6) {
    errors.Invalid(path, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    errors.Invalid(path, ip, "must be a valid IP address");
    return;
  }
  static constexpr std::array<unsigned char, 16> kZero{};
  const bool unspecified = v4 ? std::memcmp(bytes.data(), kZero.data(), 4) == 0 : bytes == kZero;
  const bool loopback =
      v4 ? bytes[0] == 127 : (std::memcmp(bytes.data(), kZero.data(), 15) == 0 && bytes[15] == 1);
  const bool link_local =
      v4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80;
  const bool link_local_multicast = v4 ? bytes[0] == 224 && bytes[1] == 0 && bytes[2] == 0
                                       : bytes[0] == 0xff && (bytes[1] & 0x0f) == 0x02;
  if (unspecified) errors.Invalid(path, ip, "may not be unspecified (" + text + ")");
  if (loopback) errors.Invalid(path, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)");
  if (link_local)
    errors.Invalid(path, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)");
  if (link_local_multicast) {
    errors.Invalid(path, ip,
                   "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
  }
}

}  // namespace berth::api::validation
