#pragma once
// Internal to crd/: the parsed form of one JSONSchemaProps node, shared by
// parsing (structural_schema.cc) and value validation (schema_validation.cc).

#include <boost/json/value.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/validation/field_errors.h"
#include "api/validation/go_regexp.h"
#include "apiserver/crd/structural_schema.h"

namespace berth::apiserver::crd {

struct Schema::Node {
  std::string type;  // "" when unset
  std::string format;
  bool nullable = false;
  bool preserve_unknown_fields = false;
  bool int_or_string = false;
  bool embedded_resource = false;
  std::optional<boost::json::value> default_value;

  // Value validations.
  std::optional<std::vector<boost::json::value>> enum_values;
  std::optional<double> maximum;
  std::optional<double> minimum;
  bool exclusive_maximum = false;
  bool exclusive_minimum = false;
  std::optional<double> multiple_of;
  std::optional<int64_t> max_length, min_length;
  std::optional<int64_t> max_items, min_items;
  std::optional<int64_t> max_properties, min_properties;
  std::string pattern;
  std::optional<api::GoRegexp> pattern_regex;  // Go's syntax, as kube compiles it
  bool unique_items = false;
  std::vector<std::string> required;

  // Structure. Properties keep the schema's order.
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> properties;
  std::optional<bool> additional_properties_allowed;  // set when additionalProperties is a bool
  std::unique_ptr<Node> additional_properties;        // set when it is a schema
  std::unique_ptr<Node> items;
  std::vector<std::unique_ptr<Node>> all_of, any_of, one_of;
  std::unique_ptr<Node> not_schema;

  std::string list_type;  // x-kubernetes-list-type
  std::vector<std::string> list_map_keys;

  const Node* Property(std::string_view name) const {
    for (const auto& [key, node] : properties) {
      if (key == name) return node.get();
    }
    return nullptr;
  }
};

// Validates `value` against `node` as kube-openapi's SchemaValidator does.
// `name` is the validator's own path ("" at the root, "spec.replicas", ...)
// which kube writes into messages; `prefix` is the field path the causes are
// reported under ("" for a custom object, "<...>.default" for a default).
void ValidateValue(const Schema::Node& node, const boost::json::value& value,
                   const std::string& name, std::string_view prefix, api::FieldErrors& errors);

// x-kubernetes-list-type set/map uniqueness, as kube checks it after schema validation.
void ValidateListTypes(const Schema::Node& node, const boost::json::value& value,
                       const std::string& path, api::FieldErrors& errors);

}  // namespace berth::apiserver::crd
