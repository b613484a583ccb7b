#include "apiserver/crd/structural_schema.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cmath>
#include <set>
#include <utility>

#include "apiserver/crd/schema_node.h"

namespace berth::apiserver::crd {

namespace json = boost::json;
using Node = Schema::Node;

namespace {

// Where a node sits, for kube's "type must not be empty ..." messages.
enum class Level { kRoot, kItems, kField };

// Keywords of apiextensions/v1 JSONSchemaProps berth reads or deliberately ignores.
constexpr std::array<std::string_view, 37> kKeywords = {"type",
                                                        "format",
                                                        "title",
                                                        "description",
                                                        "default",
                                                        "example",
                                                        "externalDocs",
                                                        "$schema",
                                                        "nullable",
                                                        "enum",
                                                        "maximum",
                                                        "exclusiveMaximum",
                                                        "minimum",
                                                        "exclusiveMinimum",
                                                        "multipleOf",
                                                        "maxLength",
                                                        "minLength",
                                                        "pattern",
                                                        "maxItems",
                                                        "minItems",
                                                        "uniqueItems",
                                                        "maxProperties",
                                                        "minProperties",
                                                        "required",
                                                        "properties",
                                                        "additionalProperties",
                                                        "items",
                                                        "allOf",
                                                        "anyOf",
                                                        "oneOf",
                                                        "not",
                                                        "x-kubernetes-preserve-unknown-fields",
                                                        "x-kubernetes-int-or-string",
                                                        "x-kubernetes-embedded-resource",
                                                        "x-kubernetes-list-type",
                                                        "x-kubernetes-list-map-keys",
                                                        "x-kubernetes-map-type"};

// Keywords kube refuses in a CRD schema, with its message for each.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kUnsupported = {{
    {"id", "id is not supported"},
    {"additionalItems", "additionalItems is not supported"},
    {"patternProperties", "patternProperties is not supported"},
    {"definitions", "definitions is not supported"},
    {"dependencies", "dependencies is not supported"},
    {"$ref", "$ref is not supported"},
}};

const std::vector<std::string> kTypes = {"array",  "boolean", "integer",
                                         "number", "object",  "string"};
const std::set<std::string_view> kMetaFields = {"apiVersion", "kind", "metadata"};

bool IsIntOrStringAnyOf(const json::value* any_of) {
  if (any_of == nullptr || !any_of->is_array() || any_of->get_array().size() != 2) return false;
  const json::array& a = any_of->get_array();
  return a[0] == json::value{{"type", "integer"}} && a[1] == json::value{{"type", "string"}};
}

void PruneValue(json::value& x, const Node* s, bool resource, const std::string& path,
                std::vector<std::string>* pruned);

// Parses one JSONSchemaProps object after another, appending kube's field
// errors. One per Parse call.
class Parser {
 public:
  explicit Parser(api::FieldErrors& errors) : errors_(errors) {}

  struct Context {
    Level level = Level::kField;
    // Inside anyOf/allOf/oneOf/not: value validations only.
    bool nested = false;
    // Controller-gen's int-or-string anyOf: exempt from the nested rules.
    bool exempt = false;
    // Why a default is not allowed here ("" when it is).
    std::string defaults_forbidden;
  };

