// core/v1 messages (k8s.io/api/core/v1/generated.proto) of the pod: its
// containers (init, ephemeral), probes, lifecycle hooks, security contexts,
// scheduling constraints and spec, the pod template every workload embeds,
// and the kinds Pod, PodTemplate and Binding, the pod's status too (a
// client's PUT of pods/status); its volumes are in go_types_volume.cc.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// --- Containers: ports, environment, resources, mounts

const Message kObjectFieldSelector{"ObjectFieldSelector",
                                   {String(1, "apiVersion"), String(2, "fieldPath", kKeep)}};
const Message kResourceFieldSelector{
    "ResourceFieldSelector",
    {String(1, "containerName"), String(2, "resource", kKeep), Quantity(3, "divisor")}};
const Message kContainerPort{"ContainerPort",
                             {String(1, "name"), Int(2, "hostPort"), Int(3, "containerPort", kKeep),
                              String(4, "protocol").Go("v1.Protocol"), String(5, "hostIP")}};
const Message kConfigMapEnvSource{"ConfigMapEnvSource",
                                  {Inline(1, kLocalObjectReference), Bool(2, "optional", kKeep)}};
const Message kSecretEnvSource{"SecretEnvSource",
                               {Inline(1, kLocalObjectReference), Bool(2, "optional", kKeep)}};
const Message kEnvFromSource{"EnvFromSource",
                             {String(1, "prefix"), Nested(2, "configMapRef", kConfigMapEnvSource),
                              Nested(3, "secretRef", kSecretEnvSource)}};
const Message kConfigMapKeySelector{
    "ConfigMapKeySelector",
    {Inline(1, kLocalObjectReference), String(2, "key", kKeep), Bool(3, "optional", kKeep)}};
const Message kSecretKeySelector{
    "SecretKeySelector",
    {Inline(1, kLocalObjectReference), String(2, "key", kKeep), Bool(3, "optional", kKeep)}};
const Message kFileKeySelector{"FileKeySelector",
                               {String(1, "volumeName", kKeep), String(2, "path", kKeep),
                                String(3, "key", kKeep), Bool(4, "optional", kKeep)}};
const Message kEnvVarSource{
    "EnvVarSource",
    {Nested(1, "fieldRef", kObjectFieldSelector),
     Nested(2, "resourceFieldRef", kResourceFieldSelector),
     Nested(3, "configMapKeyRef", kConfigMapKeySelector),
     Nested(4, "secretKeyRef", kSecretKeySelector), Nested(5, "fileKeyRef", kFileKeySelector)}};
const Message kEnvVar{
    "EnvVar",
    {String(1, "name", kKeep), String(2, "value"), Nested(3, "valueFrom", kEnvVarSource)}};
const Message kResourceClaim{"ResourceClaim", {String(1, "name", kKeep), String(2, "request")}};
const Message kResourceRequirements{"ResourceRequirements",
                                    {QuantityMap(1, "limits"), QuantityMap(2, "requests"),
                                     NestedList(3, "claims", kResourceClaim)}};
const Message kContainerResizePolicy{
    "ContainerResizePolicy", {String(1, "resourceName", kKeep).Go("v1.ResourceName"), String(2, "restartPolicy", kKeep).Go("v1.ResourceResizeRestartPolicy")}};
const Message kContainerRestartRuleOnExitCodes{"ContainerRestartRuleOnExitCodes",
                                               {String(1, "operator").Go("v1.ContainerRestartRuleOnExitCodesOperator"), Ints(2, "values")}};
const Message kContainerRestartRule{
    "ContainerRestartRule",
    {String(1, "action").Go("v1.ContainerRestartRuleAction"), Nested(2, "exitCodes", kContainerRestartRuleOnExitCodes)}};
const Message kVolumeMount{
    "VolumeMount",
    {String(1, "name", kKeep), Bool(2, "readOnly"), String(7, "recursiveReadOnly", kKeep).Go("v1.RecursiveReadOnlyMode"),
     String(3, "mountPath", kKeep), String(4, "subPath"), String(5, "mountPropagation", kKeep).Go("v1.MountPropagationMode"),
     String(6, "subPathExpr"), Strings(8, "bindMountOptions")}};
const Message kVolumeDevice{"VolumeDevice",
                            {String(1, "name", kKeep), String(2, "devicePath", kKeep)}};

// --- Probes and lifecycle hooks

