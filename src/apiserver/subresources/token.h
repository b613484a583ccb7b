#pragma once
// serviceaccounts/NAME/token, kube's TokenREST: POST of an
// authentication.k8s.io/v1 TokenRequest (JSON, or protobuf as client-go's
// CreateToken sends it; `kubectl create token`) answers a signed token for
// the account, meant for spec.audiences (default: the server's API
// audiences), valid spec.expirationSeconds (default an hour, at least ten
// minutes) and, with spec.boundObjectRef, only as long as that Pod, Secret
// or Node exists with that uid. Nothing is stored.

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

class ServiceAccountTokens;

class TokenSubresource final : public Subresource {
 public:
  // `tokens` may be null: the server issues none (503).
  explicit TokenSubresource(const ServiceAccountTokens* tokens);
  // POST only.
  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;

 private:
  const ServiceAccountTokens* tokens_;
};

}  // namespace berth::apiserver
