// apps/v1 messages (k8s.io/api/apps/v1/generated.proto): Deployment,
// ReplicaSet, StatefulSet (its claim templates are whole PersistentVolumeClaims),
// DaemonSet, ControllerRevision (its data a runtime.RawExtension, JSON on the
// wire from every client berth knows).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kControllerRevision{
    "ControllerRevision",
    {Nested(1, "metadata", kObjectMeta), RawExtension(2, "data"), Int(3, "revision", kKeep).Go("int64")}};
const Message kReplicaSetSpec{
    "ReplicaSetSpec",
    {Int(1, "replicas", kKeep), Int(4, "minReadySeconds"), Nested(2, "selector", kLabelSelector),
     Nested(3, "template", kPodTemplateSpec)}};
const Message kDeploymentCondition{
    "DeploymentCondition",
    {String(1, "type", kKeep).Go("v1.DeploymentConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(6, "lastUpdateTime"),
     Time(7, "lastTransitionTime"), String(4, "reason"), String(5, "message")}};
const Message kDeploymentStatus{
    "DeploymentStatus",
    {Int(1, "observedGeneration").Go("int64"), Int(2, "replicas"), Int(3, "updatedReplicas"),
     Int(7, "readyReplicas"), Int(4, "availableReplicas"), Int(5, "unavailableReplicas"),
     Int(9, "terminatingReplicas", kKeep), NestedList(6, "conditions", kDeploymentCondition),
     Int(8, "collisionCount", kKeep)}};
const Message kReplicaSetCondition{
    "ReplicaSetCondition",
    {String(1, "type", kKeep).Go("v1.ReplicaSetConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message")}};
const Message kReplicaSetStatus{
    "ReplicaSetStatus",
    {Int(1, "replicas", kKeep), Int(2, "fullyLabeledReplicas"), Int(4, "readyReplicas"),
     Int(5, "availableReplicas"), Int(7, "terminatingReplicas", kKeep),
     Int(3, "observedGeneration").Go("int64"), NestedList(6, "conditions", kReplicaSetCondition)}};
const Message kStatefulSetCondition{
    "StatefulSetCondition",
    {String(1, "type", kKeep).Go("v1.StatefulSetConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message")}};
const Message kStatefulSetStatus{
    "StatefulSetStatus",
    {Int(1, "observedGeneration").Go("int64"), Int(2, "replicas", kKeep), Int(3, "readyReplicas"),
     Int(4, "currentReplicas"), Int(5, "updatedReplicas"), String(6, "currentRevision"),
     String(7, "updateRevision"), Int(9, "collisionCount", kKeep),
     NestedList(10, "conditions", kStatefulSetCondition), Int(11, "availableReplicas", kKeep)}};
const Message kDaemonSetCondition{
    "DaemonSetCondition",
    {String(1, "type", kKeep).Go("v1.DaemonSetConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message")}};
const Message kDaemonSetStatus{
    "DaemonSetStatus",
    {Int(1, "currentNumberScheduled", kKeep), Int(2, "numberMisscheduled", kKeep),
     Int(3, "desiredNumberScheduled", kKeep), Int(4, "numberReady", kKeep),
     Int(5, "observedGeneration").Go("int64"), Int(6, "updatedNumberScheduled"), Int(7, "numberAvailable"),
     Int(8, "numberUnavailable"), Int(9, "collisionCount", kKeep),
     NestedList(10, "conditions", kDaemonSetCondition)}};
const Message kReplicaSet{"ReplicaSet",
                          {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kReplicaSetSpec),
                           Nested(3, "status", kReplicaSetStatus)}};
const Message kRollingUpdateDaemonSet{
    "RollingUpdateDaemonSet", {IntOrString(1, "maxUnavailable"), IntOrString(2, "maxSurge")}};
const Message kDaemonSetUpdateStrategy{
    "DaemonSetUpdateStrategy",
    {String(1, "type").Go("v1.DaemonSetUpdateStrategyType"), Nested(2, "rollingUpdate", kRollingUpdateDaemonSet)}};
