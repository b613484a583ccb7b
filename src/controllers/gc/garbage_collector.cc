#include "controllers/gc/garbage_collector.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kUidIndex[] = "uid";
constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";
// The kinds whose objects own others or are owned here (see the header for
// those not yet watched).
constexpr api::Kind kKinds[] = {api::Kind::kPod,
                                api::Kind::kReplicaSet,
                                api::Kind::kReplicationController,
                                api::Kind::kDeployment,
                                api::Kind::kJob,
                                api::Kind::kStatefulSet,
                                api::Kind::kPersistentVolumeClaim};
// How often a dependent whose owner is of a kind not watched here (a custom
// resource's) is judged again: that owner's deletion sends no event.
constexpr std::chrono::seconds kUnwatchedOwnerRecheck{5};

bool Watched(api::Kind kind) { return std::find(std::begin(kKinds), std::end(kKinds), kind) != std::end(kKinds); }

std::string WorkKey(const api::Object& o) {
  return std::string(o.info().resource) + "|" + client::ObjectKey(o);
}

const json::array* OwnerRefs(const api::Object& o) {
  const auto* meta = api::Metadata(o);
  return meta ? api::ArrayAt(*meta, "ownerReferences") : nullptr;
}

bool HasFinalizer(const api::Object& o, std::string_view finalizer) {
  const auto* meta = api::Metadata(o);
  const auto* list = meta ? api::ArrayAt(*meta, "finalizers") : nullptr;
  if (!list) return false;
  return std::any_of(list->begin(), list->end(),
                     [&](const json::value& v) { return v.is_string() && v.get_string() == finalizer; });
}

bool WaitsForDependents(const api::Object& o) { return api::BeingDeleted(o) && HasFinalizer(o, kForeground); }

// Whether `dependent`'s reference to the owner `uid` blocks the owner's foreground deletion.
bool Blocks(const api::Object& dependent, std::string_view uid) {
  const json::array* refs = OwnerRefs(dependent);
  return refs && std::any_of(refs->begin(), refs->end(), [&](const json::value& ref) {
           return ref.is_object() && api::StringAt(ref.get_object(), "uid") == uid &&
                  api::BoolAt(&ref.get_object(), "blockOwnerDeletion");
         });
}

}  // namespace

GarbageCollector::GarbageCollector(const ControllerContext& context, int workers)
    : Controller("garbagecollector", context, workers) {
  for (api::Kind kind : kKinds) Watch(kind);
}

void GarbageCollector::Watch(api::Kind kind) {
  auto& informer = informers_.For(kind);
  informer.AddIndex(kUidIndex, [](const api::Object& o) { return std::vector<std::string>{o.uid()}; });
  auto change = [this](const api::ObjectPtr& o) { OnChange(o); };
  informer.AddHandlers({change, change, [this](const api::ObjectPtr& o) { OnDelete(o); }});
}

void GarbageCollector::OnChange(const api::ObjectPtr& object) {
  if (OwnerRefs(*object)) Enqueue(WorkKey(*object));
  if (api::BeingDeleted(*object) && (HasFinalizer(*object, kOrphan) || HasFinalizer(*object, kForeground))) {
    Enqueue(WorkKey(*object));
  }
}

void GarbageCollector::OnDelete(const api::ObjectPtr& object) {
  // Its dependents may have lost their last owner...
  EnqueueDependents(*object);
  // ...and an owner waiting in the foreground may have lost its last dependent.
  if (const auto* refs = OwnerRefs(*object)) {
    for (const auto& ref : *refs) {
      if (!ref.is_object()) continue;
      std::string_view uid = api::StringAt(ref.get_object(), "uid");
      for (api::Kind kind : kKinds) {
        for (const auto& owner : informers_.For(kind).ByIndex(kUidIndex, std::string(uid))) Enqueue(WorkKey(*owner));
      }
    }
  }
}

