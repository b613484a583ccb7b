#pragma once
// The PATCH types of the Kubernetes API as pure functions over JSON: RFC 6902
// JSON Patch, RFC 7386 JSON Merge Patch, and Kubernetes' strategic merge patch
// (lists merged by their patchMergeKey, directives $patch, $setElementOrder,
// $deleteFromPrimitiveList, $retainKeys).

#include <optional>
#include <string_view>

#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::apiserver {

enum class PatchType { kJson, kMerge, kStrategicMerge, kApplyYaml };

// From a request Content-Type (parameters after ';' ignored); nullopt when
// the type is not a patch type.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// Applies the request body `patch` to `original` (a whole object of `kind`).
// A malformed patch is BadRequest; a JSON Patch that cannot apply (missing
// path, failed test) is Invalid; server-side apply is UnsupportedMediaType.
Result<boost::json::value> ApplyPatch(PatchType type, api::Kind kind,
                                      const boost::json::value& original, std::string_view patch);

}  // namespace berth::apiserver
