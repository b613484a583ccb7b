#include "controllers/replicaset/replicaset_controller.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/selector.h"
#include "controllers/owner_references.h"
#include "controllers/parallel.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "ReplicaSet";

int64_t Replicas(const api::Object& rs) { return api::IntAt(api::Spec(rs), "replicas", 1); }

int PhaseRank(std::string_view phase) {
  if (phase == "Pending") return 0;
  if (phase == "Running") return 2;
  return 1;  // Unknown and anything else
}

int64_t RestartCount(const api::Object& pod) {
  int64_t most = 0;
  const auto* status = api::StatusOf(pod);
  const auto* containers = status ? api::ArrayAt(*status, "containerStatuses") : nullptr;
  if (!containers) return 0;
  for (const auto& c : *containers) {
    if (c.is_object()) most = std::max(most, api::IntAt(&c.get_object(), "restartCount"));
  }
  return most;
}


}  // namespace

ReplicaSetController::ReplicaSetController(const ControllerContext& context, int workers)
    : Controller("replicaset", context, workers),
      replicasets_(context.informers.For(api::Kind::kReplicaSet)),
      pods_(context.informers.For(api::Kind::kPod)),
      expectations_(clock_),
      events_(context.events, {"replicaset-controller", ""}) {
  auto enqueue = [this](const api::ObjectPtr& rs) { Enqueue(client::ObjectKey(*rs)); };
  replicasets_.AddHandlers({enqueue, enqueue, [this](const api::ObjectPtr& rs) {
                              expectations_.Forget(client::ObjectKey(*rs));
                              Enqueue(client::ObjectKey(*rs));
                            }});
  pods_.AddHandlers({[this](const api::ObjectPtr& p) { PodAdded(p); },
                     [this](const api::ObjectPtr& p) { PodUpdated(p); },
                     [this](const api::ObjectPtr& p) { PodDeleted(p); }});
}

void ReplicaSetController::PodAdded(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, replicasets_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) {
      expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    } else {
      expectations_.CreationObserved(owner);
    }
    Enqueue(owner);
    return;
  }
  if (ControllerUid(*pod, kKind).empty() && !api::BeingDeleted(*pod)) {
    for (const auto& key : SelectingOwners(*pod, replicasets_)) Enqueue(key);
  }
}

void ReplicaSetController::PodUpdated(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, replicasets_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    Enqueue(owner);
    // A pod that just became ready becomes available minReadySeconds later.
    if (auto rs = replicasets_.Get(owner); rs && api::IsPodReady(*pod)) {
      int64_t min_ready = api::IntAt(api::Spec(*rs), "minReadySeconds");
      if (min_ready > 0) EnqueueAfter(owner, std::chrono::seconds(min_ready) + std::chrono::milliseconds(100));
    }
    return;
  }
  // Labels may have changed: ReplicaSets that may adopt it, and any that released it.
  for (const auto& key : SelectingOwners(*pod, replicasets_)) Enqueue(key);
}

void ReplicaSetController::PodDeleted(const api::ObjectPtr& pod) {
  std::string owner = ControllerKeyByName(*pod, kKind);
  if (owner.empty()) return;
  expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
  Enqueue(owner);
}

std::vector<api::ObjectPtr> ReplicaSetController::RankForDeletion(std::vector<api::ObjectPtr> pods) {
  auto creation = [](const api::Object& p) { return api::StringAt(api::Metadata(p), "creationTimestamp"); };
  std::stable_sort(pods.begin(), pods.end(), [&](const api::ObjectPtr& a, const api::ObjectPtr& b) {
    const auto* va = a->As<api::PodView>();
    const auto* vb = b->As<api::PodView>();
    bool assigned_a = va && !va->node_name.empty(), assigned_b = vb && !vb->node_name.empty();
    if (assigned_a != assigned_b) return !assigned_a;
    int pa = PhaseRank(api::StringAt(api::StatusOf(*a), "phase")), pb = PhaseRank(api::StringAt(api::StatusOf(*b), "phase"));
    if (pa != pb) return pa < pb;
    bool ra = api::IsPodReady(*a), rb = api::IsPodReady(*b);
    if (ra != rb) return !ra;
    if (ra) {
      // Ready for less time first: the later transition sorts first.
      std::string_view sa = api::PodReadySince(*a), sb = api::PodReadySince(*b);
      if (sa != sb) return sa > sb;
    }
    int64_t ca = RestartCount(*a), cb = RestartCount(*b);
    if (ca != cb) return ca > cb;
    std::string_view ta = creation(*a), tb = creation(*b);
    if (ta != tb) return ta > tb;  // newer first
    return a->name() > b->name();
  });
  return pods;
}

Status ReplicaSetController::Reconcile(const std::string& key) {
  api::ObjectPtr rs = replicasets_.Get(key);
  if (!rs) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  api::LabelSelector selector = OwnerSelector(*rs);
  bool needs_sync = expectations_.Satisfied(key);

  // Owned pods, adopting active orphans and releasing pods whose labels stopped matching.
  auto claimed = ClaimDependents(client_, pods_, *rs, selector, nullptr,
                                 [](const api::Object& pod) { return api::IsPodActive(pod); });
  if (!claimed.ok()) return claimed.status();
  const std::vector<api::ObjectPtr> owned = std::move(claimed).value();
  std::vector<api::ObjectPtr> active;
  for (const auto& pod : owned) {
    if (api::IsPodActive(*pod)) active.push_back(pod);
  }

  Status manage;
  if (needs_sync && !api::BeingDeleted(*rs)) manage = ManageReplicas(*rs, key, active);
  Status status = UpdateStatus(*rs, owned);
  if (!manage.ok()) return manage;
  return status;
}