  std::unique_ptr<Node> ParseNode(const json::value& v, const std::string& path,
                                  const Context& ctx) {
    auto node = std::make_unique<Node>();
    if (!v.is_object()) {
      errors_.InvalidValue(path, v, "must be an object");
      return node;
    }
    const json::object& o = v.as_object();
    for (const auto& kv : o) {
      const std::string_view key = kv.key();
      if (std::find(kKeywords.begin(), kKeywords.end(), key) != kKeywords.end()) continue;
      if (key == "x-kubernetes-validations") continue;  // CEL: accepted, not evaluated
      auto unsupported = std::find_if(kUnsupported.begin(), kUnsupported.end(),
                                      [&](const auto& u) { return u.first == key; });
      if (unsupported != kUnsupported.end()) {
        errors_.Forbidden(path + "." + std::string(key), unsupported->second);
      } else {
        errors_.Forbidden(path + "." + std::string(key), "unknown field");
      }
    }

    node->type = String(o, "type", path);
    node->format = String(o, "format", path);
    node->nullable = Bool(o, "nullable", path);
    node->int_or_string = Bool(o, "x-kubernetes-int-or-string", path);
    node->embedded_resource = Bool(o, "x-kubernetes-embedded-resource", path);
    if (const json::value* p = o.if_contains("x-kubernetes-preserve-unknown-fields")) {
      if (!p->is_bool()) {
        errors_.InvalidValue(path + ".x-kubernetes-preserve-unknown-fields", *p,
                             "must be a boolean");
      } else if (!p->get_bool()) {
        errors_.InvalidValue(path + ".x-kubernetes-preserve-unknown-fields", *p,
                             "must be true or undefined");
      } else {
        node->preserve_unknown_fields = true;
      }
    }
    if (const json::value* d = o.if_contains("default")) node->default_value = *d;
    if (const json::value* e = o.if_contains("enum")) {
      if (!e->is_array()) {
        errors_.InvalidValue(path + ".enum", *e, "must be an array");
      } else {
        node->enum_values.emplace(e->get_array().begin(), e->get_array().end());
      }
    }
    node->maximum = Number(o, "maximum", path);
    node->minimum = Number(o, "minimum", path);
    node->exclusive_maximum = Bool(o, "exclusiveMaximum", path);
    node->exclusive_minimum = Bool(o, "exclusiveMinimum", path);
    node->multiple_of = Number(o, "multipleOf", path);
    node->max_length = Count(o, "maxLength", path);
    node->min_length = Count(o, "minLength", path);
    node->max_items = Count(o, "maxItems", path);
    node->min_items = Count(o, "minItems", path);
    node->max_properties = Count(o, "maxProperties", path);
    node->min_properties = Count(o, "minProperties", path);
    node->unique_items = Bool(o, "uniqueItems", path);
    node->required = StringList(o, "required", path);
    node->list_type = String(o, "x-kubernetes-list-type", path);
    node->list_map_keys = StringList(o, "x-kubernetes-list-map-keys", path);
    const std::string map_type = String(o, "x-kubernetes-map-type", path);
    node->pattern = String(o, "pattern", path);
    if (!node->pattern.empty()) {
      if (auto re = api::GoRegexp::Compile(node->pattern); re.ok()) {
        node->pattern_regex.emplace(std::move(re).value());
      } else {
        errors_.Invalid(path + ".pattern", node->pattern,
                        "must be a valid regular expression, but isn't: " + re.status().message());
      }
    }

    CheckKeywords(*node, o, map_type, path, ctx);
    ParseChildren(*node, o, path, ctx);
    if (ctx.nested && !ctx.exempt) {
      CheckNested(*node, o, path);
    } else if (!ctx.nested) {
      CheckStructural(*node, o, path, ctx.level);
    }
    return node;
  }

  // Defaults are checked once the whole tree is known to be structural, as kube does.
  void CheckDefaults(const Node& node, const std::string& path) {
    if (node.default_value) {
      const size_t before = errors_.causes().size();
      ValidateValue(node, *node.default_value, "", path + ".default", errors_);
      json::value pruned = *node.default_value;
      PruneValue(pruned, &node, node.embedded_resource, "", nullptr);
      if (errors_.causes().size() == before && pruned != *node.default_value) {
        errors_.InvalidValue(path + ".default", *node.default_value,
                             "must not have unknown fields");
      }
    }
    for (const auto& [key, child] : node.properties) {
      CheckDefaults(*child, path + ".properties[" + key + "]");
    }
    if (node.items) CheckDefaults(*node.items, path + ".items");
    if (node.additional_properties) {
      CheckDefaults(*node.additional_properties, path + ".additionalProperties");
    }
  }

