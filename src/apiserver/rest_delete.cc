// DELETE of an object and of a collection: finalizers, graceful termination
// of pods, propagation policies and namespace lifecycle.

#include <algorithm>
#include <boost/json.hpp>
#include <optional>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "api/validation/validation.h"
#include "apiserver/api_server.h"
#include "apiserver/delete_options.h"
#include "apiserver/registry/finalizers.h"

namespace berth::apiserver {

namespace json = boost::json;

Result<api::ObjectPtr> ApiServer::DeleteObject(const api::ObjectPtr& object, std::optional<int64_t> grace_seconds,
                                               std::string_view finalizer) {
  const api::KindInfo& kind = object->info();
  api::ObjectPtr current = object;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    // Graceful deletion (a pod's): marked now, deleted by its kubelet.
    int64_t grace = registry_.For(current->kind()).DeleteGracePeriod(*current, grace_seconds);
    bool add_finalizer = !finalizer.empty() && !api::BeingDeleted(*current);
    if (add_finalizer || HasFinalizers(current->json()) || grace > 0) {
      // Finalizers or a kubelet hold the object: mark it; the last finalizer's
      // removal (or the kubelet's final delete) deletes it.
      if (api::BeingDeleted(*current)) {
        const auto* meta = current->json().if_contains("metadata");
        const auto* was = meta && meta->is_object() ? meta->get_object().if_contains("deletionGracePeriodSeconds")
                                                    : nullptr;
        // A shorter grace period than the one in progress (e.g. --force, 0) takes over.
        bool shorter = grace_seconds && was && was->is_int64() && *grace_seconds < was->get_int64();
        if (!shorter) return current;
        if (*grace_seconds == 0 && !HasFinalizers(current->json())) {
          auto deleted = store_.Delete(current->StorageKey(), current->resource_version());
          if (deleted.ok() || deleted.status().code() != StatusCode::kConflict) return deleted;
          auto reread = store_.Get(current->StorageKey());
          if (!reread.ok()) return NotFoundFor(kind, current->name());
          current = reread.value();
          continue;
        }
        grace = *grace_seconds;
      }
      auto marked = current->Edit([&](json::object& o) {
        json::object& meta = api::MutableObject(o, "metadata");
        meta["deletionTimestamp"] = api::FormatRfc3339(std::chrono::system_clock::now() + std::chrono::seconds(grace));
        meta["deletionGracePeriodSeconds"] = grace;
        if (add_finalizer) {
          json::value& f = meta["finalizers"];
          if (!f.is_array()) f = json::array();
          bool present = false;
          for (const auto& v : f.get_array()) present = present || (v.is_string() && v.get_string() == finalizer);
          if (!present) f.get_array().emplace_back(finalizer);
        }
      });
      if (!marked.ok()) return marked.status();
      auto written = store_.Update(marked.value(), current->resource_version());
      if (written.ok() || written.status().code() != StatusCode::kConflict) return written;
    } else {
      auto deleted = store_.Delete(current->StorageKey(), current->resource_version());
      if (deleted.ok() || deleted.status().code() != StatusCode::kConflict) {
        if (!deleted.ok() && deleted.status().code() == StatusCode::kNotFound) {
          return NotFoundFor(kind, current->name());
        }
        return deleted;
      }
    }
    auto reread = store_.Get(current->StorageKey());
    if (!reread.ok()) return NotFoundFor(kind, current->name());
    current = reread.value();
  }
  return ConflictFor(kind, object->name(), "too many concurrent updates");
}

