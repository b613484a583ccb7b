#pragma once
// What controllers and simulated kubelets write through: Kubernetes' REST
// verbs by kind, over a transport. Inside `berth serve` the transport is the
// API server's own handler (no sockets, but every rule of the API: admission,
// validation, optimistic concurrency); standalone it is HttpClient. Either
// way the caller gets kube's answers: a decoded object, or a Status with
// kube's reason (NotFound, AlreadyExists, Conflict, Invalid ...).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/object.h"
#include "api/status.h"

namespace berth::client {

// Percent-encodes everything but RFC 3986's unreserved characters (a query
// value or one path segment).
std::string QueryEscape(std::string_view in);

struct RestResponse {
  int status = 0;
  std::string body;
};

// One request: method, target (path and query), body, content type.
using Transport = std::function<Result<RestResponse>(const std::string& method, const std::string& target,
                                                     const std::string& body, const std::string& content_type)>;

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", "Background", "Foreground", "Orphan"
  std::string uid_precondition;
  int64_t resource_version_precondition =
      0;  // > 0: refused (Conflict) unless still at this version
};

class RestClient {
 public:
  explicit RestClient(Transport transport) : transport_(std::move(transport)) {}

  Result<api::ObjectPtr> Get(api::Kind kind, std::string_view ns, std::string_view name);
  // Every object of `kind` (in `ns` when non-empty) matching the label selector;
  // `revision`, when given, gets the list's metadata.resourceVersion.
  Result<std::vector<api::ObjectPtr>> List(api::Kind kind, std::string_view ns, std::string_view label_selector = {},
                                           int64_t* revision = nullptr);
  // `object` needs apiVersion/kind only if the caller wants them checked; they are filled in.
  Result<api::ObjectPtr> Create(api::Kind kind, std::string_view ns, boost::json::object object);
  // PUT: the object's metadata.resourceVersion guards the write (Conflict when stale).
  // `subresource`: "status", "finalize" (a namespace's spec.finalizers) ...
  Result<api::ObjectPtr> Update(api::Kind kind, const boost::json::object& object,
                                std::string_view subresource = {});
  // PUT to the status subresource.
  Result<api::ObjectPtr> UpdateStatus(api::Kind kind, const boost::json::object& object) {
    return Update(kind, object, "status");
  }
  // PATCH; `content_type` names the patch type (application/merge-patch+json ...).
  Result<api::ObjectPtr> Patch(api::Kind kind, std::string_view ns, std::string_view name, const std::string& patch,
                               const std::string& content_type = "application/merge-patch+json",
                               std::string_view subresource = {});
  Status Delete(api::Kind kind, std::string_view ns, std::string_view name, const DeleteOptions& options = {});

  // "/api/v1/namespaces/NS/pods" or "/apis/apps/v1/replicasets" (ns empty or cluster-scoped kind).
  static std::string CollectionPath(api::Kind kind, std::string_view ns);
  static std::string ObjectPath(api::Kind kind, std::string_view ns, std::string_view name);

 private:
  Result<api::ObjectPtr> Object(const std::string& method, const std::string& target, const std::string& body,
                                const std::string& content_type = "application/json");
  Transport transport_;
};

// The Status a non-2xx response carries (kube's Status JSON, or the HTTP code alone).
Status StatusFromResponse(int http_status, std::string_view body);

}  // namespace berth::client
