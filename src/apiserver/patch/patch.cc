#include "api/codec/json_parse.h"
#include "apiserver/patch/patch.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// ---- JSON Patch (RFC 6902) ----

Result<std::vector<std::string>> ParsePointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return Status::BadRequest("invalid JSON pointer \"" + std::string(pointer) + "\"");
  size_t pos = 1;
  while (true) {
    size_t slash = pointer.find('/', pos);
    std::string_view raw = pointer.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += raw[i];
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
  return tokens;
}

std::optional<size_t> ArrayIndex(const std::string& token, size_t size, bool allow_end) {
  if (allow_end && token == "-") return size;
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
    if (index > size + 1) return std::nullopt;
  }
  if (index > size || (!allow_end && index == size)) return std::nullopt;
  return index;
}

Status PathError(std::string_view op, std::string_view path) {
  return Status::Invalid("the server rejected our request due to an error in our request: " +
                         std::string(op) + " operation does not apply: doc is missing path: \"" +
                         std::string(path) + "\"");
}

// move's and copy's: their source ("from") or destination is missing.
Status MissingPathError(std::string_view op, std::string_view which, std::string_view path) {
  return Status::Invalid("the server rejected our request due to an error in our request: " +
                         std::string(op) + " operation does not apply: doc is missing " + std::string(which) +
                         " path: " + std::string(path));
}

// Follows all but the last token; nullptr when the path does not exist.
json::value* Parent(json::value& doc, const std::vector<std::string>& tokens) {
  json::value* cur = &doc;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (cur->is_object()) {
      auto it = cur->get_object().find(tokens[i]);
      if (it == cur->get_object().end()) return nullptr;
      cur = &it->value();
    } else if (cur->is_array()) {
      auto idx = ArrayIndex(tokens[i], cur->get_array().size(), false);
      if (!idx) return nullptr;
      cur = &cur->get_array()[*idx];
    } else {
      return nullptr;
    }
  }
  return cur;
}

json::value* Resolve(json::value& doc, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return &doc;
  json::value* parent = Parent(doc, tokens);
  if (!parent) return nullptr;
  if (parent->is_object()) {
    auto it = parent->get_object().find(tokens.back());
    return it == parent->get_object().end() ? nullptr : &it->value();
  }
  if (parent->is_array()) {
    auto idx = ArrayIndex(tokens.back(), parent->get_array().size(), false);
    return idx ? &parent->get_array()[*idx] : nullptr;
  }
  return nullptr;
}

Status Remove(json::value& doc, const std::vector<std::string>& tokens, std::string_view path, json::value* removed) {
  if (tokens.empty()) return PathError("remove", path);
  json::value* parent = Parent(doc, tokens);
  if (parent && parent->is_object()) {
    auto it = parent->get_object().find(tokens.back());
    if (it == parent->get_object().end()) return PathError("remove", path);
    if (removed) *removed = it->value();
    parent->get_object().erase(it);
    return Status::Ok();
  }
  if (parent && parent->is_array()) {
    auto idx = ArrayIndex(tokens.back(), parent->get_array().size(), false);
    if (!idx) return PathError("remove", path);
    if (removed) *removed = parent->get_array()[*idx];
    parent->get_array().erase(parent->get_array().begin() + static_cast<ptrdiff_t>(*idx));
    return Status::Ok();
  }
  return PathError("remove", path);
}

Status Add(json::value& doc, const std::vector<std::string>& tokens, std::string_view path, json::value value) {
  if (tokens.empty()) {
    doc = std::move(value);
    return Status::Ok();
  }
  json::value* parent = Parent(doc, tokens);
  if (parent && parent->is_object()) {
    parent->get_object()[tokens.back()] = std::move(value);
    return Status::Ok();
  }
  if (parent && parent->is_array()) {
    auto idx = ArrayIndex(tokens.back(), parent->get_array().size(), true);
    if (!idx) return PathError("add", path);
    parent->get_array().insert(parent->get_array().begin() + static_cast<ptrdiff_t>(*idx), std::move(value));
    return Status::Ok();
  }
  return PathError("add", path);
}

