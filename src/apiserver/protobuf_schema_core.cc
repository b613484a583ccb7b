// core/v1 messages (k8s.io/api/core/v1/generated.proto): the pod template
// every workload embeds, and ConfigMap, Secret, Service, ServiceAccount,
// ResourceQuota, Namespace.
//
// Of the volume sources, those a pod on berth can name today (hostPath,
// emptyDir, secret, nfs, persistentVolumeClaim, downwardAPI, configMap,
// projected, csi, image); the cloud plugins' sources are unknown fields.

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kLocalObjectReference{"LocalObjectReference", {String(1, "name")}};
const Message kTypedLocalObjectReference{
    "TypedLocalObjectReference", {String(1, "apiGroup", kKeep), String(2, "kind", kKeep), String(3, "name", kKeep)}};
const Message kObjectReference{"ObjectReference",
                               {String(1, "kind"), String(2, "namespace"), String(3, "name"), String(4, "uid"),
                                String(5, "apiVersion"), String(6, "resourceVersion"), String(7, "fieldPath")}};

// --- Containers.

const Message kContainerPort{"ContainerPort",
                             {String(1, "name"), Int(2, "hostPort"), Int(3, "containerPort", kKeep),
                              String(4, "protocol"), String(5, "hostIP")}};
const Message kObjectFieldSelector{"ObjectFieldSelector", {String(1, "apiVersion"), String(2, "fieldPath", kKeep)}};
const Message kResourceFieldSelector{
    "ResourceFieldSelector", {String(1, "containerName"), String(2, "resource", kKeep), Quantity(3, "divisor")}};
const Message kConfigMapKeySelector{
    "ConfigMapKeySelector",
    {Inline(1, kLocalObjectReference), String(2, "key", kKeep), Bool(3, "optional", kKeep)}};
const Message kSecretKeySelector{
    "SecretKeySelector", {Inline(1, kLocalObjectReference), String(2, "key", kKeep), Bool(3, "optional", kKeep)}};
const Message kEnvVarSource{"EnvVarSource",
                            {Nested(1, "fieldRef", kObjectFieldSelector),
                             Nested(2, "resourceFieldRef", kResourceFieldSelector),
                             Nested(3, "configMapKeyRef", kConfigMapKeySelector),
                             Nested(4, "secretKeyRef", kSecretKeySelector)}};
const Message kEnvVar{"EnvVar", {String(1, "name", kKeep), String(2, "value"), Nested(3, "valueFrom", kEnvVarSource)}};
const Message kConfigMapEnvSource{"ConfigMapEnvSource",
                                  {Inline(1, kLocalObjectReference), Bool(2, "optional", kKeep)}};
const Message kSecretEnvSource{"SecretEnvSource", {Inline(1, kLocalObjectReference), Bool(2, "optional", kKeep)}};
const Message kEnvFromSource{"EnvFromSource",
                             {String(1, "prefix"), Nested(2, "configMapRef", kConfigMapEnvSource),
                              Nested(3, "secretRef", kSecretEnvSource)}};
const Message kResourceClaim{"ResourceClaim", {String(1, "name", kKeep), String(2, "request")}};
const Message kResourceRequirements{
    "ResourceRequirements",
    {QuantityMap(1, "limits"), QuantityMap(2, "requests"), NestedList(3, "claims", kResourceClaim)}};
const Message kContainerResizePolicy{"ContainerResizePolicy",
                                     {String(1, "resourceName", kKeep), String(2, "restartPolicy", kKeep)}};
const Message kContainerRestartRuleOnExitCodes{"ContainerRestartRuleOnExitCodes",
                                               {String(1, "operator"), Ints(2, "values")}};
const Message kContainerRestartRule{
    "ContainerRestartRule", {String(1, "action"), Nested(2, "exitCodes", kContainerRestartRuleOnExitCodes)}};