const Message kExecAction{"ExecAction", {Strings(1, "command")}};
const Message kHTTPHeader{"HTTPHeader", {String(1, "name", kKeep), String(2, "value", kKeep)}};
const Message kHTTPGetAction{
    "HTTPGetAction",
    {String(1, "path"), IntOrString(2, "port"), String(3, "host"), String(4, "scheme").Go("v1.URIScheme"),
     NestedList(5, "httpHeaders", kHTTPHeader), String(6, "protocol", kKeep).Go("v1.HTTPProtocol")}};
const Message kTCPSocketAction{"TCPSocketAction", {IntOrString(1, "port"), String(2, "host")}};
const Message kGRPCAction{
    "GRPCAction", {Int(1, "port", kKeep), String(2, "service", kKeep), String(3, "mode", kKeep).Go("v1.GRPCProbeMode")}};
const Message kProbeHandler{
    "ProbeHandler",
    {Nested(1, "exec", kExecAction), Nested(2, "httpGet", kHTTPGetAction),
     Nested(3, "tcpSocket", kTCPSocketAction), Nested(4, "grpc", kGRPCAction)}};
const Message kProbe{"Probe",
                     {Inline(1, kProbeHandler), Int(2, "initialDelaySeconds"),
                      Int(3, "timeoutSeconds"), Int(4, "periodSeconds"), Int(5, "successThreshold"),
                      Int(6, "failureThreshold"), Int(7, "terminationGracePeriodSeconds", kKeep).Go("int64")}};
const Message kSleepAction{"SleepAction", {Int(1, "seconds", kKeep).Go("int64")}};
const Message kLifecycleHandler{
    "LifecycleHandler",
    {Nested(1, "exec", kExecAction), Nested(2, "httpGet", kHTTPGetAction),
     Nested(3, "tcpSocket", kTCPSocketAction), Nested(4, "sleep", kSleepAction)}};
const Message kLifecycle{"Lifecycle",
                         {Nested(1, "postStart", kLifecycleHandler),
                          Nested(2, "preStop", kLifecycleHandler), String(3, "stopSignal", kKeep).Go("v1.Signal")}};

// --- Security contexts

const Message kCapabilities{"Capabilities", {Strings(1, "add").Go("v1.Capability"), Strings(2, "drop").Go("v1.Capability")}};
const Message kSELinuxOptions{
    "SELinuxOptions",
    {String(1, "user"), String(2, "role"), String(3, "type"), String(4, "level")}};
const Message kWindowsSecurityContextOptions{
    "WindowsSecurityContextOptions",
    {String(1, "gmsaCredentialSpecName", kKeep), String(2, "gmsaCredentialSpec", kKeep),
     String(3, "runAsUserName", kKeep), Bool(4, "hostProcess", kKeep)}};
const Message kSeccompProfile{"SeccompProfile",
                              {String(1, "type", kKeep).Go("v1.SeccompProfileType"), String(2, "localhostProfile", kKeep)}};
const Message kAppArmorProfile{"AppArmorProfile",
                               {String(1, "type", kKeep).Go("v1.AppArmorProfileType"), String(2, "localhostProfile", kKeep)}};
const Message kSecurityContext{
    "SecurityContext",
    {Nested(1, "capabilities", kCapabilities), Bool(2, "privileged", kKeep),
     Nested(3, "seLinuxOptions", kSELinuxOptions),
     Nested(10, "windowsOptions", kWindowsSecurityContextOptions), Int(4, "runAsUser", kKeep).Go("int64"),
     Int(8, "runAsGroup", kKeep).Go("int64"), Bool(5, "runAsNonRoot", kKeep),
     Bool(6, "readOnlyRootFilesystem", kKeep), Bool(7, "allowPrivilegeEscalation", kKeep),
     String(9, "procMount", kKeep).Go("v1.ProcMountType"), Nested(11, "seccompProfile", kSeccompProfile),
     Nested(12, "appArmorProfile", kAppArmorProfile)}};

// --- Containers

