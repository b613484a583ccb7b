#pragma once
// Discovery documents, built from the kind registry: what kubectl reads to map
// resource names (aggregated discovery v2/v2beta1 or the legacy APIResourceList
// path), the /version document, and the minimal OpenAPI v3 documents that
// kubectl's default --validate=strict needs.

#include <optional>
#include <string_view>

#include <boost/json/object.hpp>

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

boost::json::object OpenApiV3Root();  // /openapi/v3
// /openapi/v3/<path> for "api/v1" or "apis/<group>/<version>".
std::optional<boost::json::object> OpenApiV3GroupVersion(std::string_view path);

}  // namespace berth::apiserver
