#include "api/codec/json_parse.h"
#include "scheduler/extender/extender_wire.h"

#include <boost/json.hpp>
#include <cctype>
#include <cstdint>

namespace berth::scheduler {

namespace json = boost::json;

namespace {

void AppendString(std::string& out, std::string_view s) {
  out += json::serialize(json::string_view(s));
}

// Go's encoding/json matches a key to a field by name, exactly or else
// without regard to (ASCII) case.
const json::value* Field(const json::object& o, std::string_view name) {
  if (auto it = o.find(name); it != o.end()) return &it->value();
  for (const auto& entry : o) {
    std::string_view key = entry.key();
    if (key.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < key.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(key[i])) ==
             std::tolower(static_cast<unsigned char>(name[i]));
    }
    if (same) return &entry.value();
  }
  return nullptr;
}

bool IsNull(const json::value* v) { return !v || v->is_null(); }

Status TypeError(std::string_view what, std::string_view field, std::string_view expected) {
  return Status::Internal("decoding the extender's " + std::string(what) + ": " +
                          std::string(field) + " must be " + std::string(expected));
}

Result<json::value> Parse(std::string_view text, std::string_view what) {
  json::error_code ec;
  json::value v = api::ParseJson(text, ec);
  if (ec)
    return Status::Internal("decoding the extender's " + std::string(what) + ": " + ec.message());
  return v;
}

// A []string field: nullopt when null or absent.
Result<std::optional<std::vector<std::string>>> Strings(const json::value* v, std::string_view what,
                                                        std::string_view field) {
  if (IsNull(v)) return std::optional<std::vector<std::string>>();
  if (!v->is_array()) return TypeError(what, field, "a list of strings");
  std::vector<std::string> out;
  for (const auto& item : v->get_array()) {
    if (!item.is_string()) return TypeError(what, field, "a list of strings");
    out.emplace_back(item.get_string());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

// A map[string]string field, in the order written.
Status StringMap(const json::value* v, std::string_view what, std::string_view field,
                 std::vector<std::pair<std::string, std::string>>& out) {
  if (IsNull(v)) return Status::Ok();
  if (!v->is_object()) return TypeError(what, field, "a map of strings");
  for (const auto& entry : v->get_object()) {
    if (!entry.value().is_string()) return TypeError(what, field, "a map of strings");
    out.emplace_back(std::string(entry.key()), std::string(entry.value().get_string()));
  }
  return Status::Ok();
}

Result<int64_t> Int64(const json::value* v, std::string_view what, std::string_view field) {
  if (IsNull(v)) return int64_t{0};
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(v->get_uint64());
  return TypeError(what, field, "an integer");
}

Result<std::string> String(const json::value* v, std::string_view what, std::string_view field) {
  if (IsNull(v)) return std::string();
  if (!v->is_string()) return TypeError(what, field, "a string");
  return std::string(v->get_string());
}

}  // namespace

std::string EncodeExtenderArgs(const api::Object& pod, std::span<const NodeInfo* const> nodes,
                               bool node_names_only) {
  std::string out = "{\"Pod\":";
  out += pod.Encoded();
  if (node_names_only) {
    out += ",\"Nodes\":null,\"NodeNames\":[";
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i) out += ',';
      AppendString(out, nodes[i]->name());
    }
    out += "]}";
  } else {
    out += ",\"Nodes\":{\"metadata\":{},\"items\":[";
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i) out += ',';
      out += nodes[i]->node()->Encoded();
    }
    out += "]},\"NodeNames\":null}";
  }
  return out;
}

Result<ExtenderFilterResult> DecodeExtenderFilterResult(std::string_view text) {
  static constexpr std::string_view kWhat = "ExtenderFilterResult";
  auto parsed = Parse(text, kWhat);
  if (!parsed.ok()) return parsed.status();
  ExtenderFilterResult result;
  if (parsed->is_null()) return result;
  if (!parsed->is_object()) return TypeError(kWhat, "the answer", "an object");
  const json::object& o = parsed->get_object();
  if (const json::value* nodes = Field(o, "Nodes"); !IsNull(nodes)) {
    if (!nodes->is_object()) return TypeError(kWhat, "Nodes", "a NodeList");
    std::vector<std::string> names;
    const json::value* items = Field(nodes->get_object(), "items");
    if (!IsNull(items)) {
      if (!items->is_array()) return TypeError(kWhat, "Nodes.items", "a list of nodes");
      for (const auto& item : items->get_array()) {
        const json::value* metadata =
            item.is_object() ? Field(item.get_object(), "metadata") : nullptr;
        const json::value* name =
            metadata && metadata->is_object() ? Field(metadata->get_object(), "name") : nullptr;
        if (!name || !name->is_string())
          return TypeError(kWhat, "Nodes.items[].metadata.name", "a string");
        names.emplace_back(name->get_string());
      }
    }
    result.nodes = std::move(names);
  }
  auto names = Strings(Field(o, "NodeNames"), kWhat, "NodeNames");
  if (!names.ok()) return names.status();
  result.node_names = std::move(names).value();
  if (Status s = StringMap(Field(o, "FailedNodes"), kWhat, "FailedNodes", result.failed_nodes);
      !s.ok())
    return s;
  if (Status s = StringMap(Field(o, "FailedAndUnresolvableNodes"), kWhat,
                           "FailedAndUnresolvableNodes", result.failed_and_unresolvable_nodes);
      !s.ok()) {
    return s;
  }
  auto error = String(Field(o, "Error"), kWhat, "Error");
  if (!error.ok()) return error.status();
  result.error = std::move(error).value();
  return result;
}