Status ReplicaSetController::ManageReplicas(const api::Object& rs, const std::string& key,
                                            std::vector<api::ObjectPtr>& active) {
  int64_t diff = static_cast<int64_t>(active.size()) - Replicas(rs);
  if (diff < 0) {
    int want = static_cast<int>(std::min<int64_t>(-diff, kBurstReplicas));
    expectations_.ExpectCreations(key, want);
    const auto* spec = api::Spec(rs);
    const json::object* tmpl = spec ? api::ObjectAt(*spec, "template") : nullptr;
    json::object pod;
    json::object meta = tmpl && api::ObjectAt(*tmpl, "metadata") ? *api::ObjectAt(*tmpl, "metadata") : json::object();
    meta.erase("name");
    meta.erase("namespace");
    meta["generateName"] = rs.name() + "-";
    meta["ownerReferences"] = json::array{ControllerRef(rs)};
    pod["metadata"] = std::move(meta);
    pod["spec"] = tmpl && api::ObjectAt(*tmpl, "spec") ? *api::ObjectAt(*tmpl, "spec") : json::object();
    // Slow start: batches of 1, 2, 4, ...; stop at the first batch with a failure.
    int done = 0;
    Status first;
    for (int batch = 1; done < want; batch *= 2) {
      int n = std::min(batch, want - done);
      auto [failed, error] = ParallelFor(n, 16, [&](int64_t) {
        auto created = client_.Create(api::Kind::kPod, rs.namespace_name(), pod);
        if (!created.ok()) {
          expectations_.CreationObserved(key);  // it will never be observed
          events_.Event(rs, "Warning", "FailedCreate",
                        "Error creating: " + created.status().message());
          return created.status();
        }
        events_.Event(rs, "Normal", "SuccessfulCreate", "Created pod: " + created.value()->name());
        return Status::Ok();
      });
      done += n;
      if (failed > 0) {
        first = error;
        break;
      }
    }
    // Creations never attempted will not be observed either.
    for (int i = done; i < want; ++i) expectations_.CreationObserved(key);
    return first;
  }
  if (diff > 0) {
    auto ranked = RankForDeletion(active);
    ranked.resize(static_cast<size_t>(std::min<int64_t>(diff, kBurstReplicas)));
    std::unordered_set<std::string> keys;
    for (const auto& pod : ranked) keys.insert(client::ObjectKey(*pod));
    expectations_.ExpectDeletions(key, keys);
    auto [failed, error] = ParallelFor(static_cast<int64_t>(ranked.size()), 16, [&](int64_t i) {
      const auto& pod = ranked[static_cast<size_t>(i)];
      Status s = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(), {.uid_precondition = pod->uid()});
      if (s.ok()) {
        events_.Event(rs, "Normal", "SuccessfulDelete", "Deleted pod: " + pod->name());
        return s;
      }
      expectations_.DeletionObserved(key, client::ObjectKey(*pod));
      if (s.code() == StatusCode::kNotFound) return Status::Ok();
      events_.Event(rs, "Warning", "FailedDelete", "Error deleting: " + s.message());
      return s;
    });
    return failed > 0 ? error : Status::Ok();
  }
  return Status::Ok();
}

Status ReplicaSetController::UpdateStatus(const api::Object& rs, const std::vector<api::ObjectPtr>& pods) {
  const auto* spec = api::Spec(rs);
  const json::object* tmpl = spec ? api::ObjectAt(*spec, "template") : nullptr;
  const json::object* tmpl_meta = tmpl ? api::ObjectAt(*tmpl, "metadata") : nullptr;
  const json::object* tmpl_labels = tmpl_meta ? api::ObjectAt(*tmpl_meta, "labels") : nullptr;
  int64_t min_ready = api::IntAt(spec, "minReadySeconds");
  auto now = clock_.WallNow();
  int64_t replicas = 0, fully_labeled = 0, ready = 0, available = 0;
  for (const auto& pod : pods) {
    if (!api::IsPodActive(*pod)) continue;
    ++replicas;
    bool full = true;
    if (tmpl_labels) {
      for (const auto& [k, v] : *tmpl_labels) {
        auto have = pod->labels().Get(k);
        if (!v.is_string() || !have || *have != std::string_view(v.get_string())) full = false;
      }
    }
    if (full) ++fully_labeled;
    if (api::IsPodReady(*pod)) {
      ++ready;
      if (api::IsPodAvailable(*pod, min_ready, now)) ++available;
    }
  }
  const auto* status = api::StatusOf(rs);
  int64_t generation = api::Generation(rs);
  if (api::IntAt(status, "replicas") == replicas && api::IntAt(status, "fullyLabeledReplicas") == fully_labeled &&
      api::IntAt(status, "readyReplicas") == ready && api::IntAt(status, "availableReplicas") == available &&
      api::IntAt(status, "observedGeneration") == generation) {
    return Status::Ok();
  }
  json::object next = rs.json();
  json::object& s = api::MutableObject(next, "status");
  s["replicas"] = replicas;
  s["fullyLabeledReplicas"] = fully_labeled;
  s["readyReplicas"] = ready;
  s["availableReplicas"] = available;
  s["observedGeneration"] = generation;
  // kube omits zero counts (omitempty), except replicas.
  for (const char* field : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (api::IntAt(&s, field) == 0) s.erase(field);
  }
  auto written = client_.UpdateStatus(api::Kind::kReplicaSet, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
