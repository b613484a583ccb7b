// scheduling.k8s.io/v1 messages (k8s.io/api/scheduling/v1/generated.proto).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kPriorityClass{"PriorityClass",
                             {Nested(1, "metadata", kObjectMeta), Int(2, "value", kKeep), Bool(3, "globalDefault"),
                              String(4, "description"), String(5, "preemptionPolicy", kKeep).Go("v1.PreemptionPolicy")}};

const KindMessage kSchedulingKindList[] = {
    {api::Kind::kPriorityClass, &kPriorityClass},
};
const std::span<const KindMessage> kSchedulingKinds = kSchedulingKindList;

}  // namespace berth::apiserver::protobuf_schema
