#include "controllers/statefulset/statefulset_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/selector.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/for_update.h"
#include "controllers/history.h"
#include "controllers/owner_references.h"
#include "controllers/statefulset/stateful_pod.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "StatefulSet";

// kube's isMemberOf: the pod's name is <set>-<ordinal>.
bool IsMemberOf(const api::Object& set, const api::Object& pod) {
  return ParseStatefulPodName(pod.name()).parent == set.name();
}

}  // namespace

StatefulSetController::StatefulSetController(const ControllerContext& context, int workers)
    : Controller("statefulset", context, workers),
      sets_(context.informers.For(api::Kind::kStatefulSet)),
      pods_(context.informers.For(api::Kind::kPod)),
      revisions_(context.informers.For(api::Kind::kControllerRevision)),
      claims_(context.informers.For(api::Kind::kPersistentVolumeClaim)),
      events_(context.events, {"statefulset-controller", ""}) {
  auto enqueue = [this](const api::ObjectPtr& set) { Enqueue(client::ObjectKey(*set)); };
  sets_.AddHandlers({enqueue, enqueue, enqueue});
  pods_.AddHandlers({[this](const api::ObjectPtr& p) { PodAdded(p); },
                     [this](const api::ObjectPtr& p) { PodUpdated(p); },
                     [this](const api::ObjectPtr& p) { PodDeleted(p); }});
  auto owner = [this](const api::ObjectPtr& revision) {
    if (std::string key = LiveControllerKey(*revision, kKind, sets_); !key.empty()) Enqueue(key);
  };
  revisions_.AddHandlers({owner, owner, owner});
  // A claim that finishes its deletion may release a pod waiting for it.
  claims_.AddHandlers({nullptr, nullptr, [this](const api::ObjectPtr& claim) {
                         for (const auto& key : SelectingOwners(*claim, sets_)) Enqueue(key);
                       }});
}

// ---- event handlers ----

void StatefulSetController::PodAdded(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, sets_); !owner.empty()) {
    Enqueue(owner);
    return;
  }
  if (!HasControllerRef(*pod) && !api::BeingDeleted(*pod)) {
    for (const auto& key : SelectingOwners(*pod, sets_)) Enqueue(key);
  }
}

void StatefulSetController::PodUpdated(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, sets_); !owner.empty()) {
    Enqueue(owner);
    // A pod that just became ready becomes available minReadySeconds later.
    if (auto set = sets_.Get(owner); set && api::IsPodReady(*pod)) {
      int64_t min_ready = api::IntAt(api::Spec(*set), "minReadySeconds");
      if (min_ready > 0)
        EnqueueAfter(owner, std::chrono::seconds(min_ready) + std::chrono::seconds(1));
    }
    return;
  }
  if (!HasControllerRef(*pod)) {
    for (const auto& key : SelectingOwners(*pod, sets_)) Enqueue(key);
  }
}

void StatefulSetController::PodDeleted(const api::ObjectPtr& pod) {
  if (std::string owner = ControllerKeyByName(*pod, kKind); !owner.empty()) Enqueue(owner);
}

// ---- sync ----

Status StatefulSetController::Reconcile(const std::string& key) {
  api::ObjectPtr set = sets_.Get(key);
  if (!set) return Status::Ok();
  const auto* spec = api::Spec(*set);
  const json::value* selector = spec ? spec->if_contains("selector") : nullptr;
  if (!selector || !api::LabelSelector::FromJson(*selector).ok()) {
    // kube: an event, and no retry (validation keeps such sets out).
    events_.Event(*set, "Warning", "InvalidSelector", "invalid selector");
    return Status::Ok();
  }
  Sync s;
  s.set = set;
  s.key = key;
  if (Status st = AdoptRevisions(s); !st.ok()) return st;
  if (Status st = ClaimPods(s); !st.ok()) return st;
  if (Status st = Revisions(s); !st.ok()) return st;
  Counts counts;
  Status updated = Update(s, counts);
  Status written = WriteStatus(s, counts);
  if (!updated.ok()) return updated;
  if (!written.ok()) return written;
  return TruncateHistory(s);
}

Status StatefulSetController::AdoptRevisions(Sync& s) {
  auto claimed = ClaimDependents(client_, revisions_, *s.set, OwnerSelector(*s.set));
  if (!claimed.ok()) return claimed.status();
  s.revisions = std::move(claimed).value();
  // kube's SortControllerRevisions: by revision, then age, then name.
  std::sort(s.revisions.begin(), s.revisions.end(), [](const auto& a, const auto& b) {
    if (RevisionNumber(*a) != RevisionNumber(*b)) return RevisionNumber(*a) < RevisionNumber(*b);
    std::string_view ta = api::StringAt(api::Metadata(*a), "creationTimestamp");
    std::string_view tb = api::StringAt(api::Metadata(*b), "creationTimestamp");
    if (ta != tb) return ta < tb;
    return a->name() < b->name();
  });
  return Status::Ok();
}