// Namespace deletion, kube's lifecycle: the namespace is marked Terminating
// (deletionTimestamp, status.phase) and from then on takes nothing new; its
// contents are deleted; once none is left and no finalizer but "kubernetes"
// holds it, it goes. The API server drains in the DELETE itself and purges at
// once when nothing was held back (gracefully terminating pods, finalizers);
// otherwise the namespace controller finishes: it deletes what is left,
// removes "kubernetes" through /finalize and deletes the namespace again.
Result<bool> ApiServer::DeleteNamespaceContents(const std::string& ns) {
  bool empty = true;
  for (const auto& info : api::AllKinds()) {
    // A kind stored as another is that kind's objects: deleted once, as those.
    if (!info.namespaced || info.create_only || info.stored_as) continue;
    auto list = store_.List({.prefix = api::StoragePrefix(info.kind, ns)});
    if (!list.ok()) return list.status();
    for (const auto& object : list->items) {
      auto deleted = DeleteObject(object, std::nullopt, {});
      if (deleted.ok() && store_.Get(object->StorageKey()).ok()) empty = false;
      if (!deleted.ok() && deleted.status().code() != StatusCode::kNotFound) return deleted.status();
    }
  }
  return empty;
}

Result<api::ObjectPtr> ApiServer::DeleteNamespace(api::ObjectPtr current) {
  const api::KindInfo& kind = current->info();
  const std::string name = current->name();
  const std::string key = current->StorageKey();
  bool terminating = api::BeingDeleted(*current);
  if (terminating && !Finalized(current->json())) {
    return ConflictFor(kind, name,
                       "The system is ensuring all content is removed from this namespace.  Upon completion, "
                       "this namespace will automatically be purged by the system.");
  }
  bool purge = terminating;
  if (!terminating) {
    for (int attempt = 0;; ++attempt) {
      if (attempt == kMaxAttempts) return ConflictFor(kind, name, "too many concurrent updates");
      auto marked = current->Edit([](json::object& o) {
        json::object& meta = api::MutableObject(o, "metadata");
        meta["deletionTimestamp"] = api::FormatRfc3339(std::chrono::system_clock::now());
        meta["deletionGracePeriodSeconds"] = 0;
        json::value& status = o["status"];
        if (!status.is_object()) status = json::object();
        status.get_object()["phase"] = "Terminating";
      });
      if (!marked.ok()) return marked.status();
      auto written = store_.Update(marked.value(), current->resource_version());
      if (written.ok()) {
        current = written.value();
        break;
      }
      if (written.status().code() != StatusCode::kConflict) return written.status();
      auto reread = store_.Get(key);
      if (!reread.ok()) return NotFoundFor(kind, name);
      current = reread.value();
    }
    auto empty = DeleteNamespaceContents(name);
    if (!empty.ok()) return empty.status();
    purge = empty.value() && OnlyKubernetesFinalizer(current->json());
  }
  if (!purge) return current;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto deleted = store_.Delete(key, current->resource_version());
    if (deleted.ok()) return deleted;
    if (deleted.status().code() == StatusCode::kNotFound) return NotFoundFor(kind, name);
    if (deleted.status().code() != StatusCode::kConflict) return deleted.status();
    auto reread = store_.Get(key);
    if (!reread.ok()) return NotFoundFor(kind, name);
    current = reread.value();
  }
  return ConflictFor(kind, name, "too many concurrent updates");
}

