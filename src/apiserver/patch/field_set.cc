#include "apiserver/patch/field_set.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "api/codec/json_parse.h"
#include "apiserver/patch/patch.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kFieldPrefix = "f:";
constexpr std::string_view kKeyPrefix = "k:";
constexpr std::string_view kValuePrefix = "v:";

// Fields the server sets; nobody owns them (kube's stripped metadata).
bool ServerOwnedMetadata(std::string_view field) {
  static constexpr std::string_view kFields[] = {"name",
                                                 "namespace",
                                                 "uid",
                                                 "resourceVersion",
                                                 "generation",
                                                 "creationTimestamp",
                                                 "selfLink",
                                                 "managedFields",
                                                 "deletionTimestamp",
                                                 "deletionGracePeriodSeconds"};
  return std::find(std::begin(kFields), std::end(kFields), field) != std::end(kFields);
}

// Objects kube treats as one value (structType=atomic).
bool AtomicObject(api::Kind kind, std::string_view schema_path) {
  // The workloads' selectors (a ReplicationController's map too: mapType=atomic).
  if (schema_path != "spec.selector" || !api::IsBuiltin(kind)) return false;
  return api::Info(kind).pod_spec_path == "spec.template.spec";
}

std::string Join(std::string_view path, std::string_view field) {
  if (path.empty()) return std::string(field);
  std::string s(path);
  s += '.';
  s += field;
  return s;
}

// The value of a key field; a port's protocol defaults to TCP, as kube's
// defaulting guarantees before keys are compared.
const json::value* KeyValue(const json::object& item, const std::string& key) {
  static const json::value kTcp("TCP");
  if (const json::value* v = item.if_contains(key)) return v;
  if (key == "protocol") return &kTcp;
  return nullptr;
}

// "k:{...}" for `item`, keys in sorted order; empty when a key is missing.
std::string ItemKey(const json::value& item, const std::vector<std::string>& keys) {
  if (!item.is_object()) return {};
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  json::object key;
  for (const auto& k : sorted) {
    const json::value* v = KeyValue(item.get_object(), k);
    if (!v) return {};
    key[k] = *v;
  }
  return std::string(kKeyPrefix) + json::serialize(key);
}

bool MatchesKey(const json::value& item, const json::object& key) {
  if (!item.is_object()) return false;
  for (const auto& [k, v] : key) {
    const json::value* have = KeyValue(item.get_object(), std::string(k));
    if (!have || *have != v) return false;
  }
  return true;
}

// Index of the list item an element names, or -1.
ptrdiff_t FindItem(const json::array& list, std::string_view element) {
  json::error_code ec;
  json::value parsed = api::ParseJson(element.substr(2), ec);
  if (ec) return -1;
  for (size_t i = 0; i < list.size(); ++i) {
    bool match = element.starts_with(kKeyPrefix)
                     ? parsed.is_object() && MatchesKey(list[i], parsed.get_object())
                     : list[i] == parsed;
    if (match) return static_cast<ptrdiff_t>(i);
  }
  return -1;
}

class Walker {
 public:
  Walker(const FieldOwnership& ownership, FieldSet& out) : ownership_(ownership), out_(out) {}

  void Fields(const json::object& object, const std::string& schema_path) {
    for (const auto& [field, child] : object) Field(field, child, schema_path);
  }

  void Field(std::string_view field, const json::value& value, const std::string& schema_path) {
    path_.push_back(std::string(kFieldPrefix) + std::string(field));
    Value(value, Join(schema_path, field));
    path_.pop_back();
  }

  void Enter(std::string_view field) {
    path_.push_back(std::string(kFieldPrefix) + std::string(field));
  }
  void Leave() { path_.pop_back(); }

  void Value(const json::value& value, const std::string& schema_path) {
    if (value.is_null()) return;  // an explicit null sets nothing
    if (value.is_object()) {
      if (value.get_object().empty() || AtomicObject(ownership_.kind, schema_path)) {
        out_.Insert(path_);
      } else {
        Fields(value.get_object(), schema_path);
      }
      return;
    }
    if (!value.is_array()) {
      out_.Insert(path_);
      return;
    }
    const json::array& list = value.get_array();
    ListKeys keys = ownership_.ListKeysAt(schema_path);
    if (list.empty() || keys.type == ListKeys::kAtomic) {
      out_.Insert(path_);
      return;
    }
    if (keys.type == ListKeys::kSet) {
      for (const auto& item : list) {
        path_.push_back(std::string(kValuePrefix) + json::serialize(item));
        out_.Insert(path_);
        path_.pop_back();
      }
      return;
    }
    std::vector<std::string> item_keys;
    for (const auto& item : list) {
      item_keys.push_back(ItemKey(item, keys.keys));
      if (item_keys.back().empty()) {  // not keyed after all: one value
        out_.Insert(path_);
        return;
      }
    }
    for (size_t i = 0; i < list.size(); ++i) {
      path_.push_back(item_keys[i]);
      out_.Insert(path_);
      Fields(list[i].get_object(), schema_path);
      path_.pop_back();
    }
  }

 private:
  const FieldOwnership& ownership_;
  FieldSet& out_;
  FieldPath path_;
};

struct Node {
  bool member = false;
  std::map<std::string, Node> children;
};

json::value Encode(const Node& node) {
  json::object out;
  if (node.member && !node.children.empty()) out["."] = json::object();
  for (const auto& [element, child] : node.children) out[element] = Encode(child);
  return out;
}

