#include "apiserver/authentication.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apiserver/api_server.h"

namespace berth::apiserver {

namespace json = boost::json;

std::optional<UserInfo> Authenticate(const Request& request,
                                     const std::map<std::string, std::string>& tokens,
                                     bool client_certificates) {
  std::optional<UserInfo> user;
  if (client_certificates && !request.client_certificate_user.empty()) {
    user = UserInfo{request.client_certificate_user, request.client_certificate_groups};
  } else {
    std::string_view auth = request.authorization;
    constexpr std::string_view kBearer = "Bearer ";
    if (auth.starts_with(kBearer)) {
      if (auto it = tokens.find(std::string(auth.substr(kBearer.size()))); it != tokens.end()) {
        user = UserInfo{it->second, {}};
      }
    }
  }
  if (user && std::find(user->groups.begin(), user->groups.end(), "system:authenticated") ==
                  user->groups.end()) {
    user->groups.push_back("system:authenticated");
  }
  return user;
}

Response SelfSubjectReview(const Request& request, const std::optional<UserInfo>& user) {
  if (request.method != "POST") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed,
                                "the server does not allow this method on the requested resource"));
  }
  json::object info;
  json::array groups;
  if (user) {
    info["username"] = user->name;
    for (const auto& g : user->groups) groups.emplace_back(g);
  } else {
    info["username"] = "system:anonymous";
    groups.emplace_back("system:unauthenticated");
  }
  info["groups"] = std::move(groups);
  json::object review{{"kind", "SelfSubjectReview"},
                      {"apiVersion", "authentication.k8s.io/v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"status", json::object{{"userInfo", std::move(info)}}}};
  return JsonResponse(201, json::serialize(review));
}

}  // namespace berth::apiserver
