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
#include "controllers/replicaset/replica_status.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

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

// The pod `owner` creates: its template's metadata and spec, named after
// it and controlled by it.
json::object PodFromTemplate(const api::Object& owner) {
  const json::object* tmpl = api::ObjectAt(api::Spec(owner), "template");
  json::object pod;
  const json::object* tmpl_meta = api::ObjectAt(tmpl, "metadata");
  json::object meta = tmpl_meta ? *tmpl_meta : json::object();
  meta.erase("name");
  meta.erase("namespace");
  meta["generateName"] = owner.name() + "-";
  meta["ownerReferences"] = json::array{ControllerRef(owner)};
  pod["metadata"] = std::move(meta);
  const json::object* tmpl_spec = api::ObjectAt(tmpl, "spec");
  pod["spec"] = tmpl_spec ? *tmpl_spec : json::object();
  return pod;
}

}  // namespace

ReplicaSetController::ReplicaSetController(const ControllerContext& context, const ReplicatedKind& owners,
                                           int workers)
    : Controller(std::string(owners.queue_name), context, workers),
      kind_(owners),
      kind_name_(api::Info(owners.kind).name),
      owners_(context.informers.For(owners.kind)),
      pods_(context.informers.For(api::Kind::kPod)),
      expectations_(clock_),
      events_(context.events, {std::string(owners.event_source), ""}) {
  auto enqueue = [this](const api::ObjectPtr& owner) { Enqueue(client::ObjectKey(*owner)); };
  owners_.AddHandlers({enqueue, enqueue, [this](const api::ObjectPtr& owner) {
                         expectations_.Forget(client::ObjectKey(*owner));
                         Enqueue(client::ObjectKey(*owner));
                       }});
  pods_.AddHandlers({[this](const api::ObjectPtr& p) { PodAdded(p); },
                     [this](const api::ObjectPtr& p) { PodUpdated(p); },
                     [this](const api::ObjectPtr& p) { PodDeleted(p); }});
}

void ReplicaSetController::PodAdded(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kind_name_, owners_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) {
      expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    } else {
      expectations_.CreationObserved(owner);
    }
    Enqueue(owner);
    return;
  }
  if (ControllerUid(*pod, kind_name_).empty() && !api::BeingDeleted(*pod)) {
    for (const auto& key : SelectingOwners(*pod, owners_)) Enqueue(key);
  }
}

void ReplicaSetController::PodUpdated(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kind_name_, owners_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    Enqueue(owner);
    // A pod that just became ready becomes available minReadySeconds later.
    if (auto cached = owners_.Get(owner); cached && api::IsPodReady(*pod)) {
      int64_t min_ready = api::IntAt(api::Spec(*cached), "minReadySeconds");
      if (min_ready > 0) EnqueueAfter(owner, std::chrono::seconds(min_ready) + std::chrono::milliseconds(100));
    }
    return;
  }
  // Labels may have changed: owners that may adopt it, and any that released it.
  for (const auto& key : SelectingOwners(*pod, owners_)) Enqueue(key);
}

void ReplicaSetController::PodDeleted(const api::ObjectPtr& pod) {
  std::string owner = ControllerKeyByName(*pod, kind_name_);
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
  api::ObjectPtr owner = owners_.Get(key);
  if (!owner) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  bool needs_sync = expectations_.Satisfied(key);

  // Owned pods, adopting active orphans and releasing pods whose labels stopped matching.
  auto claimed = ClaimDependents(client_, pods_, *owner, OwnerSelector(*owner), nullptr,
                                 [](const api::Object& pod) { return api::IsPodActive(pod); });
  if (!claimed.ok()) return claimed.status();
  std::vector<api::ObjectPtr> active;
  for (const auto& pod : claimed.value()) {
    if (api::IsPodActive(*pod)) active.push_back(pod);
  }

  Status manage;
  if (needs_sync && !api::BeingDeleted(*owner)) manage = ManageReplicas(*owner, key, active);
  json::object status = CalculateStatus(*owner, active, manage, clock_.WallNow());
  Status written = UpdateStatus(*owner, status);
  if (!manage.ok()) return manage;
  RecheckAvailability(*owner, key, status);
  return written;
}

