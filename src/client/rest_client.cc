#include "client/rest_client.h"

#include <charconv>

#include <cctype>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"

namespace berth::client {
namespace {

namespace json = boost::json;


}  // namespace

Status StatusFromResponse(int http_status, std::string_view body) {
  json::error_code ec;
  json::value v = api::ParseJson(body, ec);
  std::string message = "HTTP " + std::to_string(http_status);
  std::string_view reason;
  std::vector<StatusCause> causes;
  if (!ec && v.is_object()) {
    const auto& o = v.get_object();
    if (auto m = api::StringAt(o, "message"); !m.empty()) message = std::string(m);
    reason = api::StringAt(o, "reason");
    if (auto d = o.find("details"); d != o.end() && d->value().is_object()) {
      if (auto c = d->value().get_object().find("causes"); c != d->value().get_object().end() && c->value().is_array()) {
        for (const auto& cause : c->value().get_array()) {
          if (!cause.is_object()) continue;
          const auto& co = cause.get_object();
          causes.push_back({std::string(api::StringAt(co, "reason")), std::string(api::StringAt(co, "message")),
                            std::string(api::StringAt(co, "field"))});
        }
      }
    }
  }
  
  StatusCode code = StatusCode::kInternal;
  switch (http_status) {
    case 400: code = StatusCode::kBadRequest; break;
    case 401: code = StatusCode::kUnauthorized; break;
    case 403: code = StatusCode::kForbidden; break;
    case 404: code = StatusCode::kNotFound; break;
    case 405: code = StatusCode::kMethodNotAllowed; break;
    case 406: code = StatusCode::kNotAcceptable; break;
    case 409: code = reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kConflict; break;
    case 410: code = StatusCode::kExpired; break;
    case 413: code = StatusCode::kRequestEntityTooLarge; break;
    case 415: code = StatusCode::kUnsupportedMediaType; break;
    case 422: code = StatusCode::kInvalid; break;
    case 429: code = StatusCode::kTooManyRequests; break;
    case 503: code = StatusCode::kUnavailable; break;
    case 504: code = StatusCode::kTimeout; break;
    default: break;
  }
  return Status(code, std::move(message), std::move(causes));
}

std::string RestClient::CollectionPath(api::Kind kind, std::string_view ns) {
  const api::KindInfo& info = api::Info(kind);
  std::string path = info.group.empty() ? "/api/v1" : "/apis/" + std::string(info.group) + "/" + std::string(info.version);
  if (info.namespaced && !ns.empty()) path += "/namespaces/" + std::string(ns);
  path += "/";
  path += info.resource;
  return path;
}

std::string RestClient::ObjectPath(api::Kind kind, std::string_view ns, std::string_view name) {
  return CollectionPath(kind, ns) + "/" + std::string(name);
}

Result<api::ObjectPtr> RestClient::Object(const std::string& method, const std::string& target, const std::string& body,
                                          const std::string& content_type) {
  auto response = transport_(method, target, body, content_type);
  if (!response.ok()) return response.status();
  if (response->status < 200 || response->status >= 300) return StatusFromResponse(response->status, response->body);
  return api::Object::Decode(response->body);
}

Result<api::ObjectPtr> RestClient::Get(api::Kind kind, std::string_view ns, std::string_view name) {
  return Object("GET", ObjectPath(kind, ns, name), "");
}

Result<std::vector<api::ObjectPtr>> RestClient::List(api::Kind kind, std::string_view ns,
                                                     std::string_view label_selector, int64_t* revision) {
  std::string target = CollectionPath(kind, ns);
  if (!label_selector.empty()) target += "?labelSelector=" + QueryEscape(label_selector);
  auto response = transport_("GET", target, "", "application/json");
  if (!response.ok()) return response.status();
  if (response->status != 200) return StatusFromResponse(response->status, response->body);
  json::error_code ec;
  json::value list = api::ParseJson(response->body, ec);
  if (ec || !list.is_object()) return Status::Internal("list " + target + ": malformed response");
  if (revision) {
    std::string_view rv = api::StringAt(api::ObjectAt(list.get_object(), "metadata"), "resourceVersion");
    *revision = 0;
    std::from_chars(rv.data(), rv.data() + rv.size(), *revision);
  }
  std::vector<api::ObjectPtr> out;
  auto items = list.get_object().find("items");
  if (items == list.get_object().end() || !items->value().is_array()) return out;
  const api::KindInfo& info = api::Info(kind);
  for (auto& item : items->value().get_array()) {
    if (!item.is_object()) continue;
    // Items of a list carry no apiVersion/kind on the wire.
    item.get_object()["apiVersion"] = info.ApiVersion();
    item.get_object()["kind"] = info.name;
    auto object = api::Object::FromJson(std::move(item));
    if (!object.ok()) return object.status();
    out.push_back(std::move(object).value());
  }
  return out;
}

Result<api::ObjectPtr> RestClient::Create(api::Kind kind, std::string_view ns, json::object object) {
  const api::KindInfo& info = api::Info(kind);
  object["apiVersion"] = info.ApiVersion();
  object["kind"] = info.name;
  return Object("POST", CollectionPath(kind, ns), json::serialize(object));
}

Result<api::ObjectPtr> RestClient::Update(api::Kind kind, const json::object& object, std::string_view subresource) {
  const json::object* meta = api::ObjectAt(object, "metadata");
  std::string target = ObjectPath(kind, api::StringAt(meta, "namespace"), api::StringAt(meta, "name"));
  if (!subresource.empty()) target += "/" + std::string(subresource);
  return Object("PUT", target, json::serialize(object));
}

Result<api::ObjectPtr> RestClient::Patch(api::Kind kind, std::string_view ns, std::string_view name,
                                         const std::string& patch, const std::string& content_type,
                                         std::string_view subresource) {
  std::string target = ObjectPath(kind, ns, name);
  if (!subresource.empty()) target += "/" + std::string(subresource);
  return Object("PATCH", target, patch, content_type);
}

Status RestClient::Delete(api::Kind kind, std::string_view ns, std::string_view name, const DeleteOptions& options) {
  json::object body{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.uid_precondition.empty() || options.resource_version_precondition > 0) {
    json::object preconditions;
    if (!options.uid_precondition.empty()) preconditions["uid"] = options.uid_precondition;
    if (options.resource_version_precondition > 0) {
      preconditions["resourceVersion"] = std::to_string(options.resource_version_precondition);
    }
    body["preconditions"] = std::move(preconditions);
  }
  auto response = transport_("DELETE", ObjectPath(kind, ns, name), json::serialize(body), "application/json");
  if (!response.ok()) return response.status();
  if (response->status < 200 || response->status >= 300) return StatusFromResponse(response->status, response->body);
  return Status::Ok();
}

std::string QueryEscape(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace berth::client
