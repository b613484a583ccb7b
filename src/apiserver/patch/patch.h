#pragma once
// The PATCH types of the Kubernetes API as pure functions over JSON: RFC 6902
// JSON Patch, RFC 7386 JSON Merge Patch, and Kubernetes' strategic merge patch
// (lists merged by their patchMergeKey, directives $patch, $setElementOrder,
// $deleteFromPrimitiveList, $retainKeys).

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::apiserver {

enum class PatchType { kJson, kMerge, kStrategicMerge, kApplyYaml };

// How a list field of a kind merges (its patchStrategy / patchMergeKey):
// replaced whole, merged by a key field, or merged as a set of primitives.
struct ListStrategy {
  enum Kind { kReplace, kMergeByKey, kMergePrimitive } kind = kReplace;
  std::string key;
};

// The strategy of the list at `path` (field names joined by '.', list
// positions left out: "spec.template.spec.containers.ports"). Lists berth
// knows nothing about (and all lists of custom resources) are replaced.
ListStrategy LookupListStrategy(api::Kind kind, std::string_view path);

// From a request Content-Type (parameters after ';' ignored); nullopt when
// the type is not a patch type.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// Applies the request body `patch` to `original` (a whole object of `kind`).
// A malformed patch is BadRequest; a JSON Patch that cannot apply (missing
// path, failed test) is Invalid; server-side apply
// (kApplyYaml) is served by apply.h, not here: UnsupportedMediaType.
Result<boost::json::value> ApplyPatch(PatchType type, api::Kind kind,
                                      const boost::json::value& original, std::string_view patch);

}  // namespace berth::apiserver
