#pragma once
// The EndpointSlices a Service should have, and the writes that get there
// from the slices it has (kube's endpointslice Reconciler,
// k8s.io/endpointslice/reconciler.go). Pure: no API calls, so tests can
// check the packing directly.
//
// Endpoints are grouped by the ports they resolve to (a named targetPort may
// resolve differently per pod); each group gets slices of at most
// `max_endpoints_per_slice` endpoints, kube's way of keeping churn low:
//  1. existing slices keep the endpoints still desired (updated in place when
//     their conditions, node, zone or target changed); a slice left empty is
//     deleted, one whose labels lag the Service's is updated;
//  2. remaining endpoints fill the slices already being updated, fullest first;
//  3. what is still left goes into the one unchanged slice it fits best, when
//     fewer than a slice's worth remain, otherwise into new slices;
//  4. a Service with no endpoints keeps one empty placeholder slice;
//  5. a create paired with a delete becomes an update of the deleted slice.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"

namespace berth::controllers {

inline constexpr std::string_view kEndpointSliceControllerName = "endpointslice-controller.k8s.io";
inline constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr std::string_view kManagedByLabel = "endpointslice.kubernetes.io/managed-by";

// The endpoints that share one resolution of the Service's ports.
struct PortGroup {
  boost::json::array ports;
  std::map<std::string, boost::json::object> endpoints;  // by EndpointIdentity
};
// Address type ("IPv4", "IPv6") → ports key → group. Every address type the
// Service supports has an entry, even with no groups.
using DesiredSlices = std::map<std::string, std::map<std::string, PortGroup>>;

struct SlicePlan {
  std::vector<boost::json::object> create;  // generateName "<service>-"
  // Existing slices rewritten, with metadata.resourceVersion of the version
  // read (a changed slice makes the write fail with Conflict).
  std::vector<boost::json::object> update;
  std::vector<api::ObjectPtr> remove;
};

// The address types the Service's endpoints are published in (kube's
// getAddressTypesForService): spec.ipFamilies, else the family of
// spec.clusterIP, else (headless) both.
std::vector<std::string> AddressTypesOf(const api::Object& service);
// discovery/v1 EndpointPorts of `service` resolved for `pod`; ports the pod
// cannot resolve (a named targetPort it lacks) are left out.
boost::json::array EndpointPorts(const api::Object& service, const api::Object& pod);
// A canonical key for a ports list (order-insensitive).
std::string PortsKey(const boost::json::array* ports);
// kube's podToEndpoint: addresses of `address_type`, conditions (serving = pod
// Ready; terminating = being deleted; ready = serving and not terminating, or
// the Service publishes not-ready addresses), nodeName, zone from `node`'s
// topology.kubernetes.io/zone label (node may be null), hostname, targetRef.
boost::json::object PodToEndpoint(const api::Object& pod, const api::Object* node,
                                  const api::Object& service, std::string_view address_type);
// What identifies an endpoint across syncs (kube hashes the same): target pod,
// addresses and hostname. Sorts by pod, so slices fill in pod order.
std::string EndpointIdentity(const boost::json::object& endpoint);
// The labels a slice of `service` carries: the Service's labels (but the
// reserved service-name, managed-by and headless keys), headless "" for a
// Service without a cluster IP, service-name and managed-by. `changed`: the
// non-reserved labels of `current` differ from the Service's.
boost::json::object SliceLabels(const boost::json::object* current, const api::Object& service,
                                bool* changed);

SlicePlan PlanSlices(const api::Object& service, DesiredSlices desired,
                     const std::vector<api::ObjectPtr>& existing, size_t max_endpoints_per_slice);

}  // namespace berth::controllers
