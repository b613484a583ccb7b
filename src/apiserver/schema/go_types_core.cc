// core/v1 messages (k8s.io/api/core/v1/generated.proto) of the kinds other
// than Pod, PodTemplate and Binding (go_types_pod.cc) and the
// persistent volumes (go_types_volume.cc): the object references the
// others embed, Namespace, ConfigMap, Secret, Service, ServiceAccount,
// ResourceQuota, Node, Event (and events.k8s.io/v1 Event, the same objects),
// Endpoints, LimitRange, ReplicationController.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// --- References

const Message kObjectReference{
    "ObjectReference",
    {String(1, "kind"), String(2, "namespace"), String(3, "name"), String(4, "uid").Go("types.UID"),
     String(5, "apiVersion"), String(6, "resourceVersion"), String(7, "fieldPath")}};
const Message kLocalObjectReference{"LocalObjectReference", {String(1, "name")}};
const Message kTypedLocalObjectReference{
    "TypedLocalObjectReference",
    {String(1, "apiGroup", kKeep), String(2, "kind", kKeep), String(3, "name", kKeep)}};

// --- Namespace, ConfigMap, Secret

const Message kNamespaceSpec{"NamespaceSpec", {Strings(1, "finalizers").Go("v1.FinalizerName")}};
const Message kNamespaceCondition{
    "NamespaceCondition",
    {String(1, "type", kKeep).Go("v1.NamespaceConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(4, "lastTransitionTime"),
     String(5, "reason"), String(6, "message")}};
const Message kNamespaceStatus{
    "NamespaceStatus", {String(1, "phase").Go("v1.NamespacePhase"), NestedList(2, "conditions", kNamespaceCondition)}};
const Message kNamespace{"Namespace",
                         {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kNamespaceSpec),
                          Nested(3, "status", kNamespaceStatus)}};
const Message kConfigMap{"ConfigMap",
                         {Nested(1, "metadata", kObjectMeta), Bool(4, "immutable", kKeep),
                          StringMap(2, "data"), BytesMap(3, "binaryData")}};
const Message kSecret{"Secret",
                      {Nested(1, "metadata", kObjectMeta), Bool(5, "immutable", kKeep),
                       BytesMap(2, "data"), StringMap(4, "stringData"), String(3, "type").Go("v1.SecretType")}};

// --- Service, ServiceAccount

const Message kServicePort{
    "ServicePort",
    {String(1, "name"), String(2, "protocol").Go("v1.Protocol"), String(6, "appProtocol", kKeep),
     Int(3, "port", kKeep), IntOrString(4, "targetPort"), Int(5, "nodePort")}};
const Message kClientIPConfig{"ClientIPConfig", {Int(1, "timeoutSeconds", kKeep)}};
const Message kSessionAffinityConfig{"SessionAffinityConfig",
                                     {Nested(1, "clientIP", kClientIPConfig)}};
const Message kServiceSpec{"ServiceSpec",
                           {NestedList(1, "ports", kServicePort),
                            StringMap(2, "selector"),
                            String(3, "clusterIP"),
                            Strings(18, "clusterIPs"),
                            String(4, "type").Go("v1.ServiceType"),
                            Strings(5, "externalIPs"),
                            String(7, "sessionAffinity").Go("v1.ServiceAffinity"),
                            String(8, "loadBalancerIP"),
                            Strings(9, "loadBalancerSourceRanges"),
                            String(10, "externalName"),
                            String(11, "externalTrafficPolicy").Go("v1.ServiceExternalTrafficPolicy"),
                            Int(12, "healthCheckNodePort"),
                            Bool(13, "publishNotReadyAddresses"),
                            Nested(14, "sessionAffinityConfig", kSessionAffinityConfig),
                            Strings(19, "ipFamilies").Go("v1.IPFamily"),
                            String(17, "ipFamilyPolicy", kKeep).Go("v1.IPFamilyPolicy"),
                            Bool(20, "allocateLoadBalancerNodePorts", kKeep),
                            String(21, "loadBalancerClass", kKeep),
                            String(22, "internalTrafficPolicy", kKeep).Go("v1.ServiceInternalTrafficPolicy"),
                            String(23, "trafficDistribution", kKeep)}};
