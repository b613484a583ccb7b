#include "apiserver/delete_options.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "apiserver/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

Status ReadDeleteOptions(const json::object& o, DeleteOptions& options) {
  if (const json::object* p = api::ObjectAt(o, "preconditions")) {
    if (auto uid = api::StringAt(p, "uid"); !uid.empty())
      options.uid_precondition = std::string(uid);
    if (auto rv = api::StringAt(p, "resourceVersion"); !rv.empty()) {
      auto parsed = api::ParseResourceVersion(rv);
      if (!parsed)
        return Status::BadRequest("invalid preconditions.resourceVersion: " + std::string(rv));
      options.resource_version_precondition = *parsed;
    }
  }
  if (const auto* d = o.if_contains("dryRun"); d && d->is_array()) {
    for (const auto& v : d->get_array()) {
      if (!v.is_string() || v.get_string() != "All") {
        return Status::Invalid(
            "DeleteOptions.dryRun: Unsupported value: " + json::serialize(v),
            {{"FieldValueNotSupported",
              "Unsupported value: " + json::serialize(v) + ": supported values: \"All\"",
              "dryRun"}});
      }
      options.dry_run = true;
    }
  }
  if (auto p = api::StringAt(o, "propagationPolicy"); !p.empty())
    options.propagation_policy = std::string(p);
  if (const auto* g = o.if_contains("gracePeriodSeconds"); g && g->is_int64()) {
    options.grace_period_seconds = g->get_int64();
  }
  // Deprecated orphanDependents: true means the Orphan policy.
  if (const auto* od = o.if_contains("orphanDependents");
      od && od->is_bool() && options.propagation_policy.empty()) {
    options.propagation_policy = od->get_bool() ? "Orphan" : "Background";
  }
  const std::string& policy = options.propagation_policy;
  if (!policy.empty() && policy != "Orphan" && policy != "Background" && policy != "Foreground") {
    return Status::Invalid("DeleteOptions.propagationPolicy: Unsupported value: \"" + policy + "\"",
                           {{"FieldValueNotSupported",
                             "Unsupported value: \"" + policy +
                                 "\": supported values: \"Foreground\", \"Background\", \"Orphan\"",
                             "propagationPolicy"}});
  }
  if (options.grace_period_seconds && *options.grace_period_seconds < 0)
    options.grace_period_seconds = 0;
  return Status::Ok();
}

Result<DeleteOptions> DeleteOptionsFromRequest(const Request& request) {
  DeleteOptions options;
  options.dry_run = request.Query("dryRun").has_value();
  if (auto g = request.Query("gracePeriodSeconds")) {
    try {
      options.grace_period_seconds = std::stoll(std::string(*g));
    } catch (const std::exception&) {
      return Status::BadRequest("invalid gracePeriodSeconds: " + std::string(*g));
    }
  }
  options.propagation_policy = std::string(request.Query("propagationPolicy").value_or(""));
  if (request.body.empty()) {
    if (options.grace_period_seconds && *options.grace_period_seconds < 0)
      options.grace_period_seconds = 0;
    return options;
  }
  json::value body;
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    auto decoded = DecodeProtobufDeleteOptions(request.body);
    if (!decoded.ok()) return decoded.status();
    body = std::move(decoded).value();
  } else if (IsJsonContentType(request.content_type)) {
    json::error_code ec;
    body = json::parse(request.body, ec);
    if (ec || !body.is_object()) {
      return Status::BadRequest("invalid DeleteOptions: " +
                                (ec ? ec.message() : std::string("not an object")));
    }
  } else {
    return Status(
        StatusCode::kUnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/vnd.kubernetes.protobuf");
  }
  Status read = ReadDeleteOptions(body.get_object(), options);
  if (!read.ok()) return read;
  return options;
}

}  // namespace berth::apiserver
