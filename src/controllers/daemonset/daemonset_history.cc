// The DaemonSet controller's ControllerRevisions (kube's constructHistory,
// snapshot, dedupCurHistories, cleanupHistory) and its status write.

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <unordered_set>

#include "api/json_fields.h"
#include "api/selector.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "DaemonSet";

}  // namespace

Status DaemonSetController::ConstructHistory(Sync& s) {
  const api::Object& ds = *s.ds;
  // Orphaned revisions the selector matches are adopted (kube's ClaimControllerRevisions).
  auto claimed = ClaimDependents(client_, revisions_, ds, OwnerSelector(ds));
  if (!claimed.ok()) return claimed.status();
  const std::vector<api::ObjectPtr>& histories = claimed.value();
  std::vector<api::ObjectPtr> current;
  for (const auto& h : histories) {
    (HistoryMatches(ds, *h) ? current : s.old).push_back(h);
  }
  int64_t next_revision = 1;
  for (const auto& h : s.old) next_revision = std::max(next_revision, RevisionNumber(*h) + 1);

  if (current.empty()) {
    if (Status st = Snapshot(s, next_revision); !st.ok()) return st;
  } else {
    // Several revisions hold this template (a hash collision resolved
    // twice, say): keep the newest, move pods of the others onto its hash.
    api::ObjectPtr keep = current.front();
    for (const auto& h : current) {
      if (RevisionNumber(*h) >= RevisionNumber(*keep)) keep = h;
    }
    std::string keep_hash = RevisionHash(*keep);
    for (const auto& h : current) {
      if (h == keep) continue;
      std::string dup_hash = RevisionHash(*h);
      for (const auto& pod : pods_.ByIndex(client::kOwnerUidIndex, ds.uid())) {
        auto have = pod->labels().Get(kControllerRevisionHashLabel);
        if (!have || *have != dup_hash || dup_hash == keep_hash) continue;
        json::object edited = ForUpdate(*pod);
        api::MutableObject(api::MutableObject(edited, "metadata"),
                           "labels")[kControllerRevisionHashLabel] = keep_hash;
        auto relabeled = client_.Update(api::Kind::kPod, edited);
        if (!relabeled.ok() && relabeled.status().code() != StatusCode::kNotFound)
          return relabeled.status();
      }
      Status st = client_.Delete(api::Kind::kControllerRevision, h->namespace_name(), h->name(),
                                 {.uid_precondition = h->uid()});
      if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    }
    s.current = keep;
    // A template that comes back (rollback) becomes the newest revision.
    if (RevisionNumber(*keep) < next_revision) {
      json::object edited = ForUpdate(*keep);
      edited["revision"] = next_revision;
      auto renumbered = client_.Update(api::Kind::kControllerRevision, edited);
      if (!renumbered.ok()) return renumbered.status();
      s.current = renumbered.value();
    }
  }
  s.hash = RevisionHash(*s.current);
  return Status::Ok();
}

Status DaemonSetController::Snapshot(Sync& s, int64_t revision) {
  const api::Object& ds = *s.ds;
  const auto* spec = api::Spec(ds);
  const json::object* tmpl = spec ? api::ObjectAt(*spec, "template") : nullptr;
  std::optional<int64_t> collisions = CollisionCount(ds);
  std::string hash =
      DeploymentController::PodTemplateHash(tmpl ? *tmpl : json::object(), collisions.value_or(0));
  std::string name = ds.name() + "-" + hash;

  json::object labels;
  const json::object* tmeta = tmpl ? api::ObjectAt(*tmpl, "metadata") : nullptr;
  if (const json::object* l = tmeta ? api::ObjectAt(*tmeta, "labels") : nullptr) labels = *l;
  labels[kControllerRevisionHashLabel] = hash;
  json::object meta{{"name", name},
                    {"namespace", ds.namespace_name()},
                    {"labels", std::move(labels)},
                    {"ownerReferences", json::array{ControllerRef(ds)}}};
  if (const auto* m = api::Metadata(ds); m && api::ObjectAt(*m, "annotations")) {
    meta["annotations"] = *api::ObjectAt(*m, "annotations");
  }
  json::object history{{"apiVersion", "apps/v1"},
                       {"kind", "ControllerRevision"},
                       {"metadata", std::move(meta)},
                       {"data", HistoryData(ds)},
                       {"revision", revision}};
  auto created =
      client_.Create(api::Kind::kControllerRevision, ds.namespace_name(), std::move(history));
  if (created.ok()) {
    s.current = created.value();
    return Status::Ok();
  }
  if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
  // Created by an earlier sync the informer has not shown yet, or a
  // namesake with another template: a hash collision.
  auto existing = client_.Get(api::Kind::kControllerRevision, ds.namespace_name(), name);
  if (!existing.ok()) return existing.status();
  if (HistoryMatches(ds, *existing.value()) &&
      ControllerUid(*existing.value(), kKind) == ds.uid()) {
    s.current = existing.value();
    return Status::Ok();
  }
  auto fresh = client_.Get(api::Kind::kDaemonSet, ds.namespace_name(), ds.name());
  if (!fresh.ok()) return fresh.status();
  if (CollisionCount(*fresh.value()) != collisions) {
    return Status::Conflict(
        "found a stale collision count (" + std::to_string(collisions.value_or(0)) + ", expected " +
        std::to_string(CollisionCount(*fresh.value()).value_or(0)) + ") of DaemonSet \"" +
        ds.name() + "\" while processing; will retry until it is updated");
  }
  json::object next = ForUpdate(*fresh.value());
  api::MutableObject(next, "status")["collisionCount"] = collisions.value_or(0) + 1;
  auto written = client_.UpdateStatus(api::Kind::kDaemonSet, next);
  if (!written.ok()) return written.status();
  return created.status();
}

