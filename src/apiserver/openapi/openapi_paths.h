#pragma once
// Internal to the OpenAPI documents (openapi.cc): the paths each kind
// publishes (openapi_paths.cc), in the v3 or the v2 dialect.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "apiserver/registry/subresource.h"

namespace berth::apiserver::openapi_paths {

enum class Dialect { kV3, kV2 };

inline constexpr std::string_view kMetaDefs = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// "api/v1" or "apis/<group>/<version>", as the v3 index names documents.
std::string GroupVersionPath(std::string_view group, std::string_view version);
// {"group", "kind", "version"}: an x-kubernetes-group-version-kind entry.
boost::json::object GvkObject(std::string_view group, std::string_view version, std::string_view kind);
// The paths kube publishes for one kind (its collection, item, and each of
// `subresources` with an operation per verb it lists), added to `paths`.
void AddKindPaths(Dialect dialect, const api::KindInfo& info, const std::vector<const Subresource*>& subresources,
                  boost::json::object& paths);

}  // namespace berth::apiserver::openapi_paths
