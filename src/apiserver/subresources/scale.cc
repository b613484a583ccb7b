#include "apiserver/subresources/scale.h"

#include <optional>
#include <string_view>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/selector.h"
#include "apiserver/api_server.h"
#include "apiserver/patch/patch.h"
#include "apiserver/schema/decode_check.h"
#include "apiserver/schema/protobuf.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// An integer JSON value; 0 for anything else (a custom resource's replicas
// may be any JSON its schema allows).
int64_t IntegerOf(const json::value* v) {
  if (v == nullptr || !v->is_number()) return 0;
  json::error_code ec;
  const int64_t n = v->to_number<int64_t>(ec);
  return ec ? 0 : n;
}

// The value at a dotted path (".spec.replicas"); nullptr when absent.
const json::value* AtDotted(const json::object& root, std::string_view path) {
  const json::object* at = &root;
  const json::value* value = nullptr;
  while (!path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    value = at ? at->if_contains(key) : nullptr;
    if (!value) return nullptr;
    at = value->if_object();
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot);
  }
  return value;
}

void SetDotted(json::object& root, std::string_view path, json::value v) {
  json::object* at = &root;
  while (true) {
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    if (dot == std::string_view::npos) {
      (*at)[key] = std::move(v);
      return;
    }
    at = &api::MutableObject(*at, key);
    path = path.substr(dot);
  }
}

// Whether `selector` is a map of label values (every member a string), as
// core/v1 writes selectors, rather than a LabelSelector (whose members are
// an object and a list).
bool IsLabelMap(const json::value& selector) {
  if (!selector.is_object() || selector.get_object().empty()) return false;
  for (const auto& member : selector.get_object()) {
    if (!member.value().is_string()) return false;
  }
  return true;
}

json::object ScaleOf(const api::ObjectPtr& object, const ScalePaths& paths) {
  const json::object& o = object->json();
  json::object scale;
  scale["kind"] = "Scale";
  scale["apiVersion"] = "autoscaling/v1";
  json::object meta;
  meta["name"] = object->name();
  if (!object->namespace_name().empty()) meta["namespace"] = object->namespace_name();
  meta["uid"] = object->uid();
  meta["resourceVersion"] = std::to_string(object->resource_version());
  if (const json::object* m = api::ObjectAt(o, "metadata")) {
    if (const json::value* ts = m->if_contains("creationTimestamp")) meta["creationTimestamp"] = *ts;
  }
  scale["metadata"] = std::move(meta);
  int64_t replicas = 0, current = 0;
  std::string selector;
  replicas = IntegerOf(AtDotted(o, paths.spec_replicas));
  current = IntegerOf(AtDotted(o, paths.status_replicas));
  if (const json::value* sel = paths.label_selector.empty() ? nullptr : AtDotted(o, paths.label_selector)) {
    if (!paths.selector_is_object) {
      if (sel->is_string()) selector = sel->get_string();
    } else if (IsLabelMap(*sel)) {
      // core/v1's selector of equalities (a ReplicationController's).
      if (auto parsed = api::LabelSelector::FromJson(json::object{{"matchLabels", *sel}}); parsed.ok()) {
        selector = parsed->ToString();
      }
    } else if (auto parsed = api::LabelSelector::FromJson(*sel); parsed.ok()) {
      selector = parsed->ToString();
    }
  }
  scale["spec"] = json::object{{"replicas", replicas}};
  scale["status"] = json::object{{"replicas", current}, {"selector", selector}};
  return scale;
}

// A PUT's Scale: JSON, or protobuf as client-go's UpdateScale sends it.
Result<json::value> DecodeScale(const Request& request) {
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    return DecodeProtobufScale(request.body);
  }
  if (!request.content_type.empty() && !IsJsonContentType(request.content_type)) {
    return Status(StatusCode::kUnsupportedMediaType,
                  "the body of the request was in an unknown format - accepted media types include: "
                  "application/json, application/vnd.kubernetes.protobuf");
  }
  json::error_code ec;
  json::value scale = api::ParseJson(request.body, ec);
  if (ec) return Status::BadRequest("couldn't get version/kind; json parse error: " + ec.message());
  return scale;
}

}  // namespace