const Message kVolumeMount{"VolumeMount",
                           {String(1, "name", kKeep), Bool(2, "readOnly"), String(7, "recursiveReadOnly", kKeep),
                            String(3, "mountPath", kKeep), String(4, "subPath"), String(5, "mountPropagation", kKeep),
                            String(6, "subPathExpr"), Strings(8, "bindMountOptions")}};
const Message kVolumeDevice{"VolumeDevice", {String(1, "name", kKeep), String(2, "devicePath", kKeep)}};

const Message kExecAction{"ExecAction", {Strings(1, "command")}};
const Message kHTTPHeader{"HTTPHeader", {String(1, "name", kKeep), String(2, "value", kKeep)}};
const Message kHTTPGetAction{"HTTPGetAction",
                             {String(1, "path"), IntOrString(2, "port"), String(3, "host"), String(4, "scheme"),
                              NestedList(5, "httpHeaders", kHTTPHeader), String(6, "protocol", kKeep)}};
const Message kTCPSocketAction{"TCPSocketAction", {IntOrString(1, "port"), String(2, "host")}};
const Message kGRPCAction{"GRPCAction",
                          {Int(1, "port", kKeep), String(2, "service", kKeep), String(3, "mode", kKeep)}};
const Message kSleepAction{"SleepAction", {Int(1, "seconds", kKeep)}};
const Message kProbeHandler{"ProbeHandler",
                            {Nested(1, "exec", kExecAction), Nested(2, "httpGet", kHTTPGetAction),
                             Nested(3, "tcpSocket", kTCPSocketAction), Nested(4, "grpc", kGRPCAction)}};
const Message kProbe{"Probe",
                     {Inline(1, kProbeHandler), Int(2, "initialDelaySeconds"), Int(3, "timeoutSeconds"),
                      Int(4, "periodSeconds"), Int(5, "successThreshold"), Int(6, "failureThreshold"),
                      Int(7, "terminationGracePeriodSeconds", kKeep)}};
const Message kLifecycleHandler{"LifecycleHandler",
                                {Nested(1, "exec", kExecAction), Nested(2, "httpGet", kHTTPGetAction),
                                 Nested(3, "tcpSocket", kTCPSocketAction), Nested(4, "sleep", kSleepAction)}};
const Message kLifecycle{"Lifecycle",
                         {Nested(1, "postStart", kLifecycleHandler), Nested(2, "preStop", kLifecycleHandler),
                          String(3, "stopSignal", kKeep)}};

const Message kCapabilities{"Capabilities", {Strings(1, "add"), Strings(2, "drop")}};
const Message kSELinuxOptions{"SELinuxOptions",
                              {String(1, "user"), String(2, "role"), String(3, "type"), String(4, "level")}};
const Message kWindowsSecurityContextOptions{
    "WindowsSecurityContextOptions",
    {String(1, "gmsaCredentialSpecName", kKeep), String(2, "gmsaCredentialSpec", kKeep),
     String(3, "runAsUserName", kKeep), Bool(4, "hostProcess", kKeep)}};
const Message kSeccompProfile{"SeccompProfile", {String(1, "type", kKeep), String(2, "localhostProfile", kKeep)}};
const Message kAppArmorProfile{"AppArmorProfile", {String(1, "type", kKeep), String(2, "localhostProfile", kKeep)}};
const Message kSecurityContext{
    "SecurityContext",
    {Nested(1, "capabilities", kCapabilities), Bool(2, "privileged", kKeep), Nested(3, "seLinuxOptions", kSELinuxOptions),
     Nested(10, "windowsOptions", kWindowsSecurityContextOptions), Int(4, "runAsUser", kKeep),
     Int(8, "runAsGroup", kKeep), Bool(5, "runAsNonRoot", kKeep), Bool(6, "readOnlyRootFilesystem", kKeep),
     Bool(7, "allowPrivilegeEscalation", kKeep), String(9, "procMount", kKeep),
     Nested(11, "seccompProfile", kSeccompProfile), Nested(12, "appArmorProfile", kAppArmorProfile)}};

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
                          String(24, "restartPolicy", kKeep),
                          NestedList(25, "restartPolicyRules", kContainerRestartRule),
                          NestedList(9, "volumeMounts", kVolumeMount),
                          NestedList(21, "volumeDevices", kVolumeDevice),
                          Nested(10, "livenessProbe", kProbe),
                          Nested(11, "readinessProbe", kProbe),
                          Nested(22, "startupProbe", kProbe),
                          Nested(12, "lifecycle", kLifecycle),
                          String(13, "terminationMessagePath"),
                          String(20, "terminationMessagePolicy"),
                          String(14, "imagePullPolicy"),
                          Nested(15, "securityContext", kSecurityContext),
                          Bool(16, "stdin"),
                          Bool(17, "stdinOnce"),
                          Bool(18, "tty")}};

