// storage.k8s.io/v1 messages (k8s.io/api/storage/v1/generated.proto):
// StorageClass, CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kStorageClass{
    "StorageClass",
    {Nested(1, "metadata", kObjectMeta), String(2, "provisioner", kKeep),
     StringMap(3, "parameters"), String(4, "reclaimPolicy", kKeep).Go("v1.PersistentVolumeReclaimPolicy"), Strings(5, "mountOptions"),
     Bool(6, "allowVolumeExpansion", kKeep), String(7, "volumeBindingMode", kKeep).Go("v1.VolumeBindingMode"),
     NestedList(8, "allowedTopologies", kTopologySelectorTerm)}};
const Message kTokenRequest{"TokenRequest",
                            {String(1, "audience", kKeep), Int(2, "expirationSeconds", kKeep).Go("int64")}};
const Message kCSIDriverSpec{
    "CSIDriverSpec",
    {Bool(1, "attachRequired", kKeep), Bool(2, "podInfoOnMount", kKeep),
     Strings(3, "volumeLifecycleModes").Go("v1.VolumeLifecycleMode"), Bool(4, "storageCapacity", kKeep),
     String(5, "fsGroupPolicy", kKeep).Go("v1.FSGroupPolicy"), NestedList(6, "tokenRequests", kTokenRequest),
     Bool(7, "requiresRepublish", kKeep), Bool(8, "seLinuxMount", kKeep),
     Int(9, "nodeAllocatableUpdatePeriodSeconds", kKeep).Go("int64"),
     Bool(10, "serviceAccountTokenInSecrets", kKeep),
     Bool(11, "preventPodSchedulingIfMissing", kKeep)}};
const Message kCSIDriver{"CSIDriver",
                         {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kCSIDriverSpec)}};
const Message kVolumeNodeResources{"VolumeNodeResources", {Int(1, "count", kKeep)}};
const Message kCSINodeDriver{
    "CSINodeDriver",
    {String(1, "name", kKeep), String(2, "nodeID", kKeep), Strings(3, "topologyKeys"),
     Nested(4, "allocatable", kVolumeNodeResources)}};
const Message kCSINodeSpec{"CSINodeSpec", {NestedList(1, "drivers", kCSINodeDriver)}};
const Message kStorageHealthCondition{
    "StorageHealthCondition",
    {String(1, "status", kKeep).Go("v1.StorageHealthStatusType"), String(2, "reason", kKeep), String(3, "message"),
     String(4, "accessMode", kKeep).Go("v1.PersistentVolumeAccessMode"), String(5, "volumeMode", kKeep).Go("v1.PersistentVolumeMode"),
     Time(6, "lastTransitionTime")}};
const Message kStorageHealth{
    "StorageHealth",
    {String(1, "name", kKeep), NestedList(2, "healthConditions", kStorageHealthCondition)}};
const Message kCSINodeStatus{"CSINodeStatus", {NestedList(1, "storageHealth", kStorageHealth)}};
const Message kCSINode{"CSINode",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kCSINodeSpec),
                        Nested(3, "status", kCSINodeStatus)}};
const Message kCSIStorageCapacity{
    "CSIStorageCapacity",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "nodeTopology", kLabelSelector),
     String(3, "storageClassName", kKeep), Quantity(4, "capacity"),
     Quantity(5, "maximumVolumeSize")}};
const Message kVolumeAttachmentSource{"VolumeAttachmentSource",
                                      {String(1, "persistentVolumeName", kKeep),
                                       Nested(2, "inlineVolumeSpec", kPersistentVolumeSpec)}};
const Message kVolumeAttachmentSpec{
    "VolumeAttachmentSpec",
    {String(1, "attacher", kKeep), Nested(2, "source", kVolumeAttachmentSource),
     String(3, "nodeName", kKeep)}};
const Message kVolumeError{"VolumeError",
                           {Time(1, "time"), String(2, "message"), Int(3, "errorCode", kKeep)}};
const Message kVolumeAttachmentStatus{
    "VolumeAttachmentStatus",
    {Bool(1, "attached", kKeep), StringMap(2, "attachmentMetadata"),
     Nested(3, "attachError", kVolumeError), Nested(4, "detachError", kVolumeError)}};
const Message kVolumeAttachment{
    "VolumeAttachment",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kVolumeAttachmentSpec),
     Nested(3, "status", kVolumeAttachmentStatus)}};

const KindMessage kStorageKindList[] = {
    {api::Kind::kStorageClass, &kStorageClass},
    {api::Kind::kCSIDriver, &kCSIDriver},
    {api::Kind::kCSINode, &kCSINode},
    {api::Kind::kCSIStorageCapacity, &kCSIStorageCapacity},
    {api::Kind::kVolumeAttachment, &kVolumeAttachment},
};
const std::span<const KindMessage> kStorageKinds = kStorageKindList;

}  // namespace berth::apiserver::protobuf_schema
