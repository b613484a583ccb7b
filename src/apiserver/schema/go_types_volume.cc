// core/v1 messages (k8s.io/api/core/v1/generated.proto) of storage: every
// volume source a pod may name (the in-tree cloud plugins' too, so that a
// manifest written for another cluster reads the same), the claim template of
// ephemeral volumes, PersistentVolume and PersistentVolumeClaim, and the
// topology terms StorageClass embeds.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// --- Volumes of a pod

const Message kHostPathVolumeSource{"HostPathVolumeSource",
                                    {String(1, "path", kKeep), String(2, "type", kKeep).Go("v1.HostPathType")}};
const Message kEmptyDirVolumeSource{
    "EmptyDirVolumeSource", {String(1, "medium").Go("v1.StorageMedium"), Quantity(2, "sizeLimit"), Int(3, "mode", kKeep)}};
const Message kGCEPersistentDiskVolumeSource{
    "GCEPersistentDiskVolumeSource",
    {String(1, "pdName", kKeep), String(2, "fsType"), Int(3, "partition"), Bool(4, "readOnly")}};
const Message kAWSElasticBlockStoreVolumeSource{
    "AWSElasticBlockStoreVolumeSource",
    {String(1, "volumeID", kKeep), String(2, "fsType"), Int(3, "partition"), Bool(4, "readOnly")}};
const Message kGitRepoVolumeSource{
    "GitRepoVolumeSource",
    {String(1, "repository", kKeep), String(2, "revision"), String(3, "directory")}};
const Message kKeyToPath{"KeyToPath",
                         {String(1, "key", kKeep), String(2, "path", kKeep), Int(3, "mode", kKeep),
                          Int(4, "user", kKeep).Go("int64")}};
const Message kSecretVolumeSource{
    "SecretVolumeSource",
    {String(1, "secretName"), NestedList(2, "items", kKeyToPath), Int(3, "defaultMode", kKeep),
     Bool(4, "optional", kKeep), Int(5, "defaultUser", kKeep).Go("int64")}};
const Message kNFSVolumeSource{
    "NFSVolumeSource", {String(1, "server", kKeep), String(2, "path", kKeep), Bool(3, "readOnly")}};
const Message kISCSIVolumeSource{
    "ISCSIVolumeSource",
    {String(1, "targetPortal", kKeep), String(2, "iqn", kKeep), Int(3, "lun", kKeep),
     String(4, "iscsiInterface"), String(5, "fsType"), Bool(6, "readOnly"), Strings(7, "portals"),
     Bool(8, "chapAuthDiscovery"), Bool(11, "chapAuthSession"),
     Nested(10, "secretRef", kLocalObjectReference), String(12, "initiatorName", kKeep)}};
const Message kGlusterfsVolumeSource{
    "GlusterfsVolumeSource",
    {String(1, "endpoints", kKeep), String(2, "path", kKeep), Bool(3, "readOnly")}};
const Message kPersistentVolumeClaimVolumeSource{
    "PersistentVolumeClaimVolumeSource", {String(1, "claimName", kKeep), Bool(2, "readOnly")}};
const Message kRBDVolumeSource{
    "RBDVolumeSource",
    {Strings(1, "monitors"), String(2, "image", kKeep), String(3, "fsType"), String(4, "pool"),
     String(5, "user"), String(6, "keyring"), Nested(7, "secretRef", kLocalObjectReference),
     Bool(8, "readOnly")}};
const Message kFlexVolumeSource{
    "FlexVolumeSource",
    {String(1, "driver", kKeep), String(2, "fsType"), Nested(3, "secretRef", kLocalObjectReference),
     Bool(4, "readOnly"), StringMap(5, "options")}};
const Message kCinderVolumeSource{
    "CinderVolumeSource",
    {String(1, "volumeID", kKeep), String(2, "fsType"), Bool(3, "readOnly"),
     Nested(4, "secretRef", kLocalObjectReference)}};
