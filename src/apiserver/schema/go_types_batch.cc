// batch/v1 messages (k8s.io/api/batch/v1/generated.proto).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kPodFailurePolicyOnExitCodesRequirement{
    "PodFailurePolicyOnExitCodesRequirement",
    {String(1, "containerName", kKeep), String(2, "operator", kKeep).Go("v1.PodFailurePolicyOnExitCodesOperator"), Ints(3, "values")}};
const Message kPodFailurePolicyOnPodConditionsPattern{"PodFailurePolicyOnPodConditionsPattern",
                                                      {String(1, "type", kKeep).Go("v1.PodConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus")}};
const Message kPodFailurePolicyRule{
    "PodFailurePolicyRule",
    {String(1, "action", kKeep).Go("v1.PodFailurePolicyAction"), Nested(2, "onExitCodes", kPodFailurePolicyOnExitCodesRequirement),
     NestedList(3, "onPodConditions", kPodFailurePolicyOnPodConditionsPattern)}};
const Message kPodFailurePolicy{"PodFailurePolicy", {NestedList(1, "rules", kPodFailurePolicyRule)}};
const Message kSuccessPolicyRule{"SuccessPolicyRule",
                                 {String(1, "succeededIndexes", kKeep), Int(2, "succeededCount", kKeep)}};
const Message kSuccessPolicy{"SuccessPolicy", {NestedList(1, "rules", kSuccessPolicyRule)}};

// Workload-aware scheduling of a Job's pods (scheduling.k8s.io/v1alpha3
// messages the JobSpec embeds).
const Message kWorkloadPodGroupBasicSchedulingPolicy{"WorkloadPodGroupBasicSchedulingPolicy", {}};
const Message kWorkloadPodGroupGangSchedulingPolicy{"WorkloadPodGroupGangSchedulingPolicy",
                                                    {Int(1, "minCount", kKeep)}};
const Message kWorkloadPodGroupSchedulingPolicy{
    "WorkloadPodGroupSchedulingPolicy",
    {Nested(1, "basic", kWorkloadPodGroupBasicSchedulingPolicy),
     Nested(2, "gang", kWorkloadPodGroupGangSchedulingPolicy)}};
const Message kTopologyConstraint{"TopologyConstraint", {String(1, "key", kKeep)}};
const Message kWorkloadPodGroupSchedulingConstraints{
    "WorkloadPodGroupSchedulingConstraints", {NestedList(1, "topology", kTopologyConstraint)}};
const Message kWorkloadPodGroupSingleDisruptionMode{"WorkloadPodGroupSingleDisruptionMode", {}};
const Message kWorkloadPodGroupAllDisruptionMode{"WorkloadPodGroupAllDisruptionMode", {}};
const Message kWorkloadPodGroupDisruptionMode{
    "WorkloadPodGroupDisruptionMode",
    {Nested(1, "single", kWorkloadPodGroupSingleDisruptionMode),
     Nested(2, "all", kWorkloadPodGroupAllDisruptionMode)}};
const Message kWorkloadPodGroupResourceClaim{
    "WorkloadPodGroupResourceClaim",
    {String(1, "name", kKeep), String(2, "resourceClaimName", kKeep),
     String(3, "resourceClaimTemplateName", kKeep)}};
const Message kJobSchedulingConfiguration{
    "JobSchedulingConfiguration",
    {Nested(1, "schedulingPolicy", kWorkloadPodGroupSchedulingPolicy),
     Nested(2, "schedulingConstraints", kWorkloadPodGroupSchedulingConstraints),
     Nested(3, "disruptionMode", kWorkloadPodGroupDisruptionMode),
     NestedList(4, "resourceClaims", kWorkloadPodGroupResourceClaim)}};

// Every JobSpec scalar is a pointer in Go: a zero sent was meant.
const Message kJobSpec{"JobSpec",
                       {Int(1, "parallelism", kKeep),
                        Int(2, "completions", kKeep),
                        Int(3, "activeDeadlineSeconds", kKeep).Go("int64"),
                        Nested(11, "podFailurePolicy", kPodFailurePolicy),
                        Nested(16, "successPolicy", kSuccessPolicy),
                        Int(7, "backoffLimit", kKeep),
                        Int(12, "backoffLimitPerIndex", kKeep),
                        Int(13, "maxFailedIndexes", kKeep),
                        Nested(4, "selector", kLabelSelector),
                        Bool(5, "manualSelector", kKeep),
                        Nested(6, "template", kPodTemplateSpec),
                        Int(8, "ttlSecondsAfterFinished", kKeep),
                        String(9, "completionMode", kKeep).Go("v1.CompletionMode"),
                        Bool(10, "suspend", kKeep),
                        String(14, "podReplacementPolicy", kKeep).Go("v1.PodReplacementPolicy"),
                        String(15, "managedBy", kKeep),
                        Nested(17, "scheduling", kJobSchedulingConfiguration)}};
const Message kJobCondition{
    "JobCondition",
    {String(1, "type", kKeep).Go("v1.JobConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastProbeTime"),
     Time(4, "lastTransitionTime"), String(5, "reason"), String(6, "message")}};
const Message kUncountedTerminatedPods{"UncountedTerminatedPods",
                                       {Strings(1, "succeeded").Go("types.UID"), Strings(2, "failed").Go("types.UID")}};
const Message kJobStatus{
    "JobStatus",
    {NestedList(1, "conditions", kJobCondition), Time(2, "startTime"), Time(3, "completionTime"),
     Int(4, "active"), Int(5, "succeeded"), Int(6, "failed"), Int(11, "terminating", kKeep),
     String(7, "completedIndexes"), String(10, "failedIndexes", kKeep),
     Nested(8, "uncountedTerminatedPods", kUncountedTerminatedPods), Int(9, "ready", kKeep)}};
const Message kCronJobStatus{"CronJobStatus",
                             {NestedList(1, "active", kObjectReference),
                              Time(4, "lastScheduleTime"), Time(5, "lastSuccessfulTime")}};
const Message kJob{"Job",
                   {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kJobSpec),
                    Nested(3, "status", kJobStatus)}};

const Message kJobTemplateSpec{"JobTemplateSpec", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kJobSpec)}};
const Message kCronJobSpec{"CronJobSpec",
                           {String(1, "schedule", kKeep), String(8, "timeZone", kKeep),
                            Int(2, "startingDeadlineSeconds", kKeep).Go("int64"), String(3, "concurrencyPolicy").Go("v1.ConcurrencyPolicy"),
                            Bool(4, "suspend", kKeep), Nested(5, "jobTemplate", kJobTemplateSpec),
                            Int(6, "successfulJobsHistoryLimit", kKeep), Int(7, "failedJobsHistoryLimit", kKeep)}};
const Message kCronJob{"CronJob",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kCronJobSpec),
                        Nested(3, "status", kCronJobStatus)}};

const KindMessage kBatchKindList[] = {
    {api::Kind::kJob, &kJob},
    {api::Kind::kCronJob, &kCronJob},
};
const std::span<const KindMessage> kBatchKinds = kBatchKindList;

}  // namespace berth::apiserver::protobuf_schema