const Message kPortStatus{
    "PortStatus", {Int(1, "port", kKeep), String(2, "protocol", kKeep).Go("v1.Protocol"), String(3, "error", kKeep)}};
const Message kLoadBalancerIngress{
    "LoadBalancerIngress",
    {String(1, "ip"), String(2, "hostname"), String(3, "ipMode", kKeep).Go("v1.LoadBalancerIPMode"),
     NestedList(4, "ports", kPortStatus)}};
const Message kLoadBalancerStatus{"LoadBalancerStatus",
                                  {NestedList(1, "ingress", kLoadBalancerIngress)}};
const Message kServiceStatus{
    "ServiceStatus",
    {Nested(1, "loadBalancer", kLoadBalancerStatus), NestedList(2, "conditions", kCondition)}};
const Message kService{"Service",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kServiceSpec),
                        Nested(3, "status", kServiceStatus)}};
const Message kServiceAccount{
    "ServiceAccount",
    {Nested(1, "metadata", kObjectMeta), NestedList(2, "secrets", kObjectReference),
     NestedList(3, "imagePullSecrets", kLocalObjectReference),
     Bool(4, "automountServiceAccountToken", kKeep)}};

// --- ResourceQuota, LimitRange

const Message kScopedResourceSelectorRequirement{
    "ScopedResourceSelectorRequirement",
    {String(1, "scopeName", kKeep).Go("v1.ResourceQuotaScope"), String(2, "operator", kKeep).Go("v1.ScopeSelectorOperator"), Strings(3, "values")}};
const Message kScopeSelector{
    "ScopeSelector", {NestedList(1, "matchExpressions", kScopedResourceSelectorRequirement)}};
const Message kResourceQuotaSpec{
    "ResourceQuotaSpec",
    {QuantityMap(1, "hard"), Strings(2, "scopes").Go("v1.ResourceQuotaScope"), Nested(3, "scopeSelector", kScopeSelector)}};
const Message kResourceQuotaStatus{"ResourceQuotaStatus",
                                   {QuantityMap(1, "hard"), QuantityMap(2, "used")}};
const Message kResourceQuota{
    "ResourceQuota",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kResourceQuotaSpec),
     Nested(3, "status", kResourceQuotaStatus)}};
const Message kLimitRangeItem{
    "LimitRangeItem",
    {String(1, "type", kKeep).Go("v1.LimitType"), QuantityMap(2, "max"), QuantityMap(3, "min"),
     QuantityMap(4, "default"), QuantityMap(5, "defaultRequest"),
     QuantityMap(6, "maxLimitRequestRatio")}};
const Message kLimitRangeSpec{"LimitRangeSpec", {NestedList(1, "limits", kLimitRangeItem)}};
const Message kLimitRange{"LimitRange",
                          {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kLimitRangeSpec)}};

// --- Node

const Message kTaint{"Taint",
                     {String(1, "key", kKeep), String(2, "value"), String(3, "effect", kKeep).Go("v1.TaintEffect"),
                      Time(4, "timeAdded")}};
const Message kConfigMapNodeConfigSource{
    "ConfigMapNodeConfigSource",
    {String(1, "namespace", kKeep), String(2, "name", kKeep), String(3, "uid").Go("types.UID"),
     String(4, "resourceVersion"), String(5, "kubeletConfigKey", kKeep)}};
const Message kNodeConfigSource{"NodeConfigSource",
                                {Nested(2, "configMap", kConfigMapNodeConfigSource)}};
const Message kNodePodPreemptionPolicy{"NodePodPreemptionPolicy",
                                       {Strings(1, "disableResizePreemption")}};