const Message kCephFSVolumeSource{
    "CephFSVolumeSource",
    {Strings(1, "monitors"), String(2, "path"), String(3, "user"), String(4, "secretFile"),
     Nested(5, "secretRef", kLocalObjectReference), Bool(6, "readOnly")}};
const Message kFlockerVolumeSource{"FlockerVolumeSource",
                                   {String(1, "datasetName"), String(2, "datasetUUID")}};
const Message kDownwardAPIVolumeFile{
    "DownwardAPIVolumeFile",
    {String(1, "path", kKeep), Nested(2, "fieldRef", kObjectFieldSelector),
     Nested(3, "resourceFieldRef", kResourceFieldSelector), Int(4, "mode", kKeep),
     Int(5, "user", kKeep).Go("int64")}};
const Message kDownwardAPIVolumeSource{
    "DownwardAPIVolumeSource",
    {NestedList(1, "items", kDownwardAPIVolumeFile), Int(2, "defaultMode", kKeep),
     Int(3, "defaultUser", kKeep).Go("int64")}};
const Message kFCVolumeSource{"FCVolumeSource",
                              {Strings(1, "targetWWNs"), Int(2, "lun", kKeep), String(3, "fsType"),
                               Bool(4, "readOnly"), Strings(5, "wwids")}};
const Message kAzureFileVolumeSource{
    "AzureFileVolumeSource",
    {String(1, "secretName", kKeep), String(2, "shareName", kKeep), Bool(3, "readOnly")}};
const Message kConfigMapVolumeSource{
    "ConfigMapVolumeSource",
    {Inline(1, kLocalObjectReference), NestedList(2, "items", kKeyToPath),
     Int(3, "defaultMode", kKeep), Bool(4, "optional", kKeep), Int(5, "defaultUser", kKeep).Go("int64")}};
const Message kVsphereVirtualDiskVolumeSource{
    "VsphereVirtualDiskVolumeSource",
    {String(1, "volumePath", kKeep), String(2, "fsType"), String(3, "storagePolicyName"),
     String(4, "storagePolicyID")}};
const Message kQuobyteVolumeSource{
    "QuobyteVolumeSource",
    {String(1, "registry", kKeep), String(2, "volume", kKeep), Bool(3, "readOnly"),
     String(4, "user"), String(5, "group"), String(6, "tenant")}};
const Message kAzureDiskVolumeSource{
    "AzureDiskVolumeSource",
    {String(1, "diskName", kKeep), String(2, "diskURI", kKeep), String(3, "cachingMode", kKeep).Go("v1.AzureDataDiskCachingMode"),
     String(4, "fsType", kKeep), Bool(5, "readOnly", kKeep), String(6, "kind", kKeep).Go("v1.AzureDataDiskKind")}};
const Message kPhotonPersistentDiskVolumeSource{"PhotonPersistentDiskVolumeSource",
                                                {String(1, "pdID", kKeep), String(2, "fsType")}};
const Message kSecretProjection{"SecretProjection",
                                {Inline(1, kLocalObjectReference),
                                 NestedList(2, "items", kKeyToPath), Bool(4, "optional", kKeep)}};
const Message kDownwardAPIProjection{"DownwardAPIProjection",
                                     {NestedList(1, "items", kDownwardAPIVolumeFile)}};
const Message kConfigMapProjection{
    "ConfigMapProjection",
    {Inline(1, kLocalObjectReference), NestedList(2, "items", kKeyToPath),
     Bool(4, "optional", kKeep)}};
const Message kServiceAccountTokenProjection{
    "ServiceAccountTokenProjection",
    {String(1, "audience"), Int(2, "expirationSeconds", kKeep).Go("int64"), String(3, "path", kKeep),
     Int(4, "user", kKeep).Go("int64")}};
const Message kClusterTrustBundleProjection{
    "ClusterTrustBundleProjection",
    {String(1, "name", kKeep), String(2, "signerName", kKeep),
     Nested(3, "labelSelector", kLabelSelector), Bool(5, "optional", kKeep),
     String(4, "path", kKeep), Int(6, "user", kKeep).Go("int64")}};
