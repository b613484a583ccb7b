#include "apiserver/subresources/status.h"

#include <string>

#include "apiserver/api_server.h"

namespace berth::apiserver {

namespace json = boost::json;

StatusSubresource::StatusSubresource(std::string_view group, std::string_view version, std::string_view kind)
    : Subresource({.name = "status",
                   .group = std::string(group),
                   .version = std::string(version),
                   .kind = std::string(kind),
                   .verbs = {"get", "patch", "update"}}) {}

Response StatusSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  if (request.method == "GET") return rest.Get(request, info);
  if (request.method == "PUT") return rest.Update(request, info);
  if (request.method == "PATCH") return rest.Patch(request, info);
  return MethodNotAllowed();
}

Result<json::value> StatusSubresource::MergeWrite(const json::object& current, const json::object& sent) const {
  json::value merged = current;
  json::object& m = merged.get_object();
  if (auto s = sent.find("status"); s != sent.end()) {
    m["status"] = s->value();
  } else {
    m.erase("status");
  }
  return merged;
}

}  // namespace berth::apiserver
