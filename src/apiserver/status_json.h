#pragma once
// v1 Status objects, as kube-apiserver writes them for errors and successes.

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::apiserver {

// What the failing request was about, for Status.details.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // the resource ("pods"), or the Kind for Invalid ("Pod")
};

// The details of a request about the object `name` of `kind`.
StatusDetails DetailsFor(const api::KindInfo& kind, std::string_view name);

// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":…,
//  "reason":…,"details":{…,"causes":[…]},"code":…}
boost::json::object StatusToJson(const Status& status, const StatusDetails& details = {});
// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":code}
boost::json::object SuccessStatus(int code, const StatusDetails& details = {});

// Kubernetes' messages for the common failures of a named object:
//   pods "x" not found / pods "x" already exists / Operation cannot be fulfilled on pods "x": …
// `resource` is "pods" or "deployments.apps" (resource.group for non-core groups).
std::string QualifiedResource(const api::KindInfo& info);
Status NotFoundFor(const api::KindInfo& info, std::string_view name);
Status AlreadyExistsFor(const api::KindInfo& info, std::string_view name);
Status ConflictFor(const api::KindInfo& info, std::string_view name, std::string_view why);

}  // namespace berth::apiserver