const Message kPodCertificateProjection{
    "PodCertificateProjection",
    {String(1, "signerName"), String(2, "keyType"), Int(3, "maxExpirationSeconds", kKeep),
     String(4, "credentialBundlePath"), String(5, "keyPath"), String(6, "certificateChainPath"),
     StringMap(7, "userAnnotations"), Int(8, "user", kKeep).Go("int64")}};
const Message kVolumeProjection{
    "VolumeProjection",
    {Nested(1, "secret", kSecretProjection), Nested(2, "downwardAPI", kDownwardAPIProjection),
     Nested(3, "configMap", kConfigMapProjection),
     Nested(4, "serviceAccountToken", kServiceAccountTokenProjection),
     Nested(5, "clusterTrustBundle", kClusterTrustBundleProjection),
     Nested(6, "podCertificate", kPodCertificateProjection)}};
const Message kProjectedVolumeSource{"ProjectedVolumeSource",
                                     {NestedList(1, "sources", kVolumeProjection),
                                      Int(2, "defaultMode", kKeep), Int(3, "defaultUser", kKeep).Go("int64")}};
const Message kPortworxVolumeSource{
    "PortworxVolumeSource",
    {String(1, "volumeID", kKeep), String(2, "fsType"), Bool(3, "readOnly")}};
const Message kScaleIOVolumeSource{
    "ScaleIOVolumeSource",
    {String(1, "gateway", kKeep), String(2, "system", kKeep),
     Nested(3, "secretRef", kLocalObjectReference), Bool(4, "sslEnabled"),
     String(5, "protectionDomain"), String(6, "storagePool"), String(7, "storageMode"),
     String(8, "volumeName"), String(9, "fsType"), Bool(10, "readOnly")}};
const Message kStorageOSVolumeSource{
    "StorageOSVolumeSource",
    {String(1, "volumeName"), String(2, "volumeNamespace"), String(3, "fsType"),
     Bool(4, "readOnly"), Nested(5, "secretRef", kLocalObjectReference)}};
const Message kCSIVolumeSource{
    "CSIVolumeSource",
    {String(1, "driver", kKeep), Bool(2, "readOnly", kKeep), String(3, "fsType", kKeep),
     StringMap(4, "volumeAttributes"), Nested(5, "nodePublishSecretRef", kLocalObjectReference)}};
const Message kVolumeResourceRequirements{"VolumeResourceRequirements",
                                          {QuantityMap(1, "limits"), QuantityMap(2, "requests")}};
const Message kTypedObjectReference{"TypedObjectReference",
                                    {String(1, "apiGroup", kKeep), String(2, "kind", kKeep),
                                     String(3, "name", kKeep), String(4, "namespace", kKeep)}};
const Message kPersistentVolumeClaimSpec{
    "PersistentVolumeClaimSpec",
    {Strings(1, "accessModes").Go("v1.PersistentVolumeAccessMode"), Nested(4, "selector", kLabelSelector),
     Nested(2, "resources", kVolumeResourceRequirements), String(3, "volumeName"),
     String(5, "storageClassName", kKeep), String(6, "volumeMode", kKeep).Go("v1.PersistentVolumeMode"),
     Nested(7, "dataSource", kTypedLocalObjectReference),
     Nested(8, "dataSourceRef", kTypedObjectReference),
     String(9, "volumeAttributesClassName", kKeep)}};
const Message kPersistentVolumeClaimTemplate{
    "PersistentVolumeClaimTemplate",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPersistentVolumeClaimSpec)}};
const Message kEphemeralVolumeSource{
    "EphemeralVolumeSource", {Nested(1, "volumeClaimTemplate", kPersistentVolumeClaimTemplate)}};
const Message kImageVolumeSource{"ImageVolumeSource",
                                 {String(1, "reference"), String(2, "pullPolicy").Go("v1.PullPolicy")}};