ScaleSubresource::ScaleSubresource(ScalePaths paths)
    : Subresource({.name = "scale",
                   .group = "autoscaling",
                   .version = "v1",
                   .kind = "Scale",
                   .verbs = {"get", "patch", "update"}}),
      paths_(std::move(paths)) {}

Response ScaleSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  const api::KindInfo& kind = api::Info(*info.kind);
  const std::string key = api::StorageKey(*info.kind, info.ns, info.name);
  StatusDetails details{info.name, std::string(kind.group), std::string(kind.resource)};
  if (request.method == "GET") {
    auto current = rest.store().Get(key);
    if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), details);
    return JsonResponse(200, json::serialize(ScaleOf(current.value(), paths_)));
  }
  if (request.method != "PUT" && request.method != "PATCH") return MethodNotAllowed();
  std::optional<PatchType> patch_type;
  if (request.method == "PATCH") {
    patch_type = PatchTypeFromContentType(request.content_type);
    if (!patch_type) {
      return ErrorResponse(Status(StatusCode::kUnsupportedMediaType, "the body of the request was in an unknown format"));
    }
  }
  for (int attempt = 0; attempt < GenericRest::kMaxAttempts; ++attempt) {
    auto current = rest.store().Get(key);
    if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), details);
    json::value scale;
    if (patch_type) {
      auto patched = ApplyPatch(*patch_type, *info.kind, json::value(ScaleOf(current.value(), paths_)), request.body);
      if (!patched.ok()) return ErrorResponse(patched.status());
      scale = std::move(patched).value();
    } else {
      auto decoded = DecodeScale(request);
      if (!decoded.ok()) return ErrorResponse(decoded.status());
      scale = std::move(decoded).value();
    }
    if (Status typed = CheckScaleDecodable(patch_type ? WriteVerb::kPatch : WriteVerb::kUpdate, scale); !typed.ok()) {
      return ErrorResponse(typed);
    }
    int64_t replicas = 0;  // a Scale without spec.replicas asks for none, as in kube
    int64_t precondition = 0;
    if (scale.is_object()) {
      json::object& s = scale.get_object();
      const json::object* spec = api::ObjectAt(s, "spec");
      if (const json::value* r = spec ? spec->if_contains("replicas") : nullptr; r && r->is_number()) {
        replicas = r->to_number<int64_t>();
      }
      if (auto rv = api::StringAt(api::ObjectAt(s, "metadata"), "resourceVersion"); !rv.empty()) {
        precondition = api::ParseResourceVersion(rv).value_or(0);
      }
    }
    if (replicas < 0) {
      // kube's ValidateScale: autoscaling/v1 Scale, named with its group.
      const std::string detail = "Invalid value: " + std::to_string(replicas) + ": must be greater than or equal to 0";
      return ErrorResponse(Status::Invalid("Scale.autoscaling \"" + info.name + "\" is invalid: spec.replicas: " + detail,
                                           {{"FieldValueInvalid", detail, "spec.replicas"}}),
                           {info.name, "autoscaling", "Scale"});
    }
    if (precondition > 0 && precondition != current.value()->resource_version()) {
      return ErrorResponse(ConflictFor(kind, info.name, "the object has been modified; please apply your changes to the latest version and try again"), details);
    }
    json::value next = current.value()->json();
    SetDotted(next.get_object(), paths_.spec_replicas, replicas);
    // The replicas are written as an update of the object itself.
    RequestInfo main = info;
    main.subresource.clear();
    auto written =
        rest.WriteUpdate(main, current.value(), std::move(next), request.Query("dryRun").has_value(), &request);
    if (written.ok()) return JsonResponse(200, json::serialize(ScaleOf(written.value(), paths_)));
    if (written.status().code() != StatusCode::kConflict || precondition > 0) {
      return ErrorResponse(written.status(), details);
    }
  }
  return ErrorResponse(ConflictFor(kind, info.name, "too many concurrent updates"), details);
}

}  // namespace berth::apiserver
