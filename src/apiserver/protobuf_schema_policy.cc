// policy/v1 messages (k8s.io/api/policy/v1/generated.proto).

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kPodDisruptionBudgetSpec{"PodDisruptionBudgetSpec",
                                       {IntOrString(1, "minAvailable"), Nested(2, "selector", kLabelSelector),
                                        IntOrString(3, "maxUnavailable"),
                                        String(4, "unhealthyPodEvictionPolicy", kKeep)}};
const Message kPodDisruptionBudget{"PodDisruptionBudget",
                                   {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kPodDisruptionBudgetSpec),
                                    Nested(3, "status", kIgnoredStatus)}};

// A request body, not a stored kind: kubectl drain's typed client sends it.
const Message kEviction{"Eviction", {Nested(1, "metadata", kObjectMeta), Nested(2, "deleteOptions", kDeleteOptions)}};

const KindMessage kPolicyKindList[] = {
    {api::Kind::kPodDisruptionBudget, &kPodDisruptionBudget},
};
const std::span<const KindMessage> kPolicyKinds = kPolicyKindList;

}  // namespace berth::apiserver::protobuf_schema
