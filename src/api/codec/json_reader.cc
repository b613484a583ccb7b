#include "api/codec/json_reader.h"

#include "api/json_fields.h"

namespace berth::api {

namespace json = boost::json;

std::string FieldPath::ToString() const {
  std::string head = parent_ ? parent_->ToString() : std::string();
  if (index_ >= 0) return head + "[" + std::to_string(index_) + "]";
  if (name_.empty()) return head;
  return head.empty() ? std::string(name_) : head + "." + std::string(name_);
}

const json::value* JsonReader::Member(const json::object& object, std::string_view name) const {
  auto it = object.find(name);
  if (it == object.end() || it->value().is_null()) return nullptr;
  return &it->value();
}

const json::object* JsonReader::Object(const json::object& parent, std::string_view name,
                                       const FieldPath& at) {
  const json::value* v = Member(parent, name);
  if (!v || !ok()) return nullptr;
  if (!v->is_object()) {
    Fail(at.Field(name), "expected an object");
    return nullptr;
  }
  return &v->get_object();
}

const json::array* JsonReader::Array(const json::object& parent, std::string_view name,
                                     const FieldPath& at) {
  const json::value* v = Member(parent, name);
  if (!v || !ok()) return nullptr;
  if (!v->is_array()) {
    Fail(at.Field(name), "expected an array");
    return nullptr;
  }
  return &v->get_array();
}

std::optional<std::string> JsonReader::OptionalString(const json::object& parent, std::string_view name,
                                                      const FieldPath& at) {
  const json::value* v = Member(parent, name);
  if (!v || !ok()) return std::nullopt;
  if (!v->is_string()) {
    Fail(at.Field(name), "expected a string");
    return std::nullopt;
  }
  return std::string(v->get_string());
}

std::string JsonReader::String(const json::object& parent, std::string_view name, const FieldPath& at) {
  return OptionalString(parent, name, at).value_or(std::string());
}

std::optional<int64_t> JsonReader::Int(const json::object& parent, std::string_view name,
                                       const FieldPath& at) {
  const json::value* v = Member(parent, name);
  if (!v || !ok()) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    return static_cast<int64_t>(v->get_uint64());
  }
  if (v->is_double()) {
    if (std::optional<int64_t> exact = ExactInt64(v->get_double())) return exact;
  }
  Fail(at.Field(name), "expected an integer");
  return std::nullopt;
}

bool JsonReader::Bool(const json::object& parent, std::string_view name, const FieldPath& at) {
  const json::value* v = Member(parent, name);
  if (!v || !ok()) return false;
  if (!v->is_bool()) {
    Fail(at.Field(name), "expected a boolean");
    return false;
  }
  return v->get_bool();
}

std::vector<std::string> JsonReader::StringList(const json::object& parent, std::string_view name,
                                                const FieldPath& at) {
  std::vector<std::string> out;
  const json::array* array = Array(parent, name, at);
  if (!array) return out;
  FieldPath here = at.Field(name);
  out.reserve(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const json::value& e = (*array)[i];
    if (!e.is_string()) {
      Fail(here.Index(static_cast<int>(i)), "expected a string");
      return {};
    }
    out.emplace_back(e.get_string());
  }
  return out;
}

Labels JsonReader::StringMap(const json::object& parent, std::string_view name, const FieldPath& at) {
  Labels out;
  const json::object* map = Object(parent, name, at);
  if (!map) return out;
  for (const auto& entry : *map) {
    std::string_view key(entry.key().data(), entry.key().size());
    if (!entry.value().is_string()) {
      Fail(at.Field(name).Field(key), "expected a string");
      return {};
    }
    const json::string& s = entry.value().get_string();
    out.Set(key, {s.data(), s.size()});
  }
  return out;
}

const json::object* JsonReader::ElementObject(const json::value& element, const FieldPath& at) {
  if (!ok()) return nullptr;
  if (!element.is_object()) {
    Fail(at, "expected an object");
    return nullptr;
  }
  return &element.get_object();
}

void JsonReader::Fail(const FieldPath& at, std::string_view message) {
  if (ok()) status_ = Status::BadRequest(at.ToString() + ": " + std::string(message));
}

void JsonReader::Fail(Status status) {
  if (ok() && !status.ok()) status_ = std::move(status);
}

}  // namespace berth::api