const Message kNodeSpec{"NodeSpec",
                        {String(1, "podCIDR"), Strings(7, "podCIDRs"), String(3, "providerID"),
                         Bool(4, "unschedulable"), NestedList(5, "taints", kTaint),
                         Nested(6, "configSource", kNodeConfigSource), String(2, "externalID"),
                         Nested(8, "podPreemptionPolicy", kNodePodPreemptionPolicy)}};
const Message kNodeCondition{
    "NodeCondition",
    {String(1, "type", kKeep).Go("v1.NodeConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastHeartbeatTime"),
     Time(4, "lastTransitionTime"), String(5, "reason"), String(6, "message")}};
const Message kNodeAddress{"NodeAddress", {String(1, "type", kKeep).Go("v1.NodeAddressType"), String(2, "address", kKeep)}};
const Message kDaemonEndpoint{"DaemonEndpoint", {Int(1, "Port", kKeep)}};
const Message kNodeDaemonEndpoints{"NodeDaemonEndpoints",
                                   {Nested(1, "kubeletEndpoint", kDaemonEndpoint)}};
const Message kNodeSwapStatus{"NodeSwapStatus", {Int(1, "capacity", kKeep).Go("int64")}};
const Message kNodeSystemInfo{
    "NodeSystemInfo",
    {String(1, "machineID", kKeep), String(2, "systemUUID", kKeep), String(3, "bootID", kKeep),
     String(4, "kernelVersion", kKeep), String(5, "osImage", kKeep),
     String(6, "containerRuntimeVersion", kKeep), String(7, "kubeletVersion", kKeep),
     String(8, "kubeProxyVersion", kKeep), String(9, "operatingSystem", kKeep),
     String(10, "architecture", kKeep), Nested(11, "swap", kNodeSwapStatus)}};
const Message kContainerImage{"ContainerImage", {Strings(1, "names"), Int(2, "sizeBytes").Go("int64")}};
const Message kAttachedVolume{"AttachedVolume",
                              {String(1, "name", kKeep).Go("v1.UniqueVolumeName"), String(2, "devicePath", kKeep)}};
const Message kNodeConfigStatus{
    "NodeConfigStatus",
    {Nested(1, "assigned", kNodeConfigSource), Nested(2, "active", kNodeConfigSource),
     Nested(3, "lastKnownGood", kNodeConfigSource), String(4, "error")}};
const Message kNodeRuntimeHandlerFeatures{
    "NodeRuntimeHandlerFeatures",
    {Bool(1, "recursiveReadOnlyMounts", kKeep), Bool(2, "userNamespaces", kKeep)}};
const Message kNodeRuntimeHandler{
    "NodeRuntimeHandler",
    {String(1, "name", kKeep), Nested(2, "features", kNodeRuntimeHandlerFeatures)}};
const Message kNodeFeatures{"NodeFeatures", {Bool(1, "supplementalGroupsPolicy", kKeep)}};
const Message kNodeStatus{
    "NodeStatus",
    {QuantityMap(1, "capacity"), QuantityMap(2, "allocatable"), String(3, "phase").Go("v1.NodePhase"),
     NestedList(4, "conditions", kNodeCondition), NestedList(5, "addresses", kNodeAddress),
     Nested(6, "daemonEndpoints", kNodeDaemonEndpoints), Nested(7, "nodeInfo", kNodeSystemInfo),
     NestedList(8, "images", kContainerImage), Strings(9, "volumesInUse").Go("v1.UniqueVolumeName"),
     NestedList(10, "volumesAttached", kAttachedVolume), Nested(11, "config", kNodeConfigStatus),
     NestedList(12, "runtimeHandlers", kNodeRuntimeHandler), Nested(13, "features", kNodeFeatures),
     Strings(14, "declaredFeatures")}};
const Message kNode{"Node",
                    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kNodeSpec),
                     Nested(3, "status", kNodeStatus)}};

// --- Event, Endpoints