const Message kContainer{"Container",
                         {String(1, "name", kKeep),
                          String(2, "image"),
                          Strings(3, "command"),
                          Strings(4, "args"),
                          String(5, "workingDir"),
                          NestedList(6, "ports", kContainerPort),
                          NestedList(19, "envFrom", kEnvFromSource),
                          NestedList(7, "env", kEnvVar),
                          Nested(8, "resources", kResourceRequirements),
                          NestedList(23, "resizePolicy", kContainerResizePolicy),
                          String(24, "restartPolicy", kKeep).Go("v1.ContainerRestartPolicy"),
                          NestedList(25, "restartPolicyRules", kContainerRestartRule),
                          NestedList(9, "volumeMounts", kVolumeMount),
                          NestedList(21, "volumeDevices", kVolumeDevice),
                          Nested(10, "livenessProbe", kProbe),
                          Nested(11, "readinessProbe", kProbe),
                          Nested(22, "startupProbe", kProbe),
                          Nested(12, "lifecycle", kLifecycle),
                          String(13, "terminationMessagePath"),
                          String(20, "terminationMessagePolicy").Go("v1.TerminationMessagePolicy"),
                          String(14, "imagePullPolicy").Go("v1.PullPolicy"),
                          Nested(15, "securityContext", kSecurityContext),
                          Bool(16, "stdin"),
                          Bool(17, "stdinOnce"),
                          Bool(18, "tty")}};
const Message kEphemeralContainerCommon{
    "EphemeralContainerCommon",
    {String(1, "name", kKeep),
     String(2, "image"),
     Strings(3, "command"),
     Strings(4, "args"),
     String(5, "workingDir"),
     NestedList(6, "ports", kContainerPort),
     NestedList(19, "envFrom", kEnvFromSource),
     NestedList(7, "env", kEnvVar),
     Nested(8, "resources", kResourceRequirements),
     NestedList(23, "resizePolicy", kContainerResizePolicy),
     String(24, "restartPolicy", kKeep).Go("v1.ContainerRestartPolicy"),
     NestedList(25, "restartPolicyRules", kContainerRestartRule),
     NestedList(9, "volumeMounts", kVolumeMount),
     NestedList(21, "volumeDevices", kVolumeDevice),
     Nested(10, "livenessProbe", kProbe),
     Nested(11, "readinessProbe", kProbe),
     Nested(22, "startupProbe", kProbe),
     Nested(12, "lifecycle", kLifecycle),
     String(13, "terminationMessagePath"),
     String(20, "terminationMessagePolicy").Go("v1.TerminationMessagePolicy"),
     String(14, "imagePullPolicy").Go("v1.PullPolicy"),
     Nested(15, "securityContext", kSecurityContext),
     Bool(16, "stdin"),
     Bool(17, "stdinOnce"),
     Bool(18, "tty")}};
const Message kEphemeralContainer{
    "EphemeralContainer", {Inline(1, kEphemeralContainerCommon), String(2, "targetContainerName")}};

// --- Scheduling constraints

const Message kNodeSelectorRequirement{
    "NodeSelectorRequirement",
    {String(1, "key", kKeep), String(2, "operator", kKeep).Go("v1.NodeSelectorOperator"), Strings(3, "values")}};
const Message kNodeSelectorTerm{"NodeSelectorTerm",
                                {NestedList(1, "matchExpressions", kNodeSelectorRequirement),
                                 NestedList(2, "matchFields", kNodeSelectorRequirement)}};
const Message kNodeSelector{"NodeSelector",
                            {NestedList(1, "nodeSelectorTerms", kNodeSelectorTerm)}};
const Message kPreferredSchedulingTerm{
    "PreferredSchedulingTerm",
    {Int(1, "weight", kKeep), Nested(2, "preference", kNodeSelectorTerm)}};
const Message kNodeAffinity{
    "NodeAffinity",
    {Nested(1, "requiredDuringSchedulingIgnoredDuringExecution", kNodeSelector),
     NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kPreferredSchedulingTerm)}};
const Message kPodAffinityTerm{
    "PodAffinityTerm",
    {Nested(1, "labelSelector", kLabelSelector), Strings(2, "namespaces"),
     String(3, "topologyKey", kKeep), Nested(4, "namespaceSelector", kLabelSelector),
     Strings(5, "matchLabelKeys"), Strings(6, "mismatchLabelKeys")}};
const Message kWeightedPodAffinityTerm{
    "WeightedPodAffinityTerm",
    {Int(1, "weight", kKeep), Nested(2, "podAffinityTerm", kPodAffinityTerm)}};
const Message kPodAffinity{
    "PodAffinity",
    {NestedList(1, "requiredDuringSchedulingIgnoredDuringExecution", kPodAffinityTerm),
     NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kWeightedPodAffinityTerm)}};
const Message kPodAntiAffinity{
    "PodAntiAffinity",
    {NestedList(1, "requiredDuringSchedulingIgnoredDuringExecution", kPodAffinityTerm),
     NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kWeightedPodAffinityTerm)}};
