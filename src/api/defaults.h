#pragma once
// What kube's registry strategies and defaulting functions set before an
// object is validated and stored, as pure edits of its JSON (no store, no
// clock): Secret's stringData folded into data, and the defaults of Service,
// Job, CronJob, StatefulSet and DaemonSet. Each leaves a field a client set
// as it is. Callers run them before ValidateObject.

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::api {

// kube's Secret strategy: every stringData entry goes into data, base64
// encoded (replacing a data entry of the same key); stringData is dropped;
// an absent or empty type becomes "Opaque".
void PrepareSecret(boost::json::object& secret);

// kube's defaults for `kind`; a no-op for kinds without any here.
//   Secret:      type Opaque.
//   Service:     type ClusterIP, sessionAffinity None (ClientIP: a 10800s
//                timeout), ports' protocol TCP and targetPort = port,
//                clusterIPs from clusterIP, and but for ExternalName
//                ipFamilyPolicy SingleStack, ipFamilies [IPv4],
//                internalTrafficPolicy Cluster; NodePort and LoadBalancer:
//                externalTrafficPolicy Cluster; LoadBalancer:
//                allocateLoadBalancerNodePorts true.
//   Job:         parallelism 1 (completions 1 too when both unset),
//                backoffLimit 6 (MaxInt32 with backoffLimitPerIndex),
//                completionMode NonIndexed, suspend false,
//                podReplacementPolicy TerminatingOrFailed (Failed with a
//                podFailurePolicy), the Job's labels from its template's.
//   CronJob:     concurrencyPolicy Allow, suspend false,
//                successfulJobsHistoryLimit 3, failedJobsHistoryLimit 1.
//   StatefulSet: replicas 1, podManagementPolicy OrderedReady, updateStrategy
//                RollingUpdate with partition 0, revisionHistoryLimit 10,
//                persistentVolumeClaimRetentionPolicy Retain/Retain, the
//                StatefulSet's labels from its template's.
//   DaemonSet:   updateStrategy RollingUpdate with maxUnavailable 1 and
//                maxSurge 0, revisionHistoryLimit 10.
void ApplyDefaults(Kind kind, boost::json::object& object);

}  // namespace berth::api