 private:
  // Checks on keywords that hold whatever the node's place.
  void CheckKeywords(const Node& node, const json::object& o, const std::string& map_type,
                     const std::string& path, const Context& ctx) {
    if (!node.type.empty() && std::find(kTypes.begin(), kTypes.end(), node.type) == kTypes.end()) {
      errors_.NotSupported(path + ".type", node.type, kTypes);
    }
    if (node.default_value && !ctx.defaults_forbidden.empty()) {
      errors_.Forbidden(path + ".default", "must not be set " + ctx.defaults_forbidden);
    }
    if (node.type == "null") {
      errors_.Forbidden(path + ".type",
                        "type cannot be set to null, use nullable as an alternative");
    }
    if (const json::value* items = o.if_contains("items"); items && items->is_array()) {
      errors_.Forbidden(path + ".items", "items must be a schema object and not an array");
    }
    if (node.unique_items) {
      errors_.Forbidden(
          path + ".uniqueItems",
          "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
    }
    const json::value* additional = o.if_contains("additionalProperties");
    const json::value* properties = o.if_contains("properties");
    if (additional != nullptr && properties != nullptr && properties->is_object() &&
        !properties->get_object().empty() && *additional != json::value(true)) {
      errors_.Forbidden(path + ".additionalProperties",
                        "additionalProperties and properties are mutual exclusive");
    }
    if (node.int_or_string && node.preserve_unknown_fields) {
      errors_.InvalidValue(path + ".x-kubernetes-preserve-unknown-fields", true,
                           "must be false if x-kubernetes-int-or-string is true");
    }
    if (node.int_or_string && node.embedded_resource) {
      errors_.InvalidValue(path + ".x-kubernetes-embedded-resource", true,
                           "must be false if x-kubernetes-int-or-string is true");
    }
    if (!map_type.empty()) {
      if (node.type != "object") {
        TypeMustBe(node, path, "must be object if x-kubernetes-map-type is specified");
      }
      if (map_type != "atomic" && map_type != "granular") {
        errors_.NotSupported(path + ".x-kubernetes-map-type", map_type, {"atomic", "granular"});
      }
    }
    if (!node.list_type.empty()) {
      if (node.type != "array") {
        TypeMustBe(node, path, "must be array if x-kubernetes-list-type is specified");
      }
      if (node.list_type != "atomic" && node.list_type != "set" && node.list_type != "map") {
        errors_.NotSupported(path + ".x-kubernetes-list-type", node.list_type,
                             {"atomic", "set", "map"});
      }
    }
    if (!node.list_map_keys.empty() && node.list_type != "map") {
      if (node.list_type.empty()) {
        errors_.Required(path + ".x-kubernetes-list-type",
                         "must be map if x-kubernetes-list-map-keys is non-empty");
      } else {
        errors_.Invalid(path + ".x-kubernetes-list-type", node.list_type,
                        "must be map if x-kubernetes-list-map-keys is non-empty");
      }
    }
    if (node.list_type == "map" && node.list_map_keys.empty()) {
      errors_.Required(path + ".x-kubernetes-list-map-keys",
                       "must not be empty if x-kubernetes-list-type is map");
    }
  }

  void TypeMustBe(const Node& node, const std::string& path, std::string_view detail) {
    if (node.type.empty()) {
      errors_.Required(path + ".type", detail);
    } else {
      errors_.Invalid(path + ".type", node.type, detail);
    }
  }

  void ParseChildren(Node& node, const json::object& o, const std::string& path,
                     const Context& ctx) {
    Context child = ctx;
    child.exempt = false;
    child.defaults_forbidden.clear();
    if (ctx.nested) child.defaults_forbidden = ctx.defaults_forbidden;
    if (const json::value* props = o.if_contains("properties")) {
      if (!props->is_object()) {
        errors_.InvalidValue(path + ".properties", *props, "must be an object");
      } else {
        for (const auto& kv : props->get_object()) {
          const std::string key(kv.key());
          Context field = child;
          field.level = Level::kField;
          if ((ctx.level == Level::kRoot && !ctx.nested) && kMetaFields.contains(key)) {
            field.defaults_forbidden = "in top-level " + key;
          }
          node.properties.emplace_back(
              key, ParseNode(kv.value(), path + ".properties[" + key + "]", field));
        }
      }
    }
    if (const json::value* additional = o.if_contains("additionalProperties")) {
      if (additional->is_bool()) {
        node.additional_properties_allowed = additional->get_bool();
      } else {
        Context field = child;
        field.level = Level::kField;
        node.additional_properties = ParseNode(*additional, path + ".additionalProperties", field);
      }
    }
    if (const json::value* items = o.if_contains("items"); items && !items->is_array()) {
      Context item = child;
      item.level = Level::kItems;
      node.items = ParseNode(*items, path + ".items", item);
    }
    Context nested = child;
    nested.nested = true;
    const bool int_or_string_any_of = IsIntOrStringAnyOf(o.if_contains("anyOf"));
    ParseList(o, "anyOf", path, nested, int_or_string_any_of, node.any_of);
    // controller-gen's int-or-string: anyOf: [{type: integer}, {type: string}], at a
    // node or as its allOf[0]; those two types are exempt from the nested rules.
    ParseList(o, "allOf", path, nested, false, node.all_of);
    ParseList(o, "oneOf", path, nested, false, node.one_of);
    if (const json::value* n = o.if_contains("not")) {
      node.not_schema = ParseNode(*n, path + ".not", nested);
    }
  }

  void ParseList(const json::object& o, std::string_view key, const std::string& path, Context ctx,
                 bool exempt, std::vector<std::unique_ptr<Node>>& out) {
    const json::value* list = o.if_contains(key);
    if (list == nullptr) return;
    const std::string list_path = path + "." + std::string(key);
    if (!list->is_array()) {
      errors_.InvalidValue(list_path, *list, "must be an array");
      return;
    }
    ctx.exempt = exempt;
    for (size_t i = 0; i < list->get_array().size(); ++i) {
      out.push_back(
          ParseNode(list->get_array()[i], list_path + "[" + std::to_string(i) + "]", ctx));
    }
  }

  // Inside anyOf/allOf/oneOf/not only value validations may appear
  // (kube: validateNestedValueValidation).
  void CheckNested(const Node& node, const json::object& o, const std::string& path) {
    if (!node.type.empty()) errors_.Forbidden(path + ".type", "must be empty to be structural");
    if (node.default_value)
      errors_.Forbidden(path + ".default", "must be undefined to be structural");
    if (!String(o, "title", path).empty())
      errors_.Forbidden(path + ".title", "must be empty to be structural");
    if (!String(o, "description", path).empty()) {
      errors_.Forbidden(path + ".description", "must be empty to be structural");
    }
    if (node.nullable) errors_.Forbidden(path + ".nullable", "must be false to be structural");
    if (node.preserve_unknown_fields) {
      errors_.Forbidden(path + ".x-kubernetes-preserve-unknown-fields",
                        "must be false to be structural");
    }
    if (node.embedded_resource) {
      errors_.Forbidden(path + ".x-kubernetes-embedded-resource", "must be false to be structural");
    }
    if (node.int_or_string)
      errors_.Forbidden(path + ".x-kubernetes-int-or-string", "must be false to be structural");
    if (!node.list_map_keys.empty()) {
      errors_.Forbidden(path + ".x-kubernetes-list-map-keys", "must be empty to be structural");
    }
    if (!node.list_type.empty()) {
      errors_.Forbidden(path + ".x-kubernetes-list-type", "must be undefined to be structural");
    }
    if (o.contains("x-kubernetes-map-type")) {
      errors_.Forbidden(path + ".x-kubernetes-map-type", "must be undefined to be structural");
    }
    if (node.Property("metadata") != nullptr) {
      errors_.Forbidden(path + ".properties[metadata]",
                        "must not be specified in a nested context");
    }
  }

  // kube's validateStructuralInvariants for a node outside anyOf/allOf/oneOf/not.
  void CheckStructural(const Node& node, const json::object& o, const std::string& path,
                       Level level) {
    if (node.type == "array" && !o.contains("items")) {
      errors_.Required(path + ".items", "must be specified");
    }
    if (level == Level::kRoot && o.contains("additionalProperties")) {
      errors_.Forbidden(path + ".additionalProperties", "must not be used at the root");
    }
    if (node.embedded_resource && node.type != "object") {
      TypeMustBe(node, path, "must be object if x-kubernetes-embedded-resource is true");
    } else if (node.type.empty() && !node.int_or_string && !node.preserve_unknown_fields) {
      switch (level) {
        case Level::kRoot:
          errors_.Required(path + ".type", "must not be empty at the root");
          break;
        case Level::kItems:
          errors_.Required(path + ".type", "must not be empty for specified array items");
          break;
        case Level::kField:
          errors_.Required(path + ".type", "must not be empty for specified object fields");
          break;
      }
    }
    if (node.embedded_resource && o.contains("additionalProperties")) {
      errors_.Forbidden(path + ".additionalProperties",
                        "must not be used if x-kubernetes-embedded-resource is set");
    }
    if (level == Level::kRoot && !node.type.empty() && node.type != "object") {
      errors_.Invalid(path + ".type", node.type, "must be object at the root");
    }
    if (level == Level::kRoot && node.nullable) {
      errors_.Forbidden(path + ".nullable", "nullable cannot be true at the root");
    }
    const bool resource = level == Level::kRoot || node.embedded_resource;
    for (std::string_view meta : {"kind", "apiVersion"}) {
      const Node* field = node.Property(meta);
      if (resource && field != nullptr && field->type != "string") {
        errors_.Invalid(path + ".properties[" + std::string(meta) + "].type", field->type,
                        "must be string");
      }
    }
    if (const Node* metadata = node.Property("metadata")) {
      const std::string metadata_path = path + ".properties[metadata]";
      if (resource && metadata->type != "object") {
        errors_.Invalid(metadata_path + ".type", metadata->type, "must be object");
      }
      if (level == Level::kRoot && !OnlyNamesInMetadata(*metadata)) {
        errors_.Forbidden(
            metadata_path,
            "must not specify anything other than name and generateName, but metadata is "
            "implicitly specified");
      }
    }
    if (node.embedded_resource && !node.preserve_unknown_fields && node.properties.empty()) {
      errors_.Required(path + ".properties",
                       "must not be empty if x-kubernetes-embedded-resource is true without "
                       "x-kubernetes-preserve-unknown-fields");
    }
  }

  // Root metadata may only say something about name and generateName.
  static bool OnlyNamesInMetadata(const Node& m) {
    for (const auto& [key, child] : m.properties) {
      if (key != "name" && key != "generateName") return false;
    }
    return !m.nullable && !m.preserve_unknown_fields && !m.int_or_string && !m.embedded_resource &&
           !m.additional_properties && !m.additional_properties_allowed && !m.items &&
           m.format.empty() && !m.enum_values && !m.maximum && !m.minimum && !m.multiple_of &&
           !m.max_length && !m.min_length && !m.max_items && !m.min_items && !m.max_properties &&
           !m.min_properties && m.pattern.empty() && m.required.empty() && m.all_of.empty() &&
           m.any_of.empty() && m.one_of.empty() && !m.not_schema && m.list_type.empty() &&
           m.list_map_keys.empty();
  }

  // ---- Typed keyword readers: a mistyped keyword is an error, then read as absent.

  std::string String(const json::object& o, std::string_view key, const std::string& path) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      errors_.InvalidValue(path + "." + std::string(key), *v, "must be a string");
      return "";
    }
    return std::string(v->get_string());
  }

  bool Bool(const json::object& o, std::string_view key, const std::string& path) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return false;
    if (!v->is_bool()) {
      errors_.InvalidValue(path + "." + std::string(key), *v, "must be a boolean");
      return false;
    }
    return v->get_bool();
  }

  std::optional<double> Number(const json::object& o, std::string_view key,
                               const std::string& path) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) {
      errors_.InvalidValue(path + "." + std::string(key), *v, "must be a number");
      return std::nullopt;
    }
    return v->to_number<double>();
  }

  std::optional<int64_t> Count(const json::object& o, std::string_view key,
                               const std::string& path) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_int64() && v->get_int64() >= 0) return v->get_int64();
    if (v->is_uint64()) return static_cast<int64_t>(std::min<uint64_t>(v->get_uint64(), INT64_MAX));
    errors_.InvalidValue(path + "." + std::string(key), *v, "must be a non-negative integer");
    return std::nullopt;
  }

  std::vector<std::string> StringList(const json::object& o, std::string_view key,
                                      const std::string& path) {
    std::vector<std::string> out;
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return out;
    const bool strings =
        v->is_array() && std::all_of(v->get_array().begin(), v->get_array().end(),
                                     [](const json::value& e) { return e.is_string(); });
    if (!strings) {
      errors_.InvalidValue(path + "." + std::string(key), *v, "must be a list of strings");
      return out;
    }
    for (const json::value& e : v->get_array()) out.emplace_back(e.get_string());
    return out;
  }

  api::FieldErrors& errors_;
};

