#pragma once
// What kube's registry strategies and defaulting functions set before an
// object is validated and stored, as pure edits of its JSON (no store, no
// clock): Secret's stringData folded into data, and each kind's defaults
// (its group's SetDefaults_* and declarative defaults). Each leaves a field a
// client set as it is. Callers run them before ValidateObject.

#include <string>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::api {

// kube's Secret strategy: every stringData entry goes into data, base64
// encoded (replacing a data entry of the same key); stringData is dropped;
// an absent or empty type becomes "Opaque".
void PrepareSecret(boost::json::object& secret);

// kube's defaults for `kind`; a no-op for kinds without any here. JSON
// numbers in quantity fields become kube's strings first (quantity_json.h).
// Every kind with a pod template (KindInfo::pod_spec_path) gets DefaultPodSpec on it.
//   Pod:         DefaultPodSpec; with hostNetwork, hostPort = containerPort.
//   LimitRange:  a Container item's default from max, defaultRequest from
//                default, then from min.
//   Deployment:  replicas 1, revisionHistoryLimit 10, progressDeadlineSeconds
//                600, strategy RollingUpdate 25%/25%.
//   ReplicaSet, ReplicationController: replicas 1; an RC's selector and
//                labels, where empty, from its template's labels.
//   Namespace:   status.phase Active.
//   Node: allocatable from capacity.  Endpoints, EndpointSlice: TCP ports.
//   PersistentVolume(Claim): volumeMode Filesystem, status.phase Pending;
//                PVs reclaimPolicy Retain and their sources' defaults.
//   StorageClass, CSIDriver, PriorityClass, IngressClass, NetworkPolicy,
//   RoleBinding, ClusterRoleBinding, HorizontalPodAutoscaler: their group's.
//   Secret:      PrepareSecret (stringData folded), type Opaque.
//   Service:     type ClusterIP, sessionAffinity None (ClientIP: a 10800s
//                timeout), ports' protocol TCP and targetPort = port,
//                clusterIPs from clusterIP, and but for ExternalName
//                ipFamilyPolicy SingleStack, ipFamilies [IPv4],
//                internalTrafficPolicy Cluster; LoadBalancer and NodePort:
//                externalTrafficPolicy Cluster, LoadBalancer also
//                allocateLoadBalancerNodePorts true; status.loadBalancer {}.
//   Job:         parallelism 1 (completions 1 too when both unset),
//                backoffLimit 6 (MaxInt32 with backoffLimitPerIndex),
//                completionMode NonIndexed, suspend false, podReplacementPolicy
//                TerminatingOrFailed (Failed with a podFailurePolicy, whose
//                conditions' status is True), labels from the template's.
//   CronJob:     concurrencyPolicy Allow, suspend false, history limits 3 and 1.
//   StatefulSet: replicas 1, podManagementPolicy OrderedReady, updateStrategy
//                RollingUpdate (partition 0), revisionHistoryLimit 10, claim
//                retention Retain/Retain, labels from the template's.
//   DaemonSet:   RollingUpdate (maxUnavailable 1, maxSurge 0), revisionHistoryLimit 10.
void ApplyDefaults(Kind kind, boost::json::object& object);

// kube's pod spec defaults: restartPolicy Always, terminationGracePeriodSeconds
// 30, dnsPolicy ClusterFirst, schedulerName default-scheduler, an empty
// securityContext, enableServiceLinks, quantities as kube's strings; per
// container terminationMessage*, imagePullPolicy, requests from limits, ports'
// protocol TCP, probes' and env's defaults; a volume's source's (a name alone: emptyDir).
void DefaultPodSpec(boost::json::object& spec);
// kube's QoS class of a pod spec: Guaranteed when every container has equal
// cpu and memory requests and limits; BestEffort when nothing is requested or
// limited; else Burstable.
std::string QosClass(const boost::json::object& spec);

}  // namespace berth::api
