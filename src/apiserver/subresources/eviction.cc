#include "apiserver/subresources/eviction.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/conditions.h"
#include "api/disruption_budget.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "apiserver/delete_options.h"
#include "apiserver/schema/protobuf.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr char kViolation[] = "Cannot evict pod as it would violate the pod's disruption budget.";

Status TooManyRequests(std::string cause) {
  return Status(StatusCode::kTooManyRequests, kViolation,
                {{"DisruptionBudget", std::move(cause), ""}});
}

// kube's canIgnorePDB.
bool CanIgnoreBudget(const api::Object& pod) {
  std::string_view phase = api::StringAt(api::StatusOf(pod), "phase");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" || api::BeingDeleted(pod);
}

Result<json::object> DecodeEviction(const Request& request) {
  json::value value;
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    auto decoded = DecodeProtobufEviction(request.body);
    if (!decoded.ok()) return decoded.status();
    value = std::move(decoded).value();
  } else if (IsJsonContentType(request.content_type)) {
    json::error_code ec;
    value = api::ParseJson(request.body, ec);
    if (ec)
      return Status::BadRequest("couldn't get version/kind; json parse error: " + ec.message());
  } else {
    return Status(
        StatusCode::kUnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/vnd.kubernetes.protobuf");
  }
  if (!value.is_object())
    return Status::BadRequest("the body of an eviction must be an Eviction object");
  json::object& o = value.get_object();
  std::string_view kind = api::StringAt(o, "kind");
  std::string_view api_version = api::StringAt(o, "apiVersion");
  if (!kind.empty() && kind != "Eviction") {
    return Status::BadRequest("the kind in the data (" + std::string(kind) +
                              ") does not match the expected kind (Eviction)");
  }
  if (!api_version.empty() && api_version != "policy/v1" && api_version != "policy/v1beta1") {
    return Status::BadRequest("the API version in the data (" + std::string(api_version) +
                              ") does not match the expected API version (policy/v1)");
  }
  return std::move(o);
}