const Message kEventSource{"EventSource", {String(1, "component"), String(2, "host")}};
const Message kEventSeries{"EventSeries", {Int(1, "count"), MicroTime(2, "lastObservedTime")}};
const Message kEvent{
    "Event",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "involvedObject", kObjectReference),
     String(3, "reason"), String(4, "message"), Nested(5, "source", kEventSource),
     Time(6, "firstTimestamp"), Time(7, "lastTimestamp"), Int(8, "count"), String(9, "type"),
     MicroTime(10, "eventTime"), Nested(11, "series", kEventSeries), String(12, "action"),
     Nested(13, "related", kObjectReference), String(14, "reportingComponent", kKeep),
     String(15, "reportingInstance", kKeep)}};
// events.k8s.io/v1 (k8s.io/api/events/v1/generated.proto): the same objects
// under their newer names.
const Message kEventsEvent{
    "Event",
    {Nested(1, "metadata", kObjectMeta), MicroTime(2, "eventTime"), Nested(3, "series", kEventSeries),
     String(4, "reportingController"), String(5, "reportingInstance"), String(6, "action"), String(7, "reason"),
     Nested(8, "regarding", kObjectReference), Nested(9, "related", kObjectReference), String(10, "note"),
     String(11, "type"), Nested(12, "deprecatedSource", kEventSource), Time(13, "deprecatedFirstTimestamp"),
     Time(14, "deprecatedLastTimestamp"), Int(15, "deprecatedCount")}};
const Message kEndpointAddress{
    "EndpointAddress",
    {String(1, "ip", kKeep), String(3, "hostname"), String(4, "nodeName", kKeep),
     Nested(2, "targetRef", kObjectReference)}};
const Message kEndpointPort{"EndpointPort",
                            {String(1, "name"), Int(2, "port", kKeep), String(3, "protocol").Go("v1.Protocol"),
                             String(4, "appProtocol", kKeep)}};
const Message kEndpointSubset{
    "EndpointSubset",
    {NestedList(1, "addresses", kEndpointAddress),
     NestedList(2, "notReadyAddresses", kEndpointAddress), NestedList(3, "ports", kEndpointPort)}};
const Message kEndpoints{
    "Endpoints", {Nested(1, "metadata", kObjectMeta), NestedList(2, "subsets", kEndpointSubset)}};

// --- ReplicationController

const Message kReplicationControllerSpec{
    "ReplicationControllerSpec",
    {Int(1, "replicas", kKeep), Int(4, "minReadySeconds"), StringMap(2, "selector"),
     Nested(3, "template", kPodTemplateSpec)}};
const Message kReplicationControllerCondition{
    "ReplicationControllerCondition",
    {String(1, "type", kKeep).Go("v1.ReplicationControllerConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message")}};
const Message kReplicationControllerStatus{
    "ReplicationControllerStatus",
    {Int(1, "replicas", kKeep), Int(2, "fullyLabeledReplicas"), Int(4, "readyReplicas"),
     Int(5, "availableReplicas"), Int(3, "observedGeneration").Go("int64"),
     NestedList(6, "conditions", kReplicationControllerCondition)}};
const Message kReplicationController{
    "ReplicationController",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kReplicationControllerSpec),
     Nested(3, "status", kReplicationControllerStatus)}};

const KindMessage kCoreKindList[] = {
    {api::Kind::kNamespace, &kNamespace},
    {api::Kind::kConfigMap, &kConfigMap},
    {api::Kind::kSecret, &kSecret},
    {api::Kind::kService, &kService},
    {api::Kind::kServiceAccount, &kServiceAccount},
    {api::Kind::kResourceQuota, &kResourceQuota},
    {api::Kind::kLimitRange, &kLimitRange},
    {api::Kind::kNode, &kNode},
    {api::Kind::kEvent, &kEvent},
    {api::Kind::kEventsEvent, &kEventsEvent},
    {api::Kind::kEndpoints, &kEndpoints},
    {api::Kind::kReplicationController, &kReplicationController},
};
const std::span<const KindMessage> kCoreKinds = kCoreKindList;

}  // namespace berth::apiserver::protobuf_schema
