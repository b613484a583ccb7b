#pragma once
// Who a request comes from: kube-apiserver's union of the x509 client
// certificate authenticator (--client-ca-file: CN is the user, O values the
// groups) and the static token file (--token-file), tried in that order.
// Authenticated users also get the group system:authenticated, as in kube.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/http.h"

namespace berth::apiserver {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
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

// True when the request carries credentials of any kind (a bearer token or
// a verified client certificate), known or not.
bool HasCredentials(const Request& request);

// POST /apis/authentication.k8s.io/v1/selfsubjectreviews (`kubectl auth
// whoami`): the caller's user info.
Response SelfSubjectReview(const Request& request, const UserInfo& user);

}  // namespace berth::apiserver
