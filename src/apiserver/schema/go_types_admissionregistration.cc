// admissionregistration.k8s.io/v1 messages
// (k8s.io/api/admissionregistration/v1/generated.proto): the webhook
// configurations. apiregistration.k8s.io/v1's APIService
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/generated.proto) is
// here too: both groups extend the API.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// --- admissionregistration.k8s.io/v1

const Message kWebhookServiceReference{
    "ServiceReference",
    {String(1, "namespace", kKeep), String(2, "name", kKeep), String(3, "path", kKeep), Int(4, "port", kKeep)}};
const Message kWebhookClientConfig{
    "WebhookClientConfig",
    {String(3, "url", kKeep), Nested(1, "service", kWebhookServiceReference), Bytes(2, "caBundle")}};
const Message kRule{"Rule",
                    {Strings(1, "apiGroups"), Strings(2, "apiVersions"), Strings(3, "resources"),
                     String(4, "scope", kKeep).Go("v1.ScopeType")}};
const Message kRuleWithOperations{"RuleWithOperations", {Strings(1, "operations"), Inline(2, kRule)}};
const Message kMatchCondition{"MatchCondition", {String(1, "name", kKeep), String(2, "expression", kKeep)}};

const Message kMutatingWebhook{
    "MutatingWebhook",
    {String(1, "name", kKeep), Nested(2, "clientConfig", kWebhookClientConfig),
     NestedList(3, "rules", kRuleWithOperations), String(4, "failurePolicy", kKeep).Go("v1.FailurePolicyType"),
     String(9, "matchPolicy", kKeep).Go("v1.MatchPolicyType"), Nested(5, "namespaceSelector", kLabelSelector),
     Nested(11, "objectSelector", kLabelSelector), String(6, "sideEffects", kKeep).Go("v1.SideEffectClass"),
     Int(7, "timeoutSeconds", kKeep), Strings(8, "admissionReviewVersions"),
     String(10, "reinvocationPolicy", kKeep).Go("v1.ReinvocationPolicyType"),
     NestedList(12, "matchConditions", kMatchCondition)}};
const Message kValidatingWebhook{
    "ValidatingWebhook",
    {String(1, "name", kKeep), Nested(2, "clientConfig", kWebhookClientConfig),
     NestedList(3, "rules", kRuleWithOperations), String(4, "failurePolicy", kKeep).Go("v1.FailurePolicyType"),
     String(9, "matchPolicy", kKeep).Go("v1.MatchPolicyType"), Nested(5, "namespaceSelector", kLabelSelector),
     Nested(10, "objectSelector", kLabelSelector), String(6, "sideEffects", kKeep).Go("v1.SideEffectClass"),
     Int(7, "timeoutSeconds", kKeep), Strings(8, "admissionReviewVersions"),
     NestedList(11, "matchConditions", kMatchCondition)}};

const Message kMutatingWebhookConfiguration{
    "MutatingWebhookConfiguration",
    {Nested(1, "metadata", kObjectMeta), NestedList(2, "webhooks", kMutatingWebhook)}};
const Message kValidatingWebhookConfiguration{
    "ValidatingWebhookConfiguration",
    {Nested(1, "metadata", kObjectMeta), NestedList(2, "webhooks", kValidatingWebhook)}};

// --- apiregistration.k8s.io/v1

const Message kAPIServiceReference{
    "ServiceReference", {String(1, "namespace"), String(2, "name"), Int(3, "port", kKeep)}};
const Message kAPIServiceSpec{
    "APIServiceSpec",
    {Nested(1, "service", kAPIServiceReference), String(2, "group"), String(3, "version"),
     Bool(4, "insecureSkipTLSVerify"), Bytes(5, "caBundle"), Int(7, "groupPriorityMinimum", kKeep),
     Int(8, "versionPriority", kKeep)}};
const Message kAPIServiceCondition{
    "APIServiceCondition",
    {String(1, "type", kKeep).Go("v1.APIServiceConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"),
     Time(3, "lastTransitionTime"), String(4, "reason"), String(5, "message")}};
const Message kAPIServiceStatus{"APIServiceStatus", {NestedList(1, "conditions", kAPIServiceCondition)}};
const Message kAPIService{"APIService",
                          {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kAPIServiceSpec),
                           Nested(3, "status", kAPIServiceStatus)}};

const KindMessage kAdmissionregistrationKindList[] = {
    {api::Kind::kMutatingWebhookConfiguration, &kMutatingWebhookConfiguration},
    {api::Kind::kValidatingWebhookConfiguration, &kValidatingWebhookConfiguration},
    {api::Kind::kAPIService, &kAPIService},
};
const std::span<const KindMessage> kAdmissionregistrationKinds = kAdmissionregistrationKindList;

}  // namespace berth::apiserver::protobuf_schema
