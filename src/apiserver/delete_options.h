#pragma once
// meta/v1 DeleteOptions as the API server reads them: from a DELETE's body
// (JSON or kube's protobuf; kubectl drain sends protobuf) and query, or from
// an Eviction's deleteOptions.

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "api/status.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct DeleteOptions {
  std::string uid_precondition;                 // preconditions.uid
  int64_t resource_version_precondition = 0;    // preconditions.resourceVersion (0: none)
  std::optional<int64_t> grace_period_seconds;  // negative values become 0
  std::string propagation_policy;               // "", "Orphan", "Background", "Foreground"
  bool dry_run = false;
};

// Adds what a DeleteOptions object sets to `options`. BadRequest or Invalid
// (kube's messages, field paths) for malformed values.
Status ReadDeleteOptions(const boost::json::object& body, DeleteOptions& options);

// A DELETE's options: gracePeriodSeconds, propagationPolicy and dryRun from
// the query, then the body (application/json or
// application/vnd.kubernetes.protobuf); an empty body sets nothing.
Result<DeleteOptions> DeleteOptionsFromRequest(const Request& request);

}  // namespace berth::apiserver
