#include "api/json_fields.h"

#include <cmath>

#include "api/object.h"

namespace berth::api {

namespace json = boost::json;

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}

const json::object* ObjectAt(const json::object* o, std::string_view key) {
  return o ? ObjectAt(*o, key) : nullptr;
}

const json::array* ArrayAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_array() ? &it->value().get_array() : nullptr;
}

const json::array* ArrayAt(const json::object* o, std::string_view key) {
  return o ? ArrayAt(*o, key) : nullptr;
}

std::string_view StringAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_string()) return {};
  const json::string& s = it->value().get_string();
  return {s.data(), s.size()};
}

std::string_view StringAt(const json::object* o, std::string_view key) {
  return o ? StringAt(*o, key) : std::string_view();
}

int64_t IntAt(const json::object* o, std::string_view key, int64_t fallback) {
  if (!o) return fallback;
  auto it = o->find(key);
  if (it == o->end()) return fallback;
  if (it->value().is_int64()) return it->value().get_int64();
  if (it->value().is_uint64()) return static_cast<int64_t>(it->value().get_uint64());
  if (it->value().is_double()) return ExactInt64(std::trunc(it->value().get_double())).value_or(fallback);
  return fallback;
}

std::optional<int64_t> ExactInt64(double d) {
  // 2^63 is exact as a double; every double below it in magnitude that is a
  // whole number converts exactly. NaN fails both comparisons.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!(d >= -kTwoTo63 && d < kTwoTo63) || std::trunc(d) != d) return std::nullopt;
  return static_cast<int64_t>(d);
}

bool BoolAt(const json::object* o, std::string_view key) {
  if (!o) return false;
  auto it = o->find(key);
  return it != o->end() && it->value().is_bool() && it->value().get_bool();
}

json::object& MutableObject(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

json::array& MutableArray(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_array()) v = json::array();
  return v.get_array();
}

const json::object* Metadata(const Object& o) { return ObjectAt(o.json(), "metadata"); }
const json::object* Spec(const Object& o) { return ObjectAt(o.json(), "spec"); }
const json::object* StatusOf(const Object& o) { return ObjectAt(o.json(), "status"); }
int64_t Generation(const Object& o) { return IntAt(Metadata(o), "generation"); }

bool BeingDeleted(const Object& o) {
  const json::object* meta = Metadata(o);
  return meta && meta->contains("deletionTimestamp");
}

std::string_view Annotation(const Object& o, std::string_view key) {
  return StringAt(ObjectAt(Metadata(o), "annotations"), key);
}

}  // namespace berth::api