Result<json::value> ApplyJsonPatch(const json::value& original, std::string_view text) {
  json::error_code ec;
  json::value patch = api::ParseJson(text, ec);
  if (ec || !patch.is_array()) {
    return Status::BadRequest("json: cannot unmarshal the patch into a JSON Patch operation list");
  }
  json::value doc = original;
  for (const auto& op_value : patch.get_array()) {
    if (!op_value.is_object()) return Status::BadRequest("a JSON Patch operation must be an object");
    const json::object& op = op_value.get_object();
    auto str = [&](std::string_view key) -> std::string {
      auto it = op.find(key);
      return it != op.end() && it->value().is_string() ? std::string(it->value().get_string()) : "";
    };
    std::string name = str("op"), path = str("path");
    if (!op.contains("path")) return Status::BadRequest("JSON Patch operation \"" + name + "\" is missing \"path\"");
    auto tokens = ParsePointer(path);
    if (!tokens.ok()) return tokens.status();
    const json::value* value = op.if_contains("value");
    Status s;
    if (name == "add" || name == "replace" || name == "test") {
      if (!value) return Status::BadRequest("JSON Patch operation \"" + name + "\" is missing \"value\"");
    }
    if (name == "add") {
      s = Add(doc, *tokens, path, *value);
    } else if (name == "remove") {
      s = Remove(doc, *tokens, path, nullptr);
    } else if (name == "replace") {
      json::value* target = Resolve(doc, *tokens);
      if (!target) return PathError("replace", path);
      *target = *value;
    } else if (name == "move" || name == "copy") {
      std::string from = str("from");
      auto from_tokens = ParsePointer(from);
      if (!from_tokens.ok()) return from_tokens.status();
      json::value* source = Resolve(doc, *from_tokens);
      if (!source) return MissingPathError(name, "from", from);
      json::value moved;
      if (name == "move") {
        s = Remove(doc, *from_tokens, from, &moved);
      } else {
        moved = *source;
      }
      if (s.ok() && !Add(doc, *tokens, path, std::move(moved)).ok()) {
        return MissingPathError(name, "destination", path);
      }
    } else if (name == "test") {
      json::value* target = Resolve(doc, *tokens);
      if (!target || *target != *value) {
        return Status::Invalid("the server rejected our request due to an error in our request: "
                               "testing value " + path + " failed");
      }
    } else {
      return Status::BadRequest("Unexpected kind: " + name);
    }
    if (!s.ok()) return s;
  }
  return doc;
}

// ---- JSON Merge Patch (RFC 7386) ----

json::value MergePatch(const json::value& target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  json::value result = target.is_object() ? target : json::value(json::object());
  json::object& r = result.get_object();
  for (const auto& kv : patch.get_object()) {
    if (kv.value().is_null()) {
      r.erase(kv.key());
    } else {
      const json::value* current = r.if_contains(kv.key());
      r[kv.key()] = MergePatch(current ? *current : json::value(nullptr), kv.value());
    }
  }
  return result;
}

// ---- Strategic merge patch ----

// patchMergeKey / patchStrategy of the lists in berth's kinds (k8s.io/api types),
// by field path relative to a pod spec, or absolute.
ListStrategy PodSpecListStrategy(std::string_view rel) {
  static const std::map<std::string_view, std::string_view> kKeys = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"containers.ports", "containerPort"},
      {"initContainers.ports", "containerPort"},
      {"containers.env", "name"},
      {"initContainers.env", "name"},
      {"containers.volumeMounts", "mountPath"},
      {"initContainers.volumeMounts", "mountPath"},
      {"containers.volumeDevices", "devicePath"},
      {"initContainers.volumeDevices", "devicePath"},
      {"containers.resizePolicy", "resourceName"},
      {"volumes", "name"},
      {"imagePullSecrets", "name"},
      {"hostAliases", "ip"},
      {"topologySpreadConstraints", "topologyKey"},
      {"resourceClaims", "name"},
      {"schedulingGates", "name"},
  };
  auto it = kKeys.find(rel);
  if (it == kKeys.end()) return {};
  return {ListStrategy::kMergeByKey, std::string(it->second)};
}

std::string Join(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string s(path);
  s += '.';
  s += key;
  return s;
}

const json::value* KeyOf(const json::value& element, const std::string& key) {
  return element.is_object() ? element.get_object().if_contains(key) : nullptr;
}

Result<json::value> Strategic(api::Kind kind, const json::value& original, const json::value& patch,
                              const std::string& path);

