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
  std::vector<std::string> groups;
};

// The request's user, or nullopt when neither a verified certificate (only
// counted when `client_certificates`) nor a known bearer token identifies it.
std::optional<UserInfo> Authenticate(const Request& request,
                                     const std::map<std::string, std::string>& tokens,
                                     bool client_certificates);

// POST /apis/authentication.k8s.io/v1/selfsubjectreviews (`kubectl auth
// whoami`): the caller's user info; `user` nullopt: system:anonymous.
Response SelfSubjectReview(const Request& request, const std::optional<UserInfo>& user);

}  // namespace berth::apiserver
