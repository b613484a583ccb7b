#pragma once
// Field errors as Kubernetes reports invalid objects: each a StatusCause with
// kube's reason (FieldValueRequired, FieldValueInvalid, ...), message and
// field path, collected into one Status, e.g.
//   Pod "web" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::api {

// A string as Go's %q prints it in kube's messages: quoted, with quotes,
// backslashes and control characters escaped.
std::string GoQuote(std::string_view value);
// A map of strings as kube's messages print one (Go's %#v, keys sorted):
// map[string]string{"a":"1", "b":"2"}.
std::string GoStringMap(const boost::json::object& map);

// Collects field errors as StatusCauses. Not thread-safe.
class FieldErrors {
 public:
  void Required(std::string field, std::string_view detail = "");
  void Invalid(std::string field, std::string_view value, std::string_view detail);
  // As kube shows a value: a string quoted, anything else as JSON (Invalid value: 70000).
  void InvalidValue(std::string field, const boost::json::value& value, std::string_view detail);
  // A value kube prints with Go's %#v (a struct, a slice), given as kube shows it:
  //   roleRef: Invalid value: rbac.RoleRef{APIGroup:"…", Kind:"Role", Name:"r"}: cannot change roleRef
  void InvalidGo(std::string field, std::string_view go_value, std::string_view detail);
  void Duplicate(std::string field, std::string_view value);
  void DuplicateGo(std::string field, std::string_view go_value, std::string_view detail = "");
  // A reference to something that does not exist (a volume mount's volume).
  void NotFound(std::string field, std::string_view value);
  // Too long: must have at most <max_bytes> bytes (kube omits the value).
  void TooLong(std::string field, int64_t max_bytes);
  void NotSupported(std::string field, std::string_view value,
                    const std::vector<std::string>& supported);
  void Forbidden(std::string field, std::string_view detail);
  bool empty() const { return causes_.empty(); }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // Status::Invalid with kube's message: `<Kind> "<name>" is invalid: <one>` or `…: [<a>, <b>]`.
  Status ToStatus(std::string_view kind, std::string_view name) const;

 private:
  std::vector<StatusCause> causes_;
};

}  // namespace berth::api