Response ApiServer::Delete(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  // DeleteOptions: the JSON or protobuf body (kubectl drain sends protobuf), else the query.
  auto options = DeleteOptionsFromRequest(request);
  if (!options.ok()) return ErrorResponse(options.status());
  const std::optional<int64_t> grace_seconds = options->grace_period_seconds;
  const std::string& policy = options->propagation_policy;
  const bool dry_run = options->dry_run;
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  std::string_view finalizer;
  if (!strategy.DeletesContents()) {
    if (policy == "Orphan") finalizer = "orphan";
    if (policy == "Foreground") finalizer = "foregroundDeletion";
  }
  auto current = store_.Get(api::StorageKey(*info.kind, info.ns, info.name));
  if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), DetailsFor(kind, info.name));
  if (Status refused = strategy.ValidateDelete(*current.value()); !refused.ok()) {
    return ErrorResponse(refused, DetailsFor(kind, info.name));
  }
  AdmissionEffects effects;
  AdmissionAttributes attributes{AdmissionOperation::kDelete, api::Info(api::StorageKindOf(*info.kind)), "", info.ns,
                                 info.name, nullptr, &current.value()->json(), dry_run, &request, &effects};
  Status admitted = admission_->Admit(attributes, nullptr);
  if (admitted.ok()) admitted = admission_->Validate(attributes);
  TakeWarnings(effects, request);
  if (!admitted.ok()) return ErrorResponse(admitted, DetailsFor(kind, info.name));
  if (Status held = CheckDeletePreconditions(*options, *current.value()); !held.ok()) {
    return ErrorResponse(held, DetailsFor(kind, info.name));
  }
  // A custom resource that cannot be converted to the version asked for is
  // not deleted through it (kube decodes the object before deleting it).
  auto shown = strategy.InVersion(current.value(), *info.kind);
  if (!shown.ok()) return ErrorResponse(shown.status());
  if (dry_run) return JsonResponse(200, api::EncodedAs(*shown.value(), *info.kind));
  auto deleted = strategy.DeletesContents() ? DeleteNamespace(current.value())
                                            : DeleteObject(current.value(), grace_seconds, finalizer);
  if (!deleted.ok()) return ErrorResponse(deleted.status(), DetailsFor(kind, info.name));
  shown = strategy.InVersion(deleted.value(), *info.kind);
  if (!shown.ok()) return ErrorResponse(shown.status());
  return JsonResponse(200, api::EncodedAs(*shown.value(), *info.kind));
}

// kube's DeleteCollection: the DeleteOptions (body or query) hold for every
// object deleted, as a DELETE of each would take them: grace period,
// propagation policy, preconditions (the first object they do not hold for
// ends the request with its Conflict) and dryRun (nothing deleted, the
// objects listed).
Response ApiServer::DeleteCollection(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  auto options = DeleteOptionsFromRequest(request);
  if (!options.ok()) return ErrorResponse(options.status());
  auto predicate = SelectorPredicate(request, *info.kind);
  if (!predicate.ok()) return ErrorResponse(predicate.status());
  auto list = store_.List({.prefix = api::StoragePrefix(*info.kind, info.ns),
                           .predicate = std::move(predicate).value()});
  if (!list.ok()) return ErrorResponse(list.status());
  std::string body = R"({"kind":")" + std::string(kind.name) + R"(List","apiVersion":")" +
                     kind.ApiVersion() + R"(","metadata":{},"items":[)";
  bool first = true;
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  std::string_view finalizer;
  if (!strategy.DeletesContents()) {
    if (options->propagation_policy == "Orphan") finalizer = "orphan";
    if (options->propagation_policy == "Foreground") finalizer = "foregroundDeletion";
  }
  const api::KindInfo& stored = api::Info(api::StorageKindOf(*info.kind));
  for (const auto& object : list->items) {
    AdmissionEffects effects;
    AdmissionAttributes attributes{AdmissionOperation::kDelete, stored, "", info.ns, object->name(), nullptr,
                                   &object->json(), options->dry_run, &request, &effects};
    Status admitted = strategy.ValidateDelete(*object);
    if (admitted.ok()) admitted = admission_->Admit(attributes, nullptr);
    if (admitted.ok()) admitted = admission_->Validate(attributes);
    TakeWarnings(effects, request);
    if (!admitted.ok()) return ErrorResponse(admitted, DetailsFor(kind, object->name()));
    if (Status held = CheckDeletePreconditions(*options, *object); !held.ok()) {
      return ErrorResponse(held, DetailsFor(kind, object->name()));
    }
    api::ObjectPtr shown = object;
    if (!options->dry_run) {
      auto deleted = strategy.DeletesContents() ? DeleteNamespace(object)
                                                : DeleteObject(object, options->grace_period_seconds, finalizer);
      if (!deleted.ok()) {
        if (deleted.status().code() == StatusCode::kNotFound) continue;
        return ErrorResponse(deleted.status());
      }
      shown = deleted.value();
    }
    auto in_version = strategy.InVersion(shown, *info.kind);
    if (!in_version.ok()) return ErrorResponse(in_version.status());
    if (!first) body += ',';
    first = false;
    body += api::EncodedAs(*in_version.value(), *info.kind);
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

}  // namespace berth::apiserver
