#pragma once
// Discovery documents, built from the kind table and, for each kind's
// subresources, from the ones its strategy holds (registry.h): what kubectl
// reads to map resource names (aggregated discovery v2/v2beta1 or the legacy
// APIResourceList path) and the /version document. (OpenAPI documents:
// openapi.h.)

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::apiserver {

class ResourceRegistry;  // registry/registry.h

enum class DiscoveryFormat { kLegacy, kAggregatedV2, kAggregatedV2Beta1 };

// Which aggregated discovery version the Accept header asks for, if any.
DiscoveryFormat NegotiateDiscovery(std::string_view accept);
// The response Content-Type: the aggregated types tell clients how to read the body.
std::string_view DiscoveryContentType(DiscoveryFormat format);

// /api
boost::json::object CoreDiscovery(const ResourceRegistry& registry, DiscoveryFormat format,
                                  std::string_view server_address);
// A group version another API server would serve (an APIService backed by
// a Service): listed as kube's aggregator lists one that does not answer
// (aggregated discovery: freshness Stale, no resources), never served.
struct AggregatedVersion {
  std::string group, version;
};

// /apis, with the aggregated group versions that no local group serves.
boost::json::object GroupsDiscovery(const ResourceRegistry& registry, DiscoveryFormat format,
                                    const std::vector<AggregatedVersion>& aggregated = {});
// /apis/<group>: a local group, or an aggregated one.
std::optional<boost::json::object> ApiGroup(std::string_view group,
                                            const std::vector<AggregatedVersion>& aggregated = {});
// /api/v1 and /apis/<group>/<version>.
std::optional<boost::json::object> ResourceList(const ResourceRegistry& registry, std::string_view group,
                                                std::string_view version);

// The groups served, core ("") first in registry order, each with its
// versions, preferred first: what discovery lists and the local APIServices
// name.
struct ServedGroup {
  std::string_view group;
  std::vector<std::string_view> versions;
};
std::vector<ServedGroup> ServedGroups();

// /version: Kubernetes 1.32 (kubectl's dispatcher picks its binary by the
// minor version), with berth's own version in gitVersion.
boost::json::object VersionInfo(std::string_view berth_version);

}  // namespace berth::apiserver
