// The review endpoints of AccessControl (authorization_filter.h): kube's
// authentication.k8s.io and authorization.k8s.io create-only resources, each
// answered from the same authorizers that guard requests.

#include <algorithm>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "apiserver/api_server.h"
#include "apiserver/authz/authorization_filter.h"
#include "apiserver/authz/service_account_tokens.h"
#include "apiserver/authz/rbac/policy_index.h"
#include "apiserver/printers/table.h"
#include "apiserver/request_info.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kAuthorizationGroup = "authorization.k8s.io";

std::string Text(const json::object* o, std::string_view key) {
  if (!o) return {};
  const json::value* v = o->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* Object(const json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const json::value* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

Result<json::object> ParseBody(const Request& request, std::string_view kind) {
  if (request.content_type.starts_with(kProtobufContentType)) {
    auto decoded = DecodeProtobufReview(request.body, kind);
    if (!decoded.ok()) return decoded.status();
    if (!decoded->is_object())
      return Status::BadRequest("the body of the request is not an object");
    return std::move(decoded->get_object());
  }
  boost::system::error_code ec;
  json::value body = api::ParseJson(request.body, ec);
  if (ec || !body.is_object()) {
    return Status::BadRequest(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json");
  }
  return std::move(body.get_object());
}

Status Invalid(std::string_view kind, const std::string& field, const std::string& value,
               const std::string& why) {
  std::string detail = "Invalid value: " + value + ": " + why;
  return Status::Invalid(std::string(kind) + "." + std::string(kAuthorizationGroup) +
                             " \"\" is invalid: " + field + ": " + detail,
                         {StatusCause{"FieldValueInvalid", detail, field}});
}

json::array ToArray(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

}  // namespace

const std::vector<ReviewResource>& ReviewResources() {
  static const std::vector<ReviewResource> reviews = {
      {"authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", "selfsubjectreview", false},
      {"authentication.k8s.io", "v1", "TokenReview", "tokenreviews", "tokenreview", false},
      {"authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews",
       "localsubjectaccessreview", true},
      {"authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", "selfsubjectaccessreview",
       false},
      {"authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", "selfsubjectrulesreview",
       false},
      {"authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", "subjectaccessreview", false},
  };
  return reviews;
}

std::optional<Response> AccessControl::ServeReview(const Request& request,
                                                   const UserInfo& user) const {
  if (request.path == "/apis/authentication.k8s.io/v1/selfsubjectreviews")
    return SelfSubjectReview(request, user);
  if (request.path == "/apis/authentication.k8s.io/v1/tokenreviews") return TokenReview(request);
  if (!request.path.starts_with("/apis/authorization.k8s.io/")) return std::nullopt;
  auto info = ParseResourcePath(request.path);
  if (!info || info->version != "v1" || !info->name.empty()) return std::nullopt;
  if (AcceptsOnlyTransformed(request.accept)) {
    // A review has no Table or metadata-only form (kube's reviews have no table convertor).
    return ErrorResponse(Status(StatusCode::kNotAcceptable,
                                "only the following media types are accepted: application/json, "
                                "application/yaml, application/vnd.kubernetes.protobuf"));
  }
  const std::string& resource = info->resource;
  if (info->ns.empty()) {
    if (resource == "selfsubjectaccessreviews")
      return AccessReview(request, user, "SelfSubjectAccessReview", "");
    if (resource == "subjectaccessreviews")
      return AccessReview(request, user, "SubjectAccessReview", "");
    if (resource == "selfsubjectrulesreviews") return RulesReview(request, user);
  } else if (resource == "localsubjectaccessreviews") {
    return AccessReview(request, user, "LocalSubjectAccessReview", info->ns);
  }
  return std::nullopt;
}

Response AccessControl::AccessReview(const Request& request, const UserInfo& user,
                                     std::string_view kind, std::string_view ns) const {
  if (request.method != "POST") return MethodNotAllowed();
  auto parsed = ParseBody(request, kind);
  if (!parsed.ok()) return ErrorResponse(parsed.status());
  json::object review = std::move(parsed).value();
  const json::object* spec = Object(&review, "spec");
  const json::object* resource = Object(spec, "resourceAttributes");
  const json::object* non_resource = Object(spec, "nonResourceAttributes");
  if (resource && non_resource) {
    return ErrorResponse(Invalid(kind, "spec.nonResourceAttributes", json::serialize(*non_resource),
                                 "cannot be specified in combination with resourceAttributes"));
  }
  if (!resource && !non_resource) {
    return ErrorResponse(
        Invalid(kind, "spec.resourceAttributes", "\"null\"",
                "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  Attributes a;
  if (kind == "SelfSubjectAccessReview") {
    a.user = user;
  } else {
    a.user.name = Text(spec, "user");
    a.user.uid = Text(spec, "uid");
    if (const json::value* groups = spec->if_contains("groups"); groups && groups->is_array()) {
      for (const auto& g : groups->get_array()) {
        if (g.is_string()) a.user.groups.emplace_back(g.get_string());
      }
    }
    if (a.user.name.empty() && a.user.groups.empty()) {
      return ErrorResponse(
          Invalid(kind, "spec.user", "\"\"", "at least one of user or group must be specified"));
    }
  }
  if (resource) {
    a.resource_request = true;
    a.ns = Text(resource, "namespace");
    a.verb = Text(resource, "verb");
    a.group = Text(resource, "group");
    a.version = Text(resource, "version");
    a.resource = Text(resource, "resource");
    a.subresource = Text(resource, "subresource");
    a.name = Text(resource, "name");
    if (!ns.empty() && a.ns != ns) {
      return ErrorResponse(Status::BadRequest(
          "spec.resourceAttributes.namespace must match namespace: " + std::string(ns)));
    }
  } else {
    if (!ns.empty()) {
      return ErrorResponse(Invalid(kind, "spec.nonResourceAttributes",
                                   json::serialize(*non_resource),
                                   "disallowed on this kind of request"));
    }
    a.path = Text(non_resource, "path");
    a.verb = Text(non_resource, "verb");
  }
  Verdict verdict = authorizer_->Authorize(a);
  json::object status{{"allowed", verdict.decision == Decision::kAllow}};
  if (verdict.decision == Decision::kDeny) status["denied"] = true;
  if (!verdict.reason.empty()) status["reason"] = verdict.reason;
  review["apiVersion"] = "authorization.k8s.io/v1";
  review["kind"] = kind;
  json::object meta{{"creationTimestamp", nullptr}};
  if (!ns.empty()) meta["namespace"] = ns;
  review["metadata"] = std::move(meta);
  review["status"] = std::move(status);
  return JsonResponse(201, json::serialize(review));
}

Response AccessControl::RulesReview(const Request& request, const UserInfo& user) const {
  if (request.method != "POST") return MethodNotAllowed();
  auto parsed = ParseBody(request, "SelfSubjectRulesReview");
  if (!parsed.ok()) return ErrorResponse(parsed.status());
  json::object review = std::move(parsed).value();
  std::string ns = Text(Object(&review, "spec"), "namespace");
  if (ns.empty()) return ErrorResponse(Status::BadRequest("no namespace on request"));

  json::array resource_rules, non_resource_rules;
  auto everything = [&] {
    resource_rules.emplace_back(
        json::object{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
    non_resource_rules.emplace_back(json::object{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}});
  };
  // The chain's authorizers in order, as kube's union RulesFor concatenates them.
  if (std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end())
    everything();
  std::vector<std::string> errors;
  for (const std::string& mode : options_.authorization_modes) {
    if (mode == kModeAlwaysAllow) everything();
    if (mode != kModeRbac) continue;
    for (const rbac::PolicyRule& rule : index_->RulesFor(user, ns, &errors)) {
      if (!rule.resources.empty()) {
        json::object r{{"verbs", ToArray(rule.verbs)},
                       {"apiGroups", ToArray(rule.api_groups)},
                       {"resources", ToArray(rule.resources)}};
        if (!rule.resource_names.empty()) r["resourceNames"] = ToArray(rule.resource_names);
        resource_rules.emplace_back(std::move(r));
      }
      if (!rule.non_resource_urls.empty()) {
        non_resource_rules.emplace_back(json::object{
            {"verbs", ToArray(rule.verbs)}, {"nonResourceURLs", ToArray(rule.non_resource_urls)}});
      }
    }
  }
  json::object status{{"resourceRules", std::move(resource_rules)},
                      {"nonResourceRules", std::move(non_resource_rules)},
                      {"incomplete", false}};
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
    status["evaluationError"] = errors.size() == 1 ? joined : "[" + joined + "]";
  }
  review["apiVersion"] = "authorization.k8s.io/v1";
  review["kind"] = "SelfSubjectRulesReview";
  review["metadata"] = json::object{{"creationTimestamp", nullptr}};
  review["status"] = std::move(status);
  return JsonResponse(201, json::serialize(review));
}

}  // namespace berth::apiserver

namespace berth::apiserver {

// kube's TokenReview: whether the token authenticates, and as whom, for the
// audiences asked (default: the server's). Service account tokens and the
// static token file are asked, as a request's bearer token would be.
Response AccessControl::TokenReview(const Request& request) const {
  if (request.method != "POST") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed,
                                "the server does not allow this method on the requested resource"));
  }
  auto body = ParseBody(request, "TokenReview");
  if (!body.ok()) return ErrorResponse(body.status());
  json::object& review = body.value();
  const json::object* spec = Object(&review, "spec");
  const std::string token = Text(spec, "token");
  if (token.empty()) return ErrorResponse(Status::BadRequest("token is required for TokenReview in authentication"));
  std::vector<std::string> requested;
  if (const json::value* a = spec->if_contains("audiences"); a && a->is_array()) {
    for (const auto& v : a->get_array()) {
      if (v.is_string()) requested.emplace_back(v.get_string());
    }
  }
  const ServiceAccountTokens* accounts = options_.service_account_tokens;
  std::vector<std::string> api_audiences = accounts ? accounts->audiences() : std::vector<std::string>{};
  std::vector<std::string> audiences;
  std::optional<Result<UserInfo>> found;
  if (accounts) found = AuthenticateServiceAccount(token, *accounts, store_, requested, &audiences);
  if (!found) {
    if (auto it = options_.tokens.find(token); it != options_.tokens.end()) {
      UserInfo user = it->second;
      if (std::find(user.groups.begin(), user.groups.end(), kAuthenticatedGroup) == user.groups.end()) {
        user.groups.emplace_back(kAuthenticatedGroup);
      }
      // Static tokens are meant for the server itself: its audiences.
      audiences = requested.empty() ? api_audiences : requested;
      found = std::move(user);
    }
  }
  json::object status;
  if (found && found->ok()) {
    status["authenticated"] = true;
    status["user"] = UserInfoJson(found->value());
    json::array list;
    for (const auto& a : audiences) list.emplace_back(a);
    status["audiences"] = std::move(list);
  } else {
    status["user"] = json::object();
    // kube reports what the authenticators said; an unknown token: nothing.
    if (found) status["error"] = found->status().message();
  }
  review["kind"] = "TokenReview";
  review["apiVersion"] = "authentication.k8s.io/v1";
  json::object& meta = review["metadata"].is_object() ? review["metadata"].get_object()
                                                       : review["metadata"].emplace_object();
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  review["status"] = std::move(status);
  return JsonResponse(201, json::serialize(review));
}

}  // namespace berth::apiserver