// --- Volumes.

const Message kKeyToPath{"KeyToPath",
                         {String(1, "key", kKeep), String(2, "path", kKeep), Int(3, "mode", kKeep), Int(4, "user", kKeep)}};
const Message kHostPathVolumeSource{"HostPathVolumeSource", {String(1, "path", kKeep), String(2, "type", kKeep)}};
const Message kEmptyDirVolumeSource{"EmptyDirVolumeSource",
                                    {String(1, "medium"), Quantity(2, "sizeLimit"), Int(3, "mode", kKeep)}};
const Message kSecretVolumeSource{"SecretVolumeSource",
                                  {String(1, "secretName"), NestedList(2, "items", kKeyToPath),
                                   Int(3, "defaultMode", kKeep), Bool(4, "optional", kKeep),
                                   Int(5, "defaultUser", kKeep)}};
const Message kNFSVolumeSource{"NFSVolumeSource",
                               {String(1, "server", kKeep), String(2, "path", kKeep), Bool(3, "readOnly")}};
const Message kPersistentVolumeClaimVolumeSource{"PersistentVolumeClaimVolumeSource",
                                                 {String(1, "claimName", kKeep), Bool(2, "readOnly")}};
const Message kDownwardAPIVolumeFile{"DownwardAPIVolumeFile",
                                     {String(1, "path", kKeep), Nested(2, "fieldRef", kObjectFieldSelector),
                                      Nested(3, "resourceFieldRef", kResourceFieldSelector), Int(4, "mode", kKeep),
                                      Int(5, "user", kKeep)}};
const Message kDownwardAPIVolumeSource{"DownwardAPIVolumeSource",
                                       {NestedList(1, "items", kDownwardAPIVolumeFile), Int(2, "defaultMode", kKeep),
                                        Int(3, "defaultUser", kKeep)}};
const Message kConfigMapVolumeSource{"ConfigMapVolumeSource",
                                     {Inline(1, kLocalObjectReference), NestedList(2, "items", kKeyToPath),
                                      Int(3, "defaultMode", kKeep), Bool(4, "optional", kKeep),
                                      Int(5, "defaultUser", kKeep)}};
const Message kSecretProjection{"SecretProjection",
                                {Inline(1, kLocalObjectReference), NestedList(2, "items", kKeyToPath),
                                 Bool(4, "optional", kKeep)}};
const Message kConfigMapProjection{"ConfigMapProjection",
                                   {Inline(1, kLocalObjectReference), NestedList(2, "items", kKeyToPath),
                                    Bool(4, "optional", kKeep)}};
const Message kDownwardAPIProjection{"DownwardAPIProjection", {NestedList(1, "items", kDownwardAPIVolumeFile)}};
const Message kServiceAccountTokenProjection{"ServiceAccountTokenProjection",
                                             {String(1, "audience"), Int(2, "expirationSeconds", kKeep),
                                              String(3, "path", kKeep), Int(4, "user", kKeep)}};