// ---- Pruning (kube: pkg/apiserver/schema/pruning) ----

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Under x-kubernetes-preserve-unknown-fields: nothing is removed here, but
// declared children are pruned by their own schemas.
void SkipPrune(json::value& x, const Node* s, const std::string& path,
               std::vector<std::string>* pruned) {
  if (s == nullptr) return;
  if (json::object* o = x.if_object()) {
    for (auto& kv : *o) {
      if (s->embedded_resource && kMetaFields.contains(kv.key())) continue;
      if (const Node* prop = s->Property(kv.key())) {
        PruneValue(kv.value(), prop, false, Child(path, kv.key()), pruned);
      } else if (s->additional_properties) {
        PruneValue(kv.value(), s->additional_properties.get(), false, Child(path, kv.key()),
                   pruned);
      }
    }
  } else if (json::array* a = x.if_array()) {
    for (size_t i = 0; i < a->size(); ++i) {
      SkipPrune((*a)[i], s->items.get(), path + "[" + std::to_string(i) + "]", pruned);
    }
  }
}

void PruneValue(json::value& x, const Node* s, bool resource, const std::string& path,
                std::vector<std::string>* pruned) {
  if (s != nullptr && s->preserve_unknown_fields) {
    SkipPrune(x, s, path, pruned);
    return;
  }
  if (json::object* o = x.if_object()) {
    const bool keeps_meta = resource || (s != nullptr && s->embedded_resource);
    for (auto it = o->begin(); it != o->end();) {
      const std::string_view key = it->key();
      if (s != nullptr && keeps_meta && kMetaFields.contains(key)) {
        ++it;
        continue;
      }
      const Node* prop = s != nullptr ? s->Property(key) : nullptr;
      const bool allowed_by_additional =
          s != nullptr &&
          (s->additional_properties || s->additional_properties_allowed.has_value());
      if (prop != nullptr || allowed_by_additional) {
        // additionalProperties: true has no schema: everything below it is pruned.
        const Node* child = prop != nullptr ? prop : s->additional_properties.get();
        PruneValue(it->value(), child, false, Child(path, key), pruned);
        ++it;
        continue;
      }
      if (pruned != nullptr && (!kMetaFields.contains(key) || !path.empty())) {
        pruned->push_back(Child(path, key));
      }
      it = o->erase(it);
    }
  } else if (json::array* a = x.if_array()) {
    for (size_t i = 0; i < a->size(); ++i) {
      PruneValue((*a)[i], s != nullptr ? s->items.get() : nullptr, false,
                 path + "[" + std::to_string(i) + "]", pruned);
    }
  }
}

