// batch/v1 messages (k8s.io/api/batch/v1/generated.proto).

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kPodFailurePolicyOnExitCodesRequirement{
    "PodFailurePolicyOnExitCodesRequirement",
    {String(1, "containerName", kKeep), String(2, "operator", kKeep), Ints(3, "values")}};
const Message kPodFailurePolicyOnPodConditionsPattern{"PodFailurePolicyOnPodConditionsPattern",
                                                      {String(1, "type", kKeep), String(2, "status", kKeep)}};
const Message kPodFailurePolicyRule{
    "PodFailurePolicyRule",
    {String(1, "action", kKeep), Nested(2, "onExitCodes", kPodFailurePolicyOnExitCodesRequirement),
     NestedList(3, "onPodConditions", kPodFailurePolicyOnPodConditionsPattern)}};
const Message kPodFailurePolicy{"PodFailurePolicy", {NestedList(1, "rules", kPodFailurePolicyRule)}};
const Message kSuccessPolicyRule{"SuccessPolicyRule",
                                 {String(1, "succeededIndexes", kKeep), Int(2, "succeededCount", kKeep)}};
const Message kSuccessPolicy{"SuccessPolicy", {NestedList(1, "rules", kSuccessPolicyRule)}};

// Every JobSpec scalar is a pointer in Go: a zero sent was meant.
const Message kJobSpec{"JobSpec",
                       {Int(1, "parallelism", kKeep),
                        Int(2, "completions", kKeep),
                        Int(3, "activeDeadlineSeconds", kKeep),
                        Nested(11, "podFailurePolicy", kPodFailurePolicy),
                        Nested(16, "successPolicy", kSuccessPolicy),
                        Int(7, "backoffLimit", kKeep),
                        Int(12, "backoffLimitPerIndex", kKeep),
                        Int(13, "maxFailedIndexes", kKeep),
                        Nested(4, "selector", kLabelSelector),
                        Bool(5, "manualSelector", kKeep),
                        Nested(6, "template", kPodTemplateSpec),
                        Int(8, "ttlSecondsAfterFinished", kKeep),
                        String(9, "completionMode", kKeep),
                        Bool(10, "suspend", kKeep),
                        String(14, "podReplacementPolicy", kKeep),
                        String(15, "managedBy", kKeep)}};
const Message kJob{"Job",
                   {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kJobSpec),
                    Nested(3, "status", kIgnoredStatus)}};

const Message kJobTemplateSpec{"JobTemplateSpec", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kJobSpec)}};
const Message kCronJobSpec{"CronJobSpec",
                           {String(1, "schedule", kKeep), String(8, "timeZone", kKeep),
                            Int(2, "startingDeadlineSeconds", kKeep), String(3, "concurrencyPolicy"),
                            Bool(4, "suspend", kKeep), Nested(5, "jobTemplate", kJobTemplateSpec),
                            Int(6, "successfulJobsHistoryLimit", kKeep), Int(7, "failedJobsHistoryLimit", kKeep)}};
const Message kCronJob{"CronJob",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kCronJobSpec),
                        Nested(3, "status", kIgnoredStatus)}};

}  // namespace berth::apiserver::protobuf_schema
