#include "apiserver/authz/authentication.h"

#include <algorithm>
#include <chrono>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "api/kinds.h"
#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "apiserver/authz/service_account_tokens.h"
#include "store/store.h"

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
  } else if (std::string_view bearer = BearerToken(request); !bearer.empty()) {
    if (auto it = tokens.find(std::string(bearer)); it != tokens.end()) user = it->second;
  }
  if (user && std::find(user->groups.begin(), user->groups.end(), kAuthenticatedGroup) == user->groups.end()) {
    user->groups.emplace_back(kAuthenticatedGroup);
  }
  return user;
}

std::string_view BearerToken(const Request& request) {
  std::string_view auth = request.authorization;
  constexpr std::string_view kBearer = "Bearer ";
  return auth.starts_with(kBearer) ? auth.substr(kBearer.size()) : std::string_view();
}

namespace {

// kube's validator: an object a token names must exist with the token's
// uid, and not have been deleted more than a minute ago.
Status StillThere(store::Store& store, api::Kind kind, std::string_view ns, const TokenBinding& binding,
                  std::string_view what, int64_t now) {
  const api::KindInfo& info = api::Info(kind);
  auto got = store.Get(api::StorageKey(kind, info.namespaced ? std::string(ns) : "", binding.name));
  if (!got.ok()) {
    return Status(StatusCode::kUnauthorized, std::string(info.resource) + " \"" + binding.name + "\" not found");
  }
  const api::Object& object = *got.value();
  if (object.uid() != binding.uid) {
    return Status(StatusCode::kUnauthorized, std::string(what) + " UID (" + object.uid() +
                                                 ") does not match claim (" + binding.uid + ")");
  }
  std::string_view deleted = api::StringAt(api::ObjectAt(object.json(), "metadata"), "deletionTimestamp");
  if (!deleted.empty()) {
    auto at = api::ParseRfc3339(deleted);
    const int64_t when = at ? std::chrono::duration_cast<std::chrono::seconds>(at->time_since_epoch()).count() : 0;
    if (when < now - 60) {
      std::string who = info.namespaced ? std::string(ns) + "/" + binding.name : binding.name;
      return Status(StatusCode::kUnauthorized, std::string(what) + " " + who + " has been deleted");
    }
  }
  return Status::Ok();
}

constexpr std::string_view kLegacyTokenInvalidSince = "kubernetes.io/legacy-token-invalid-since";
constexpr std::string_view kLegacyTokenLastUsed = "kubernetes.io/legacy-token-last-used";

// kube's legacy token tracking: the Secret's last-used label says the day
// (UTC) its token was last used, written at most once a day (today's or
// tomorrow's date is left as it is). The write is the API server's own, as
// kube's authenticator patches it; a conflict means another write came
// first, and the next use tries again.
void MarkLegacyTokenUsed(store::Store& store, const api::ObjectPtr& secret) {
  const auto now = std::chrono::system_clock::now();
  const std::string today = api::FormatRfc3339(now).substr(0, 10);
  const std::string tomorrow = api::FormatRfc3339(now + std::chrono::hours(24)).substr(0, 10);
  const std::string_view last = secret->labels().Get(kLegacyTokenLastUsed).value_or("");
  if (last == today || last == tomorrow) return;
  auto marked = secret->Edit([&](json::object& o) {
    api::MutableObject(api::MutableObject(o, "metadata"), "labels")[kLegacyTokenLastUsed] = today;
  });
  if (marked.ok()) (void)store.Update(marked.value(), secret->resource_version());
}

// kube's legacy validator: the token is its Secret's (the Secret there, not
// being deleted, holding exactly this token) and its account is there with
// the token's uid.
Status LegacyTokenStillValid(store::Store& store, std::string_view token, const TokenClaims& claims) {
  const std::string ns = claims.ns;
  auto secret = store.Get(api::StorageKey(api::Kind::kSecret, ns, claims.secret->name));
  if (!secret.ok() || !api::StringAt(api::ObjectAt(secret.value()->json(), "metadata"), "deletionTimestamp").empty()) {
    return Status(StatusCode::kUnauthorized, "Token has been invalidated");
  }
  auto held = api::Base64Decode(api::StringAt(api::ObjectAt(secret.value()->json(), "data"), "token"));
  const std::string* bytes = std::get_if<std::string>(&held);
  if (bytes == nullptr || *bytes != token) {
    return Status(StatusCode::kUnauthorized, "Token does not match server's copy");
  }
  auto account = store.Get(api::StorageKey(api::Kind::kServiceAccount, ns, claims.account.name));
  if (!account.ok() ||
      !api::StringAt(api::ObjectAt(account.value()->json(), "metadata"), "deletionTimestamp").empty()) {
    return Status(StatusCode::kUnauthorized, "ServiceAccount " + ns + "/" + claims.account.name + " has been deleted");
  }
  if (account.value()->uid() != claims.account.uid) {
    return Status(StatusCode::kUnauthorized, "ServiceAccount UID (" + account.value()->uid() +
                                                 ") does not match claim (" + claims.account.uid + ")");
  }
  if (!secret.value()->labels().Get(kLegacyTokenInvalidSince).value_or("").empty()) {
    return Status(StatusCode::kUnauthorized,
                  "the token in secret " + ns + "/" + claims.secret->name + " for service account " + ns + "/" +
                      claims.account.name +
                      " has been marked invalid. Use tokens from the TokenRequest API or manually created "
                      "secret-based tokens, or remove the '" + std::string(kLegacyTokenInvalidSince) +
                      "' label from the secret to temporarily allow use of this token");
  }
  MarkLegacyTokenUsed(store, secret.value());
  return Status::Ok();
}

}  // namespace