// What an Eviction asks, once read: the DeleteOptions of the pod's deletion.
Result<DeleteOptions> ReadEviction(const Request& request, const RequestInfo& info) {
  auto eviction = DecodeEviction(request);
  if (!eviction.ok()) return eviction.status();
  const json::object* meta = api::ObjectAt(*eviction, "metadata");
  if (api::StringAt(meta, "name") != info.name) {
    return Status::BadRequest("name in URL does not match name in Eviction object");
  }
  if (auto ns = api::StringAt(meta, "namespace"); !ns.empty() && ns != info.ns) {
    return Status::BadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  DeleteOptions options;
  options.dry_run = request.Query("dryRun").has_value();
  if (const json::object* d = api::ObjectAt(*eviction, "deleteOptions")) {
    if (Status read = ReadDeleteOptions(*d, options); !read.ok()) return read;
  }
  return options;
}

// The one budget covering `pod`; nullptr when none does; an error when
// several do (kube answers 500).
Result<api::ObjectPtr> CoveringBudget(store::Store& store, const api::Object& pod) {
  auto budgets = store.List({.prefix = api::StoragePrefix(api::Kind::kPodDisruptionBudget, pod.namespace_name())});
  if (!budgets.ok()) return budgets.status();
  std::vector<api::ObjectPtr> covering;
  for (const auto& b : budgets->items) {
    if (api::BudgetCoversPod(*b, pod)) covering.push_back(b);
  }
  if (covering.size() > 1) {
    return Status::Internal(
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  }
  return covering.empty() ? nullptr : covering.front();
}

// An unready pod does not count as healthy: taking it uses no budget when the
// budget's policy is AlwaysAllow, or (IfHealthyBudget) the budget is satisfied.
bool UnhealthyPodMayGo(const api::Object& pod, const api::Object& budget) {
  if (api::IsPodReady(pod)) return false;
  const json::object* status = api::StatusOf(budget);
  const int64_t current_healthy = api::IntAt(status, "currentHealthy");
  const int64_t desired_healthy = api::IntAt(status, "desiredHealthy");
  const bool always_allow = api::StringAt(api::Spec(budget), "unhealthyPodEvictionPolicy") == "AlwaysAllow";
  return always_allow || (current_healthy >= desired_healthy && desired_healthy > 0);
}

// kube's checkAndDecrement, its checks: the refusal when `budget` allows no
// disruption now (with its details), nothing when it does.
std::optional<Response> BudgetRefusal(const api::Object& budget) {
  const json::object* status = api::StatusOf(budget);
  if (api::IntAt(status, "observedGeneration") < api::Generation(budget)) {
    return ErrorResponse(
        TooManyRequests("The disruption budget " + budget.name() + " is still being processed by the server."));
  }
  const int64_t allowed = api::IntAt(status, "disruptionsAllowed");
  const api::KindInfo& kind = budget.info();
  const std::string forbidden = QualifiedResource(kind) + " \"" + budget.name() + "\" is forbidden: ";
  if (allowed < 0) {
    return ErrorResponse(Status(StatusCode::kForbidden, forbidden + "pdb disruptions allowed is negative"),
                         DetailsFor(kind, budget.name()));
  }
  const json::object* disrupted = api::ObjectAt(status, "disruptedPods");
  if (disrupted && disrupted->size() > api::kMaxDisruptedPods) {
    return ErrorResponse(Status(StatusCode::kForbidden,
                                forbidden + "DisruptedPods map too big - too many evictions not confirmed by PDB controller"),
                         DetailsFor(kind, budget.name()));
  }
  if (allowed == 0) {
    return ErrorResponse(TooManyRequests("The disruption budget " + budget.name() + " needs " +
                                         std::to_string(api::IntAt(status, "desiredHealthy")) +
                                         " healthy pods and has " +
                                         std::to_string(api::IntAt(status, "currentHealthy")) + " currently"));
  }
  return std::nullopt;
}

// kube's checkAndDecrement, its write: one disruption fewer allowed and the
// pod recorded in status.disruptedPods, guarded by the budget's
// resourceVersion. False when a fresher budget won (the eviction decides again).
Result<bool> DecrementBudget(store::Store& store, const api::Object& budget, const std::string& pod_name) {
  const int64_t allowed = api::IntAt(api::StatusOf(budget), "disruptionsAllowed");
  const std::string now = api::FormatRfc3339(std::chrono::system_clock::now());
  auto decremented = budget.Edit([&](json::object& o) {
    json::object& st = api::MutableObject(o, "status");
    st["disruptionsAllowed"] = allowed - 1;
    if (allowed - 1 == 0) api::SetDisruptionAllowedCondition(st, now);
    api::MutableObject(st, "disruptedPods")[pod_name] = now;
  });
  if (!decremented.ok()) return decremented.status();
  auto written = store.Update(decremented.value(), budget.resource_version());
  if (written.ok()) return true;
  if (written.status().code() == StatusCode::kConflict) return false;
  return written.status();
}

// kube's addConditionAndDeletePod: the pod is marked DisruptionTarget (on
// its latest version, preconditions checked against it), then deleted.
Response DeleteEvictedPod(api::ObjectPtr pod, const DeleteOptions& options, const RequestInfo& info, GenericRest& rest) {
  const api::KindInfo& pods = api::Info(api::Kind::kPod);
  for (int attempt = 0;; ++attempt) {
    if (!options.uid_precondition.empty() && options.uid_precondition != pod->uid()) {
      return ErrorResponse(ConflictFor(pods, info.name,
                                       "Precondition failed: UID in precondition: " + options.uid_precondition +
                                           ", UID in object meta: " + pod->uid()),
                           DetailsFor(pods, info.name));
    }
    if (options.resource_version_precondition &&
        *options.resource_version_precondition != std::to_string(pod->resource_version())) {
      return ErrorResponse(ConflictFor(pods, info.name,
                                       "Precondition failed: ResourceVersion in precondition: " +
                                           *options.resource_version_precondition +
                                           ", ResourceVersion in object meta: " +
                                           std::to_string(pod->resource_version())),
                           DetailsFor(pods, info.name));
    }
    if (options.dry_run) return JsonResponse(201, json::serialize(SuccessStatus(201)));
    auto marked = pod->Edit([&](json::object& o) {
      api::SetCondition(api::MutableObject(o, "status"),
                        {"DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting"},
                        api::FormatRfc3339(std::chrono::system_clock::now()), {.null_probe_time = true});
    });
    if (!marked.ok()) return ErrorResponse(marked.status());
    auto written = rest.store().Update(marked.value(), pod->resource_version());
    if (written.ok()) {
      auto deleted = rest.DeleteObject(written.value(), options.grace_period_seconds, {});
      if (!deleted.ok()) return ErrorResponse(deleted.status(), DetailsFor(pods, info.name));
      return JsonResponse(201, json::serialize(SuccessStatus(201)));
    }
    if (written.status().code() != StatusCode::kConflict || attempt + 1 >= GenericRest::kMaxAttempts) {
      return ErrorResponse(written.status(), DetailsFor(pods, info.name));
    }
    auto reread = rest.store().Get(api::StorageKey(api::Kind::kPod, info.ns, info.name));
    if (!reread.ok()) return ErrorResponse(NotFoundFor(pods, info.name), DetailsFor(pods, info.name));
    pod = reread.value();
  }
}

}  // namespace

EvictionSubresource::EvictionSubresource()
    : Subresource({.name = "eviction", .group = "policy", .version = "v1", .kind = "Eviction", .verbs = {"create"}}) {}

Response EvictionSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  const api::KindInfo& pods = api::Info(api::Kind::kPod);
  if (request.method != "POST") return MethodNotAllowed();
  auto read = ReadEviction(request, info);
  if (!read.ok()) return ErrorResponse(read.status());
  DeleteOptions options = std::move(read).value();
  const std::string pod_key = api::StorageKey(api::Kind::kPod, info.ns, info.name);
  for (int attempt = 0; attempt < GenericRest::kMaxAttempts; ++attempt) {
    auto pod = rest.store().Get(pod_key);
    if (!pod.ok()) return ErrorResponse(NotFoundFor(pods, info.name), DetailsFor(pods, info.name));
    if (CanIgnoreBudget(*pod.value())) return DeleteEvictedPod(pod.value(), options, info, rest);
    auto budget = CoveringBudget(rest.store(), *pod.value());
    if (!budget.ok()) return ErrorResponse(budget.status());
    if (!budget.value()) return DeleteEvictedPod(pod.value(), options, info, rest);
    if (UnhealthyPodMayGo(*pod.value(), *budget.value())) {
      // Only while it is still that unready version.
      if (!options.resource_version_precondition) {
        options.resource_version_precondition = std::to_string(pod.value()->resource_version());
      }
      Response r = DeleteEvictedPod(pod.value(), options, info, rest);
      if (r.status == 409 && attempt + 1 < GenericRest::kMaxAttempts) {
        options.resource_version_precondition.reset();
        continue;
      }
      return r;
    }
    if (auto refused = BudgetRefusal(*budget.value())) return std::move(*refused);
    if (!options.dry_run) {
      auto decremented = DecrementBudget(rest.store(), *budget.value(), info.name);
      if (!decremented.ok()) return ErrorResponse(decremented.status());
      if (!decremented.value()) continue;  // a fresher budget decides
    }
    return DeleteEvictedPod(pod.value(), options, info, rest);
  }
  return ErrorResponse(ConflictFor(pods, info.name, "too many concurrent updates"));
}

}  // namespace berth::apiserver