const Message kAffinity{
    "Affinity",
    {Nested(1, "nodeAffinity", kNodeAffinity), Nested(2, "podAffinity", kPodAffinity),
     Nested(3, "podAntiAffinity", kPodAntiAffinity)}};
const Message kToleration{"Toleration",
                          {String(1, "key"), String(2, "operator").Go("v1.TolerationOperator"), String(3, "value"),
                           String(4, "effect").Go("v1.TaintEffect"), Int(5, "tolerationSeconds", kKeep).Go("int64")}};
const Message kTopologySpreadConstraint{
    "TopologySpreadConstraint",
    {Int(1, "maxSkew", kKeep), String(2, "topologyKey", kKeep),
     String(3, "whenUnsatisfiable", kKeep).Go("v1.UnsatisfiableConstraintAction"), Nested(4, "labelSelector", kLabelSelector),
     Int(5, "minDomains", kKeep), String(6, "nodeAffinityPolicy", kKeep).Go("v1.NodeInclusionPolicy"),
     String(7, "nodeTaintsPolicy", kKeep).Go("v1.NodeInclusionPolicy"), Strings(8, "matchLabelKeys")}};

// --- The pod

const Message kSysctl{"Sysctl", {String(1, "name", kKeep), String(2, "value", kKeep)}};
const Message kPodSecurityContext{
    "PodSecurityContext",
    {Nested(1, "seLinuxOptions", kSELinuxOptions),
     Nested(8, "windowsOptions", kWindowsSecurityContextOptions), Int(2, "runAsUser", kKeep).Go("int64"),
     Int(6, "runAsGroup", kKeep).Go("int64"), Bool(3, "runAsNonRoot", kKeep), Ints(4, "supplementalGroups").Go("int64"),
     String(12, "supplementalGroupsPolicy", kKeep).Go("v1.SupplementalGroupsPolicy"), Int(5, "fsGroup", kKeep).Go("int64"),
     NestedList(7, "sysctls", kSysctl), String(9, "fsGroupChangePolicy", kKeep).Go("v1.PodFSGroupChangePolicy"),
     Nested(10, "seccompProfile", kSeccompProfile), Nested(11, "appArmorProfile", kAppArmorProfile),
     String(13, "seLinuxChangePolicy", kKeep).Go("v1.PodSELinuxChangePolicy")}};
const Message kHostAlias{"HostAlias", {String(1, "ip", kKeep), Strings(2, "hostnames")}};
const Message kPodDNSConfigOption{"PodDNSConfigOption",
                                  {String(1, "name"), String(2, "value", kKeep)}};
const Message kPodDNSConfig{"PodDNSConfig",
                            {Strings(1, "nameservers"), Strings(2, "searches"),
                             NestedList(3, "options", kPodDNSConfigOption)}};
const Message kPodReadinessGate{"PodReadinessGate", {String(1, "conditionType", kKeep).Go("v1.PodConditionType")}};
const Message kPodOS{"PodOS", {String(1, "name", kKeep).Go("v1.OSName")}};
const Message kPodSchedulingGate{"PodSchedulingGate", {String(1, "name", kKeep)}};
const Message kPodResourceClaim{"PodResourceClaim",
                                {String(1, "name", kKeep), String(3, "resourceClaimName", kKeep),
                                 String(4, "resourceClaimTemplateName", kKeep)}};
const Message kPodSchedulingGroup{"PodSchedulingGroup", {String(1, "podGroupName", kKeep)}};
const Message kEvictionResponder{"EvictionResponder",
                                 {String(1, "name", kKeep), Int(2, "priority", kKeep)}};
