#pragma once
// Discovery documents, built from the kind registry: what kubectl reads to map
// resource names (aggregated discovery v2/v2beta1 or the legacy APIResourceList
// path) and the /version document. (OpenAPI documents: openapi.h.)

#include <optional>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::apiserver {

enum class DiscoveryFormat { kLegacy, kAggregatedV2, kAggregatedV2Beta1 };

// Which aggregated discovery version the Accept header asks for, if any.
DiscoveryFormat NegotiateDiscovery(std::string_view accept);
// The response Content-Type: the aggregated types tell clients how to read the body.
std::string_view DiscoveryContentType(DiscoveryFormat format);

boost::json::object CoreDiscovery(DiscoveryFormat format, std::string_view server_address);  // /api
boost::json::object GroupsDiscovery(DiscoveryFormat format);                                 // /apis
std::optional<boost::json::object> ApiGroup(std::string_view group);  // /apis/<group>
// /api/v1 and /apis/<group>/<version>.
std::optional<boost::json::object> ResourceList(std::string_view group, std::string_view version);

// /version: Kubernetes 1.32 (kubectl's dispatcher picks its binary by the
// minor version), with berth's own version in gitVersion.
boost::json::object VersionInfo(std::string_view berth_version);

// A subresource berth serves, with the kind it answers with and its verbs.
struct Subresource {
  api::Kind kind;
  std::string_view name;  // "status", "scale", "binding", "eviction"
  std::string_view response_group, response_version, response_kind;
  std::vector<std::string_view> verbs;
};
// The subresources served for `info`'s kind: pods' binding and eviction,
// and status and scale as the kind table says.
std::vector<Subresource> SubresourcesOf(const api::KindInfo& info);

}  // namespace berth::apiserver
