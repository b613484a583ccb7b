#include "api/container/environment.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <variant>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/quantity_json.h"

namespace berth::api::container {

namespace json = boost::json;

namespace {

// The elements of an array field, none when it is absent.
const json::array& Items(const json::array* array) {
  static const json::array kNone;
  return array ? *array : kNone;
}

// A ConfigMap's or Secret's value for `key` (a Secret's decoded).
std::optional<std::string> DataValue(const Object& source, std::string_view key) {
  const json::object& o = source.json();
  if (source.kind() == Kind::kSecret) {
    const json::value* encoded = ObjectAt(o, "data") ? ObjectAt(o, "data")->if_contains(key) : nullptr;
    if (encoded && encoded->is_string()) {
      auto decoded = Base64Decode(encoded->get_string());
      if (auto* text = std::get_if<std::string>(&decoded)) return *text;
    }
    const json::value* plain = ObjectAt(o, "stringData") ? ObjectAt(o, "stringData")->if_contains(key) : nullptr;
    if (plain && plain->is_string()) return std::string(plain->get_string());
    return std::nullopt;
  }
  for (const char* field : {"data", "binaryData"}) {
    const json::object* data = ObjectAt(o, field);
    const json::value* value = data ? data->if_contains(key) : nullptr;
    if (!value || !value->is_string()) continue;
    if (std::string_view(field) == "data") return std::string(value->get_string());
    auto decoded = Base64Decode(value->get_string());
    if (auto* text = std::get_if<std::string>(&decoded)) return *text;
  }
  return std::nullopt;
}

// Every key of a ConfigMap or Secret, with its value, in key order.
std::vector<std::pair<std::string, std::string>> AllData(const Object& source) {
  std::vector<std::string> keys;
  for (const char* field : {"data", "binaryData", "stringData"}) {
    if (const json::object* data = ObjectAt(source.json(), field)) {
      for (const auto& entry : *data) keys.emplace_back(entry.key());
    }
  }
  std::ranges::sort(keys);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& key : keys) {
    if (auto value = DataValue(source, key)) out.emplace_back(std::move(key), std::move(*value));
  }
  return out;
}

// The downward API's `metadata.labels['key']` form: the key, or nullopt.
std::optional<std::string_view> Subscript(std::string_view path, std::string_view field) {
  if (!path.starts_with(field) || path.size() < field.size() + 4) return std::nullopt;
  std::string_view rest = path.substr(field.size());
  if (!rest.starts_with("['") || !rest.ends_with("']")) return std::nullopt;
  return rest.substr(2, rest.size() - 4);
}

std::string Joined(const json::array* ips) {
  std::string out;
  for (const auto& ip : Items(ips)) {
    if (ip.is_object()) out += (out.empty() ? "" : ",") + std::string(StringAt(ip.get_object(), "ip"));
  }
  return out;
}

// kube's fieldRef paths for environment variables (ConvertDownwardAPIFieldLabel's env set).
std::optional<std::string> PodField(const Object& pod, std::string_view path) {
  const json::object* meta = Metadata(pod);
  const json::object* spec = Spec(pod);
  const json::object* status = StatusOf(pod);
  if (path == "metadata.name") return pod.name();
  if (path == "metadata.namespace") return pod.namespace_name();
  if (path == "metadata.uid") return pod.uid();
  if (path == "spec.nodeName") return std::string(StringAt(spec, "nodeName"));
  if (path == "spec.serviceAccountName") return std::string(StringAt(spec, "serviceAccountName"));
  if (path == "status.hostIP") return std::string(StringAt(status, "hostIP"));
  if (path == "status.hostIPs") return Joined(ArrayAt(status, "hostIPs"));
  if (path == "status.podIP") return std::string(StringAt(status, "podIP"));
  if (path == "status.podIPs") return Joined(ArrayAt(status, "podIPs"));
  for (const char* field : {"metadata.labels", "metadata.annotations"}) {
    if (auto key = Subscript(path, field)) {
      const json::object* map = ObjectAt(meta, std::string_view(field).substr(9));
      return std::string(StringAt(map, *key));
    }
  }
  return std::nullopt;
}

// kube's ExtractContainerResourceValue, with a limit the container does not
// set taken from its node's allocatable (the kubelet's MergeContainerResourceLimits).
std::optional<std::string> ResourceField(const Object& pod, const json::object& container,
                                         const json::object& ref, const Sources& sources) {
  std::string_view container_name = StringAt(ref, "containerName");
  const json::object* target = container_name.empty() ? &container : ContainerNamed(pod, container_name);
  if (!target) return std::nullopt;
  std::string_view resource = StringAt(ref, "resource");
  size_t dot = resource.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view which = resource.substr(0, dot);  // limits or requests
  std::string_view name = resource.substr(dot + 1);
  if (which != "limits" && which != "requests") return std::nullopt;
  const json::object* set = ObjectAt(ObjectAt(*target, "resources"), which);
  const json::value* value = set ? set->if_contains(name) : nullptr;
  if (!value && which == "limits") {
    ObjectPtr node = sources.get(Kind::kNode, "", StringAt(Spec(pod), "nodeName"));
    const json::object* allocatable = node ? ObjectAt(StatusOf(*node), "allocatable") : nullptr;
    value = allocatable ? allocatable->if_contains(name) : nullptr;
  }
  Quantity amount = Quantity::FromInt(0);
  if (value) {
    auto parsed = QuantityFromJson(*value);
    if (!parsed.ok()) return std::nullopt;
    amount = parsed.value();
  }
  Quantity divisor = Quantity::FromInt(1);
  if (const json::value* d = ref.if_contains("divisor")) {
    auto parsed = QuantityFromJson(*d);
    if (!parsed.ok()) return std::nullopt;
    divisor = parsed.value();
  }
  // CPU in whole divisors, rounded up from millicores; any other resource
  // from its integer value (kube's convertResourceCPUToString and friends).
  const bool cpu = name == "cpu";
  const int64_t numerator = cpu ? amount.MilliValue() : amount.Value();
  const int64_t denominator = cpu ? divisor.MilliValue() : divisor.Value();
  if (denominator <= 0) return std::nullopt;
  return std::to_string((numerator + denominator - 1) / denominator);
}

std::optional<std::string> ValueFrom(const Object& pod, const json::object& container, const json::object& from,
                                     const Sources& sources) {
  for (auto [field, kind] : {std::pair{"configMapKeyRef", Kind::kConfigMap}, std::pair{"secretKeyRef", Kind::kSecret}}) {
    if (const json::object* ref = ObjectAt(from, field)) {
      ObjectPtr source = sources.get(kind, pod.namespace_name(), StringAt(ref, "name"));
      if (!source) return std::nullopt;
      return DataValue(*source, StringAt(ref, "key"));
    }
  }
  if (const json::object* ref = ObjectAt(from, "fieldRef")) return PodField(pod, StringAt(ref, "fieldPath"));
  if (const json::object* ref = ObjectAt(from, "resourceFieldRef")) {
    return ResourceField(pod, container, *ref, sources);
  }
  return std::nullopt;
}

// kube's makeEnvVariableName.
std::string EnvName(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// kube's envvars.FromServices for one Service with a cluster IP.
void AddServiceLinks(const Object& service, EnvVars& out) {
  const json::object* spec = Spec(service);
  const std::string ip(StringAt(spec, "clusterIP"));
  const json::array* ports = ArrayAt(spec, "ports");
  const std::string name = EnvName(service.name());
  out.emplace_back(name + "_SERVICE_HOST", ip);
  if (!ports || ports->empty()) return;
  auto port_of = [](const json::value& p) { return std::to_string(IntAt(p.if_object(), "port")); };
  out.emplace_back(name + "_SERVICE_PORT", port_of(ports->at(0)));
  for (const auto& p : *ports) {
    if (std::string_view port_name = StringAt(p.if_object(), "name"); !port_name.empty()) {
      out.emplace_back(name + "_SERVICE_PORT_" + EnvName(port_name), port_of(p));
    }
  }
  const std::string host = ip.find(':') == std::string::npos ? ip : "[" + ip + "]";
  for (size_t i = 0; i < ports->size(); ++i) {
    const json::value& p = ports->at(i);
    std::string protocol(StringAt(p.if_object(), "protocol"));
    if (protocol.empty()) protocol = "TCP";
    std::string lower = protocol;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string url = lower + "://" + host + ":" + port_of(p);
    if (i == 0) out.emplace_back(name + "_PORT", url);
    const std::string prefix = name + "_PORT_" + port_of(p) + "_" + protocol;
    out.emplace_back(prefix, url);
    out.emplace_back(prefix + "_PROTO", lower);
    out.emplace_back(prefix + "_PORT", port_of(p));
    out.emplace_back(prefix + "_ADDR", ip);
  }
}

bool HasClusterIp(const Object& service) {
  std::string_view ip = StringAt(Spec(service), "clusterIP");
  return !ip.empty() && ip != "None";
}

// kube's getServiceEnvVarMap.
EnvVars ServiceLinks(const Object& pod, const Sources& sources) {
  EnvVars out;
  const json::value* links = Spec(pod) ? Spec(pod)->if_contains("enableServiceLinks") : nullptr;
  bool found_kubernetes = false;
  if (!(links && links->is_bool() && !links->get_bool())) {
    for (const ObjectPtr& service : sources.list(Kind::kService, pod.namespace_name())) {
      if (!HasClusterIp(*service)) continue;
      found_kubernetes |= pod.namespace_name() == "default" && service->name() == "kubernetes";
      AddServiceLinks(*service, out);
    }
  }
  if (!found_kubernetes) {
    if (ObjectPtr master = sources.get(Kind::kService, "default", "kubernetes"); master && HasClusterIp(*master)) {
      AddServiceLinks(*master, out);
    }
  }
  return out;
}

bool Defines(const EnvVars& env, std::string_view name) {
  return std::ranges::any_of(env, [&](const auto& var) { return var.first == name; });
}

std::string Hostname(const Object& pod) {
  std::string_view hostname = StringAt(Spec(pod), "hostname");
  return std::string(hostname.empty() ? std::string_view(pod.name()).substr(0, 63) : hostname);
}

}  // namespace

const json::object* ContainerNamed(const Object& pod, std::string_view name) {
  for (const char* field : {"initContainers", "containers", "ephemeralContainers"}) {
    for (const auto& c : Items(ArrayAt(Spec(pod), field))) {
      if (c.is_object() && StringAt(c.get_object(), "name") == name) return &c.get_object();
    }
  }
  return nullptr;
}

EnvVars ContainerEnvironment(const Object& pod, const json::object& container, const Sources& sources) {
  EnvVars defined;
  for (const auto& from : Items(ArrayAt(container, "envFrom"))) {
    const json::object* source_ref = from.if_object();
    for (auto [field, kind] : {std::pair{"configMapRef", Kind::kConfigMap}, std::pair{"secretRef", Kind::kSecret}}) {
      const json::object* ref = ObjectAt(source_ref, field);
      if (!ref) continue;
      ObjectPtr source = sources.get(kind, pod.namespace_name(), StringAt(ref, "name"));
      if (!source) continue;
      const std::string prefix(StringAt(source_ref, "prefix"));
      for (auto& [key, value] : AllData(*source)) defined.emplace_back(prefix + key, std::move(value));
    }
  }
  const EnvVars services = ServiceLinks(pod, sources);
  for (const auto& var : Items(ArrayAt(container, "env"))) {
    const json::object* env = var.if_object();
    std::string name(StringAt(env, "name"));
    if (name.empty()) continue;
    if (const json::object* from = ObjectAt(env, "valueFrom")) {
      if (auto value = ValueFrom(pod, container, *from, sources)) defined.emplace_back(std::move(name), std::move(*value));
      continue;
    }
    // $(NAME) refers to what is defined before, then to the service links.
    EnvVars context = services;
    context.insert(context.end(), defined.begin(), defined.end());
    defined.emplace_back(std::move(name), ExpandReferences(StringAt(env, "value"), context));
  }
  EnvVars out{{"HOSTNAME", Hostname(pod)}};
  out.insert(out.end(), defined.begin(), defined.end());
  for (const auto& link : services) {
    if (!Defines(defined, link.first)) out.push_back(link);
  }
  return out;
}

EnvVars LiteralEnvironment(const json::object& container) {
  EnvVars defined;
  for (const auto& var : Items(ArrayAt(container, "env"))) {
    const json::object* env = var.if_object();
    if (!env || env->contains("valueFrom") || StringAt(env, "name").empty()) continue;
    defined.emplace_back(std::string(StringAt(env, "name")), ExpandReferences(StringAt(env, "value"), defined));
  }
  return defined;
}

}  // namespace berth::api::container
