#pragma once
// core/v1 Endpoints subsets as kube's Endpoints controller builds them
// (pkg/api/v1/endpoints RepackSubsets, truncateEndpoints). Pure functions.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <vector>

namespace berth::controllers {

// kube's maxCapacity: addresses an Endpoints object holds at most.
inline constexpr size_t kEndpointsMaxCapacity = 1000;

// One address offering one port (none: a headless Service without ports).
struct AddressForPort {
  boost::json::object address;  // ip, hostname, nodeName, targetRef
  bool ready = false;
  std::optional<boost::json::object> port;  // name, port, protocol, appProtocol
};

// The canonical layout: one subset per set of addresses that offer the same
// ports, each address once per port (keyed by ip and target uid), and an
// address that is not ready for a port is not ready there even if another
// entry says ready. Addresses are sorted by ip then target uid, ports by
// name, number and protocol. Subsets are sorted by their ports, then their
// addresses (kube sorts them by a hash of their contents: the order differs,
// the contents do not).
boost::json::array RepackSubsets(const std::vector<AddressForPort>& entries);

// Ready plus not-ready addresses of all subsets.
size_t CountAddresses(const boost::json::array& subsets);

// kube's truncateEndpoints: over `max_capacity` addresses, keeps ready ones
// first, each subset keeping a share proportional to its size (rounded up,
// the last ones getting what is left); not-ready addresses are dropped first.
// Returns whether anything was dropped.
bool TruncateSubsets(boost::json::array& subsets, size_t max_capacity = kEndpointsMaxCapacity);

}  // namespace berth::controllers
