#pragma once
// Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), read
// into the JSON berth stores: the "k8s\0" envelope (runtime.Unknown with
// TypeMeta and the raw message), then the message by a schema of field
// numbers, types and JSON names as k8s.io/api's generated.proto defines them.
//
// kubectl's typed commands send it (`kubectl create deployment|configmap|
// secret|service|serviceaccount|job|cronjob|ingress|role|rolebinding|
// clusterrole|clusterrolebinding|quota|pdb|priorityclass|namespace`, `kubectl
// autoscale`, drain's DeleteOptions and Evictions), and so may any client-go
// program (status updates included). The schema (go_types.h, one table
// file per API group) covers every built-in kind berth serves, all the fields
// of their generated.proto, status too; custom resources are JSON only, as in
// Kubernetes. A field the schema does not know is skipped, as kube's
// generated decoders skip it (fields kube has since removed, such as
// ObjectMeta's clusterName); a body that is not well-formed protobuf is a
// BadRequest.

#include <string_view>

#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::apiserver {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// Decodes an enveloped protobuf body for `kind` into its JSON form
// (apiVersion and kind from the envelope's TypeMeta).
Result<boost::json::value> DecodeProtobuf(std::string_view body, api::Kind kind);

// Request bodies that are not stored kinds, as JSON: meta/v1 DeleteOptions
// (kubectl's DELETEs from drain and other typed commands), policy/v1
// Eviction (its metadata and deleteOptions) and autoscaling/v1 Scale.
Result<boost::json::value> DecodeProtobufDeleteOptions(std::string_view body);
Result<boost::json::value> DecodeProtobufEviction(std::string_view body);
// autoscaling/v1 Scale, the body client-go's UpdateScale sends to a scale
// subresource.
Result<boost::json::value> DecodeProtobufScale(std::string_view body);
// authentication.k8s.io/v1 TokenRequest, the body client-go's CreateToken
// sends to serviceaccounts/token.
Result<boost::json::value> DecodeProtobufTokenRequest(std::string_view body);
// The reviews (`kubectl auth can-i` sends them so): `kind`
// SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview or
// SelfSubjectRulesReview (authorization.k8s.io/v1), TokenReview
// (authentication.k8s.io/v1).
Result<boost::json::value> DecodeProtobufReview(std::string_view body, std::string_view kind);

}  // namespace berth::apiserver
