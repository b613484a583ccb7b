#pragma once
// Server-side field validation: kube's `fieldValidation` query parameter on
// create, update and patch. Unknown fields (those the kind's OpenAPI schema
// does not allow; see OpenApi::UnknownFields) and duplicate JSON keys in the
// request body are
//   Strict: refused, 400 BadRequest naming each ("strict decoding error:
//           unknown field \"spec.foo\", duplicate field \"spec.replicas\"");
//   Warn:   reported, one `Warning: 299 - "unknown field \"spec.foo\""` header
//           each, and the request goes ahead (the default when absent, as in
//           kube since 1.27);
//   Ignore: let through silently.
// berth stores what it was sent: a field Warn or Ignore let through is kept,
// where kube would drop it.
//
// Stateless functions; thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/status.h"
#include "apiserver/http.h"
#include "apiserver/openapi/openapi.h"

namespace berth::apiserver {

enum class FieldValidation { kIgnore, kWarn, kStrict };

// The write a body belongs to: kube words its errors after the verb's options
// (CreateOptions, UpdateOptions, PatchOptions) and decoder.
enum class WriteVerb { kCreate, kUpdate, kPatch };

// The request's directive. Warn when absent or empty; any other value than
// Ignore, Warn or Strict is Invalid (422), as kube answers:
// `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "x": ...`.
Result<FieldValidation> FieldValidationOf(const Request& request, WriteVerb verb);

// The keys that repeat within one JSON object of `json_text`, as paths
// ("spec.replicas", "spec.containers[0].name"), in document order. Text that
// is not JSON yields what was found before the fault.
std::vector<std::string> DuplicateFields(std::string_view json_text);

// Applies the request's directive to a write of `kind`: looks for unknown
// fields in `object` (the decoded body of a create or update, or the result
// of a patch) and duplicate keys in the request body. For a patch, `before` is
// the object the patch applied to: unknown fields it already had are not the
// patch's doing and are not reported. Returns BadRequest under Strict when
// anything was found; under Warn appends one warning per problem to
// request.warnings (once each, however often it is called). In-process
// (trusted) requests without a directive are not checked.
Status CheckFields(Request& request, const OpenApi& openapi, const api::KindInfo& kind, WriteVerb verb,
                   const boost::json::value& object, const boost::json::value* before = nullptr);

// A warning as a Warning header's value: `299 - "<text, quoted as Go quotes>"`.
std::string WarningHeaderValue(std::string_view text);

}  // namespace berth::apiserver