std::vector<api::ObjectPtr> GarbageCollector::Dependents(const api::Object& owner) {
  std::vector<api::ObjectPtr> out;
  for (api::Kind kind : kKinds) {
    auto found = informers_.For(kind).ByIndex(client::kOwnerUidIndex, owner.uid());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

void GarbageCollector::EnqueueDependents(const api::Object& owner) {
  for (const auto& dependent : Dependents(owner)) Enqueue(WorkKey(*dependent));
}

Result<api::ObjectPtr> GarbageCollector::Owner(const json::object& ref, const std::string& ns) {
  std::string_view uid = api::StringAt(ref, "uid");
  auto kind = api::KindFromApiVersion(api::StringAt(ref, "apiVersion"), api::StringAt(ref, "kind"));
  if (!kind) return Status::NotFound("unknown owner kind");  // not ours to judge: treated as present by the caller
  const api::KindInfo& info = api::Info(*kind);
  if (Watched(*kind)) {
    auto cached = informers_.For(*kind).ByIndex(kUidIndex, std::string(uid));
    if (!cached.empty()) return cached.front();
  }
  // Not in the cache: ask the API (the cache may simply be behind).
  auto live = client_.Get(*kind, info.namespaced ? ns : std::string(), api::StringAt(ref, "name"));
  if (live.ok() && live.value()->uid() == uid) return live.value();
  if (live.ok() || live.status().code() == StatusCode::kNotFound) return api::ObjectPtr();
  return live.status();
}

Status GarbageCollector::Reconcile(const std::string& key) {
  auto bar = key.find('|');
  auto slash = key.find('/', bar);
  if (bar == std::string::npos) return Status::Ok();
  const std::string resource = key.substr(0, bar);
  std::optional<api::Kind> kind;
  for (api::Kind k : kKinds) {
    if (api::Info(k).resource == resource) kind = k;
  }
  if (!kind) return Status::Ok();
  std::string object_key = key.substr(bar + 1);
  (void)slash;
  api::ObjectPtr object = informers_.For(*kind).Get(object_key);
  if (!object) return Status::Ok();
  if (api::BeingDeleted(*object) && (HasFinalizer(*object, kOrphan) || HasFinalizer(*object, kForeground))) {
    if (Status s = ProcessOwnerFinalizers(object); !s.ok()) return s;
  }
  if (OwnerRefs(*object)) return ProcessDependent(object);
  return Status::Ok();
}

Status GarbageCollector::ProcessOwnerFinalizers(const api::ObjectPtr& owner) {
  auto dependents = Dependents(*owner);
  bool orphan = HasFinalizer(*owner, kOrphan);
  bool blocked = false;
  for (const auto& dependent : dependents) {
    if (orphan) {
      // Remove the reference, guarded by the dependent's version.
      if (Status s = DropReference(*dependent, owner->uid()); !s.ok()) return s;
      continue;
    }
    // Foreground, as kube's attemptToDeleteItem judges each dependent: one
    // that another live owner keeps only loses its reference to this one;
    // the others are deleted (in the foreground too) and the blocking ones
    // waited for.
    auto kept = KeptByAnotherOwner(*dependent, *owner);
    if (!kept.ok()) return kept.status();
    if (kept.value()) {
      if (Status s = DropReference(*dependent, owner->uid()); !s.ok()) return s;
      continue;
    }
    bool blocks = Blocks(*dependent, owner->uid());
    if (blocks && InCycle(*dependent)) {
      // Its own dependents wait for their dependents too: a cycle of
      // foreground deletions would wait for ever, so its references stop
      // blocking (kube's unblockOwnerReferences) and it is deleted.
      if (Status s = UnblockReferences(*dependent); !s.ok()) return s;
      blocks = false;
    }
    if (blocks) blocked = true;
    if (!api::BeingDeleted(*dependent)) {
      Status s = client_.Delete(dependent->kind(), dependent->namespace_name(), dependent->name(),
                                {.propagation_policy = "Foreground", .uid_precondition = dependent->uid()});
      if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) return s;
    }
  }
  if (blocked) return Status::Ok();  // the last dependent's deletion enqueues the owner again
  json::object next = ForUpdate(*owner);
  json::array& finalizers = api::MutableArray(api::MutableObject(next, "metadata"), "finalizers");
  api::EraseIf(finalizers, [&](const json::value& f) {
    return f.is_string() && (f.get_string() == kOrphan || f.get_string() == kForeground);
  });
  auto written = client_.Update(owner->kind(), next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

Result<bool> GarbageCollector::KeptByAnotherOwner(const api::Object& dependent, const api::Object& owner) {
  for (const auto& ref : *OwnerRefs(dependent)) {
    if (!ref.is_object() || api::StringAt(ref.get_object(), "uid") == owner.uid()) continue;
    auto other = Owner(ref.get_object(), dependent.namespace_name());
    if (!other.ok()) {
      if (other.status().code() == StatusCode::kNotFound) return true;  // a kind berth does not know: it keeps it
      return other.status();
    }
    if (other.value() && !WaitsForDependents(*other.value())) return true;
  }
  return false;
}

bool GarbageCollector::InCycle(const api::Object& dependent) {
  auto grand = Dependents(dependent);
  return std::any_of(grand.begin(), grand.end(), [](const api::ObjectPtr& d) { return WaitsForDependents(*d); });
}

Status GarbageCollector::DropReference(const api::Object& dependent, const std::string& uid) {
  json::object next = ForUpdate(dependent);
  json::array& refs = api::MutableArray(api::MutableObject(next, "metadata"), "ownerReferences");
  api::EraseIf(refs, [&](const json::value& r) { return r.is_object() && api::StringAt(r.get_object(), "uid") == uid; });
  if (refs.empty()) api::MutableObject(next, "metadata").erase("ownerReferences");
  auto written = client_.Update(dependent.kind(), next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

Status GarbageCollector::UnblockReferences(const api::Object& dependent) {
  json::object next = ForUpdate(dependent);
  for (auto& ref : api::MutableArray(api::MutableObject(next, "metadata"), "ownerReferences")) {
    if (ref.is_object()) ref.get_object().erase("blockOwnerDeletion");
  }
  auto written = client_.Update(dependent.kind(), next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

Status GarbageCollector::ProcessDependent(const api::ObjectPtr& object) {
  const json::array* refs = OwnerRefs(*object);
  int live = 0, dangling = 0;
  std::vector<std::string> gone;
  bool owner_in_foreground = false;
  bool unwatched_owner = false;  // a live owner whose deletion no informer here sees
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    auto owner = Owner(ref.get_object(), object->namespace_name());
    if (!owner.ok()) {
      if (owner.status().code() == StatusCode::kNotFound) {
        ++live;  // a kind berth does not know: leave it alone
        continue;
      }
      return owner.status();
    }
    if (owner.value()) {
      ++live;
      if (!Watched(owner.value()->kind())) unwatched_owner = true;
      if (api::BeingDeleted(*owner.value()) && HasFinalizer(*owner.value(), kForeground)) owner_in_foreground = true;
    } else {
      ++dangling;
      gone.emplace_back(api::StringAt(ref.get_object(), "uid"));
    }
  }
  if (unwatched_owner) EnqueueAfter(WorkKey(*object), kUnwatchedOwnerRecheck);
  if (dangling == 0) {
    (void)owner_in_foreground;  // the owner's own reconcile deletes its dependents
    return Status::Ok();
  }
  if (live == 0) {
    if (api::BeingDeleted(*object)) return Status::Ok();
    // Only the version judged here: the cache may be behind a write that
    // orphaned it (the owner's orphan finalizer removes the references, then
    // the owner goes), and deleting by name would delete what was kept. A
    // changed object comes back as an event and is judged again.
    Status s = client_.Delete(object->kind(), object->namespace_name(), object->name(),
                              {.propagation_policy = "Background",
                               .uid_precondition = object->uid(),
                               .resource_version_precondition = object->resource_version()});
    if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) return s;
    return Status::Ok();
  }
  // Some owners live: drop only the dangling references.
  json::object next = ForUpdate(*object);
  json::array& list = api::MutableArray(api::MutableObject(next, "metadata"), "ownerReferences");
  api::EraseIf(list, [&](const json::value& r) {
    return r.is_object() && std::find(gone.begin(), gone.end(), api::StringAt(r.get_object(), "uid")) != gone.end();
  });
  auto written = client_.Update(object->kind(), next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