Result<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view text) {
  static constexpr std::string_view kWhat = "HostPriorityList";
  auto parsed = Parse(text, kWhat);
  if (!parsed.ok()) return parsed.status();
  std::vector<HostPriority> out;
  if (parsed->is_null()) return out;
  if (!parsed->is_array()) return TypeError(kWhat, "the answer", "a list");
  for (const auto& item : parsed->get_array()) {
    if (!item.is_object()) return TypeError(kWhat, "each entry", "an object");
    auto host = String(Field(item.get_object(), "Host"), kWhat, "Host");
    if (!host.ok()) return host.status();
    auto score = Int64(Field(item.get_object(), "Score"), kWhat, "Score");
    if (!score.ok()) return score.status();
    out.push_back({std::move(host).value(), *score});
  }
  return out;
}

std::string EncodeExtenderBindingArgs(const api::Object& pod, const std::string& node) {
  std::string out = "{\"PodName\":";
  AppendString(out, pod.name());
  out += ",\"PodNamespace\":";
  AppendString(out, pod.namespace_name());
  out += ",\"PodUID\":";
  AppendString(out, pod.uid());
  out += ",\"Node\":";
  AppendString(out, node);
  out += '}';
  return out;
}

Result<std::string> DecodeExtenderBindingResult(std::string_view text) {
  static constexpr std::string_view kWhat = "ExtenderBindingResult";
  auto parsed = Parse(text, kWhat);
  if (!parsed.ok()) return parsed.status();
  if (parsed->is_null()) return std::string();
  if (!parsed->is_object()) return TypeError(kWhat, "the answer", "an object");
  return String(Field(parsed->get_object(), "Error"), kWhat, "Error");
}

std::string EncodeExtenderPreemptionArgs(
    const api::Object& pod, std::span<const std::pair<std::string, PreemptionVictims>> candidates,
    bool meta_victims) {
  std::string out = "{\"Pod\":";
  out += pod.Encoded();
  out += meta_victims ? ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
                      : ",\"NodeNameToVictims\":{";
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& [node, victims] = candidates[i];
    if (i) out += ',';
    AppendString(out, node);
    out += ":{\"Pods\":[";
    for (size_t j = 0; j < victims.pods.size(); ++j) {
      if (j) out += ',';
      if (meta_victims) {
        out += "{\"UID\":";
        AppendString(out, victims.pods[j]->uid());
        out += '}';
      } else {
        out += victims.pods[j]->object->Encoded();
      }
    }
    out += "],\"NumPDBViolations\":" + std::to_string(victims.pdb_violations) + "}";
  }
  out += meta_victims ? "}}" : "},\"NodeNameToMetaVictims\":null}";
  return out;
}

Result<std::vector<std::pair<std::string, MetaVictims>>> DecodeExtenderPreemptionResult(
    std::string_view text) {
  static constexpr std::string_view kWhat = "ExtenderPreemptionResult";
  auto parsed = Parse(text, kWhat);
  if (!parsed.ok()) return parsed.status();
  std::vector<std::pair<std::string, MetaVictims>> out;
  if (parsed->is_null()) return out;
  if (!parsed->is_object()) return TypeError(kWhat, "the answer", "an object");
  const json::value* map = Field(parsed->get_object(), "NodeNameToMetaVictims");
  if (IsNull(map)) return out;
  if (!map->is_object()) return TypeError(kWhat, "NodeNameToMetaVictims", "a map");
  for (const auto& entry : map->get_object()) {
    MetaVictims victims;
    if (!entry.value().is_null()) {
      if (!entry.value().is_object())
        return TypeError(kWhat, "NodeNameToMetaVictims[]", "an object");
      const json::object& v = entry.value().get_object();
      auto violations = Int64(Field(v, "NumPDBViolations"), kWhat, "NumPDBViolations");
      if (!violations.ok()) return violations.status();
      victims.pdb_violations = *violations;
      const json::value* pods = Field(v, "Pods");
      if (!IsNull(pods)) {
        if (!pods->is_array()) return TypeError(kWhat, "Pods", "a list");
        for (const auto& p : pods->get_array()) {
          if (p.is_null()) continue;
          if (!p.is_object()) return TypeError(kWhat, "Pods[]", "an object");
          auto uid = String(Field(p.get_object(), "UID"), kWhat, "UID");
          if (!uid.ok()) return uid.status();
          victims.pod_uids.push_back(std::move(uid).value());
        }
      }
    }
    out.emplace_back(std::string(entry.key()), std::move(victims));
  }
  return out;
}

}  // namespace berth::scheduler
