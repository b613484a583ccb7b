#pragma once
// Reading a YAML document field by field as kube's strict decoder does, with
// its field errors: unknown and repeated fields are errors, plain scalars
// resolve as go-yaml v2 resolves them (api/codec/yaml_json.h), and every problem is kept, in document
// order, with its field path (api::FieldErrors' wording). The scheduler's
// configuration (config_yaml.cc) and its extenders (extender_config_yaml.cc)
// read through it.

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec/yaml_json.h"
#include "api/status.h"
#include "api/validation/validation.h"

namespace berth::scheduler {

// Go's %q, enough for config values: quotes, backslashes and control characters escaped.
std::string Quote(std::string_view s);
// "path.key" ("key" at the root) and "path[i]".
std::string Child(const std::string& path, std::string_view key);
std::string Index(const std::string& path, size_t i);
// "line L, column C: " of a YAML mark.
std::string Where(const YAML::Mark& mark);
// How kube shows a value that api::FieldErrors cannot (a float as written, a map or list elided).
std::string ShowUnquoted(const YAML::Node& n);

class YamlFieldReader {
 public:
  // ---- Errors ----
  //
  // Field errors are worded by api::FieldErrors (kube's "Required value",
  // "Invalid value", "Duplicate value", "Unsupported value"); the strict
  // decoder's own errors (unknown fields, repeated keys) are not field-value
  // errors and keep kube's decoder wording. Both are kept in document order.

  // Takes the cause FieldErrors just recorded into the document-ordered lists.
  void TakeNewestFieldError() {
    const StatusCause& cause = field_errors_.causes().back();
    texts_.push_back(cause.field.empty() ? cause.message : cause.field + ": " + cause.message);
    causes_.push_back(cause);
  }
  void Required(std::string field) {
    field_errors_.Required(std::move(field));
    TakeNewestFieldError();
  }
  // `value` as kube shows it: a string quoted, a number, bool or null as
  // decoded (0x10 shows as 16).
  void Invalid(std::string field, const YAML::Node& value, std::string_view detail) {
    boost::json::value decoded = value.IsScalar() ? api::YamlScalarToJson(value) : boost::json::value();
    if (value.IsScalar() && decoded.is_string()) {
      field_errors_.Invalid(std::move(field), value.Scalar(), detail);
    } else if ((value.IsScalar() && !decoded.is_double()) || value.IsNull() || !value.IsDefined()) {
      field_errors_.InvalidValue(std::move(field), decoded, detail);
    } else {
      std::string message = "Invalid value: " + ShowUnquoted(value) + ": " + std::string(detail);
      texts_.push_back(field.empty() ? message : field + ": " + message);
      causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
      return;
    }
    TakeNewestFieldError();
  }
  void Invalid(std::string field, int64_t value, std::string_view detail) {
    field_errors_.InvalidValue(std::move(field), boost::json::value(value), detail);
    TakeNewestFieldError();
  }
  void InvalidString(std::string field, std::string_view value, std::string_view detail) {
    field_errors_.Invalid(std::move(field), value, detail);
    TakeNewestFieldError();
  }
  void Forbidden(std::string field, std::string_view detail) {
    field_errors_.Forbidden(std::move(field), detail);
    TakeNewestFieldError();
  }
  void Duplicate(std::string field, std::string_view value) {
    field_errors_.Duplicate(std::move(field), value);
    TakeNewestFieldError();
  }
  void NotSupported(std::string field, std::string_view value, std::string_view supported) {
    field_errors_.NotSupported(std::move(field), value, {std::string(supported)});
    TakeNewestFieldError();
  }
  void UnknownField(const std::string& field) {
    texts_.push_back("unknown field " + Quote(field));
    causes_.push_back({"FieldValueUnknown", "unknown field", field});
  }
  void RepeatedKey(const YAML::Node& key, const std::string& field) {
    texts_.push_back(Where(key.Mark()) + "key " + Quote(key.Scalar()) + " already set in map");
    causes_.push_back({"FieldValueDuplicate", "key already set in map", field});
  }

  Status ToStatus() const {
    std::string message;
    if (texts_.size() == 1) {
      message = texts_[0];
    } else {
      message = "[";
      for (size_t i = 0; i < texts_.size(); ++i) {
        if (i) message += ", ";
        message += texts_[i];
      }
      message += "]";
    }
    return Status(StatusCode::kBadRequest, std::move(message), causes_);
  }

  // ---- Typed readers; each returns nullopt (having recorded why) or for null ----

  // Calls on_field(key, value) for each entry of a map (null: none); a false
  // return marks the key unknown. Repeated keys are errors.
  template <typename F>
  void ForEachField(const YAML::Node& map, const std::string& path, F&& on_field) {
    if (map.IsNull()) return;
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: it-> yields a temporary
      if (!key.IsScalar()) {
        Invalid(path, key, "field names must be strings");
        continue;
      }
      std::string name = key.Scalar();
      if (!seen.insert(name).second) {
        RepeatedKey(key, Child(path, name));
        continue;
      }
      if (!on_field(name, it->second)) UnknownField(Child(path, name));
    }
  }

  bool ExpectMap(const YAML::Node& n, const std::string& field) {
    if (n.IsMap() || n.IsNull()) return true;
    Invalid(field, n, "must be a map");
    return false;
  }

  bool ExpectList(const YAML::Node& n, const std::string& field) {
    if (n.IsSequence() || n.IsNull()) return true;
    Invalid(field, n, "must be a list");
    return false;
  }

  std::optional<std::string> String(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    if (!n.IsScalar()) {
      Invalid(field, n, "must be a string");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<int32_t> Int32(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    boost::json::value v = n.IsScalar() ? api::YamlScalarToJson(n) : boost::json::value();
    if (!v.is_int64()) {
      Invalid(field, n, "must be an integer");
      return std::nullopt;
    }
    int64_t i = v.get_int64();
    if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
      Invalid(field, n, "must fit in a 32-bit integer");
      return std::nullopt;
    }
    return static_cast<int32_t>(i);
  }

  std::optional<int64_t> Int64(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    boost::json::value v = n.IsScalar() ? api::YamlScalarToJson(n) : boost::json::value();
    if (!v.is_int64()) {
      Invalid(field, n, "must be an integer");
      return std::nullopt;
    }
    return v.get_int64();
  }

  std::optional<bool> Bool(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    boost::json::value v = n.IsScalar() ? api::YamlScalarToJson(n) : boost::json::value();
    if (!v.is_bool()) {
      Invalid(field, n, "must be a boolean");
      return std::nullopt;
    }
    return v.get_bool();
  }

  std::optional<int32_t> Percentage(const YAML::Node& n, const std::string& field) {
    auto v = Int32(n, field);
    if (v && (*v < 0 || *v > 100)) {
      Invalid(field, n, "not in valid range [0-100]");
      return std::nullopt;
    }
    return v;
  }

  bool HasErrors() const { return !causes_.empty(); }

 private:
  api::FieldErrors field_errors_;
  // Every problem in document order: its cause, and how the message shows it
  // ("field: message" for field errors).
  std::vector<StatusCause> causes_;
  std::vector<std::string> texts_;
};

}  // namespace berth::scheduler
