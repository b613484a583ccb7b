// policy/v1 messages (k8s.io/api/policy/v1/generated.proto).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kPodDisruptionBudgetSpec{"PodDisruptionBudgetSpec",
                                       {IntOrString(1, "minAvailable"), Nested(2, "selector", kLabelSelector),
                                        IntOrString(3, "maxUnavailable"),
                                        String(4, "unhealthyPodEvictionPolicy", kKeep).Go("v1.UnhealthyPodEvictionPolicyType")}};
const Message kPodDisruptionBudgetStatus{
    "PodDisruptionBudgetStatus",
    {Int(1, "observedGeneration").Go("int64"), TimeMap(2, "disruptedPods"),
     Int(3, "disruptionsAllowed", kKeep), Int(4, "currentHealthy", kKeep),
     Int(5, "desiredHealthy", kKeep), Int(6, "expectedPods", kKeep),
     NestedList(7, "conditions", kCondition)}};
const Message kPodDisruptionBudget{"PodDisruptionBudget",
                                   {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPodDisruptionBudgetSpec),
                                    Nested(3, "status", kPodDisruptionBudgetStatus)}};

// A request body, not a stored kind: kubectl drain's typed client sends it.
const Message kEviction{"Eviction", {Nested(1, "metadata", kObjectMeta), Nested(2, "deleteOptions", kDeleteOptions)}};

const KindMessage kPolicyKindList[] = {
    {api::Kind::kPodDisruptionBudget, &kPodDisruptionBudget},
};
const std::span<const KindMessage> kPolicyKinds = kPolicyKindList;

}  // namespace berth::apiserver::protobuf_schema