Result<json::value> MergeList(api::Kind kind, const json::value& original, const json::array& patch,
                              const std::string& path) {
  ListStrategy strategy = LookupListStrategy(kind, path);
  json::array result = original.is_array() ? original.get_array() : json::array();
  if (strategy.kind == ListStrategy::kReplace) {
    json::array out;
    for (const auto& e : patch) {
      if (e.is_object() && e.get_object().contains("$patch")) continue;
      out.push_back(e);
    }
    return json::value(std::move(out));
  }
  if (strategy.kind == ListStrategy::kMergePrimitive) {
    for (const auto& e : patch) {
      if (std::find(result.begin(), result.end(), e) == result.end()) result.push_back(e);
    }
    return json::value(std::move(result));
  }
  // Merge by key.
  for (const auto& e : patch) {
    if (e.is_object()) {
      const json::object& eo = e.get_object();
      auto directive = eo.find("$patch");
      if (directive != eo.end() && directive->value() == "replace") {
        json::array out;
        for (const auto& other : patch) {
          if (!(other.is_object() && other.get_object().contains("$patch"))) out.push_back(other);
        }
        return json::value(std::move(out));
      }
      const json::value* key = KeyOf(e, strategy.key);
      if (!key) {
        return Status::BadRequest("map: " + json::serialize(e) + " does not contain declared merge key: " + strategy.key);
      }
      auto match = std::find_if(result.begin(), result.end(), [&](const json::value& o) {
        const json::value* k = KeyOf(o, strategy.key);
        return k && *k == *key;
      });
      if (directive != eo.end() && directive->value() == "delete") {
        if (match != result.end()) result.erase(match);
        continue;
      }
      if (match != result.end()) {
        auto merged = Strategic(kind, *match, e, path);
        if (!merged.ok()) return merged.status();
        *match = std::move(merged).value();
      } else {
        auto fresh = Strategic(kind, json::value(json::object()), e, path);
        if (!fresh.ok()) return fresh.status();
        result.push_back(std::move(fresh).value());
      }
    } else {
      return Status::BadRequest("a list merged by key \"" + strategy.key + "\" must hold objects (at " + path + ")");
    }
  }
  return json::value(std::move(result));
}

// Orders `list` by `order` (elements or their merge keys); elements not named keep their order after.
void ApplyElementOrder(api::Kind kind, json::value& list, const json::array& order, const std::string& path) {
  if (!list.is_array()) return;
  ListStrategy strategy = LookupListStrategy(kind, path);
  json::array& items = list.get_array();
  json::array sorted;
  std::vector<bool> used(items.size(), false);
  for (const auto& want : order) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (used[i]) continue;
      bool same = strategy.kind == ListStrategy::kMergeByKey
                      ? (KeyOf(items[i], strategy.key) && KeyOf(want, strategy.key) &&
                         *KeyOf(items[i], strategy.key) == *KeyOf(want, strategy.key))
                      : items[i] == want;
      if (same) {
        sorted.push_back(items[i]);
        used[i] = true;
        break;
      }
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (!used[i]) sorted.push_back(items[i]);
  }
  items = std::move(sorted);
}