std::optional<Result<UserInfo>> AuthenticateServiceAccount(std::string_view token, const ServiceAccountTokens& tokens,
                                                           store::Store& store,
                                                           const std::vector<std::string>& audiences,
                                                           std::vector<std::string>* matched_audiences) {
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto verified = tokens.Verify(token, now, audiences);
  if (!verified) return std::nullopt;
  if (!verified->ok()) return verified->status();
  const TokenClaims& claims = verified->value();
  if (claims.legacy) {
    if (Status s = LegacyTokenStillValid(store, token, claims); !s.ok()) return s;
    if (matched_audiences) *matched_audiences = claims.audiences;
    return UserInfo{ServiceAccountUserName(claims.ns, claims.account.name),
                    claims.account.uid,
                    {"system:serviceaccounts", "system:serviceaccounts:" + claims.ns, std::string(kAuthenticatedGroup)}};
  }
  if (Status s = StillThere(store, api::Kind::kServiceAccount, claims.ns, claims.account, "service account", now);
      !s.ok()) {
    return s;
  }
  UserInfo user{ServiceAccountUserName(claims.ns, claims.account.name),
                claims.account.uid,
                {"system:serviceaccounts", "system:serviceaccounts:" + claims.ns, std::string(kAuthenticatedGroup)}};
  if (claims.pod) {
    if (Status s = StillThere(store, api::Kind::kPod, claims.ns, *claims.pod, "pod", now); !s.ok()) return s;
    user.extra["authentication.kubernetes.io/pod-name"] = {claims.pod->name};
    user.extra["authentication.kubernetes.io/pod-uid"] = {claims.pod->uid};
  }
  if (claims.secret) {
    if (Status s = StillThere(store, api::Kind::kSecret, claims.ns, *claims.secret, "secret", now); !s.ok()) return s;
  }
  if (claims.node) {
    // A pod-bound token names its pod's node for information; a node-bound
    // one needs the node.
    if (!claims.pod) {
      if (Status s = StillThere(store, api::Kind::kNode, "", *claims.node, "node", now); !s.ok()) return s;
    }
    user.extra["authentication.kubernetes.io/node-name"] = {claims.node->name};
    if (!claims.node->uid.empty()) user.extra["authentication.kubernetes.io/node-uid"] = {claims.node->uid};
  }
  if (!claims.id.empty()) user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + claims.id};
  if (matched_audiences) *matched_audiences = claims.audiences;
  return user;
}

json::object UserInfoJson(const UserInfo& who) {
  json::object info;
  json::array groups;
  info["username"] = who.name;
  if (!who.uid.empty()) info["uid"] = who.uid;
  for (const auto& g : who.groups) groups.emplace_back(g);
  info["groups"] = std::move(groups);
  if (!who.extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : who.extra) {
      json::array list;
      for (const auto& v : values) list.emplace_back(v);
      extra[key] = std::move(list);
    }
    info["extra"] = std::move(extra);
  }
  return info;
}

Response SelfSubjectReview(const Request& request, const UserInfo& who) {
  if (request.method != "POST") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed,
                                "the server does not allow this method on the requested resource"));
  }
  json::object info = UserInfoJson(who);
  json::object review{{"kind", "SelfSubjectReview"},
                      {"apiVersion", "authentication.k8s.io/v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"status", json::object{{"userInfo", std::move(info)}}}};
  return JsonResponse(201, json::serialize(review));
}

}  // namespace berth::apiserver