void Decode(const json::value& node, FieldPath& prefix, FieldSet& out) {
  if (!node.is_object()) return;
  const json::object& o = node.get_object();
  if (o.empty() && !prefix.empty()) {
    out.Insert(prefix);
    return;
  }
  for (const auto& [element, child] : o) {
    if (element == ".") {
      if (!prefix.empty()) out.Insert(prefix);
      continue;
    }
    prefix.push_back(std::string(element));
    Decode(child, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

FieldSet FieldSet::FromFieldsV1(const json::value& fields) {
  FieldSet set;
  FieldPath prefix;
  Decode(fields, prefix, set);
  return set;
}

json::value FieldSet::ToFieldsV1() const {
  Node root;
  for (const auto& path : paths_) {
    Node* node = &root;
    for (const auto& element : path) node = &node->children[element];
    node->member = true;
  }
  return Encode(root);
}

bool FieldSet::ContainsPrefix(const FieldPath& path) const {
  auto it = paths_.lower_bound(path);
  return it != paths_.end() && it->size() >= path.size() &&
         std::equal(path.begin(), path.end(), it->begin());
}

FieldSet FieldSet::Difference(const FieldSet& other) const {
  FieldSet out;
  std::set_difference(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                      std::inserter(out.paths_, out.paths_.end()));
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  std::set_intersection(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                        std::inserter(out.paths_, out.paths_.end()));
  return out;
}

FieldSet FieldSet::Union(const FieldSet& other) const {
  FieldSet out = *this;
  out.paths_.insert(other.paths_.begin(), other.paths_.end());
  return out;
}

ListKeys FieldOwnership::ListKeysAt(std::string_view schema_path) const {
  if (schema_list_type) {
    auto [type, keys] = schema_list_type(schema_path);
    if (type == "map" && !keys.empty()) return {ListKeys::kMap, std::move(keys)};
    if (type == "set") return {ListKeys::kSet, {}};
    if (type == "atomic") return {};
  }
  ListStrategy strategy = LookupListStrategy(kind, schema_path);
  if (strategy.kind == ListStrategy::kMergePrimitive) return {ListKeys::kSet, {}};
  if (strategy.kind == ListStrategy::kMergeByKey) {
    // Lists whose SSA keys are more than the patch merge key.
    if (schema_path.ends_with("ontainers.ports")) return {ListKeys::kMap, {"containerPort", "protocol"}};
    if (schema_path == "spec.ports" && strategy.key == "port") return {ListKeys::kMap, {"port", "protocol"}};
    if (schema_path.ends_with("topologySpreadConstraints")) {
      return {ListKeys::kMap, {"topologyKey", "whenUnsatisfiable"}};
    }
    return {ListKeys::kMap, {strategy.key}};
  }
  return {};
}

FieldSet FieldsOf(const FieldOwnership& ownership, const json::object& object) {
  FieldSet set;
  Walker walker(ownership, set);
  for (const auto& [field, value] : object) {
    if (field == "apiVersion" || field == "kind") continue;
    if (field == "status" && ownership.status_is_subresource) continue;
    if (field == "metadata" && value.is_object()) {
      walker.Enter("metadata");
      for (const auto& [meta_field, meta_value] : value.get_object()) {
        if (!ServerOwnedMetadata(meta_field)) walker.Field(meta_field, meta_value, "metadata");
      }
      walker.Leave();
      continue;
    }
    walker.Field(field, value, "");
  }
  return set;
}

namespace {

const json::value* Descend(const json::value* cur, const FieldPath& path, size_t from) {
  for (size_t i = from; i < path.size(); ++i) {
    const std::string& element = path[i];
    if (element.starts_with(kFieldPrefix)) {
      if (!cur->is_object()) return nullptr;
      cur = cur->get_object().if_contains(std::string_view(element).substr(2));
      if (!cur) return nullptr;
    } else {
      if (!cur->is_array()) return nullptr;
      ptrdiff_t index = FindItem(cur->get_array(), element);
      if (index < 0) return nullptr;
      cur = &cur->get_array()[static_cast<size_t>(index)];
    }
  }
  return cur;
}

}  // namespace

const json::value* ValueAt(const json::value& root, const FieldPath& path) {
  return Descend(&root, path, 0);
}

const json::value* ValueAt(const json::object& root, const FieldPath& path) {
  if (path.empty() || !path[0].starts_with(kFieldPrefix)) return nullptr;
  const json::value* first = root.if_contains(std::string_view(path[0]).substr(2));
  return first ? Descend(first, path, 1) : nullptr;
}

void RemoveAt(json::value& root, const FieldPath& path) {
  if (path.empty()) return;
  FieldPath parent_path(path.begin(), path.end() - 1);
  json::value* parent = const_cast<json::value*>(ValueAt(root, parent_path));
  if (!parent) return;
  const std::string& last = path.back();
  if (last.starts_with(kFieldPrefix)) {
    if (parent->is_object()) parent->get_object().erase(std::string_view(last).substr(2));
    return;
  }
  if (!parent->is_array()) return;
  ptrdiff_t index = FindItem(parent->get_array(), last);
  if (index >= 0) parent->get_array().erase(parent->get_array().begin() + index);
}

std::string PathString(const FieldPath& path) {
  std::string out;
  for (const auto& element : path) {
    std::string_view rest = std::string_view(element).substr(2);
    if (element.starts_with(kFieldPrefix)) {
      out += '.';
      out += rest;
    } else if (element.starts_with(kValuePrefix)) {
      out += "[=";
      out += rest;
      out += ']';
    } else {
      json::error_code ec;
      json::value key = api::ParseJson(rest, ec);
      out += '[';
      if (!ec && key.is_object()) {
        bool first = true;
        for (const auto& [k, v] : key.get_object()) {
          if (!first) out += ',';
          first = false;
          out += std::string(k) + "=" + json::serialize(v);
        }
      } else {
        out += rest;
      }
      out += ']';
    }
  }
  return out;
}

}  // namespace berth::apiserver
