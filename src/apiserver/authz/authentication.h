#pragma once
// Who a request comes from: kube-apiserver's union of the x509 client
// certificate authenticator (--client-ca-file: CN is the user, O values the
// groups), the static token file (--token-file) and service account tokens
// (service_account_tokens.h), tried in that order. Authenticated users also
// get the group system:authenticated, as in kube.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "api/status.h"
#include "apiserver/http.h"

namespace berth::store {
class Store;
}

namespace berth::apiserver {

class ServiceAccountTokens;

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  // kube's user.Info extra (a service account token's pod, node and token id).
  std::map<std::string, std::vector<std::string>> extra = {};
};

// kube's names for who a request without credentials is
// (--anonymous-auth): user system:anonymous in group system:unauthenticated.
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kUnauthenticatedGroup = "system:unauthenticated";
inline constexpr std::string_view kAuthenticatedGroup = "system:authenticated";
// kube's group of users who may do anything (user.SystemPrivilegedGroup).
inline constexpr std::string_view kPrivilegedGroup = "system:masters";
UserInfo AnonymousUser();

// The request's user, or nullopt when neither a verified certificate (only
// counted when `client_certificates`) nor a known bearer token identifies it.
std::optional<UserInfo> Authenticate(const Request& request,
                                     const std::map<std::string, UserInfo>& tokens,
                                     bool client_certificates);

// The user of a service account token of `tokens` (kube's service account
// authenticator): valid now, meant for one of `audiences` (empty: the API
// audiences), its account, and the pod, secret or node it is bound to,
// existing with the uids it names. nullopt: not such a token (another
// authenticator may know it); an error: such a token, not valid (kube's
// reason, for TokenReview's status.error).
std::optional<Result<UserInfo>> AuthenticateServiceAccount(std::string_view token, const ServiceAccountTokens& tokens,
                                                           store::Store& store,
                                                           const std::vector<std::string>& audiences = {},
                                                           std::vector<std::string>* matched_audiences = nullptr);

// The bearer token of an Authorization header; empty when there is none.
std::string_view BearerToken(const Request& request);

// True when the request carries credentials of any kind (a bearer token or
// a verified client certificate), known or not.
bool HasCredentials(const Request& request);

// POST /apis/authentication.k8s.io/v1/selfsubjectreviews (`kubectl auth
// whoami`): the caller's user info.
// A user as TokenReview and SelfSubjectReview show it (authentication/v1 UserInfo).
boost::json::object UserInfoJson(const UserInfo& user);

Response SelfSubjectReview(const Request& request, const UserInfo& user);

}  // namespace berth::apiserver