Status StatefulSetController::ClaimPods(Sync& s) {
  const api::Object& set = *s.set;
  auto claimed = ClaimDependents(client_, pods_, set, OwnerSelector(set),
                                 [&](const api::Object& pod) { return IsMemberOf(set, pod); });
  if (!claimed.ok()) return claimed.status();
  s.pods = std::move(claimed).value();
  return Status::Ok();
}

Status StatefulSetController::Revisions(Sync& s) {
  const api::Object& set = *s.set;
  s.collision_count = CollisionCount(set).value_or(0);
  int64_t next = s.revisions.empty() ? 1 : RevisionNumber(*s.revisions.back()) + 1;
  api::ObjectPtr equal;
  for (const auto& r : s.revisions) {
    if (HistoryMatches(set, *r)) equal = r;  // the last (newest) equal one
  }
  if (equal && equal == s.revisions.back()) {
    s.update = equal;  // the template has not changed
  } else if (equal) {
    // An earlier template came back (a rollback): it becomes the newest revision.
    json::object edited = ForUpdate(*equal);
    edited["revision"] = next;
    auto renumbered = client_.Update(api::Kind::kControllerRevision, edited);
    if (!renumbered.ok()) return renumbered.status();
    s.update = renumbered.value();
  } else if (Status st = CreateRevision(s, next); !st.ok()) {
    return st;
  }
  for (const auto& r : s.revisions) {
    if (r->name() == api::StringAt(api::StatusOf(set), "currentRevision")) s.current = r;
  }
  if (!s.current) s.current = s.update;
  s.current_template = RevisionTemplate(*s.current);
  s.update_template = RevisionTemplate(*s.update);
  return Status::Ok();
}

Status StatefulSetController::CreateRevision(Sync& s, int64_t number) {
  const api::Object& set = *s.set;
  const auto* spec = api::Spec(set);
  const json::object* tmpl = spec ? api::ObjectAt(*spec, "template") : nullptr;
  json::object labels;
  const json::object* tmeta = tmpl ? api::ObjectAt(*tmpl, "metadata") : nullptr;
  if (const json::object* l = tmeta ? api::ObjectAt(*tmeta, "labels") : nullptr) labels = *l;
  // kube's CreateControllerRevision: on a name taken by another template,
  // count the collision and try the next hash.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string hash =
        DeploymentController::PodTemplateHash(tmpl ? *tmpl : json::object(), s.collision_count);
    std::string name = set.name() + "-" + hash;
    labels[kControllerRevisionHashLabel] = hash;
    json::object meta{{"name", name},
                      {"namespace", set.namespace_name()},
                      {"labels", labels},
                      {"ownerReferences", json::array{ControllerRef(set)}}};
    if (const auto* m = api::Metadata(set); m && api::ObjectAt(*m, "annotations"))
      meta["annotations"] = *api::ObjectAt(*m, "annotations");
    json::object revision{{"apiVersion", "apps/v1"},
                          {"kind", "ControllerRevision"},
                          {"metadata", std::move(meta)},
                          {"data", HistoryData(set)},
                          {"revision", number}};
    auto created =
        client_.Create(api::Kind::kControllerRevision, set.namespace_name(), std::move(revision));
    if (created.ok()) {
      s.update = created.value();
      s.revisions.push_back(s.update);
      return Status::Ok();
    }
    if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
    auto existing = client_.Get(api::Kind::kControllerRevision, set.namespace_name(), name);
    if (!existing.ok()) return existing.status();
    if (HistoryMatches(set, *existing.value()) &&
        ControllerUid(*existing.value(), kKind) == set.uid()) {
      // Made by an earlier sync the cache has not shown yet.
      s.update = existing.value();
      s.revisions.push_back(s.update);
      return Status::Ok();
    }
    ++s.collision_count;
  }
  return Status::Internal("no free ControllerRevision name for StatefulSet \"" + set.name() + "\"");
}

Status StatefulSetController::TruncateHistory(Sync& s) {
  std::vector<std::string> live{s.current->name(), s.update->name()};
  for (const auto& pod : s.pods) {
    if (auto hash = pod->labels().Get(kControllerRevisionHashLabel)) live.emplace_back(*hash);
  }
  std::vector<api::ObjectPtr> history;
  for (const auto& r : s.revisions) {
    if (std::find(live.begin(), live.end(), r->name()) == live.end()) history.push_back(r);
  }
  int64_t limit = api::IntAt(api::Spec(*s.set), "revisionHistoryLimit", 10);
  int64_t excess = static_cast<int64_t>(history.size()) - limit;
  for (int64_t i = 0; i < excess; ++i) {
    const auto& r = history[static_cast<size_t>(i)];
    Status st = client_.Delete(api::Kind::kControllerRevision, r->namespace_name(), r->name(),
                               {.uid_precondition = r->uid()});
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
  }
  return Status::Ok();
}

}  // namespace berth::controllers