const Message kVolumeSource{
    "VolumeSource",
    {Nested(1, "hostPath", kHostPathVolumeSource),
     Nested(2, "emptyDir", kEmptyDirVolumeSource),
     Nested(3, "gcePersistentDisk", kGCEPersistentDiskVolumeSource),
     Nested(4, "awsElasticBlockStore", kAWSElasticBlockStoreVolumeSource),
     Nested(5, "gitRepo", kGitRepoVolumeSource),
     Nested(6, "secret", kSecretVolumeSource),
     Nested(7, "nfs", kNFSVolumeSource),
     Nested(8, "iscsi", kISCSIVolumeSource),
     Nested(9, "glusterfs", kGlusterfsVolumeSource),
     Nested(10, "persistentVolumeClaim", kPersistentVolumeClaimVolumeSource),
     Nested(11, "rbd", kRBDVolumeSource),
     Nested(12, "flexVolume", kFlexVolumeSource),
     Nested(13, "cinder", kCinderVolumeSource),
     Nested(14, "cephfs", kCephFSVolumeSource),
     Nested(15, "flocker", kFlockerVolumeSource),
     Nested(16, "downwardAPI", kDownwardAPIVolumeSource),
     Nested(17, "fc", kFCVolumeSource),
     Nested(18, "azureFile", kAzureFileVolumeSource),
     Nested(19, "configMap", kConfigMapVolumeSource),
     Nested(20, "vsphereVolume", kVsphereVirtualDiskVolumeSource),
     Nested(21, "quobyte", kQuobyteVolumeSource),
     Nested(22, "azureDisk", kAzureDiskVolumeSource),
     Nested(23, "photonPersistentDisk", kPhotonPersistentDiskVolumeSource),
     Nested(26, "projected", kProjectedVolumeSource),
     Nested(24, "portworxVolume", kPortworxVolumeSource),
     Nested(25, "scaleIO", kScaleIOVolumeSource),
     Nested(27, "storageos", kStorageOSVolumeSource),
     Nested(28, "csi", kCSIVolumeSource),
     Nested(29, "ephemeral", kEphemeralVolumeSource),
     Nested(30, "image", kImageVolumeSource)}};
const Message kVolume{"Volume", {String(1, "name", kKeep), Inline(2, kVolumeSource)}};

// --- PersistentVolume and PersistentVolumeClaim

const Message kGlusterfsPersistentVolumeSource{
    "GlusterfsPersistentVolumeSource",
    {String(1, "endpoints", kKeep), String(2, "path", kKeep), Bool(3, "readOnly"),
     String(4, "endpointsNamespace", kKeep)}};
const Message kSecretReference{"SecretReference", {String(1, "name"), String(2, "namespace")}};
const Message kRBDPersistentVolumeSource{
    "RBDPersistentVolumeSource",
    {Strings(1, "monitors"), String(2, "image", kKeep), String(3, "fsType"), String(4, "pool"),
     String(5, "user"), String(6, "keyring"), Nested(7, "secretRef", kSecretReference),
     Bool(8, "readOnly")}};
const Message kISCSIPersistentVolumeSource{
    "ISCSIPersistentVolumeSource",
    {String(1, "targetPortal", kKeep), String(2, "iqn", kKeep), Int(3, "lun", kKeep),
     String(4, "iscsiInterface"), String(5, "fsType"), Bool(6, "readOnly"), Strings(7, "portals"),
     Bool(8, "chapAuthDiscovery"), Bool(11, "chapAuthSession"),
     Nested(10, "secretRef", kSecretReference), String(12, "initiatorName", kKeep)}};
const Message kCinderPersistentVolumeSource{
    "CinderPersistentVolumeSource",
    {String(1, "volumeID", kKeep), String(2, "fsType"), Bool(3, "readOnly"),
     Nested(4, "secretRef", kSecretReference)}};
