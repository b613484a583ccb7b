// authorization.k8s.io/v1 request bodies (k8s.io/api/authorization/v1/
// generated.proto): the access and rules reviews kubectl auth can-i sends.
// Not stored kinds; authorization_review.cc answers them.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

namespace {

const Message kSelectorRequirement{"SelectorRequirement",
                                   {String(1, "key"), String(2, "operator"), Strings(3, "values")}};
const Message kSelectorAttributes{
    "SelectorAttributes",
    {String(1, "rawSelector"), NestedList(2, "requirements", kSelectorRequirement)}};
const Message kResourceAttributes{
    "ResourceAttributes",
    {String(1, "namespace"), String(2, "verb"), String(3, "group"), String(4, "version"),
     String(5, "resource"), String(6, "subresource"), String(7, "name"),
     Nested(8, "fieldSelector", kSelectorAttributes),
     Nested(9, "labelSelector", kSelectorAttributes)}};
const Message kNonResourceAttributes{"NonResourceAttributes",
                                     {String(1, "path"), String(2, "verb")}};
const Message kExtraValue{"ExtraValue", {Strings(1, "items")}};
const Message kSelfSubjectAccessReviewSpec{
    "SelfSubjectAccessReviewSpec",
    {Nested(1, "resourceAttributes", kResourceAttributes),
     Nested(2, "nonResourceAttributes", kNonResourceAttributes)}};
const Message kSubjectAccessReviewSpec{
    "SubjectAccessReviewSpec",
    {Nested(1, "resourceAttributes", kResourceAttributes),
     Nested(2, "nonResourceAttributes", kNonResourceAttributes), String(3, "user"),
     Strings(4, "groups"), MessageMap(5, "extra", kExtraValue), String(6, "uid")}};
const Message kSubjectAccessReviewStatus{"SubjectAccessReviewStatus",
                                         {Bool(1, "allowed", kKeep), String(2, "reason"),
                                          String(3, "evaluationError"), Bool(4, "denied")}};
const Message kSelfSubjectAccessReview{
    "SelfSubjectAccessReview",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kSelfSubjectAccessReviewSpec),
     Nested(3, "status", kSubjectAccessReviewStatus)}};
const Message kSubjectAccessReview{
    "SubjectAccessReview",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kSubjectAccessReviewSpec),
     Nested(3, "status", kSubjectAccessReviewStatus)}};
const Message kResourceRule{"ResourceRule",
                            {Strings(1, "verbs"), Strings(2, "apiGroups"), Strings(3, "resources"),
                             Strings(4, "resourceNames")}};
const Message kNonResourceRule{"NonResourceRule",
                               {Strings(1, "verbs"), Strings(2, "nonResourceURLs")}};
const Message kSubjectRulesReviewStatus{
    "SubjectRulesReviewStatus",
    {NestedList(1, "resourceRules", kResourceRule),
     NestedList(2, "nonResourceRules", kNonResourceRule), Bool(3, "incomplete", kKeep),
     String(4, "evaluationError")}};
const Message kSelfSubjectRulesReviewSpec{"SelfSubjectRulesReviewSpec", {String(1, "namespace")}};
const Message kSelfSubjectRulesReview{
    "SelfSubjectRulesReview",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kSelfSubjectRulesReviewSpec),
     Nested(3, "status", kSubjectRulesReviewStatus)}};

}  // namespace

const Message* ReviewMessage(std::string_view kind) {
  if (kind == "SelfSubjectAccessReview") return &kSelfSubjectAccessReview;
  // LocalSubjectAccessReview has SubjectAccessReview's fields.
  if (kind == "SubjectAccessReview" || kind == "LocalSubjectAccessReview")
    return &kSubjectAccessReview;
  if (kind == "SelfSubjectRulesReview") return &kSelfSubjectRulesReview;
  return nullptr;
}

}  // namespace berth::apiserver::protobuf_schema
