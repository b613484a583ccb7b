// discovery.k8s.io/v1 messages (k8s.io/api/discovery/v1/generated.proto):
// EndpointSlice. Its endpoints' and ports' scalars are pointers in Go: a zero
// sent was meant.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kEndpointConditions{
    "EndpointConditions",
    {Bool(1, "ready", kKeep), Bool(2, "serving", kKeep), Bool(3, "terminating", kKeep)}};
const Message kForZone{"ForZone", {String(1, "name", kKeep)}};
const Message kForNode{"ForNode", {String(1, "name", kKeep)}};
const Message kEndpointHints{
    "EndpointHints", {NestedList(1, "forZones", kForZone), NestedList(2, "forNodes", kForNode)}};
const Message kEndpoint{"Endpoint",
                        {Strings(1, "addresses"), Nested(2, "conditions", kEndpointConditions),
                         String(3, "hostname", kKeep), Nested(4, "targetRef", kObjectReference),
                         StringMap(5, "deprecatedTopology"), String(6, "nodeName", kKeep),
                         String(7, "zone", kKeep), Nested(8, "hints", kEndpointHints)}};
const Message kEndpointPort{"EndpointPort",
                            {String(1, "name", kKeep), String(2, "protocol", kKeep).Go("v1.Protocol"),
                             Int(3, "port", kKeep), String(4, "appProtocol", kKeep)}};
const Message kEndpointSlice{
    "EndpointSlice",
    {Nested(1, "metadata", kObjectMeta), String(4, "addressType", kKeep).Go("v1.AddressType"),
     NestedList(2, "endpoints", kEndpoint), NestedList(3, "ports", kEndpointPort)}};

const KindMessage kDiscoveryKindList[] = {
    {api::Kind::kEndpointSlice, &kEndpointSlice},
};
const std::span<const KindMessage> kDiscoveryKinds = kDiscoveryKindList;

}  // namespace berth::apiserver::protobuf_schema
