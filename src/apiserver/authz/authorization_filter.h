#pragma once
// The API server's access checks in front of every handler: who the request
// comes from (authentication.h), whether the authorization chain
// (--authorization-mode) lets them do it, kube's RBAC escalation check on
// writes of roles and bindings, and the review endpoints that ask the
// same questions (SelfSubjectReview, SelfSubjectAccessReview,
// SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview,
// TokenReview).
//
// Requests without credentials when an authenticator is configured: kube's
// --anonymous-auth (default true) makes them system:anonymous in group
// system:unauthenticated, for the authorizers to judge, except under
// AlwaysAllow, where kube turns anonymous access off: they get 401 (health
// and version paths excepted). berth goes one step further than kube: a
// request without credentials from a peer off loopback always gets 401 (health
// and version excepted), whatever the mode, so that a server listening on a
// public address answers strangers with nothing but its health. With no
// authenticator (loopback-only serving) every request is anonymous.
//
// In-process callers (Request::trusted) act as Request::trusted_user:
// requests of system:kube-scheduler are authorized as any other; the other
// in-process components (the controller manager and simulated kubelets, as
// system:kube-controller-manager) are not authorized, because berth does
// not carry kube's per-controller roles (system:controller:*) they would need.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/authz/authorization.h"
#include "apiserver/http.h"
#include "store/store.h"

namespace berth::apiserver {

namespace rbac {
class PolicyIndex;
}
class ServiceAccountTokens;

struct AccessOptions {
  // Static bearer tokens (token → user). Empty: no token authentication.
  std::map<std::string, UserInfo> tokens;
  // A verified client certificate authenticates (--client-ca-file).
  bool client_certificates = false;
  bool anonymous_auth = true;  // kube's --anonymous-auth
  std::vector<std::string> authorization_modes{std::string(kModeAlwaysAllow)};
  // Service account tokens, accepted whatever else is configured (null:
  // none). They do not make the server an authenticating one: without
  // --token-file or --client-ca-file, requests without credentials stay
  // anonymous.
  const ServiceAccountTokens* service_account_tokens = nullptr;
};

// The review resources AccessControl::ServeReview answers: create-only, not
// stored; discovery lists them beside the kinds.
struct ReviewResource {
  std::string_view group, version, kind, resource, singular;
  bool namespaced;
};
const std::vector<ReviewResource>& ReviewResources();

class AccessControl {
 public:
  // REQUIRES: `options.authorization_modes` passed ParseAuthorizationModes.
  AccessControl(store::Store& store, AccessOptions options);
  ~AccessControl();

  // Starts following the RBAC objects; call once the bootstrap policy is in
  // the store.
  Status Start();

  // Authenticates and authorizes `request`: nullopt with `user` set when it
  // may proceed, else the answer refusing it (401 or 403 Status).
  std::optional<Response> Admit(const Request& request, UserInfo& user) const;

  // The review endpoints (authentication.k8s.io selfsubjectreviews and
  // tokenreviews, authorization.k8s.io selfsubjectaccessreviews, subjectaccessreviews,
  // localsubjectaccessreviews, selfsubjectrulesreviews); nullopt for any
  // other path.
  std::optional<Response> ServeReview(const Request& request, const UserInfo& user) const;

  const Authorizer& authorizer() const { return *authorizer_; }

 private:
  bool Authenticating() const { return !options_.tokens.empty() || options_.client_certificates; }
  bool HasMode(std::string_view mode) const;
  Response AccessReview(const Request& request, const UserInfo& user, std::string_view kind,
                        std::string_view ns) const;
  Response RulesReview(const Request& request, const UserInfo& user) const;
  Response TokenReview(const Request& request) const;
  // The user of the request's service account token; nullopt when it
  // carries none (an error: one that is not valid).
  std::optional<Result<UserInfo>> ServiceAccountUser(const Request& request) const;

  store::Store& store_;
  AccessOptions options_;
  // The RBAC objects; followed in every mode, since it also aggregates
  // ClusterRoles (kube runs that controller whatever the mode).
  std::unique_ptr<rbac::PolicyIndex> index_;
  bool rbac_ = false;  // RBAC is in the chain
  std::unique_ptr<Authorizer> authorizer_;
};

}  // namespace berth::apiserver
