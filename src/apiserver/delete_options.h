#pragma once
// meta/v1 DeleteOptions as the API server reads them: from a DELETE's body
// (JSON or kube's protobuf; kubectl drain sends protobuf) and query, or from
// an Eviction's deleteOptions.

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "api/object.h"
#include "api/status.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct DeleteOptions {
  std::string uid_precondition;                 // preconditions.uid
  // preconditions.resourceVersion, compared as text as kube does (so one that
  // is not a number never holds: 409).
  std::optional<std::string> resource_version_precondition;
  std::optional<int64_t> grace_period_seconds;  // a negative value becomes 1, as in kube
  std::string propagation_policy;               // "", "Orphan", "Background", "Foreground"
  bool dry_run = false;
};

// Adds what a DeleteOptions object sets to `options`, validated as kube does
// (Invalid `DeleteOptions.meta.k8s.io "" is invalid: ...` for a
// propagationPolicy beside orphanDependents or not supported, a dryRun other
// than "All").
Status ReadDeleteOptions(const boost::json::object& body, DeleteOptions& options);

// A DELETE's options: from the body (application/json or
// application/vnd.kubernetes.protobuf) when there is one, else from the query
// (gracePeriodSeconds, propagationPolicy, orphanDependents, dryRun), as kube
// reads them: never both.
Result<DeleteOptions> DeleteOptionsFromRequest(const Request& request);

// Conflict, in kube's words (`Operation cannot be fulfilled on Pod "web": the
// UID in the precondition (…) does not match the UID in record (…). The
// object might have been deleted and then recreated`), when `options`'
// preconditions do not hold for `current`; Ok when they do.
Status CheckDeletePreconditions(const DeleteOptions& options, const api::Object& current);

}  // namespace berth::apiserver