Result<json::value> Strategic(api::Kind kind, const json::value& original, const json::value& patch,
                              const std::string& path) {
  if (!patch.is_object()) return patch;
  const json::object& p = patch.get_object();
  if (auto d = p.find("$patch"); d != p.end()) {
    if (d->value() == "replace") {
      json::object out = p;
      out.erase("$patch");
      return json::value(std::move(out));
    }
    if (d->value() == "delete") return json::value(nullptr);
    if (d->value() != "merge") {
      return Status::BadRequest("unknown patch type: " + json::serialize(d->value()) + " in map: " + json::serialize(patch));
    }
  }
  json::value result = original.is_object() ? original : json::value(json::object());
  json::object& r = result.get_object();
  std::vector<std::pair<std::string, json::array>> orders;
  for (const auto& kv : p) {
    std::string_view key = kv.key();
    if (key == "$patch" || key == "$retainKeys") continue;
    constexpr std::string_view kOrder = "$setElementOrder/";
    constexpr std::string_view kDeletePrimitive = "$deleteFromPrimitiveList/";
    if (key.starts_with(kOrder)) {
      if (kv.value().is_array()) orders.emplace_back(std::string(key.substr(kOrder.size())), kv.value().get_array());
      continue;
    }
    if (key.starts_with(kDeletePrimitive)) {
      std::string field(key.substr(kDeletePrimitive.size()));
      if (auto it = r.find(field); it != r.end() && it->value().is_array() && kv.value().is_array()) {
        json::array& list = it->value().get_array();
        for (const auto& gone : kv.value().get_array()) {
          list.erase(std::remove(list.begin(), list.end(), gone), list.end());
        }
      }
      continue;
    }
    if (key.starts_with("$")) return Status::BadRequest("unknown strategic merge patch directive \"" + std::string(key) + "\"");
    std::string child = Join(path, key);
    if (kv.value().is_null()) {
      r.erase(key);
      continue;
    }
    const json::value* current = r.if_contains(key);
    json::value base = current ? *current : json::value(nullptr);
    Result<json::value> merged = kv.value().is_array() ? MergeList(kind, base, kv.value().get_array(), child)
                                                       : Strategic(kind, base, kv.value(), child);
    if (!merged.ok()) return merged.status();
    if (merged->is_null() && kv.value().is_object()) {
      r.erase(key);  // $patch: delete
    } else {
      r[key] = std::move(merged).value();
    }
  }
  for (auto& [field, order] : orders) {
    if (auto it = r.find(field); it != r.end()) ApplyElementOrder(kind, it->value(), order, Join(path, field));
  }
  if (auto retain = p.find("$retainKeys"); retain != p.end() && retain->value().is_array()) {
    std::vector<std::string> keep;
    for (const auto& k : retain->value().get_array()) {
      if (k.is_string()) keep.emplace_back(k.get_string());
    }
    std::vector<std::string> drop;
    for (const auto& kv : r) {
      if (std::find(keep.begin(), keep.end(), kv.key()) == keep.end()) drop.emplace_back(kv.key());
    }
    for (const auto& k : drop) r.erase(k);
  }
  return result;
}

}  // namespace

ListStrategy LookupListStrategy(api::Kind kind, std::string_view path) {
  if (path == "metadata.finalizers") return {ListStrategy::kMergePrimitive, ""};
  if (path == "metadata.ownerReferences") return {ListStrategy::kMergeByKey, "uid"};
  if (path == "status.conditions") return {ListStrategy::kMergeByKey, "type"};
  // kube's patchStrategy/patchMergeKey of the lists outside pod specs.
  struct KindList {
    api::Kind kind;
    std::string_view path;
    ListStrategy strategy;
  };
  static const KindList kKindLists[] = {
      {api::Kind::kNode, "status.addresses", {ListStrategy::kMergeByKey, "type"}},
      {api::Kind::kNode, "spec.podCIDRs", {ListStrategy::kMergePrimitive, ""}},
      {api::Kind::kPod, "status.podIPs", {ListStrategy::kMergeByKey, "ip"}},
      {api::Kind::kService, "spec.ports", {ListStrategy::kMergeByKey, "port"}},
  };
  for (const auto& list : kKindLists) {
    if (list.kind == kind && list.path == path) return list.strategy;
  }
  if (!api::IsBuiltin(kind)) return {};
  std::string_view pod_spec = api::Info(kind).pod_spec_path;
  if (!pod_spec.empty() && path.size() > pod_spec.size() + 1 && path.starts_with(pod_spec) &&
      path[pod_spec.size()] == '.') {
    return PodSpecListStrategy(path.substr(pod_spec.size() + 1));
  }
  return {};
}

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  if (media == "application/json-patch+json") return PatchType::kJson;
  if (media == "application/merge-patch+json") return PatchType::kMerge;
  if (media == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (media == "application/apply-patch+yaml") return PatchType::kApplyYaml;
  return std::nullopt;
}

Result<json::value> ApplyPatch(PatchType type, api::Kind kind, const json::value& original,
                               std::string_view patch) {
  if (type == PatchType::kApplyYaml) {
    return Status(StatusCode::kUnsupportedMediaType,
                  "server-side apply (application/apply-patch+yaml) is not supported; use client-side kubectl apply");
  }
  if (type == PatchType::kJson) return ApplyJsonPatch(original, patch);
  json::error_code ec;
  json::value body = api::ParseJson(patch, ec);
  if (ec) return Status::BadRequest("error decoding patch: " + ec.message());
  if (!body.is_object()) return Status::BadRequest("the patch must be a JSON object");
  if (type == PatchType::kMerge) return MergePatch(original, body);
  return Strategic(kind, original, body, "");
}

}  // namespace berth::apiserver