Status DaemonSetController::CleanupHistory(Sync& s) {
  int64_t keep = api::IntAt(api::Spec(*s.ds), "revisionHistoryLimit", 10);
  int64_t to_kill = static_cast<int64_t>(s.old.size()) - keep;
  if (to_kill <= 0) return Status::Ok();
  // Revisions that pods still run stay.
  std::unordered_set<std::string> live;
  for (const auto& pod : s.pods) {
    if (auto hash = pod->labels().Get(kControllerRevisionHashLabel); hash && !hash->empty())
      live.emplace(*hash);
  }
  std::vector<api::ObjectPtr> old = s.old;
  std::sort(old.begin(), old.end(), [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
    return RevisionNumber(*a) < RevisionNumber(*b);
  });
  for (const auto& h : old) {
    if (to_kill <= 0) break;
    if (live.count(RevisionHash(*h))) continue;
    Status st = client_.Delete(api::Kind::kControllerRevision, h->namespace_name(), h->name(),
                               {.uid_precondition = h->uid()});
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    --to_kill;
  }
  return Status::Ok();
}

Status DaemonSetController::UpdateStatus(Sync& s, bool observed) {
  const api::Object& ds = *s.ds;
  int64_t min_ready = api::IntAt(api::Spec(ds), "minReadySeconds");
  DaemonCounts c = CountDaemonPods(s.nodes, s.hash, min_ready, clock_.WallNow());
  const auto* status = api::StatusOf(ds);
  int64_t generation = api::Generation(ds);
  const std::pair<const char*, int64_t> fields[] = {
      {"desiredNumberScheduled", c.desired},  {"currentNumberScheduled", c.current},
      {"numberMisscheduled", c.misscheduled}, {"numberReady", c.ready},
      {"updatedNumberScheduled", c.updated},  {"numberAvailable", c.available},
      {"numberUnavailable", c.unavailable},
  };
  bool same = !observed || api::IntAt(status, "observedGeneration") == generation;
  for (const auto& [field, value] : fields) same = same && api::IntAt(status, field) == value;
  if (min_ready > 0 && c.ready != c.available) EnqueueAfter(s.key, std::chrono::seconds(min_ready));
  if (same) return Status::Ok();

  auto write = [&](const api::Object& onto) {
    json::object next = ForUpdate(onto);
    json::object& st = api::MutableObject(next, "status");
    for (const auto& [field, value] : fields) st[field] = value;
    if (observed) st["observedGeneration"] = generation;
    // kube omits these when zero (omitempty); the first four it always writes.
    for (const char* field :
         {"updatedNumberScheduled", "numberAvailable", "numberUnavailable", "observedGeneration"}) {
      if (api::IntAt(&st, field) == 0) st.erase(field);
    }
    return client_.UpdateStatus(api::Kind::kDaemonSet, next);
  };
  auto written = write(ds);
  if (!written.ok() && written.status().code() == StatusCode::kConflict) {
    // Most often our own last status write, not yet in the cache: as kube,
    // read the DaemonSet again and retry once if its spec is the one counted.
    auto fresh = client_.Get(api::Kind::kDaemonSet, ds.namespace_name(), ds.name());
    if (!fresh.ok())
      return fresh.status().code() == StatusCode::kNotFound ? Status::Ok() : fresh.status();
    if (fresh.value()->uid() != ds.uid() || api::Generation(*fresh.value()) != generation)
      return written.status();
    written = write(*fresh.value());
  }
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
