#pragma once
// Reading and editing fields of Boost.JSON objects, the one set every module
// uses. Readers never throw: an absent or mistyped field reads as "nothing"
// (nullptr, "", a fallback), since what the store holds was validated on the
// way in and a reader has no better answer. The overloads taking a pointer
// accept nullptr, so lookups chain without checks:
//   StringAt(ObjectAt(ObjectAt(pod, "spec"), "nodeSelector"), "zone").
// Editors create what is missing and replace a mistyped member.

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string_view>

namespace berth::api {

class Object;

// ---- Readers ----

// The member `key` as an object; nullptr when absent or not an object.
const boost::json::object* ObjectAt(const boost::json::object& o, std::string_view key);
const boost::json::object* ObjectAt(const boost::json::object* o, std::string_view key);
// The member `key` as an array; nullptr when absent or not an array.
const boost::json::array* ArrayAt(const boost::json::object& o, std::string_view key);
const boost::json::array* ArrayAt(const boost::json::object* o, std::string_view key);
// The member `key` as a string; "" when absent or not a string. The view
// lives as long as the member.
std::string_view StringAt(const boost::json::object& o, std::string_view key);
std::string_view StringAt(const boost::json::object* o, std::string_view key);
// The member `key` as an integer (a double is truncated); `fallback` when
// absent, not a number, or a number outside int64's range.
int64_t IntAt(const boost::json::object* o, std::string_view key, int64_t fallback = 0);
// `d` as an int64 when it is a whole number within int64's range (converting
// any other double is undefined behaviour); nullopt otherwise.
std::optional<int64_t> ExactInt64(double d);
// True only when the member `key` is the boolean true.
bool BoolAt(const boost::json::object* o, std::string_view key);

// ---- Editors ----

// The member `key` as an object to edit: created when absent, replaced (with
// an empty object) when it holds anything else.
boost::json::object& MutableObject(boost::json::object& o, std::string_view key);
// The member `key` as an array to edit, likewise.
boost::json::array& MutableArray(boost::json::object& o, std::string_view key);

// std::erase_if for a JSON array.
template <typename Pred>
void EraseIf(boost::json::array& a, Pred pred) {
  a.erase(std::remove_if(a.begin(), a.end(), pred), a.end());
}

// ---- An API object's parts ----

// metadata, spec and status of `o`; nullptr when absent.
const boost::json::object* Metadata(const Object& o);
const boost::json::object* Spec(const Object& o);
const boost::json::object* StatusOf(const Object& o);
// metadata.generation; 0 when absent.
int64_t Generation(const Object& o);
// metadata.deletionTimestamp is set: the object is being deleted.
bool BeingDeleted(const Object& o);
// metadata.annotations[key]; "" when absent.
std::string_view Annotation(const Object& o, std::string_view key);

}  // namespace berth::api
