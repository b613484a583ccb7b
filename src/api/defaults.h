#pragma once
// What kube's registry strategies and defaulting functions set before an
// object is validated and stored, as pure edits of its JSON (no store, no
// clock): Secret's stringData folded into data, and the defaults of Service,
// Job, CronJob, StatefulSet and DaemonSet. Each leaves a field a client set
// as it is. Callers run them before ValidateObject.

#include <string>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::api {

// kube's Secret strategy: every stringData entry goes into data, base64
// encoded (replacing a data entry of the same key); stringData is dropped;
// an absent or empty type becomes "Opaque".
void PrepareSecret(boost::json::object& secret);

// kube's defaults for `kind`; a no-op for kinds without any here. Every
// kind with a pod template (KindInfo::pod_spec_path) gets DefaultPodSpec on it.
//   Pod:         DefaultPodSpec.
//   LimitRange:  a Container item's default from max, defaultRequest from
//                default, then from min.
//   Deployment:  replicas 1, revisionHistoryLimit 10, progressDeadlineSeconds
//                600, strategy RollingUpdate 25%/25%.
//   ReplicaSet:  replicas 1.
//   Namespace:   status.phase Active.
//   PersistentVolume(Claim): volumeMode Filesystem, status.phase Pending;
//                PVs reclaimPolicy Retain.
//   StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate.
//   PriorityClass: preemptionPolicy PreemptLowerPriority.
//   Secret:      PrepareSecret (stringData folded), type Opaque.
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

// kube's pod spec defaults: restartPolicy Always, terminationGracePeriodSeconds
// 30, dnsPolicy ClusterFirst, schedulerName default-scheduler, an empty
// securityContext, enableServiceLinks; per container terminationMessage*,
// imagePullPolicy (Always for :latest or untagged images), requests from
// limits, ports' protocol TCP.
void DefaultPodSpec(boost::json::object& spec);
// kube's QoS class of a pod spec: Guaranteed when every container has equal
// cpu and memory requests and limits; BestEffort when nothing is requested or
// limited; else Burstable.
std::string QosClass(const boost::json::object& spec);

}  // namespace berth::api
