#pragma once
// kube's ResourceQuota arithmetic, shared by the ResourceQuota admission
// plugin and the quota controller: what an object consumes of a quota's
// resources, which quotas' scopes cover it, and quantities as quotas print
// them.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::api {

// Resource name → amount in thousandths (cpu "500m" = 500, memory "1Gi" =
// 1073741824000, a count of 1 = 1000).
using QuotaUsage = std::map<std::string, int64_t, std::less<>>;

// What `object` of `kind` uses, under every name a quota may track it by:
//   pods:  pods, count/pods, requests.cpu, cpu, requests.memory, memory,
//          limits.cpu, limits.memory, requests./limits.ephemeral-storage
//          (nothing for a Succeeded or Failed pod);
//   services: services, count/services, services.nodeports,
//          services.loadbalancers;
//   persistentvolumeclaims: persistentvolumeclaims, requests.storage and the
//          <class>.storageclass.storage.k8s.io/ forms;
//   configmaps, secrets, replicationcontrollers, resourcequotas: their
//          names; every kind: count/<resource>[.<group>].
QuotaUsage UsageOf(Kind kind, const boost::json::object& object);

// What `after` uses beyond `before`: the names whose amount grew, by how
// much (an update's charge).
QuotaUsage QuotaIncrease(const QuotaUsage& before, const QuotaUsage& after);

// A pod's containers' resources that `hard` constrains but the container
// does not set ("requests.cpu for: app"); kube refuses such pods.
std::vector<std::string> MissingPodResources(const boost::json::object& pod, const boost::json::object& hard);

// Whether `quota`'s scopes (spec.scopes, spec.scopeSelector) cover `object`:
// BestEffort, NotBestEffort, Terminating, NotTerminating and PriorityClass
// apply to pods; a scoped quota covers no other kind.
bool QuotaCovers(const boost::json::object& quota, Kind kind, const boost::json::object& object);

// The amount as kube prints it ("500m", "1Gi", "3").
std::string QuotaQuantity(const std::string& resource, int64_t milli);
// A quota list (spec.hard, status.used) read into thousandths; values that
// do not parse are left out.
QuotaUsage ReadQuotaList(const boost::json::object* list);

}  // namespace berth::api
