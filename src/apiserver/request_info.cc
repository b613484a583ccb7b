#include "apiserver/request_info.h"

#include <cctype>
#include <vector>

namespace berth::apiserver {

namespace {

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    auto slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path = path.substr(slash + 1);
  }
  return parts;
}

}  // namespace

std::optional<RequestInfo> ParseResourcePath(std::string_view path) {
  auto parts = Split(path);
  RequestInfo info;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  if (i < parts.size() && parts[i] == "watch") {
    info.watch_path = true;
    ++i;
  }
  auto rest = std::vector<std::string_view>(parts.begin() + static_cast<ptrdiff_t>(i), parts.end());
  if (rest.empty()) return std::nullopt;

  // namespaces/{ns}/{resource}... unless it addresses the namespace itself
  // (/namespaces, /namespaces/{name}, /namespaces/{name}/status|finalize).
  if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" && rest[2] != "finalize") {
    info.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  info.resource = rest[0];
  if (rest.size() >= 2) info.name = rest[1];
  if (rest.size() >= 3) info.subresource = rest[2];
  // Only a proxy takes a path after it (pods/{name}/proxy/{path}).
  if (rest.size() > 3 && info.subresource != "proxy") return std::nullopt;
  info.kind = api::KindFromResource(info.group, info.version, info.resource);
  return info;
}

std::string KubeVerb(const Request& request, const RequestInfo* info) {
  const std::string& m = request.method;
  if (!info) {
    std::string verb = m;
    for (char& c : verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return verb;
  }
  if (info->watch_path) return "watch";
  if (m == "GET" || m == "HEAD") {
    if (request.QueryBool("watch")) return "watch";
    return info->name.empty() ? "list" : "get";
  }
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return info->name.empty() ? "deletecollection" : "delete";
  return "";
}

bool IsSingleObjectRead(const Request& request) {
  auto info = ParseResourcePath(request.path);
  return info && !info->name.empty() && !info->watch_path && info->subresource.empty() &&
         !request.QueryBool("watch");
}

bool IsSmallCreate(const Request& request, size_t max_body) {
  if (request.method != "POST" || request.body.size() > max_body) return false;
  auto info = ParseResourcePath(request.path);
  // A POST to the bindings collection binds a pod (a guarded update), not a create.
  return info && info->kind && !api::Info(*info->kind).create_only && info->name.empty() &&
         info->subresource.empty() && !info->watch_path;
}

}  // namespace berth::apiserver