const Message kPodSpec{"PodSpec",
                       {NestedList(1, "volumes", kVolume),
                        NestedList(20, "initContainers", kContainer),
                        NestedList(2, "containers", kContainer),
                        NestedList(34, "ephemeralContainers", kEphemeralContainer),
                        String(3, "restartPolicy").Go("v1.RestartPolicy"),
                        Int(4, "terminationGracePeriodSeconds", kKeep).Go("int64"),
                        Int(5, "activeDeadlineSeconds", kKeep).Go("int64"),
                        String(6, "dnsPolicy").Go("v1.DNSPolicy"),
                        StringMap(7, "nodeSelector"),
                        String(8, "serviceAccountName"),
                        String(9, "serviceAccount"),
                        Bool(21, "automountServiceAccountToken", kKeep),
                        String(10, "nodeName"),
                        Bool(11, "hostNetwork"),
                        Bool(12, "hostPID"),
                        Bool(13, "hostIPC"),
                        Bool(27, "shareProcessNamespace", kKeep),
                        Nested(14, "securityContext", kPodSecurityContext),
                        NestedList(15, "imagePullSecrets", kLocalObjectReference),
                        String(16, "hostname"),
                        String(17, "subdomain"),
                        Nested(18, "affinity", kAffinity),
                        String(19, "schedulerName"),
                        NestedList(22, "tolerations", kToleration),
                        NestedList(23, "hostAliases", kHostAlias),
                        String(24, "priorityClassName"),
                        Int(25, "priority", kKeep),
                        Nested(26, "dnsConfig", kPodDNSConfig),
                        NestedList(28, "readinessGates", kPodReadinessGate),
                        String(29, "runtimeClassName", kKeep),
                        Bool(30, "enableServiceLinks", kKeep),
                        String(31, "preemptionPolicy", kKeep).Go("v1.PreemptionPolicy"),
                        QuantityMap(32, "overhead"),
                        NestedList(33, "topologySpreadConstraints", kTopologySpreadConstraint),
                        Bool(35, "setHostnameAsFQDN", kKeep),
                        Nested(36, "os", kPodOS),
                        Bool(37, "hostUsers", kKeep),
                        NestedList(38, "schedulingGates", kPodSchedulingGate),
                        NestedList(39, "resourceClaims", kPodResourceClaim),
                        Nested(40, "resources", kResourceRequirements),
                        String(41, "hostnameOverride", kKeep),
                        Nested(43, "schedulingGroup", kPodSchedulingGroup),
                        NestedList(44, "evictionResponders", kEvictionResponder)}};

// --- The pod's status: conditions, container states, resources

const Message kPodCondition{
    "PodCondition",
    {String(1, "type", kKeep).Go("v1.PodConditionType"), Int(7, "observedGeneration").Go("int64"), String(2, "status", kKeep).Go("v1.ConditionStatus"),
     Time(3, "lastProbeTime"), Time(4, "lastTransitionTime"), String(5, "reason"),
     String(6, "message")}};
const Message kHostIP{"HostIP", {String(1, "ip", kKeep)}};
const Message kPodIP{"PodIP", {String(1, "ip", kKeep)}};
const Message kContainerStateWaiting{"ContainerStateWaiting",
                                     {String(1, "reason"), String(2, "message")}};
const Message kContainerStateRunning{"ContainerStateRunning", {Time(1, "startedAt")}};
const Message kContainerStateTerminated{
    "ContainerStateTerminated",
    {Int(1, "exitCode", kKeep), Int(2, "signal"), String(3, "reason"), String(4, "message"),
     Time(5, "startedAt"), Time(6, "finishedAt"), String(7, "containerID")}};
const Message kContainerState{
    "ContainerState",
    {Nested(1, "waiting", kContainerStateWaiting), Nested(2, "running", kContainerStateRunning),
     Nested(3, "terminated", kContainerStateTerminated)}};
const Message kImageVolumeStatus{"ImageVolumeStatus", {String(1, "imageRef")}};
const Message kVolumeStatus{"VolumeStatus", {Nested(1, "image", kImageVolumeStatus)}};
const Message kVolumeMountStatus{
    "VolumeMountStatus",
    {String(1, "name", kKeep), String(2, "mountPath", kKeep), Bool(3, "readOnly"),
     String(4, "recursiveReadOnly", kKeep).Go("v1.RecursiveReadOnlyMode"), Nested(5, "volumeStatus", kVolumeStatus)}};
const Message kLinuxContainerUser{
    "LinuxContainerUser",
    {Int(1, "uid", kKeep).Go("int64"), Int(2, "gid", kKeep).Go("int64"), Ints(3, "supplementalGroups").Go("int64")}};
const Message kContainerUser{"ContainerUser", {Nested(1, "linux", kLinuxContainerUser)}};
const Message kResourceHealth{
    "ResourceHealth",
    {String(1, "resourceID", kKeep).Go("v1.ResourceID"), String(2, "health").Go("v1.ResourceHealthStatus"), String(6, "message", kKeep)}};
const Message kResourceStatus{
    "ResourceStatus", {String(1, "name", kKeep).Go("v1.ResourceName"), NestedList(2, "resources", kResourceHealth)}};
