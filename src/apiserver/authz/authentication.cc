#include "apiserver/authz/authentication.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apiserver/api_server.h"

namespace berth::apiserver {

namespace json = boost::json;

UserInfo AnonymousUser() { return UserInfo{std::string(kAnonymousUser), "", {std::string(kUnauthenticatedGroup)}}; }

bool HasCredentials(const Request& request) {
  return !request.authorization.empty() || !request.client_certificate_user.empty();
}

std::optional<UserInfo> Authenticate(const Request& request,
                                     const std::map<std::string, UserInfo>& tokens,
                                     bool client_certificates) {
  std::optional<UserInfo> user;
  if (client_certificates && !request.client_certificate_user.empty()) {
    user = UserInfo{request.client_certificate_user, "", request.client_certificate_groups};
  } else {
    std::string_view auth = request.authorization;
    constexpr std::string_view kBearer = "Bearer ";
    if (auth.starts_with(kBearer)) {
      if (auto it = tokens.find(std::string(auth.substr(kBearer.size()))); it != tokens.end()) {
        user = it->second;
      }
    }
  }
  if (user && std::find(user->groups.begin(), user->groups.end(), kAuthenticatedGroup) == user->groups.end()) {
    user->groups.emplace_back(kAuthenticatedGroup);
  }
  return user;
}

Response SelfSubjectReview(const Request& request, const UserInfo& who) {
  if (request.method != "POST") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed,
                                "the server does not allow this method on the requested resource"));
  }
  json::object info;
  json::array groups;
  info["username"] = who.name;
  if (!who.uid.empty()) info["uid"] = who.uid;
  for (const auto& g : who.groups) groups.emplace_back(g);
  info["groups"] = std::move(groups);
  json::object review{{"kind", "SelfSubjectReview"},
                      {"apiVersion", "authentication.k8s.io/v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"status", json::object{{"userInfo", std::move(info)}}}};
  return JsonResponse(201, json::serialize(review));
}

}  // namespace berth::apiserver