const Message kDaemonSetSpec{
    "DaemonSetSpec",
    {Nested(1, "selector", kLabelSelector), Nested(2, "template", kPodTemplateSpec),
     Nested(3, "updateStrategy", kDaemonSetUpdateStrategy), Int(4, "minReadySeconds"),
     Int(6, "revisionHistoryLimit", kKeep)}};
const Message kDaemonSet{"DaemonSet",
                         {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kDaemonSetSpec),
                          Nested(3, "status", kDaemonSetStatus)}};
const Message kRollingUpdateStatefulSetStrategy{
    "RollingUpdateStatefulSetStrategy",
    {Int(1, "partition", kKeep), IntOrString(2, "maxUnavailable")}};
const Message kStatefulSetUpdateStrategy{
    "StatefulSetUpdateStrategy",
    {String(1, "type").Go("v1.StatefulSetUpdateStrategyType"), Nested(2, "rollingUpdate", kRollingUpdateStatefulSetStrategy)}};
const Message kStatefulSetPersistentVolumeClaimRetentionPolicy{
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    {String(1, "whenDeleted").Go("v1.PersistentVolumeClaimRetentionPolicyType"), String(2, "whenScaled").Go("v1.PersistentVolumeClaimRetentionPolicyType")}};
const Message kStatefulSetOrdinals{"StatefulSetOrdinals", {Int(1, "start", kKeep)}};
const Message kStatefulSetSpec{
    "StatefulSetSpec",
    {Int(1, "replicas", kKeep), Nested(2, "selector", kLabelSelector),
     Nested(3, "template", kPodTemplateSpec),
     NestedList(4, "volumeClaimTemplates", kPersistentVolumeClaim), String(5, "serviceName", kKeep),
     String(6, "podManagementPolicy").Go("v1.PodManagementPolicyType"), Nested(7, "updateStrategy", kStatefulSetUpdateStrategy),
     Int(8, "revisionHistoryLimit", kKeep), Int(9, "minReadySeconds"),
     Nested(10, "persistentVolumeClaimRetentionPolicy",
            kStatefulSetPersistentVolumeClaimRetentionPolicy),
     Nested(11, "ordinals", kStatefulSetOrdinals)}};
const Message kStatefulSet{"StatefulSet",
                           {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kStatefulSetSpec),
                            Nested(3, "status", kStatefulSetStatus)}};
const Message kRollingUpdateDeployment{
    "RollingUpdateDeployment", {IntOrString(1, "maxUnavailable"), IntOrString(2, "maxSurge")}};
const Message kDeploymentStrategy{
    "DeploymentStrategy",
    {String(1, "type").Go("v1.DeploymentStrategyType"), Nested(2, "rollingUpdate", kRollingUpdateDeployment)}};
const Message kDeploymentSpec{
    "DeploymentSpec",
    {Int(1, "replicas", kKeep), Nested(2, "selector", kLabelSelector),
     Nested(3, "template", kPodTemplateSpec), Nested(4, "strategy", kDeploymentStrategy),
     Int(5, "minReadySeconds"), Int(6, "revisionHistoryLimit", kKeep), Bool(7, "paused"),
     Int(9, "progressDeadlineSeconds", kKeep)}};
const Message kDeployment{"Deployment",
                          {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kDeploymentSpec),
                           Nested(3, "status", kDeploymentStatus)}};

const KindMessage kAppsKindList[] = {
    {api::Kind::kDeployment, &kDeployment},
    {api::Kind::kReplicaSet, &kReplicaSet},
    {api::Kind::kStatefulSet, &kStatefulSet},
    {api::Kind::kDaemonSet, &kDaemonSet},
    {api::Kind::kControllerRevision, &kControllerRevision},
};
const std::span<const KindMessage> kAppsKinds = kAppsKindList;

}  // namespace berth::apiserver::protobuf_schema