// ---- Defaulting (kube: pkg/apiserver/schema/defaulting) ----

bool NonNullableNull(const json::value& x, const Node* s) {
  return x.is_null() && s != nullptr && !s->nullable;
}

void DefaultValue(json::value& x, const Node* s) {
  if (s == nullptr) return;
  if (json::object* o = x.if_object()) {
    for (const auto& [key, prop] : s->properties) {
      if (!prop->default_value) continue;
      auto it = o->find(key);
      if (it == o->end() || NonNullableNull(it->value(), prop.get()))
        (*o)[key] = *prop->default_value;
    }
    for (auto it = o->begin(); it != o->end();) {
      const Node* child = s->Property(it->key());
      if (child == nullptr) child = s->additional_properties.get();
      if (child != nullptr && NonNullableNull(it->value(), child)) {
        if (!child->default_value) {
          // A null the schema does not allow and nothing to put in its place:
          // kube drops the field before defaulting.
          it = o->erase(it);
          continue;
        }
        it->value() = *child->default_value;
      }
      DefaultValue(it->value(), child);
      ++it;
    }
  } else if (json::array* a = x.if_array()) {
    for (json::value& item : *a) {
      if (NonNullableNull(item, s->items.get()) && s->items->default_value)
        item = *s->items->default_value;
      DefaultValue(item, s->items.get());
    }
  }
}

}  // namespace

