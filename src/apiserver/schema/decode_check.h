#pragma once
// Type checks of a written object as kube's JSON decoder makes them: kube
// decodes a body into the kind's Go structs (sigs.k8s.io/json), and a value
// of the wrong JSON type for its Go field fails the request, where berth,
// which keeps the JSON it was sent, would otherwise store it. The Go types
// come from the protobuf decoder's tables (go_types.h: each field's
// type, int64 and named Go types marked there).
//
// The error is the one Go's decoder returns: the first type mismatch in
// document order, e.g.
//   json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32
// (the innermost struct, the path of JSON names without list indices, the Go
// type of the field or list item), unless a value with a decoder of its own
// fails first and stops decoding: a quantity ("quantities must match the
// regular expression ..."), an int-or-string, a time ("parsing time ...").
// Not checked: fields the tables do not know (field validation's unknown
// fields), custom resources, and kinds without a table.
//
// Stateless functions; thread-safe.

#include <boost/json/value.hpp>
#include <string>

#include "api/kinds.h"
#include "api/status.h"
#include "apiserver/openapi/field_validation.h"

namespace berth::apiserver {

// The error kube's decoder reports for `object` (a whole object of `kind`),
// or "" when it decodes.
std::string GoDecodeError(api::Kind kind, const boost::json::value& object);

// The Status kube answers for a write whose body (create, update, apply) or
// patched result (patch) does not decode, or OK:
//   create, update, apply: 400 BadRequest
//     `Deployment in version "v1" cannot be handled as a Deployment: json: ...`
//   patch: 422 Invalid, kube's patch error (`patch: Invalid value: "<the
//     patched object>": json: ...`).
// kube answers a server-side apply's type error with a 500 (an error of
// structured-merge-diff's: "failed to create typed patch object ..."); berth
// answers 400 with the decoder's message.
Status CheckDecodable(const api::KindInfo& kind, WriteVerb verb, const boost::json::value& object);

// The same for the body of a scale subresource's write (an autoscaling/v1
// Scale: spec.replicas an int32).
Status CheckScaleDecodable(WriteVerb verb, const boost::json::value& scale);

}  // namespace berth::apiserver
