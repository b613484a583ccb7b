// authentication.k8s.io/v1 request bodies (k8s.io/api/authentication/v1/
// generated.proto): TokenRequest (serviceaccounts/token) and TokenReview.
// Not stored kinds; subresources/token.cc and authorization_review.cc
// answer them.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

namespace {

const Message kBoundObjectReference{
    "BoundObjectReference", {String(1, "kind"), String(2, "apiVersion"), String(3, "name"), String(4, "uid")}};
const Message kTokenRequestSpec{"TokenRequestSpec",
                                {Strings(1, "audiences"), Nested(3, "boundObjectRef", kBoundObjectReference),
                                 Int(4, "expirationSeconds")}};
const Message kTokenRequestStatus{"TokenRequestStatus", {String(1, "token"), Time(2, "expirationTimestamp")}};
const Message kExtraValue{"ExtraValue", {Strings(1, "items")}};
const Message kUserInfo{"UserInfo",
                        {String(1, "username"), String(2, "uid"), Strings(3, "groups"),
                         MessageMap(4, "extra", kExtraValue)}};
const Message kTokenReviewSpec{"TokenReviewSpec", {String(1, "token"), Strings(2, "audiences")}};
const Message kTokenReviewStatus{"TokenReviewStatus",
                                 {Bool(1, "authenticated"), Nested(2, "user", kUserInfo), String(3, "error"),
                                  Strings(4, "audiences")}};

}  // namespace

const Message kTokenRequestBody{"TokenRequest",
                            {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kTokenRequestSpec),
                             Nested(3, "status", kTokenRequestStatus)}};
const Message kTokenReview{"TokenReview",
                           {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kTokenReviewSpec),
                            Nested(3, "status", kTokenReviewStatus)}};

}  // namespace berth::apiserver::protobuf_schema