void ReplicaSetController::RecheckAvailability(const api::Object& owner, const std::string& key,
                                               const json::object& status) {
  // kube's syncReplicaSet: every replica ready but not all available yet
  // (minReadySeconds): look again then, whatever the pods' events were (a
  // pod's Ready may have been seen while the owner still had no
  // minReadySeconds, so no look was scheduled for it).
  const int64_t min_ready = api::IntAt(api::Spec(owner), "minReadySeconds");
  if (min_ready <= 0) return;
  const int64_t replicas = api::IntAt(api::Spec(owner), "replicas", 1);
  if (api::IntAt(&status, "readyReplicas") == replicas && api::IntAt(&status, "availableReplicas") != replicas) {
    EnqueueAfter(key, std::chrono::seconds(min_ready));
  }
}

Status ReplicaSetController::ManageReplicas(const api::Object& owner, const std::string& key,
                                            const std::vector<api::ObjectPtr>& active) {
  int64_t diff = static_cast<int64_t>(active.size()) - DesiredReplicas(owner);
  if (diff < 0) return CreateReplicas(owner, key, static_cast<int>(std::min<int64_t>(-diff, kBurstReplicas)));
  if (diff > 0) return DeleteReplicas(owner, key, active, static_cast<int>(std::min<int64_t>(diff, kBurstReplicas)));
  return Status::Ok();
}

Status ReplicaSetController::CreateReplicas(const api::Object& owner, const std::string& key, int count) {
  expectations_.ExpectCreations(key, count);
  const json::object pod = PodFromTemplate(owner);
  // Slow start: batches of 1, 2, 4, ...; stop at the first batch with a failure.
  int done = 0;
  Status first;
  for (int batch = 1; done < count; batch *= 2) {
    int n = std::min(batch, count - done);
    auto [failed, error] = ParallelFor(n, 16, [&](int64_t) {
      auto created = client_.Create(api::Kind::kPod, owner.namespace_name(), pod);
      if (!created.ok()) {
        expectations_.CreationObserved(key);  // it will never be observed
        events_.Event(owner, "Warning", "FailedCreate", "Error creating: " + created.status().message());
        return created.status();
      }
      events_.Event(owner, "Normal", "SuccessfulCreate", "Created pod: " + created.value()->name());
      return Status::Ok();
    });
    done += n;
    if (failed > 0) {
      first = error;
      break;
    }
  }
  // Creations never attempted will not be observed either.
  for (int i = done; i < count; ++i) expectations_.CreationObserved(key);
  return first;
}

Status ReplicaSetController::DeleteReplicas(const api::Object& owner, const std::string& key,
                                            const std::vector<api::ObjectPtr>& active, int count) {
  auto ranked = RankForDeletion(active);
  ranked.resize(static_cast<size_t>(count));
  std::unordered_set<std::string> keys;
  for (const auto& pod : ranked) keys.insert(client::ObjectKey(*pod));
  expectations_.ExpectDeletions(key, keys);
  auto [failed, error] = ParallelFor(static_cast<int64_t>(ranked.size()), 16, [&](int64_t i) {
    const auto& pod = ranked[static_cast<size_t>(i)];
    Status s = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(), {.uid_precondition = pod->uid()});
    if (s.ok()) {
      events_.Event(owner, "Normal", "SuccessfulDelete", "Deleted pod: " + pod->name());
      return s;
    }
    expectations_.DeletionObserved(key, client::ObjectKey(*pod));
    if (s.code() == StatusCode::kNotFound) return Status::Ok();
    events_.Event(owner, "Warning", "FailedDelete", "Error deleting: " + s.message());
    return s;
  });
  return failed > 0 ? error : Status::Ok();
}

Status ReplicaSetController::UpdateStatus(const api::Object& owner, const json::object& status) {
  if (!StatusDiffers(api::StatusOf(owner), status)) return Status::Ok();
  json::object next = owner.json();
  next["status"] = status;
  auto written = client_.UpdateStatus(kind_.kind, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
