// The CrdController's part for a definition being deleted, as kube's CRD
// finalizer (apiextensions-apiserver's pkg/controller/finalizer) does it:
// Terminating True while its objects are deleted, then the outcome
// (InstanceDeletionCompleted, NeverEstablished, OverlappingBuiltInResource)
// with the cleanup finalizer's removal. Objects held by finalizers of their
// own are marked and waited for; a failure to delete is reported
// (InstanceDeletionFailed) and retried.

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "apiserver/crd/crd_controller.h"
#include "apiserver/registry/finalizers.h"

namespace berth::apiserver::crd {

namespace json = boost::json;

namespace {

// How often a waiting deletion looks again (kube polls every 5 s): a list
// of the definition's objects.
constexpr auto kRecheckInterval = std::chrono::seconds(1);
// A failing deletion is retried after 2 s, 4 s ... at most this.
constexpr auto kMaxRetryDelay = std::chrono::seconds(60);

bool HasCleanupFinalizer(const json::object& crd) {
  const json::array* finalizers = api::ArrayAt(api::ObjectAt(crd, "metadata"), "finalizers");
  if (!finalizers) return false;
  return std::any_of(finalizers->begin(), finalizers->end(), [](const json::value& f) {
    return f.is_string() && f.get_string() == kCleanupFinalizer;
  });
}

// kube's finalizer leaves instances alone that live where a built-in
// resource's objects do. kube has two such resources (apiservices,
// customresourcedefinitions); berth keys every built-in resource as
// "/<group>/<resource>/", so any built-in resource a definition names.
bool OverlapsBuiltIn(std::string_view group, std::string_view plural) {
  auto kind = api::KindFromResource(group, plural);
  return kind && api::IsBuiltin(*kind);
}

bool Benign(const Status& s) {
  return s.code() == StatusCode::kNotFound || s.code() == StatusCode::kConflict;
}

}  // namespace

void CrdController::Terminate(api::ObjectPtr crd) {
  const std::string name = crd->name();
  if (!HasCleanupFinalizer(crd->json())) {
    waiting_.erase(name);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  Waiting& waiting =
      waiting_.try_emplace(name, Waiting{now + deletion_timeout_, now, 0}).first->second;
  // Not due yet: the watch brings back the status written by the last check.
  if (now < waiting.next_check) return;
  waiting.next_check = now + kRecheckInterval;
  const std::string stamp = api::FormatRfc3339(std::chrono::system_clock::now());

  // The definition is marked first: the cleanup can take a while.
  json::object status;
  if (const json::object* before = api::StatusOf(*crd)) status = *before;
  api::SetCondition(status,
                    {"Terminating", "True", "InstanceDeletionInProgress",
                     "CustomResource deletion is in progress"},
                    stamp);
  auto marked = WriteStatus(crd, status);
  if (!marked.ok()) return;  // a newer version is on its way; the next check sees it
  crd = marked.value();

  const json::object* spec = api::Spec(*crd);
  api::Condition outcome;
  if (OverlapsBuiltIn(api::StringAt(spec, "group"),
                      api::StringAt(api::ObjectAt(spec, "names"), "plural"))) {
    outcome = {"Terminating", "False", "OverlappingBuiltInResource",
               "instances overlap with built-in resources in storage"};
  } else if (ConditionTrue(&status, "Established")) {
    std::string message;
    switch (DeleteInstances(*crd, message)) {
      case Deletion::kDone:
        outcome = {"Terminating", "False", "InstanceDeletionCompleted", "removed all instances"};
        break;
      case Deletion::kFailed: {
        waiting.failures = std::min(waiting.failures + 1, 8);
        waiting.next_check = now + std::min<std::chrono::steady_clock::duration>(
                                       std::chrono::seconds(1 << waiting.failures), kMaxRetryDelay);
        api::SetCondition(status, {"Terminating", "True", "InstanceDeletionFailed", message},
                          stamp);
        (void)WriteStatus(crd, std::move(status));
        return;
      }
      case Deletion::kWaiting:
        if (now < waiting.deadline) return;
        waiting.deadline = now + deletion_timeout_;
        api::SetCondition(
            status,
            {"Terminating", "True", "InstanceDeletionCheck",
             "could not confirm zero CustomResources remaining: context deadline exceeded"},
            stamp);
        (void)WriteStatus(crd, std::move(status));
        return;
    }
  } else {
    outcome = {"Terminating", "False", "NeverEstablished", "resource was never established"};
  }
  waiting_.erase(name);

  // Then the finalizer, with the outcome; the last one gone deletes the definition.
  api::ObjectPtr current = crd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (attempt > 0) {
      auto reread = store_.Get(crd->StorageKey());
      if (!reread.ok()) return;
      current = reread.value();
    }
    json::value next = current->json();
    json::array& finalizers =
        api::MutableArray(api::MutableObject(next.get_object(), "metadata"), "finalizers");
    api::EraseIf(finalizers, [](const json::value& f) {
      return f.is_string() && f.get_string() == kCleanupFinalizer;
    });
    if (finalizers.empty()) {
      auto deleted = store_.Delete(current->StorageKey(), current->resource_version());
      if (deleted.ok()) Remove(name);
      if (deleted.ok() || deleted.status().code() != StatusCode::kConflict) return;
      continue;
    }
    api::SetCondition(api::MutableObject(next.get_object(), "status"), outcome, stamp);
    auto built = api::Object::FromJson(std::move(next));
    if (!built.ok()) return;
    auto written = store_.Update(built.value(), current->resource_version());
    if (written.ok() || written.status().code() != StatusCode::kConflict) return;
  }
}

CrdController::Deletion CrdController::DeleteInstances(const api::Object& crd,
                                                       std::string& message) {
  // Every version's objects share the storage version's keys.
  std::string prefix;
  if (auto served = served_.find(crd.name());
      served != served_.end() && !served->second.kinds.empty()) {
    prefix = api::StoragePrefix(served->second.kinds.front());
  } else {
    // No version served now: the keys' layout of api::StorageKey.
    const json::object* spec = api::Spec(crd);
    prefix = "/" + std::string(api::StringAt(spec, "group")) + "/" +
             std::string(api::StringAt(api::ObjectAt(spec, "names"), "plural")) + "/";
  }
  auto listed = store_.List({.prefix = prefix});
  if (!listed.ok()) {
    message = "could not list instances: " + listed.status().message();
    return Deletion::kFailed;
  }
  const std::string stamp = api::FormatRfc3339(std::chrono::system_clock::now());
  std::vector<std::string> errors;
  for (const auto& object : listed->items) {
    Status done;
    if (HasFinalizers(object->json())) {
      // Its finalizers' owners delete it: marked, as a DELETE marks it.
      if (api::BeingDeleted(*object)) continue;
      auto marked = object->Edit([&stamp](json::object& o) {
        json::object& meta = api::MutableObject(o, "metadata");
        meta["deletionTimestamp"] = stamp;
        meta["deletionGracePeriodSeconds"] = 0;
      });
      if (!marked.ok()) {
        errors.push_back(marked.status().message());
        continue;
      }
      done = store_.Update(marked.value(), object->resource_version()).status();
    } else {
      done = store_.Delete(object->StorageKey(), object->resource_version()).status();
    }
    // Gone or changed meanwhile: the next check sees it again.
    if (!done.ok() && !Benign(done)) errors.push_back(done.message());
  }
  if (!errors.empty()) {
    message = "could not issue all deletes: " + AggregateMessage(errors);
    return Deletion::kFailed;
  }
  auto left = store_.List({.prefix = prefix});
  return left.ok() && left->items.empty() ? Deletion::kDone : Deletion::kWaiting;
}

void CrdController::RecheckWaiting() {
  std::vector<std::string> due;
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [name, waiting] : waiting_) {
      if (waiting.next_check <= now) due.push_back(name);
    }
  }
  for (const auto& name : due) {
    auto latest = store_.Get(api::StorageKey(api::Kind::kCustomResourceDefinition, "", name));
    if (latest.ok()) {
      Sync(latest.value());
    } else {
      std::lock_guard lock(mu_);
      waiting_.erase(name);
    }
  }
}

}  // namespace berth::apiserver::crd