namespace {

bool AnyDefault(const Schema::Node* node) {
  if (!node) return false;
  if (node->default_value) return true;
  for (const auto& [key, child] : node->properties) {
    if (AnyDefault(child.get())) return true;
  }
  return AnyDefault(node->additional_properties.get()) || AnyDefault(node->items.get());
}

}  // namespace

Schema::Schema(std::unique_ptr<Node> root) : root_(std::move(root)), has_defaults_(AnyDefault(root_.get())) {}
Schema::~Schema() = default;

Result<std::shared_ptr<const Schema>> Schema::Parse(const json::value& open_api_v3_schema,
                                                    std::string_view path_prefix,
                                                    api::FieldErrors& errors) {
  const size_t before = errors.causes().size();
  Parser parser(errors);
  Parser::Context root;
  root.level = Level::kRoot;
  const std::string path(path_prefix);
  std::unique_ptr<Node> node = parser.ParseNode(open_api_v3_schema, path, root);
  if (errors.causes().size() == before) parser.CheckDefaults(*node, path);
  if (errors.causes().size() > before) {
    std::vector<StatusCause> causes(errors.causes().begin() + static_cast<std::ptrdiff_t>(before),
                                    errors.causes().end());
    std::string message = "invalid openAPIV3Schema: " + causes[0].field + ": " + causes[0].message;
    return Status::Invalid(std::move(message), std::move(causes));
  }
  return std::make_shared<const Schema>(std::move(node));
}

void Schema::Prune(json::value& object, std::vector<std::string>* pruned) const {
  PruneValue(object, root_.get(), /*resource=*/true, "", pruned);
  if (pruned != nullptr) std::sort(pruned->begin(), pruned->end());
}

void Schema::ApplyDefaults(json::value& object) const { DefaultValue(object, root_.get()); }

void Schema::Validate(const json::value& object, api::FieldErrors& errors) const {
  ValidateValue(*root_, object, "", "", errors);
  ValidateListTypes(*root_, object, "", errors);
}

std::pair<std::string, std::vector<std::string>> Schema::ListTypeAt(std::string_view path) const {
  const Node* node = root_.get();
  while (node && !path.empty()) {
    size_t dot = path.find('.');
    std::string_view field = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (node->type == "array" && node->items) node = node->items.get();
    node = node->Property(field);
  }
  if (!node) return {};
  return {node->list_type, node->list_map_keys};
}

}  // namespace berth::apiserver::crd
