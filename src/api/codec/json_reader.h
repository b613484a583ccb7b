#pragma once
// Reading typed views out of JSON: a field of the wrong JSON type is an error
// naming its path ("spec.containers[0].image: expected a string"), an absent or
// null field is its zero value, as Kubernetes' decoder treats them. Paths are
// built only when an error is reported, so reading costs no allocations.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "api/labels.h"
#include "api/status.h"

namespace berth::api {

// Where a value sits in an object: a chain of parents on the stack.
class FieldPath {
 public:
  FieldPath() = default;
  FieldPath Field(std::string_view name) const { return FieldPath(this, name, -1); }
  FieldPath Index(int index) const { return FieldPath(this, {}, index); }
  std::string ToString() const;

 private:
  FieldPath(const FieldPath* parent, std::string_view name, int index)
      : parent_(parent), name_(name), index_(index) {}
  const FieldPath* parent_ = nullptr;
  std::string_view name_;
  int index_ = -1;
};

// Reads members of JSON objects; the first type error is kept and later reads
// return zero values. Not thread-safe; one per parse.
class JsonReader {
 public:
  // The member `name` of `object`, or nullptr when absent or null.
  const boost::json::value* Member(const boost::json::object& object, std::string_view name) const;

  const boost::json::object* Object(const boost::json::object& parent, std::string_view name,
                                    const FieldPath& at);
  const boost::json::array* Array(const boost::json::object& parent, std::string_view name,
                                  const FieldPath& at);
  std::string String(const boost::json::object& parent, std::string_view name, const FieldPath& at);
  std::optional<std::string> OptionalString(const boost::json::object& parent, std::string_view name,
                                            const FieldPath& at);
  std::optional<int64_t> Int(const boost::json::object& parent, std::string_view name,
                             const FieldPath& at);
  bool Bool(const boost::json::object& parent, std::string_view name, const FieldPath& at);
  std::vector<std::string> StringList(const boost::json::object& parent, std::string_view name,
                                      const FieldPath& at);
  Labels StringMap(const boost::json::object& parent, std::string_view name, const FieldPath& at);
  // An array element that must be an object; nullptr (and an error) otherwise.
  const boost::json::object* ElementObject(const boost::json::value& element, const FieldPath& at);

  void Fail(const FieldPath& at, std::string_view message);
  void Fail(Status status);
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
};

}  // namespace berth::api
