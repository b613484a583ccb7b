#pragma once
// kube-apiserver's Service allocators: a ClusterIP from
// --service-cluster-ip-range (default 10.96.0.0/12; its first address is the
// `kubernetes` Service's) and NodePorts from --service-node-port-range
// (default 30000-32767), for Services being created, and for those an update
// gives a type that needs them (ExternalName to ClusterIP or NodePort). What is in use is read
// from the stored Services; creates are allocated one at a time (a mutex),
// which is exact within one API server (several servers sharing a store
// would need kube's allocation objects, not kept here). IPv4 only.

#include <cstdint>
#include <mutex>
#include <set>
#include <string>

#include <boost/json/object.hpp>

#include "api/status.h"
#include "api/validation/field_errors.h"
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

  // An update of the Service `current` to `next`, before validation (kube's
  // dropTypeDependentFields and patchAllocatedValues): a type that no longer
  // needs the cluster IP, node ports, traffic policies or load-balancer
  // fields drops those it was given (unless the update changed them), and an
  // update that leaves allocated values out keeps them.
  static void PrepareUpdate(boost::json::object& next, const boost::json::object& current);
  // Allocates what `next` newly needs, or checks what it newly asks for, as
  // Allocate does; the Service's own addresses and ports are not in use by
  // another. Holds the lock as Allocate does.
  Result<std::unique_lock<std::mutex>> AllocateUpdate(boost::json::object& next, const boost::json::object& current,
                                                      store::Store& store);

  // The `kubernetes` Service's address: the range's first.
  std::string FirstAddress() const;
  const ServiceRanges& ranges() const { return ranges_; }

 private:
  struct InUse {
    Status listed;
    std::set<uint32_t> ips;
    std::set<int64_t> node_ports;
  };
  InUse Used(store::Store& store, std::string_view self) const;
  void AllocateClusterIp(boost::json::object& spec, InUse& used, api::FieldErrors& errors) const;
  void AllocateNodePorts(boost::json::object& spec, InUse& used, const std::set<int64_t>& kept,
                         api::FieldErrors& errors) const;
  static void KeepNodePorts(boost::json::object& after, const boost::json::object& before);

  const ServiceRanges ranges_;
  std::mutex mu_;
};

}  // namespace berth::apiserver