const Message kClusterTrustBundleProjection{
    "ClusterTrustBundleProjection",
    {String(1, "name", kKeep), String(2, "signerName", kKeep), Nested(3, "labelSelector", kLabelSelector),
     Bool(5, "optional", kKeep), String(4, "path", kKeep), Int(6, "user", kKeep)}};
const Message kVolumeProjection{"VolumeProjection",
                                {Nested(1, "secret", kSecretProjection), Nested(2, "downwardAPI", kDownwardAPIProjection),
                                 Nested(3, "configMap", kConfigMapProjection),
                                 Nested(4, "serviceAccountToken", kServiceAccountTokenProjection),
                                 Nested(5, "clusterTrustBundle", kClusterTrustBundleProjection)}};
const Message kProjectedVolumeSource{"ProjectedVolumeSource",
                                     {NestedList(1, "sources", kVolumeProjection), Int(2, "defaultMode", kKeep),
                                      Int(3, "defaultUser", kKeep)}};
const Message kCSIVolumeSource{"CSIVolumeSource",
                               {String(1, "driver", kKeep), Bool(2, "readOnly", kKeep), String(3, "fsType", kKeep),
                                StringMap(4, "volumeAttributes"),
                                Nested(5, "nodePublishSecretRef", kLocalObjectReference)}};
const Message kImageVolumeSource{"ImageVolumeSource", {String(1, "reference"), String(2, "pullPolicy")}};
const Message kVolumeSource{"VolumeSource",
                            {Nested(1, "hostPath", kHostPathVolumeSource), Nested(2, "emptyDir", kEmptyDirVolumeSource),
                             Nested(6, "secret", kSecretVolumeSource), Nested(7, "nfs", kNFSVolumeSource),
                             Nested(10, "persistentVolumeClaim", kPersistentVolumeClaimVolumeSource),
                             Nested(16, "downwardAPI", kDownwardAPIVolumeSource),
                             Nested(19, "configMap", kConfigMapVolumeSource),
                             Nested(26, "projected", kProjectedVolumeSource), Nested(28, "csi", kCSIVolumeSource),
                             Nested(30, "image", kImageVolumeSource)}};
const Message kVolume{"Volume", {String(1, "name", kKeep), Inline(2, kVolumeSource)}};

// --- Scheduling constraints.

const Message kToleration{"Toleration",
                          {String(1, "key"), String(2, "operator"), String(3, "value"), String(4, "effect"),
                           Int(5, "tolerationSeconds", kKeep)}};
const Message kNodeSelectorRequirement{"NodeSelectorRequirement",
                                       {String(1, "key", kKeep), String(2, "operator", kKeep), Strings(3, "values")}};
const Message kNodeSelectorTerm{"NodeSelectorTerm",
                                {NestedList(1, "matchExpressions", kNodeSelectorRequirement),
                                 NestedList(2, "matchFields", kNodeSelectorRequirement)}};
const Message kNodeSelector{"NodeSelector", {NestedList(1, "nodeSelectorTerms", kNodeSelectorTerm)}};
const Message kPreferredSchedulingTerm{"PreferredSchedulingTerm",
                                       {Int(1, "weight", kKeep), Nested(2, "preference", kNodeSelectorTerm)}};
const Message kNodeAffinity{"NodeAffinity",
                            {Nested(1, "requiredDuringSchedulingIgnoredDuringExecution", kNodeSelector),
                             NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kPreferredSchedulingTerm)}};
const Message kPodAffinityTerm{"PodAffinityTerm",
                               {Nested(1, "labelSelector", kLabelSelector), Strings(2, "namespaces"),
                                String(3, "topologyKey", kKeep), Nested(4, "namespaceSelector", kLabelSelector),
                                Strings(5, "matchLabelKeys"), Strings(6, "mismatchLabelKeys")}};
const Message kWeightedPodAffinityTerm{"WeightedPodAffinityTerm",
                                       {Int(1, "weight", kKeep), Nested(2, "podAffinityTerm", kPodAffinityTerm)}};
