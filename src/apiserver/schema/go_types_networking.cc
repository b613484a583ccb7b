// networking.k8s.io/v1 messages (k8s.io/api/networking/v1/generated.proto):
// Ingress, IngressClass, NetworkPolicy.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kServiceBackendPort{"ServiceBackendPort", {String(1, "name"), Int(2, "number")}};
const Message kIngressServiceBackend{
    "IngressServiceBackend", {String(1, "name", kKeep), Nested(2, "port", kServiceBackendPort)}};
const Message kIngressBackend{"IngressBackend",
                              {Nested(4, "service", kIngressServiceBackend),
                               Nested(3, "resource", kTypedLocalObjectReference)}};
const Message kIngressTLS{"IngressTLS", {Strings(1, "hosts"), String(2, "secretName")}};
const Message kHTTPIngressPath{
    "HTTPIngressPath",
    {String(1, "path"), String(3, "pathType", kKeep).Go("v1.PathType"), Nested(2, "backend", kIngressBackend)}};
const Message kHTTPIngressRuleValue{"HTTPIngressRuleValue",
                                    {NestedList(1, "paths", kHTTPIngressPath)}};
const Message kIngressRuleValue{"IngressRuleValue", {Nested(1, "http", kHTTPIngressRuleValue)}};
const Message kIngressRule{"IngressRule", {String(1, "host"), Inline(2, kIngressRuleValue)}};
const Message kIngressSpec{
    "IngressSpec",
    {String(4, "ingressClassName", kKeep), Nested(1, "defaultBackend", kIngressBackend),
     NestedList(2, "tls", kIngressTLS), NestedList(3, "rules", kIngressRule)}};
const Message kIngressPortStatus{
    "IngressPortStatus",
    {Int(1, "port", kKeep), String(2, "protocol", kKeep).Go("v1.Protocol"), String(3, "error", kKeep)}};
const Message kIngressLoadBalancerIngress{
    "IngressLoadBalancerIngress",
    {String(1, "ip"), String(2, "hostname"), NestedList(4, "ports", kIngressPortStatus)}};
const Message kIngressLoadBalancerStatus{"IngressLoadBalancerStatus",
                                         {NestedList(1, "ingress", kIngressLoadBalancerIngress)}};
const Message kIngressStatus{"IngressStatus",
                             {Nested(1, "loadBalancer", kIngressLoadBalancerStatus)}};
const Message kIngress{"Ingress",
                       {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kIngressSpec),
                        Nested(3, "status", kIngressStatus)}};
const Message kIngressClassParametersReference{
    "IngressClassParametersReference",
    {String(1, "apiGroup", kKeep), String(2, "kind", kKeep), String(3, "name", kKeep),
     String(4, "scope", kKeep), String(5, "namespace", kKeep)}};
const Message kIngressClassSpec{
    "IngressClassSpec",
    {String(1, "controller"), Nested(2, "parameters", kIngressClassParametersReference)}};
const Message kIngressClass{
    "IngressClass", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kIngressClassSpec)}};
const Message kNetworkPolicyPort{
    "NetworkPolicyPort",
    {String(1, "protocol", kKeep).Go("v1.Protocol"), IntOrString(2, "port"), Int(3, "endPort", kKeep)}};
const Message kIPBlock{"IPBlock", {String(1, "cidr", kKeep), Strings(2, "except")}};
const Message kNetworkPolicyPeer{
    "NetworkPolicyPeer",
    {Nested(1, "podSelector", kLabelSelector), Nested(2, "namespaceSelector", kLabelSelector),
     Nested(3, "ipBlock", kIPBlock)}};
const Message kNetworkPolicyIngressRule{
    "NetworkPolicyIngressRule",
    {NestedList(1, "ports", kNetworkPolicyPort), NestedList(2, "from", kNetworkPolicyPeer)}};
const Message kNetworkPolicyEgressRule{
    "NetworkPolicyEgressRule",
    {NestedList(1, "ports", kNetworkPolicyPort), NestedList(2, "to", kNetworkPolicyPeer)}};
const Message kNetworkPolicySpec{
    "NetworkPolicySpec",
    {Nested(1, "podSelector", kLabelSelector), NestedList(2, "ingress", kNetworkPolicyIngressRule),
     NestedList(3, "egress", kNetworkPolicyEgressRule), Strings(4, "policyTypes").Go("v1.PolicyType")}};
const Message kNetworkPolicy{
    "NetworkPolicy", {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kNetworkPolicySpec)}};

const KindMessage kNetworkingKindList[] = {
    {api::Kind::kIngress, &kIngress},
    {api::Kind::kIngressClass, &kIngressClass},
    {api::Kind::kNetworkPolicy, &kNetworkPolicy},
};
const std::span<const KindMessage> kNetworkingKinds = kNetworkingKindList;

}  // namespace berth::apiserver::protobuf_schema
