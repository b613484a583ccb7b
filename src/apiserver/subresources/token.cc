#include "apiserver/subresources/token.h"

#include <algorithm>
#include <chrono>
#include <string>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/kinds.h"
#include "api/time/rfc3339.h"
#include "apiserver/admission/admission.h"
#include "apiserver/api_server.h"
#include "apiserver/authz/service_account_tokens.h"
#include "apiserver/registry/system_fields.h"
#include "apiserver/schema/protobuf.h"
#include "apiserver/status_json.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kApiVersion = "authentication.k8s.io/v1";
constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 10 * 60;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
// kube's WarnOnlyBoundTokenExpirationSeconds (the admission plugin's
// projection) and the year such tokens are extended to.
constexpr int64_t kWarnOnlyExpirationSeconds = 3607;
constexpr int64_t kExtendedExpirationSeconds = 365 * 24 * 60 * 60;

Status InvalidRequest(std::string_view name, const std::string& field, const std::string& detail) {
  return Status::Invalid("TokenRequest.authentication.k8s.io \"" + std::string(name) + "\" is invalid: " + field +
                             ": " + detail,
                         {StatusCause{"FieldValueInvalid", detail, field}});
}

Result<json::object> DecodeTokenRequest(const Request& request) {
  json::value value;
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    auto decoded = DecodeProtobufTokenRequest(request.body);
    if (!decoded.ok()) return decoded.status();
    value = std::move(decoded).value();
  } else if (IsJsonContentType(request.content_type)) {
    json::error_code ec;
    value = api::ParseJson(request.body, ec);
    if (ec) return Status::BadRequest("couldn't get version/kind; json parse error: " + ec.message());
  } else {
    return Status(StatusCode::kUnsupportedMediaType,
                  "the body of the request was in an unknown format - accepted media types include: "
                  "application/json, application/vnd.kubernetes.protobuf");
  }
  if (!value.is_object()) return Status::BadRequest("the body of a token request must be a TokenRequest object");
  json::object& o = value.get_object();
  std::string_view kind = api::StringAt(o, "kind");
  std::string_view api_version = api::StringAt(o, "apiVersion");
  if (!kind.empty() && kind != "TokenRequest") {
    return Status::BadRequest("the kind in the data (" + std::string(kind) +
                              ") does not match the expected kind (TokenRequest)");
  }
  if (!api_version.empty() && api_version != kApiVersion) {
    return Status::BadRequest("the API version in the data (" + std::string(api_version) +
                              ") does not match the expected API version (authentication.k8s.io/v1)");
  }
  return std::move(o);
}

// kube's checks of the request itself: the names of the URL, and
// ValidateTokenRequest (after expirationSeconds' default).
Status CheckRequest(json::object& req, const RequestInfo& info) {
  json::object& meta = api::MutableObject(req, "metadata");
  std::string_view name = api::StringAt(meta, "name");
  std::string_view ns = api::StringAt(meta, "namespace");
  if (!name.empty() && name != info.name) {
    return InvalidRequest(info.name, "metadata.name",
                          "Invalid value: \"" + std::string(name) + "\": must match the service account name if specified");
  }
  if (!ns.empty() && ns != info.ns) {
    return InvalidRequest(info.name, "metadata.namespace",
                          "Invalid value: \"" + std::string(ns) +
                              "\": must match the service account namespace if specified");
  }
  json::object& spec = api::MutableObject(req, "spec");
  const json::value* seconds = spec.if_contains("expirationSeconds");
  if (!seconds || seconds->is_null()) spec["expirationSeconds"] = kDefaultExpirationSeconds;
  if (!spec["expirationSeconds"].is_int64()) {
    return InvalidRequest(info.name, "spec.expirationSeconds", "Invalid value: must be an integer number of seconds");
  }
  const int64_t expiration = spec["expirationSeconds"].get_int64();
  if (expiration < kMinExpirationSeconds) {
    return InvalidRequest(info.name, "spec.expirationSeconds",
                          "Invalid value: " + std::to_string(expiration) + ": may not specify a duration less than 10 minutes");
  }
  if (expiration > kMaxExpirationSeconds) {
    return InvalidRequest(info.name, "spec.expirationSeconds",
                          "Invalid value: " + std::to_string(expiration) + ": may not specify a duration larger than 2^32 seconds");
  }
  return Status::Ok();
}

// Every audience one of the server's (kube's isKubeAudiences).
bool KubeAudiences(const std::vector<std::string>& requested, const std::vector<std::string>& ours) {
  for (const auto& a : requested) {
    if (std::find(ours.begin(), ours.end(), a) == ours.end()) return false;
  }
  return !requested.empty();
}

