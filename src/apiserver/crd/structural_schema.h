#pragma once
// The openAPIV3Schema of one CustomResourceDefinition version, as kube's
// apiextensions-apiserver reads and applies it: structural checks when the CRD
// is written, then pruning, defaulting and validation of each custom object.
//
// Messages and field paths follow kube v1.35 (apiextensions-apiserver
// pkg/apiserver/schema and pkg/apiserver/validation, kube-openapi
// pkg/validation/{validate,errors}, apimachinery field errors), with these
// differences, all because api::FieldErrors has no TooMany/TooLong/TypeInvalid
// cause and quotes every value it shows:
//   - maxLength, maxItems and maxProperties read as kube <= v1.23 wrote them
//     ("Invalid value: 4: spec.items in body should have at most 3 items"),
//     not as "Too many: 4: must have at most 3 items" / "Too long: ...";
//   - a type mismatch is a FieldValueInvalid cause (kube: FieldValueTypeInvalid)
//     with the same message;
//   - a rejected enum or list-set value that is not a string is shown quoted,
//     and a fractional number as Boost.JSON writes it (1.5E0, kube: 1.5).
// x-kubernetes-validations (CEL) rules are accepted and not evaluated.
//
// A Schema is immutable once parsed and may be shared between threads.

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/status.h"
#include "api/validation/field_errors.h"

namespace berth::apiserver::crd {

class Schema {
 public:
  // One node of the schema tree; defined in the .cc.
  struct Node;

  // Parses `open_api_v3_schema` and checks it as kube does on CRD create and
  // update: every node has a `type` (except under
  // x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string), only
  // supported keywords, anyOf/allOf/oneOf/not carry value validations only
  // (controller-gen's int-or-string anyOf excepted), patterns compile, and
  // defaults are valid. `path_prefix` names the schema in errors, e.g.
  // "spec.versions[0].schema.openAPIV3Schema". Each problem is appended to
  // `errors`; the result is Status::Invalid carrying the same causes when
  // there was any.
  static Result<std::shared_ptr<const Schema>> Parse(const boost::json::value& open_api_v3_schema,
                                                     std::string_view path_prefix,
                                                     api::FieldErrors& errors);

  // Removes every field the schema does not declare, except under
  // x-kubernetes-preserve-unknown-fields and apiVersion/kind/metadata at the
  // root and in embedded resources. When `pruned` is not null it receives the
  // removed fields' paths, sorted ("spec.foo", "spec.items[0].bar"), for
  // fieldValidation=Strict/Warn's `unknown field "spec.foo"`.
  void Prune(boost::json::value& object, std::vector<std::string>* pruned) const;

  // Sets each absent field that has a `default` to a copy of it, top-down, in
  // properties, array items and additionalProperties values alike. A null
  // where the schema is not nullable is replaced by the default, or dropped
  // when there is none; a null the schema allows stays.
  void ApplyDefaults(boost::json::value& object) const;
  // Whether any node has a `default`: reads of stored objects apply them
  // (kube defaults what it decodes from storage, so a default added to the
  // schema shows on objects written before).
  bool HasDefaults() const { return has_defaults_; }

  // Validates a custom object (already pruned and defaulted), appending one
  // cause per violation: paths as kube's validator builds them ("spec.items[2].name",
  // map values "spec.labels.key"), e.g.
  //   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer:
  //   "string"
  void Validate(const boost::json::value& object, api::FieldErrors& errors) const;

  // x-kubernetes-list-type ("" when unset) and x-kubernetes-list-map-keys of
  // the list at `path`: property names joined by '.', a list's items passed
  // through ("spec.ports.name" is a field of spec.ports' items). Empty when
  // the path names nothing the schema declares.
  std::pair<std::string, std::vector<std::string>> ListTypeAt(std::string_view path) const;

  // Use Parse. Public only for std::make_shared.
  explicit Schema(std::unique_ptr<Node> root);
  ~Schema();

 private:
  std::unique_ptr<Node> root_;
  bool has_defaults_ = false;
};

}  // namespace berth::apiserver::crd