const Message kCephFSPersistentVolumeSource{
    "CephFSPersistentVolumeSource",
    {Strings(1, "monitors"), String(2, "path"), String(3, "user"), String(4, "secretFile"),
     Nested(5, "secretRef", kSecretReference), Bool(6, "readOnly")}};
const Message kFlexPersistentVolumeSource{
    "FlexPersistentVolumeSource",
    {String(1, "driver", kKeep), String(2, "fsType"), Nested(3, "secretRef", kSecretReference),
     Bool(4, "readOnly"), StringMap(5, "options")}};
const Message kAzureFilePersistentVolumeSource{
    "AzureFilePersistentVolumeSource",
    {String(1, "secretName", kKeep), String(2, "shareName", kKeep), Bool(3, "readOnly"),
     String(4, "secretNamespace", kKeep)}};
const Message kScaleIOPersistentVolumeSource{
    "ScaleIOPersistentVolumeSource",
    {String(1, "gateway", kKeep), String(2, "system", kKeep),
     Nested(3, "secretRef", kSecretReference), Bool(4, "sslEnabled"), String(5, "protectionDomain"),
     String(6, "storagePool"), String(7, "storageMode"), String(8, "volumeName"),
     String(9, "fsType"), Bool(10, "readOnly")}};
const Message kLocalVolumeSource{"LocalVolumeSource",
                                 {String(1, "path", kKeep), String(2, "fsType", kKeep)}};
const Message kStorageOSPersistentVolumeSource{
    "StorageOSPersistentVolumeSource",
    {String(1, "volumeName"), String(2, "volumeNamespace"), String(3, "fsType"),
     Bool(4, "readOnly"), Nested(5, "secretRef", kObjectReference)}};
const Message kCSIPersistentVolumeSource{
    "CSIPersistentVolumeSource",
    {String(1, "driver", kKeep), String(2, "volumeHandle", kKeep), Bool(3, "readOnly"),
     String(4, "fsType"), StringMap(5, "volumeAttributes"),
     Nested(6, "controllerPublishSecretRef", kSecretReference),
     Nested(7, "nodeStageSecretRef", kSecretReference),
     Nested(8, "nodePublishSecretRef", kSecretReference),
     Nested(9, "controllerExpandSecretRef", kSecretReference),
     Nested(10, "nodeExpandSecretRef", kSecretReference)}};
const Message kPersistentVolumeSource{
    "PersistentVolumeSource",
    {Nested(1, "gcePersistentDisk", kGCEPersistentDiskVolumeSource),
     Nested(2, "awsElasticBlockStore", kAWSElasticBlockStoreVolumeSource),
     Nested(3, "hostPath", kHostPathVolumeSource),
     Nested(4, "glusterfs", kGlusterfsPersistentVolumeSource),
     Nested(5, "nfs", kNFSVolumeSource),
     Nested(6, "rbd", kRBDPersistentVolumeSource),
     Nested(7, "iscsi", kISCSIPersistentVolumeSource),
     Nested(8, "cinder", kCinderPersistentVolumeSource),
     Nested(9, "cephfs", kCephFSPersistentVolumeSource),
     Nested(10, "fc", kFCVolumeSource),
     Nested(11, "flocker", kFlockerVolumeSource),
     Nested(12, "flexVolume", kFlexPersistentVolumeSource),
     Nested(13, "azureFile", kAzureFilePersistentVolumeSource),
     Nested(14, "vsphereVolume", kVsphereVirtualDiskVolumeSource),
     Nested(15, "quobyte", kQuobyteVolumeSource),
     Nested(16, "azureDisk", kAzureDiskVolumeSource),
     Nested(17, "photonPersistentDisk", kPhotonPersistentDiskVolumeSource),
     Nested(18, "portworxVolume", kPortworxVolumeSource),
     Nested(19, "scaleIO", kScaleIOPersistentVolumeSource),
     Nested(20, "local", kLocalVolumeSource),
     Nested(21, "storageos", kStorageOSPersistentVolumeSource),
     Nested(22, "csi", kCSIPersistentVolumeSource)}};