const Message kPodAffinity{"PodAffinity",
                           {NestedList(1, "requiredDuringSchedulingIgnoredDuringExecution", kPodAffinityTerm),
                            NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kWeightedPodAffinityTerm)}};
const Message kPodAntiAffinity{
    "PodAntiAffinity",
    {NestedList(1, "requiredDuringSchedulingIgnoredDuringExecution", kPodAffinityTerm),
     NestedList(2, "preferredDuringSchedulingIgnoredDuringExecution", kWeightedPodAffinityTerm)}};
const Message kAffinity{"Affinity",
                        {Nested(1, "nodeAffinity", kNodeAffinity), Nested(2, "podAffinity", kPodAffinity),
                         Nested(3, "podAntiAffinity", kPodAntiAffinity)}};
const Message kTopologySpreadConstraint{
    "TopologySpreadConstraint",
    {Int(1, "maxSkew", kKeep), String(2, "topologyKey", kKeep), String(3, "whenUnsatisfiable", kKeep),
     Nested(4, "labelSelector", kLabelSelector), Int(5, "minDomains", kKeep), String(6, "nodeAffinityPolicy", kKeep),
     String(7, "nodeTaintsPolicy", kKeep), Strings(8, "matchLabelKeys")}};

// --- The pod.

const Message kSysctl{"Sysctl", {String(1, "name", kKeep), String(2, "value", kKeep)}};
const Message kPodSecurityContext{
    "PodSecurityContext",
    {Nested(1, "seLinuxOptions", kSELinuxOptions), Nested(8, "windowsOptions", kWindowsSecurityContextOptions),
     Int(2, "runAsUser", kKeep), Int(6, "runAsGroup", kKeep), Bool(3, "runAsNonRoot", kKeep),
     Ints(4, "supplementalGroups"), String(12, "supplementalGroupsPolicy", kKeep), Int(5, "fsGroup", kKeep),
     NestedList(7, "sysctls", kSysctl), String(9, "fsGroupChangePolicy", kKeep),
     Nested(10, "seccompProfile", kSeccompProfile), Nested(11, "appArmorProfile", kAppArmorProfile),
     String(13, "seLinuxChangePolicy", kKeep)}};
const Message kHostAlias{"HostAlias", {String(1, "ip", kKeep), Strings(2, "hostnames")}};
const Message kPodDNSConfigOption{"PodDNSConfigOption", {String(1, "name"), String(2, "value", kKeep)}};
const Message kPodDNSConfig{"PodDNSConfig",
                            {Strings(1, "nameservers"), Strings(2, "searches"),
                             NestedList(3, "options", kPodDNSConfigOption)}};
const Message kPodReadinessGate{"PodReadinessGate", {String(1, "conditionType", kKeep)}};
const Message kPodOS{"PodOS", {String(1, "name", kKeep)}};
const Message kPodSchedulingGate{"PodSchedulingGate", {String(1, "name", kKeep)}};
const Message kPodResourceClaim{"PodResourceClaim",
                                {String(1, "name", kKeep), String(3, "resourceClaimName", kKeep),
                                 String(4, "resourceClaimTemplateName", kKeep)}};

const Message kPodSpec{"PodSpec",
                       {NestedList(1, "volumes", kVolume),
                        NestedList(20, "initContainers", kContainer),
                        NestedList(2, "containers", kContainer),
                        String(3, "restartPolicy"),
                        Int(4, "terminationGracePeriodSeconds", kKeep),
                        Int(5, "activeDeadlineSeconds", kKeep),
                        String(6, "dnsPolicy"),
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
                        String(31, "preemptionPolicy", kKeep),
                        QuantityMap(32, "overhead"),
                        NestedList(33, "topologySpreadConstraints", kTopologySpreadConstraint),
                        Bool(35, "setHostnameAsFQDN", kKeep),
                        Nested(36, "os", kPodOS),
                        Bool(37, "hostUsers", kKeep),
                        NestedList(38, "schedulingGates", kPodSchedulingGate),
                        NestedList(39, "resourceClaims", kPodResourceClaim),
                        Nested(40, "resources", kResourceRequirements),
                        String(41, "hostnameOverride", kKeep)}};
