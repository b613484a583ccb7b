#include "apiserver/delete_options.h"

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/go_bool.h"
#include "api/json_fields.h"
#include "api/object.h"
#include "api/validation/field_errors.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// A string slice as kube's messages print one (Go's %#v): []string{"a", "b"}.
std::string GoStringSlice(const json::array& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out +=
        values[i].is_string() ? api::GoQuote(values[i].get_string()) : json::serialize(values[i]);
  }
  return out + "}";
}

// kube's validation of DeleteOptions (ValidateDeleteOptions), in its order:
// propagationPolicy with orphanDependents, propagationPolicy's value, dryRun.
Status Validate(const json::object& o) {
  std::vector<StatusCause> causes;
  const json::value* policy = o.if_contains("propagationPolicy");
  const json::value* orphan = o.if_contains("orphanDependents");
  if (policy && policy->is_null()) policy = nullptr;
  if (orphan && orphan->is_null()) orphan = nullptr;
  std::string shown = policy && policy->is_string() ? api::GoQuote(policy->get_string())
                      : policy                      ? json::serialize(*policy)
                                                    : "";
  if (policy && orphan) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + shown +
                          ": orphanDependents and deletionPropagation cannot be both set",
                      "propagationPolicy"});
  }
  if (policy) {
    std::string_view p = policy->is_string() ? std::string_view(policy->get_string()) : "";
    if (p != "Foreground" && p != "Background" && p != "Orphan") {
      causes.push_back(
          {"FieldValueNotSupported",
           "Unsupported value: " + shown +
               ": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
           "propagationPolicy"});
    }
  }
  if (const json::value* d = o.if_contains("dryRun"); d && d->is_array()) {
    for (const auto& v : d->get_array()) {
      if (v.is_string() && v.get_string() == "All") continue;
      causes.push_back(
          {"FieldValueNotSupported",
           "Unsupported value: " + GoStringSlice(d->get_array()) + ": supported values: \"All\"",
           "dryRun"});
      break;
    }
  }
  if (causes.empty()) return Status::Ok();
  // As kube's NewInvalid for the kind DeleteOptions.meta.k8s.io and no name.
  std::string message = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
  if (causes.size() > 1) message += '[';
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i) message += ", ";
    message += causes[i].field + ": " + causes[i].message;
  }
  if (causes.size() > 1) message += ']';
  return Status::Invalid(std::move(message), std::move(causes));
}

// The DeleteOptions a DELETE without a body sets in its query, as a
// DeleteOptions object (kube decodes the query only when there is no body).
Result<json::object> OptionsFromQuery(const Request& request) {
  json::object o;
  if (auto g = request.Query("gracePeriodSeconds")) {
    try {
      size_t used = 0;
      int64_t seconds = std::stoll(std::string(*g), &used);
      if (used != g->size()) throw std::invalid_argument("trailing characters");
      o["gracePeriodSeconds"] = seconds;
    } catch (const std::exception&) {
      return Status::BadRequest("invalid gracePeriodSeconds: " + std::string(*g));
    }
  }
  if (auto p = request.Query("propagationPolicy")) o["propagationPolicy"] = *p;
  if (auto od = request.Query("orphanDependents")) {
    auto parsed = api::ParseGoBool(*od);
    if (!parsed) return Status::BadRequest("invalid orphanDependents: " + std::string(*od));
    o["orphanDependents"] = *parsed;
  }
  json::array dry_run;
  for (const auto& [key, value] : request.query) {
    if (key == "dryRun") dry_run.push_back(json::string(value));
  }
  if (!dry_run.empty()) o["dryRun"] = std::move(dry_run);
  return o;
}

}  // namespace

Status ReadDeleteOptions(const json::object& o, DeleteOptions& options) {
  if (Status valid = Validate(o); !valid.ok()) return valid;
  if (const json::object* p = api::ObjectAt(o, "preconditions")) {
    if (auto uid = api::StringAt(p, "uid"); !uid.empty())
      options.uid_precondition = std::string(uid);
    if (const json::value* rv = p->if_contains("resourceVersion"); rv && rv->is_string()) {
      options.resource_version_precondition = std::string(rv->get_string());
    }
  }
  if (const auto* d = o.if_contains("dryRun"); d && d->is_array() && !d->get_array().empty())
    options.dry_run = true;
  if (auto p = api::StringAt(o, "propagationPolicy"); !p.empty())
    options.propagation_policy = std::string(p);
  if (const auto* g = o.if_contains("gracePeriodSeconds"); g && g->is_int64()) {
    options.grace_period_seconds = g->get_int64();
  }
  // Deprecated orphanDependents: true means the Orphan policy, false that
  // dependents are collected (in the background).
  if (const auto* od = o.if_contains("orphanDependents"); od && od->is_bool()) {
    options.propagation_policy = od->get_bool() ? "Orphan" : "Background";
  }
  // As kube: a negative grace period is one second.
  if (options.grace_period_seconds && *options.grace_period_seconds < 0)
    options.grace_period_seconds = 1;
  return Status::Ok();
}

Result<DeleteOptions> DeleteOptionsFromRequest(const Request& request) {
  DeleteOptions options;
  json::value body;
  if (request.body.empty()) {
    auto query = OptionsFromQuery(request);
    if (!query.ok()) return query.status();
    body = std::move(query).value();
  } else if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    auto decoded = DecodeProtobufDeleteOptions(request.body);
    if (!decoded.ok()) return decoded.status();
    body = std::move(decoded).value();
  } else if (IsJsonContentType(request.content_type)) {
    json::error_code ec;
    body = api::ParseJson(request.body, ec);
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

Status CheckDeletePreconditions(const DeleteOptions& options, const api::Object& current) {
  // kube names the kind here, not the resource: "Pod", "Deployment.apps".
  const api::KindInfo& kind = current.info();
  std::string on = "Operation cannot be fulfilled on " + api::QualifiedKind(kind) + " \"" + current.name() + "\": ";
  if (!options.uid_precondition.empty() && options.uid_precondition != current.uid()) {
    return Status::Conflict(on + "the UID in the precondition (" + options.uid_precondition +
                            ") does not match the UID in record (" + current.uid() +
                            "). The object might have been deleted and then recreated");
  }
  const std::string record = std::to_string(current.resource_version());
  if (options.resource_version_precondition && *options.resource_version_precondition != record) {
    return Status::Conflict(on + "the ResourceVersion in the precondition (" +
                            *options.resource_version_precondition + ") does not match the ResourceVersion in record (" +
                            record + "). The object might have been modified");
  }
  return Status::Ok();
}

}  // namespace berth::apiserver