const Message kContainerStatus{
    "ContainerStatus",
    {String(1, "name", kKeep), Nested(2, "state", kContainerState),
     Nested(3, "lastState", kContainerState), Bool(4, "ready", kKeep),
     Int(5, "restartCount", kKeep), String(6, "image", kKeep), String(7, "imageID", kKeep),
     String(8, "containerID"), Bool(9, "started", kKeep), QuantityMap(10, "allocatedResources"),
     Nested(11, "resources", kResourceRequirements),
     NestedList(12, "volumeMounts", kVolumeMountStatus), Nested(13, "user", kContainerUser),
     NestedList(14, "allocatedResourcesStatus", kResourceStatus), String(15, "stopSignal", kKeep).Go("v1.Signal")}};
const Message kPodResourceClaimStatus{
    "PodResourceClaimStatus", {String(1, "name", kKeep), String(2, "resourceClaimName", kKeep)}};
const Message kContainerExtendedResourceRequest{
    "ContainerExtendedResourceRequest",
    {String(1, "containerName", kKeep), String(2, "resourceName", kKeep),
     String(3, "requestName", kKeep)}};
const Message kPodExtendedResourceClaimStatus{
    "PodExtendedResourceClaimStatus",
    {NestedList(1, "requestMappings", kContainerExtendedResourceRequest),
     String(2, "resourceClaimName", kKeep)}};
const Message kNodeAllocatableMappedResources{"NodeAllocatableMappedResources",
                                              {String(1, "name", kKeep).Go("v1.ResourceName"), Quantity(2, "quantity")}};
const Message kNodeAllocatableOverheadResources{
    "NodeAllocatableOverheadResources",
    {String(1, "name", kKeep).Go("v1.ResourceName"), Quantity(2, "perPod"), Quantity(3, "perContainer")}};
const Message kNodeAllocatableResourceClaimStatus{
    "NodeAllocatableResourceClaimStatus",
    {String(1, "resourceClaimName", kKeep), Strings(2, "containers"),
     NestedList(4, "mapping", kNodeAllocatableMappedResources),
     NestedList(5, "overhead", kNodeAllocatableOverheadResources)}};
const Message kPodVolumeHealth{
    "PodVolumeHealth",
    {String(1, "name", kKeep), NestedList(2, "healthConditions", kVolumeHealthCondition),
     Time(3, "lastTransitionTime")}};
const Message kPodStatus{
    "PodStatus",
    {Int(17, "observedGeneration").Go("int64"),
     String(1, "phase").Go("v1.PodPhase"),
     NestedList(2, "conditions", kPodCondition),
     String(3, "message"),
     String(4, "reason"),
     String(11, "nominatedNodeName"),
     String(5, "hostIP"),
     NestedList(16, "hostIPs", kHostIP),
     String(6, "podIP"),
     NestedList(12, "podIPs", kPodIP),
     Time(7, "startTime"),
     NestedList(10, "initContainerStatuses", kContainerStatus),
     NestedList(8, "containerStatuses", kContainerStatus),
     String(9, "qosClass").Go("v1.PodQOSClass"),
     NestedList(13, "ephemeralContainerStatuses", kContainerStatus),
     String(14, "resize").Go("v1.PodResizeStatus"),
     NestedList(15, "resourceClaimStatuses", kPodResourceClaimStatus),
     Nested(18, "extendedResourceClaimStatus", kPodExtendedResourceClaimStatus),
     QuantityMap(19, "allocatedResources"),
     Nested(20, "resources", kResourceRequirements),
     NestedList(21, "nodeAllocatableResourceClaimStatuses", kNodeAllocatableResourceClaimStatus),
     NestedList(22, "volumeHealth", kPodVolumeHealth)}};
const Message kPod{"Pod",
                   {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPodSpec),
                    Nested(3, "status", kPodStatus)}};
const Message kPodTemplateSpec{"PodTemplateSpec",
                               {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPodSpec)}};
const Message kPodTemplate{
    "PodTemplate", {Nested(1, "metadata", kObjectMeta), Nested(2, "template", kPodTemplateSpec)}};
const Message kBinding{"Binding",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "target", kObjectReference)}};

const KindMessage kPodKindList[] = {
    {api::Kind::kPod, &kPod},
    {api::Kind::kPodTemplate, &kPodTemplate},
    {api::Kind::kBinding, &kBinding},
};
const std::span<const KindMessage> kPodKinds = kPodKindList;

}  // namespace berth::apiserver::protobuf_schema
