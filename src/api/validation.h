#pragma once
// Object validation with Kubernetes' field paths and messages, e.g.
//   Pod "web" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "api/object.h"
#include "api/status.h"

namespace berth::api {

// Each returns the problems (empty when valid), in Kubernetes' words.
std::vector<std::string> IsDns1123Label(std::string_view value);
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
std::vector<std::string> IsQualifiedName(std::string_view value);  // label and annotation keys
std::vector<std::string> IsValidLabelValue(std::string_view value);

// Collects field errors as StatusCauses.
class FieldErrors {
 public:
  void Required(std::string field, std::string_view detail = "");
  void Invalid(std::string field, std::string_view value, std::string_view detail);
  // As kube shows a value: a string quoted, anything else as JSON (Invalid value: 70000).
  void InvalidValue(std::string field, const boost::json::value& value, std::string_view detail);
  void Duplicate(std::string field, std::string_view value);
  void NotSupported(std::string field, std::string_view value, const std::vector<std::string>& supported);
  void Forbidden(std::string field, std::string_view detail);
  bool empty() const { return causes_.empty(); }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // Status::Invalid with kube's message: `<Kind> "<name>" is invalid: <one>` or `…: [<a>, <b>]`.
  Status ToStatus(std::string_view kind, std::string_view name) const;

 private:
  std::vector<StatusCause> causes_;
};

// Validates an object for create or update (metadata and the kind's spec).
Status ValidateObject(const Object& object);

// kube's ValidatePodUpdate for a write of the pod itself (not a subresource),
// `next` defaulted as a create would be: a pod's spec is fixed once created
// but for its containers' and init containers' images, activeDeadlineSeconds
// (set, or lowered), tolerations (only additions; tolerationSeconds may
// change), scheduling gates (only removals), a gated pod's nodeSelector (only
// additions), and terminationGracePeriodSeconds from negative to 1. So a PUT
// or PATCH cannot move a bound pod (spec.nodeName: that is what
// pods/binding is for). A gated pod's node affinity stays fixed here (kube
// lets it be narrowed).
Status ValidatePodUpdate(const Object& next, const Object& current);

}  // namespace berth::api