const Message kPodTemplateSpec{"PodTemplateSpec", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPodSpec)}};

// --- Kinds.

const Message kNamespaceSpec{"NamespaceSpec", {Strings(1, "finalizers")}};
const Message kNamespaceStatus{"NamespaceStatus", {String(1, "phase")}};
const Message kNamespace{"Namespace",
                         {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kNamespaceSpec),
                          Nested(3, "status", kNamespaceStatus)}};

const Message kConfigMap{"ConfigMap",
                         {Nested(1, "metadata", kObjectMeta), Bool(4, "immutable", kKeep), StringMap(2, "data"),
                          BytesMap(3, "binaryData")}};
const Message kSecret{"Secret",
                      {Nested(1, "metadata", kObjectMeta), Bool(5, "immutable", kKeep), BytesMap(2, "data"),
                       StringMap(4, "stringData"), String(3, "type")}};

const Message kServicePort{"ServicePort",
                           {String(1, "name"), String(2, "protocol"), String(6, "appProtocol", kKeep),
                            Int(3, "port", kKeep), IntOrString(4, "targetPort"), Int(5, "nodePort")}};
const Message kClientIPConfig{"ClientIPConfig", {Int(1, "timeoutSeconds", kKeep)}};
const Message kSessionAffinityConfig{"SessionAffinityConfig", {Nested(1, "clientIP", kClientIPConfig)}};
const Message kServiceSpec{"ServiceSpec",
                           {NestedList(1, "ports", kServicePort),
                            StringMap(2, "selector"),
                            String(3, "clusterIP"),
                            Strings(18, "clusterIPs"),
                            String(4, "type"),
                            Strings(5, "externalIPs"),
                            String(7, "sessionAffinity"),
                            String(8, "loadBalancerIP"),
                            Strings(9, "loadBalancerSourceRanges"),
                            String(10, "externalName"),
                            String(11, "externalTrafficPolicy"),
                            Int(12, "healthCheckNodePort"),
                            Bool(13, "publishNotReadyAddresses"),
                            Nested(14, "sessionAffinityConfig", kSessionAffinityConfig),
                            Strings(19, "ipFamilies"),
                            String(17, "ipFamilyPolicy", kKeep),
                            Bool(20, "allocateLoadBalancerNodePorts", kKeep),
                            String(21, "loadBalancerClass", kKeep),
                            String(22, "internalTrafficPolicy", kKeep),
                            String(23, "trafficDistribution", kKeep)}};
const Message kService{"Service",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kServiceSpec),
                        Nested(3, "status", kIgnoredStatus)}};

const Message kServiceAccount{"ServiceAccount",
                              {Nested(1, "metadata", kObjectMeta), NestedList(2, "secrets", kObjectReference),
                               NestedList(3, "imagePullSecrets", kLocalObjectReference),
                               Bool(4, "automountServiceAccountToken", kKeep)}};

const Message kScopedResourceSelectorRequirement{
    "ScopedResourceSelectorRequirement",
    {String(1, "scopeName", kKeep), String(2, "operator", kKeep), Strings(3, "values")}};
const Message kScopeSelector{"ScopeSelector", {NestedList(1, "matchExpressions", kScopedResourceSelectorRequirement)}};
const Message kResourceQuotaSpec{
    "ResourceQuotaSpec",
    {QuantityMap(1, "hard"), Strings(2, "scopes"), Nested(3, "scopeSelector", kScopeSelector)}};
const Message kResourceQuota{"ResourceQuota",
                             {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kResourceQuotaSpec),
                              Nested(3, "status", kIgnoredStatus)}};

}  // namespace berth::apiserver::protobuf_schema