const Message kVolumeNodeAffinity{"VolumeNodeAffinity", {Nested(1, "required", kNodeSelector)}};
const Message kPersistentVolumeSpec{
    "PersistentVolumeSpec",
    {QuantityMap(1, "capacity"), Inline(2, kPersistentVolumeSource), Strings(3, "accessModes").Go("v1.PersistentVolumeAccessMode"),
     Nested(4, "claimRef", kObjectReference), String(5, "persistentVolumeReclaimPolicy").Go("v1.PersistentVolumeReclaimPolicy"),
     String(6, "storageClassName"), Strings(7, "mountOptions"), String(8, "volumeMode", kKeep).Go("v1.PersistentVolumeMode"),
     Nested(9, "nodeAffinity", kVolumeNodeAffinity),
     String(10, "volumeAttributesClassName", kKeep)}};
const Message kPersistentVolumeStatus{"PersistentVolumeStatus",
                                      {String(1, "phase").Go("v1.PersistentVolumePhase"), String(2, "message"),
                                       String(3, "reason"), Time(4, "lastPhaseTransitionTime")}};
const Message kPersistentVolumeClaimCondition{
    "PersistentVolumeClaimCondition",
    {String(1, "type", kKeep).Go("v1.PersistentVolumeClaimConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastProbeTime"),
     Time(4, "lastTransitionTime"), String(5, "reason"), String(6, "message")}};
const Message kModifyVolumeStatus{
    "ModifyVolumeStatus",
    {String(1, "targetVolumeAttributesClassName"), String(2, "status", kKeep).Go("v1.PersistentVolumeClaimModifyVolumeStatus")}};
const Message kVolumeHealthCondition{
    "VolumeHealthCondition",
    {String(1, "status", kKeep).Go("v1.VolumeHealthStatusType"), String(2, "reason", kKeep), String(3, "message")}};
const Message kVolumeHealthStatus{
    "VolumeHealthStatus",
    {NestedList(1, "healthConditions", kVolumeHealthCondition), Time(2, "lastTransitionTime")}};
const Message kPersistentVolumeClaimStatus{
    "PersistentVolumeClaimStatus",
    {String(1, "phase").Go("v1.PersistentVolumeClaimPhase"), Strings(2, "accessModes").Go("v1.PersistentVolumeAccessMode"), QuantityMap(3, "capacity"),
     NestedList(4, "conditions", kPersistentVolumeClaimCondition),
     QuantityMap(5, "allocatedResources"), StringMap(7, "allocatedResourceStatuses"),
     String(8, "currentVolumeAttributesClassName", kKeep),
     Nested(9, "modifyVolumeStatus", kModifyVolumeStatus),
     Nested(10, "healthStatus", kVolumeHealthStatus)}};
const Message kPersistentVolume{
    "PersistentVolume",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPersistentVolumeSpec),
     Nested(3, "status", kPersistentVolumeStatus)}};
const Message kPersistentVolumeClaim{
    "PersistentVolumeClaim",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPersistentVolumeClaimSpec),
     Nested(3, "status", kPersistentVolumeClaimStatus)}};

// --- Topology (StorageClass.allowedTopologies)

const Message kTopologySelectorLabelRequirement{"TopologySelectorLabelRequirement",
                                                {String(1, "key", kKeep), Strings(2, "values")}};
const Message kTopologySelectorTerm{
    "TopologySelectorTerm",
    {NestedList(1, "matchLabelExpressions", kTopologySelectorLabelRequirement)}};

const KindMessage kVolumeKindList[] = {
    {api::Kind::kPersistentVolume, &kPersistentVolume},
    {api::Kind::kPersistentVolumeClaim, &kPersistentVolumeClaim},
};
const std::span<const KindMessage> kVolumeKinds = kVolumeKindList;

}  // namespace berth::apiserver::protobuf_schema
