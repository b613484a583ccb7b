#pragma once
// Parsing a resource path into what it addresses, as kube-apiserver's
// RequestInfoFactory does:
//   /api/v1/namespaces/{ns}/pods/{name}/binding
//   /apis/apps/v1/deployments            (cluster-wide list)
//   /api/v1/watch/namespaces/{ns}/pods   (legacy watch path)

#include <optional>
#include <string>
#include <string_view>

#include "api/kinds.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct RequestInfo {
  std::string group;    // "" for core
  std::string version;  // "v1"
  std::string resource;  // "pods" (or "bindings")
  std::string name;
  std::string subresource;  // "status", "binding", "scale"
  std::string ns;           // namespace ("" for cluster-scoped or cluster-wide lists)
  bool watch_path = false;  // came through /watch/
  std::optional<api::Kind> kind;  // nullopt for an unknown resource
};

// nullopt when the path is not a resource path (/api/v1 itself, /version, ...).
std::optional<RequestInfo> ParseResourcePath(std::string_view path);

// kube's RequestInfo verb: for a resource request get, list, watch, create,
// update, patch, delete or deletecollection (a GET that berth streams, with
// ?watch or under /watch/, is a watch); for any other path the method in
// lower case. `info`: ParseResourcePath(request.path), null when none.
std::string KubeVerb(const Request& request, const RequestInfo* info);

// A GET of one named object that is not a watch: quick, never waits.
bool IsSingleObjectRead(const Request& request);

// A POST that creates one object (a collection path, no subresource) with a
// body of at most `max_body` bytes: its work is decoding, validation and one
// store write, whose durability it can wait for without a thread
// (Request::may_defer).
bool IsSmallCreate(const Request& request, size_t max_body);

}  // namespace berth::apiserver
