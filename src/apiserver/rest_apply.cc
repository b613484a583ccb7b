// PATCH with application/apply-patch+yaml: server-side apply (apply.h),
// creating the object when it does not exist yet, as kube does.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "apiserver/openapi/field_validation.h"
#include "apiserver/patch/apply.h"
#include "apiserver/schema/decode_check.h"

namespace berth::apiserver {

namespace json = boost::json;

Response ApiServer::Apply(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  ApplyOptions options{std::string(request.Query("fieldManager").value_or("")),
                       request.QueryBool("force"), ""};
  if (options.manager.empty()) {
    return ErrorResponse(
        Status::Invalid("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                        "is required for apply patch",
                        {{"FieldValueRequired", "Required value: is required for apply patch",
                          "fieldManager"}}),
        {"", "meta.k8s.io", "PatchOptions"});
  }
  if (!info.subresource.empty()) {
    return ErrorResponse(
        Status(StatusCode::kUnsupportedMediaType,
               "server-side apply of the " + info.subresource + " subresource is not supported"));
  }
  auto decoded = DecodeApplyConfiguration(request.body);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  json::object& config = decoded->get_object();
  if (api::StringAt(config, "apiVersion") != kind.ApiVersion() ||
      api::StringAt(config, "kind") != kind.name) {
    return ErrorResponse(Status::BadRequest("the apply configuration's apiVersion and kind (" +
                                            std::string(api::StringAt(config, "apiVersion")) +
                                            ", " + std::string(api::StringAt(config, "kind")) +
                                            ") do not match the request's (" + kind.ApiVersion() +
                                            ", " + std::string(kind.name) + ")"));
  }
  json::object& meta = api::MutableObject(config, "metadata");
  if (std::string_view name = api::StringAt(meta, "name"); !name.empty() && name != info.name) {
    return ErrorResponse(Status::BadRequest("the name of the object (" + std::string(name) +
                                            ") does not match the name on the URL (" + info.name +
                                            ")"));
  }
  meta["name"] = info.name;
  if (kind.namespaced) {
    if (std::string_view ns = api::StringAt(meta, "namespace"); !ns.empty() && ns != info.ns) {
      return ErrorResponse(Status::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the request"));
    }
    meta["namespace"] = info.ns;
  }
  const FieldOwnership ownership = OwnershipOf(*info.kind, registry_.For(*info.kind));
  const bool dry_run = request.Query("dryRun").has_value();
  const std::string key = api::StorageKey(*info.kind, info.ns, info.name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    options.now = api::NowRfc3339();
    auto stored = store_.Get(key);
    if (!stored.ok()) {
      auto created = ServerSideApply(ownership, nullptr, config, options);
      if (!created.ok()) return ErrorResponse(created.status());
      Request create = request;
      create.method = "POST";
      create.content_type = "application/json";
      create.body = json::serialize(*created);
      Response response = Create(create, info);
      request.warnings = std::move(create.warnings);
      if (response.status == 409 && attempt + 1 < kMaxAttempts)
        continue;  // created meanwhile: apply to it
      return response;
    }
    auto current = registry_.For(*info.kind).InVersion(stored.value(), *info.kind);
    if (!current.ok()) return ErrorResponse(current.status());
    json::value live = ServedForm(*info.kind, current.value());
    auto applied = ServerSideApply(ownership, &live.get_object(), config, options);
    if (!applied.ok()) return ErrorResponse(applied.status());
    if (Status typed = CheckDecodable(kind, WriteVerb::kUpdate, *applied); !typed.ok()) return ErrorResponse(typed);
    Status fields = CheckFields(request, openapi_, kind, WriteVerb::kPatch, *applied, &live);
    if (!fields.ok()) return ErrorResponse(fields);
    if (std::string_view rv = api::StringAt(meta, "resourceVersion");
        !rv.empty() && rv != std::to_string(current.value()->resource_version())) {
      return ErrorResponse(ConflictFor(kind, info.name,
                                       "the object has been modified; please apply your changes "
                                       "to the latest version and try again"),
                           DetailsFor(kind, info.name));
    }
    if (Status converted = ToStoredForm(*info.kind, *applied); !converted.ok()) return ErrorResponse(converted);
    auto written = WriteUpdate(info, current.value(), std::move(applied).value(), dry_run, &request);
    if (written.ok()) return JsonResponse(200, api::EncodedAs(*written.value(), *info.kind));
    if (written.status().code() != StatusCode::kConflict) {
      return ErrorResponse(written.status(), {info.name, std::string(kind.group),
                                              written.status().code() == StatusCode::kInvalid
                                                  ? std::string(kind.name)
                                                  : std::string(kind.resource)});
    }
  }
  return ErrorResponse(ConflictFor(kind, info.name, "too many concurrent updates"));
}

}  // namespace berth::apiserver
