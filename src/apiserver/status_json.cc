#include "apiserver/status_json.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

json::object DetailsJson(const Status& status, const StatusDetails& details) {
  json::object d;
  if (!details.name.empty()) d["name"] = details.name;
  if (!details.group.empty()) d["group"] = details.group;
  if (!details.kind.empty()) d["kind"] = details.kind;
  if (!status.causes().empty()) {
    json::array causes;
    for (const auto& c : status.causes()) {
      json::object cause;
      cause["reason"] = c.type;
      cause["message"] = c.message;
      if (!c.field.empty()) cause["field"] = c.field;  // kube's omitempty
      causes.push_back(std::move(cause));
    }
    d["causes"] = std::move(causes);
  }
  return d;
}

}  // namespace

json::object StatusToJson(const Status& status, const StatusDetails& details) {
  json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object();
  o["status"] = status.ok() ? "Success" : "Failure";
  o["message"] = status.message();
  o["reason"] = status.Reason();
  json::object d = DetailsJson(status, details);
  if (!d.empty()) o["details"] = std::move(d);
  o["code"] = status.HttpCode();
  return o;
}

json::object SuccessStatus(int code, const StatusDetails& details) {
  json::object o;
  o["kind"] = "Status";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object();
  o["status"] = "Success";
  json::object d = DetailsJson(Status::Ok(), details);
  if (!d.empty()) o["details"] = std::move(d);
  o["code"] = code;
  return o;
}

std::string QualifiedResource(const api::KindInfo& info) {
  std::string r(info.resource);
  if (!info.group.empty()) {
    r += '.';
    r += info.group;
  }
  return r;
}

Status NotFoundFor(const api::KindInfo& info, std::string_view name) {
  return Status::NotFound(QualifiedResource(info) + " \"" + std::string(name) + "\" not found");
}

Status AlreadyExistsFor(const api::KindInfo& info, std::string_view name) {
  return Status::AlreadyExists(QualifiedResource(info) + " \"" + std::string(name) +
                               "\" already exists");
}

Status ConflictFor(const api::KindInfo& info, std::string_view name, std::string_view why) {
  return Status::Conflict("Operation cannot be fulfilled on " + QualifiedResource(info) + " \"" +
                          std::string(name) + "\": " + std::string(why));
}

StatusDetails DetailsFor(const api::KindInfo& kind, std::string_view name) {
  return {std::string(name), std::string(kind.group), std::string(kind.resource)};
}

}  // namespace berth::apiserver
