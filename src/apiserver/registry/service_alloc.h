#pragma once
// kube-apiserver's Service allocators: a ClusterIP from
// --service-cluster-ip-range (default 10.96.0.0/12; its first address is the
// `kubernetes` Service's) and NodePorts from --service-node-port-range
// (default 30000-32767), for Services being created. What is in use is read
// from the stored Services; creates are allocated one at a time (a mutex),
// which is exact within one API server (several servers sharing a store
// would need kube's allocation objects, not kept here). IPv4 only.

#include <cstdint>
#include <mutex>
#include <string>

#include <boost/json/object.hpp>

#include "api/status.h"
#include "store/store.h"

namespace berth::apiserver {

struct ServiceRanges {
  uint32_t ip_base = 0;  // network address, host order
  int prefix = 12;
  int node_port_min = 30000, node_port_max = 32767;
  std::string cidr = "10.96.0.0/12";
};

// Parses "10.96.0.0/12" (IPv4, prefix 8-30); BadRequest naming the flag.
Result<ServiceRanges> ParseServiceRanges(std::string_view cidr, std::string_view node_ports);

class ServiceAllocator {
 public:
  explicit ServiceAllocator(ServiceRanges ranges) : ranges_(std::move(ranges)) {}

  // Fills spec.clusterIP / clusterIPs and missing nodePorts of a Service
  // being created, or checks the ones it asks for, with kube's field errors
  // (Invalid naming the Service). Holds the allocation lock until the
  // returned guard is dropped: the caller writes the Service meanwhile.
  Result<std::unique_lock<std::mutex>> Allocate(boost::json::object& service, store::Store& store);

  // The `kubernetes` Service's address: the range's first.
  std::string FirstAddress() const;
  const ServiceRanges& ranges() const { return ranges_; }

 private:
  const ServiceRanges ranges_;
  std::mutex mu_;
};

}  // namespace berth::apiserver
