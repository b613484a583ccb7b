// networking.k8s.io/v1 messages (k8s.io/api/networking/v1/generated.proto).

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kServiceBackendPort{"ServiceBackendPort", {String(1, "name"), Int(2, "number")}};
const Message kIngressServiceBackend{"IngressServiceBackend",
                                     {String(1, "name", kKeep), Nested(2, "port", kServiceBackendPort)}};
const Message kIngressBackend{"IngressBackend",
                              {Nested(4, "service", kIngressServiceBackend),
                               Nested(3, "resource", kTypedLocalObjectReference)}};
const Message kHTTPIngressPath{"HTTPIngressPath",
                               {String(1, "path"), String(3, "pathType", kKeep), Nested(2, "backend", kIngressBackend)}};
const Message kHTTPIngressRuleValue{"HTTPIngressRuleValue", {NestedList(1, "paths", kHTTPIngressPath)}};
const Message kIngressRuleValue{"IngressRuleValue", {Nested(1, "http", kHTTPIngressRuleValue)}};
const Message kIngressRule{"IngressRule", {String(1, "host"), Inline(2, kIngressRuleValue)}};
const Message kIngressTLS{"IngressTLS", {Strings(1, "hosts"), String(2, "secretName")}};
const Message kIngressSpec{"IngressSpec",
                           {String(4, "ingressClassName", kKeep), Nested(1, "defaultBackend", kIngressBackend),
                            NestedList(2, "tls", kIngressTLS), NestedList(3, "rules", kIngressRule)}};
const Message kIngress{"Ingress",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kIngressSpec),
                        Nested(3, "status", kIgnoredStatus)}};

}  // namespace berth::apiserver::protobuf_schema
