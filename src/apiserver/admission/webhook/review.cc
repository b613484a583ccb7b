// The AdmissionReview kube-apiserver sends a webhook and what it accepts back
// (k8s.io/api/admission/v1; v1beta1 has the same shape).


#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "apiserver/admission/webhook/webhook.h"
#include "apiserver/http.h"
#include "apiserver/registry/system_fields.h"

namespace berth::apiserver::webhook {

namespace json = boost::json;

namespace {

std::string_view OptionsKind(AdmissionOperation op) {
  switch (op) {
    case AdmissionOperation::kCreate:
      return "CreateOptions";
    case AdmissionOperation::kUpdate:
      return "UpdateOptions";
    case AdmissionOperation::kDelete:
      return "DeleteOptions";
  }
  return "";
}

// The kind of the request's body: the resource's own, or a subresource's
// (a binding is a Binding, an eviction an Eviction, a scale a Scale).
json::object RequestKind(const AdmissionAttributes& a) {
  if (a.subresource == "binding") return {{"group", ""}, {"version", "v1"}, {"kind", "Binding"}};
  if (a.subresource == "eviction") return {{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}};
  if (a.subresource == "scale") return {{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}};
  return {{"group", a.kind.group}, {"version", a.kind.version}, {"kind", a.kind.name}};
}

json::object UserInfoOf(const Request* request) {
  json::object user;
  if (request == nullptr || (request->trusted && request->trusted_user.empty())) {
    // The server's own writes: kube's loopback identity.
    user["username"] = "system:apiserver";
    user["groups"] = json::array{"system:masters"};
    return user;
  }
  user["username"] = request->trusted ? request->trusted_user : request->user;
  json::array groups;
  for (const auto& g : request->groups) groups.emplace_back(g);
  if (!groups.empty()) user["groups"] = std::move(groups);
  return user;
}

// A denial as kube's webhook errors.ToStatusErr shapes it: at least 400,
// the webhook's message (or reason) after who denied.
Status Denial(const Hook& hook, const json::object* result) {
  std::string denied = "admission webhook \"" + hook.name + "\" denied the request";
  std::string_view message = api::StringAt(result, "message");
  std::string_view reason = api::StringAt(result, "reason");
  int64_t code = api::IntAt(result, "code", 0);
  if (!message.empty()) {
    denied += ": " + std::string(message);
  } else if (!reason.empty()) {
    denied += ": " + std::string(reason);
  } else {
    denied += " without explanation";
  }
  // berth's Status carries kube's reasons by HTTP code; a code it has no
  // reason for is the nearest class's (4xx BadRequest, 5xx InternalError).
  StatusCode status = StatusCode::kBadRequest;
  switch (code) {
    case 401: status = StatusCode::kUnauthorized; break;
    case 403: status = StatusCode::kForbidden; break;
    case 404: status = StatusCode::kNotFound; break;
    case 405: status = StatusCode::kMethodNotAllowed; break;
    case 406: status = StatusCode::kNotAcceptable; break;
    case 409: status = reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kConflict; break;
    case 410: status = StatusCode::kExpired; break;
    case 413: status = StatusCode::kRequestEntityTooLarge; break;
    case 415: status = StatusCode::kUnsupportedMediaType; break;
    case 422: status = StatusCode::kInvalid; break;
    case 429: status = StatusCode::kTooManyRequests; break;
    case 503: status = StatusCode::kUnavailable; break;
    case 504: status = StatusCode::kTimeout; break;
    default: status = code >= 500 ? StatusCode::kInternal : StatusCode::kBadRequest; break;
  }
  return Status(status, std::move(denied));
}

}  // namespace

Result<Review> MakeReview(const Hook& hook, const AdmissionAttributes& a, const json::object* object) {
  Review review;
  for (const std::string& v : hook.review_versions) {
    if (v == "v1" || v == "v1beta1") {
      review.version = v;
      break;
    }
  }
  if (review.version.empty()) {
    std::string listed;
    for (const std::string& v : hook.review_versions) listed += (listed.empty() ? "" : " ") + v;
    return Status::Internal("webhook does not accept known AdmissionReview versions: [" + listed + "]");
  }
  review.uid = RandomUuidV4();
  json::object request;
  request["uid"] = review.uid;
  json::object kind = RequestKind(a);
  json::object resource{{"group", a.kind.group}, {"version", a.kind.version}, {"resource", a.kind.resource}};
  request["kind"] = kind;
  request["resource"] = resource;
  if (!a.subresource.empty()) request["subResource"] = a.subresource;
  request["requestKind"] = std::move(kind);
  request["requestResource"] = std::move(resource);
  if (!a.subresource.empty()) request["requestSubResource"] = a.subresource;
  if (!a.name.empty()) request["name"] = a.name;
  if (!a.ns.empty()) request["namespace"] = a.ns;
  request["operation"] = OperationName(a.operation);
  request["userInfo"] = UserInfoOf(a.request);
  request["object"] = object ? json::value(*object) : json::value(nullptr);
  request["oldObject"] = a.old ? json::value(*a.old) : json::value(nullptr);
  request["dryRun"] = a.dry_run;
  json::object options{{"kind", OptionsKind(a.operation)}, {"apiVersion", "meta.k8s.io/v1"}};
  if (a.dry_run) options["dryRun"] = json::array{"All"};
  request["options"] = std::move(options);
  json::object envelope{{"kind", "AdmissionReview"},
                        {"apiVersion", "admission.k8s.io/" + review.version},
                        {"request", std::move(request)}};
  review.body = json::serialize(envelope);
  return review;
}

Result<Verdict> ReadVerdict(const Hook& hook, const Review& review, std::string_view body) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) return Status::Internal("the server responded with an unreadable AdmissionReview");
  const json::object& envelope = parsed.get_object();
  const std::string expected = "admission.k8s.io/" + review.version;
  if (api::StringAt(envelope, "apiVersion") != expected || api::StringAt(envelope, "kind") != "AdmissionReview") {
    return Status::Internal("expected webhook response of " + expected + ", Kind=AdmissionReview, got " +
                            std::string(api::StringAt(envelope, "apiVersion")) +
                            ", Kind=" + std::string(api::StringAt(envelope, "kind")));
  }
  const json::object* response = api::ObjectAt(envelope, "response");
  if (response == nullptr) return Status::Internal("webhook response was absent");
  if (review.version == "v1" && api::StringAt(response, "uid") != review.uid) {
    return Status::Internal("expected response.uid=\"" + review.uid + "\", got \"" +
                            std::string(api::StringAt(response, "uid")) + "\"");
  }
  Verdict verdict;
  verdict.allowed = api::BoolAt(response, "allowed");
  if (const json::array* warnings = api::ArrayAt(response, "warnings")) {
    for (const auto& w : *warnings) {
      if (w.is_string() && !w.get_string().empty()) verdict.warnings.emplace_back(w.get_string());
    }
  }
  if (!verdict.allowed) {
    verdict.denial = Denial(hook, api::ObjectAt(response, "status"));
    return verdict;
  }
  std::string_view patch = api::StringAt(response, "patch");
  std::string_view patch_type = api::StringAt(response, "patchType");
  if (patch.empty()) {
    if (review.version == "v1" && !patch_type.empty()) {
      return Status::Internal("webhook returned response.patchType but not response.patch");
    }
    return verdict;
  }
  if (!hook.mutating) return Status::Internal("validating webhook may not return response.patch");
  if (patch_type.empty() && review.version == "v1") {
    return Status::Internal("webhook returned response.patch but not response.patchType");
  }
  if (!patch_type.empty() && patch_type != "JSONPatch") {
    return Status::Internal("webhook returned invalid response.patchType of \"" + std::string(patch_type) + "\"");
  }
  auto decoded = api::Base64Decode(patch);
  if (auto* text = std::get_if<std::string>(&decoded)) {
    verdict.patch = std::move(*text);
  } else {
    return Status::Internal("webhook returned a response.patch that is not base64");
  }
  return verdict;
}

}  // namespace berth::apiserver::webhook
