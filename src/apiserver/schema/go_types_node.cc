// node.k8s.io/v1 messages (k8s.io/api/node/v1/generated.proto): RuntimeClass.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kOverhead{"Overhead", {QuantityMap(1, "podFixed")}};
const Message kScheduling{
    "Scheduling", {StringMap(1, "nodeSelector"), NestedList(2, "tolerations", kToleration)}};
const Message kRuntimeClass{
    "RuntimeClass",
    {Nested(1, "metadata", kObjectMeta), String(2, "handler", kKeep),
     Nested(3, "overhead", kOverhead), Nested(4, "scheduling", kScheduling)}};

const KindMessage kNodeKindList[] = {
    {api::Kind::kRuntimeClass, &kRuntimeClass},
};
const std::span<const KindMessage> kNodeKinds = kNodeKindList;

}  // namespace berth::apiserver::protobuf_schema