// The object spec.boundObjectRef names, checked as kube's TokenREST does,
// recorded in `claims`. Returns whether it is a pod.
Result<bool> Bind(const json::object& ref, const RequestInfo& info, store::Store& store, TokenClaims& claims) {
  std::string api_version(api::StringAt(ref, "apiVersion"));
  std::string kind(api::StringAt(ref, "kind"));
  std::string name(api::StringAt(ref, "name"));
  std::string_view uid = api::StringAt(ref, "uid");
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  api::Kind bound;
  if (group.empty() && kind == "Pod") {
    bound = api::Kind::kPod;
  } else if (group.empty() && kind == "Secret") {
    bound = api::Kind::kSecret;
  } else if (group.empty() && kind == "Node") {
    bound = api::Kind::kNode;
  } else {
    return Status::BadRequest("cannot bind token to object of type " + group + "/" + version + ", Kind=" + kind);
  }
  const api::KindInfo& bound_info = api::Info(bound);
  auto got = store.Get(api::StorageKey(bound, bound_info.namespaced ? info.ns : "", name));
  if (!got.ok()) return NotFoundFor(bound_info, name);
  const api::Object& object = *got.value();
  if (bound == api::Kind::kPod) {
    std::string_view runs_as = api::StringAt(api::ObjectAt(object.json(), "spec"), "serviceAccountName");
    if (runs_as != info.name) {
      return Status::BadRequest("cannot bind token for serviceaccount \"" + info.name +
                                "\" to pod running with serviceaccount \"" + std::string(runs_as) + "\"");
    }
  }
  if (!uid.empty() && uid != object.uid()) {
    return Status(StatusCode::kConflict, "Operation cannot be fulfilled on " + kind + " \"" + name +
                                             "\": the UID in the bound object reference (" + std::string(uid) +
                                             ") does not match the UID in record. The object might have been "
                                             "deleted and then recreated");
  }
  const TokenBinding binding{name, object.uid()};
  if (bound == api::Kind::kPod) {
    claims.pod = binding;
    // kube's pod-bound tokens also name the pod's node (ServiceAccountTokenPodNodeInfo).
    std::string node(api::StringAt(api::ObjectAt(object.json(), "spec"), "nodeName"));
    if (!node.empty()) {
      if (auto n = store.Get(api::StorageKey(api::Kind::kNode, "", node)); n.ok()) {
        claims.node = TokenBinding{node, n.value()->uid()};
      }
    }
  } else if (bound == api::Kind::kSecret) {
    claims.secret = binding;
  } else {
    claims.node = binding;
  }
  return bound == api::Kind::kPod;
}

std::vector<std::string> Strings(const json::array* list) {
  std::vector<std::string> out;
  if (!list) return out;
  for (const auto& v : *list) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

}  // namespace

TokenSubresource::TokenSubresource(const ServiceAccountTokens* tokens)
    : Subresource({.name = "token",
                   .group = "authentication.k8s.io",
                   .version = "v1",
                   .kind = "TokenRequest",
                   .verbs = {"create"}}),
      tokens_(tokens) {}

Response TokenSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  if (request.method != "POST") return MethodNotAllowed();
  if (!tokens_) return ErrorResponse(Status(StatusCode::kUnavailable, "the server issues no service account tokens"));
  const api::KindInfo& accounts = api::Info(api::Kind::kServiceAccount);
  const StatusDetails details{info.name, "", "serviceaccounts"};
  auto decoded = DecodeTokenRequest(request);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  json::object& req = decoded.value();
  AdmissionEffects effects;
  AdmissionAttributes attributes{AdmissionOperation::kCreate, accounts, "token", info.ns, info.name, &req,
                                 nullptr, false, &request, &effects};
  Status admitted = rest.admission().Admit(attributes, &req);
  TakeWarnings(effects, request);
  if (!admitted.ok()) return ErrorResponse(admitted, details);
  if (Status checked = CheckRequest(req, info); !checked.ok()) return ErrorResponse(checked, details);

  auto account = rest.store().Get(api::StorageKey(api::Kind::kServiceAccount, info.ns, info.name));
  if (!account.ok()) return ErrorResponse(NotFoundFor(accounts, info.name), details);
  // The request as kube completes it before validating admission: the
  // audiences defaulted, kube's metadata, no status. Written into `req` in
  // one go (no reference into it is held across a change of its members).
  json::object spec = api::MutableObject(req, "spec");
  std::vector<std::string> audiences = Strings(api::ArrayAt(spec, "audiences"));
  if (audiences.empty()) audiences = tokens_->audiences();
  json::array audience_list;
  for (const auto& a : audiences) audience_list.emplace_back(a);
  spec["audiences"] = std::move(audience_list);
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  const auto now = std::chrono::system_clock::now();
  req = json::object{{"kind", "TokenRequest"},
                     {"apiVersion", kApiVersion},
                     {"metadata", json::object{{"name", info.name},
                                               {"namespace", info.ns},
                                               {"creationTimestamp", api::FormatRfc3339(now)}}},
                     {"spec", spec}};
  Status validated = rest.admission().Validate(attributes);
  TakeWarnings(effects, request);
  if (!validated.ok()) return ErrorResponse(validated, details);

  TokenClaims claims;
  claims.ns = info.ns;
  claims.account = TokenBinding{info.name, account.value()->uid()};
  bool pod_bound = false;
  if (const json::object* ref = api::ObjectAt(spec, "boundObjectRef")) {
    auto bound = Bind(*ref, info, rest.store(), claims);
    if (!bound.ok()) return ErrorResponse(bound.status());
    pod_bound = bound.value();
  }
  int64_t requested = spec["expirationSeconds"].get_int64();
  const int64_t max = tokens_->options().max_expiration_seconds;
  if (max > 0 && requested > max) {
    request.AddWarning("requested expiration of " + std::to_string(requested) + " seconds shortened to " +
                       std::to_string(max) + " seconds");
    requested = max;
  }
  const int64_t issued = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  int64_t lifetime = requested;
  if (tokens_->options().extend_expiration && pod_bound && requested == kWarnOnlyExpirationSeconds &&
      KubeAudiences(audiences, tokens_->audiences())) {
    claims.warn_after = issued + requested;
    lifetime = kExtendedExpirationSeconds;
  }
  claims.audiences = std::move(audiences);
  claims.issued_at = issued;
  claims.expires_at = issued + lifetime;
  claims.id = RandomUuidV4();
  auto token = tokens_->Sign(std::move(claims));
  if (!token.ok()) return ErrorResponse(token.status());

  spec["expirationSeconds"] = requested;
  req["spec"] = std::move(spec);
  req["status"] = json::object{{"token", std::move(token).value()},
                               {"expirationTimestamp", api::FormatRfc3339(now + std::chrono::seconds(requested))}};
  return JsonResponse(201, json::serialize(req));
}

}  // namespace berth::apiserver
