#include "controllers/namespace/namespace_controller.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kFinalizer = "kubernetes";

bool NotFound(const Status& s) { return s.code() == StatusCode::kNotFound; }

}  // namespace

NamespaceController::NamespaceController(const ControllerContext& context, int workers,
                                         std::chrono::milliseconds recheck)
    : Controller("namespace", context, workers), recheck_(recheck) {
  auto change = [this](const api::ObjectPtr& ns) {
    if (api::BeingDeleted(*ns)) Enqueue(ns->name());
  };
  informers_.For(api::Kind::kNamespace).AddHandlers({change, change, nullptr});
}

Result<size_t> NamespaceController::DeleteContent(const std::string& ns) {
  size_t remaining = 0;
  for (const auto& info : api::AllKinds()) {
    if (!info.namespaced || info.kind == api::Kind::kBinding || info.stored_as) continue;
    auto list = client_.List(info.kind, ns);
    if (!list.ok()) return list.status();
    for (const auto& object : *list) {
      ++remaining;
      if (api::BeingDeleted(*object)) continue;  // already on its way out
      Status deleted = client_.Delete(info.kind, ns, object->name(), {.uid_precondition = object->uid()});
      if (!deleted.ok() && !NotFound(deleted) && deleted.code() != StatusCode::kConflict) return deleted;
    }
  }
  return remaining;
}

Status NamespaceController::Reconcile(const std::string& name) {
  auto got = client_.Get(api::Kind::kNamespace, "", name);
  if (!got.ok()) return NotFound(got.status()) ? Status::Ok() : got.status();
  const api::ObjectPtr& ns = got.value();
  if (!api::BeingDeleted(*ns)) return Status::Ok();

  const auto* spec = api::Spec(*ns);
  const auto* finalizers = spec ? api::ArrayAt(*spec, "finalizers") : nullptr;
  bool ours = false;
  if (finalizers) {
    for (const auto& f : *finalizers) ours = ours || (f.is_string() && f.get_string() == kFinalizer);
  }
  if (ours) {
    auto remaining = DeleteContent(name);
    if (!remaining.ok()) return remaining.status();
    if (*remaining > 0) {
      EnqueueAfter(name, recheck_);
      return Status::Ok();
    }
    json::object finalized = ForUpdate(*ns);
    api::EraseIf(api::MutableArray(api::MutableObject(finalized, "spec"), "finalizers"),
            [](const json::value& f) { return f.is_string() && f.get_string() == kFinalizer; });
    auto updated = client_.Update(api::Kind::kNamespace, finalized, "finalize");
    if (!updated.ok()) return NotFound(updated.status()) ? Status::Ok() : updated.status();
  }
  // Finalized by us: the API server purges it once no other finalizer holds it
  // (Conflict while one does; whoever owns that finalizer finishes).
  Status deleted = client_.Delete(api::Kind::kNamespace, "", name);
  if (deleted.ok() || NotFound(deleted) || deleted.code() == StatusCode::kConflict) return Status::Ok();
  return deleted;
}

}  // namespace berth::controllers
