// coordination.k8s.io/v1 messages (k8s.io/api/coordination/v1/generated.proto):
// Lease, its times meta/v1 MicroTime.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kLeaseSpec{
    "LeaseSpec",
    {String(1, "holderIdentity", kKeep), Int(2, "leaseDurationSeconds", kKeep),
     MicroTime(3, "acquireTime"), MicroTime(4, "renewTime"), Int(5, "leaseTransitions", kKeep),
     String(6, "strategy", kKeep).Go("v1.CoordinatedLeaseStrategy"), String(7, "preferredHolder", kKeep)}};
const Message kLease{"Lease", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kLeaseSpec)}};

const KindMessage kCoordinationKindList[] = {
    {api::Kind::kLease, &kLease},
};
const std::span<const KindMessage> kCoordinationKinds = kCoordinationKindList;

}  // namespace berth::apiserver::protobuf_schema
