#include "controllers/daemonset/daemonset_controller.h"

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <functional>
#include <thread>
#include <unordered_set>

#include "api/json_fields.h"
#include "api/node_view.h"
#include "api/pod_view.h"
#include "api/selector.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/for_update.h"
#include "controllers/owner_references.h"
#include "controllers/parallel.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kKind = "DaemonSet";
constexpr int kCreateParallelism = 16;

const json::object* TemplateOf(const api::Object& ds) {
  const auto* spec = api::Spec(ds);
  return spec ? api::ObjectAt(*spec, "template") : nullptr;
}

bool HasController(const api::Object& o) {
  const auto* view = o.As<api::PodView>();
  return view ? view->ControllerRef() != nullptr : HasControllerRef(o);
}

}  // namespace

DaemonSetController::DaemonSetController(const ControllerContext& context, int workers)
    : Controller("daemonset", context, workers),
      daemonsets_(context.informers.For(api::Kind::kDaemonSet)),
      pods_(context.informers.For(api::Kind::kPod)),
      nodes_(context.informers.For(api::Kind::kNode)),
      revisions_(context.informers.For(api::Kind::kControllerRevision)),
      expectations_(clock_),
      events_(context.events, {"daemonset-controller", ""}) {
  auto enqueue = [this](const api::ObjectPtr& ds) { Enqueue(client::ObjectKey(*ds)); };
  daemonsets_.AddHandlers({enqueue, enqueue, [this](const api::ObjectPtr& ds) {
                             expectations_.Forget(client::ObjectKey(*ds));
                             {
                               std::lock_guard lock(placements_mu_);
                               placements_.erase(ds->uid());
                             }
                             std::lock_guard lock(backoff_mu_);
                             std::erase_if(backoff_, [&](const auto& e) {
                               return e.first.starts_with(ds->uid() + "/");
                             });
                           }});
  pods_.AddHandlers({[this](const api::ObjectPtr& p) { PodAdded(p); },
                     [this](const api::ObjectPtr& p) { PodUpdated(p); },
                     [this](const api::ObjectPtr& p) { PodDeleted(p); }});
  nodes_.AddHandlers({[this](const api::ObjectPtr& n) { NodeAdded(n); },
                      [this](const api::ObjectPtr& n) { NodeUpdated(n); },
                      [this](const api::ObjectPtr& n) { NodeDeleted(n); }});
  // A revision's change (a user deleting one, say) wakes its DaemonSet.
  auto owner = [this](const api::ObjectPtr& revision) {
    const auto* meta = api::Metadata(*revision);
    const auto* refs = meta ? api::ArrayAt(*meta, "ownerReferences") : nullptr;
    if (!refs) return;
    for (const auto& ref : *refs) {
      if (ref.is_object() && api::BoolAt(&ref.get_object(), "controller") &&
          api::StringAt(ref.get_object(), "kind") == kKind) {
        Enqueue(
            client::ObjectKey(revision->namespace_name(), api::StringAt(ref.get_object(), "name")));
      }
    }
  };
  revisions_.AddHandlers({owner, owner, owner});
}

std::shared_ptr<const DaemonPlacement> DaemonSetController::PlacementOf(const api::Object& ds) {
  {
    std::lock_guard lock(placements_mu_);
    auto it = placements_.find(ds.uid());
    if (it != placements_.end() && it->second.first == ds.resource_version())
      return it->second.second;
  }
  auto placement = DaemonPlacement::For(ds);
  if (!placement.ok()) return nullptr;
  std::lock_guard lock(placements_mu_);
  placements_[ds.uid()] = {ds.resource_version(), placement.value()};
  return placement.value();
}

// ---- event handlers ----

void DaemonSetController::NodeAdded(const api::ObjectPtr& node) {
  {
    std::lock_guard lock(seen_nodes_mu_);
    seen_nodes_[node->name()] = node;
  }
  for (const auto& ds : daemonsets_.List()) {
    auto placement = PlacementOf(*ds);
    if (placement && placement->Evaluate(*node).should_run) Enqueue(client::ObjectKey(*ds));
  }
}

void DaemonSetController::NodeUpdated(const api::ObjectPtr& node) {
  api::ObjectPtr old;
  {
    std::lock_guard lock(seen_nodes_mu_);
    api::ObjectPtr& seen = seen_nodes_[node->name()];
    old = std::move(seen);
    seen = node;
  }
  const auto* before = old ? old->As<api::NodeView>() : nullptr;
  const auto* after = node->As<api::NodeView>();
  // Only labels and taints decide (heartbeats and status do not).
  if (before && after && old->labels() == node->labels() && before->taints == after->taints) return;
  for (const auto& ds : daemonsets_.List()) {
    auto placement = PlacementOf(*ds);
    if (!placement) continue;
    if (!old || placement->Evaluate(*old) != placement->Evaluate(*node))
      Enqueue(client::ObjectKey(*ds));
  }
}

void DaemonSetController::NodeDeleted(const api::ObjectPtr& node) {
  {
    std::lock_guard lock(seen_nodes_mu_);
    seen_nodes_.erase(node->name());
  }
  for (const auto& ds : daemonsets_.List()) Enqueue(client::ObjectKey(*ds));
}

void DaemonSetController::PodAdded(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, daemonsets_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) {
      expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    } else {
      expectations_.CreationObserved(owner);
    }
    Enqueue(owner);
    return;
  }
  if (!HasController(*pod) && !api::BeingDeleted(*pod)) {
    for (const auto& key : SelectingOwners(*pod, daemonsets_)) Enqueue(key);
  }
}

void DaemonSetController::PodUpdated(const api::ObjectPtr& pod) {
  if (std::string owner = LiveControllerKey(*pod, kKind, daemonsets_); !owner.empty()) {
    if (api::BeingDeleted(*pod)) expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
    Enqueue(owner);
    // A pod that just became ready becomes available minReadySeconds later.
    if (auto ds = daemonsets_.Get(owner); ds && api::IsPodReady(*pod)) {
      int64_t min_ready = api::IntAt(api::Spec(*ds), "minReadySeconds");
      if (min_ready > 0)
        EnqueueAfter(owner, std::chrono::seconds(min_ready) + std::chrono::seconds(1));
    }
    return;
  }
  if (!HasController(*pod)) {
    for (const auto& key : SelectingOwners(*pod, daemonsets_)) Enqueue(key);
  }
}

void DaemonSetController::PodDeleted(const api::ObjectPtr& pod) {
  std::string owner = ControllerKeyByName(*pod, kKind);
  if (owner.empty()) return;
  expectations_.DeletionObserved(owner, client::ObjectKey(*pod));
  Enqueue(owner);
}

// ---- sync ----

Status DaemonSetController::Reconcile(const std::string& key) {
  api::ObjectPtr ds = daemonsets_.Get(key);
  if (!ds) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  if (api::BeingDeleted(*ds)) return Status::Ok();
  Sync s;
  s.ds = ds;
  s.key = key;
  s.placement = PlacementOf(*ds);
  if (!s.placement)
    return Status::Ok();  // a template that is not a pod: validation keeps these out
  if (Status st = ConstructHistory(s); !st.ok()) return st;
  if (Status st = ClaimPods(s); !st.ok()) return st;
  BuildNodes(s);
  if (!expectations_.Satisfied(key)) return UpdateStatus(s, false);
  if (Status st = Manage(s); !st.ok()) return st;
  if (expectations_.Satisfied(key)) {
    if (Status st = RollingUpdate(s); !st.ok()) return st;
  }
  if (Status st = CleanupHistory(s); !st.ok()) return st;
  return UpdateStatus(s, true);
}

Status DaemonSetController::ClaimPods(Sync& s) {
  auto owned = ClaimDependents(client_, pods_, *s.ds, OwnerSelector(*s.ds));
  if (!owned.ok()) return owned.status();
  for (auto& pod : owned.value()) {
    std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
    // Finished and being deleted: nothing left to do with it.
    if ((phase == "Succeeded" || phase == "Failed") && api::BeingDeleted(*pod)) continue;
    s.pods.push_back(std::move(pod));
  }
  return Status::Ok();
}

void DaemonSetController::BuildNodes(Sync& s) {
  std::unordered_map<std::string, std::vector<api::ObjectPtr>> by_node;
  for (const auto& pod : s.pods) {
    std::string node = TargetNodeName(*pod);
    if (!node.empty()) by_node[node].push_back(pod);
  }
  auto nodes = nodes_.List();
  s.nodes.reserve(nodes.size() + 1);
  for (const auto& node : nodes) {
    DaemonNode n{node->name(), true, s.placement->Evaluate(*node), {}};
    if (auto it = by_node.find(node->name()); it != by_node.end()) {
      n.pods = std::move(it->second);
      by_node.erase(it);
    }
    s.nodes.push_back(std::move(n));
  }
  for (auto& [name, pods] : by_node)
    s.nodes.push_back(DaemonNode{name, false, {}, std::move(pods)});
  std::sort(s.nodes.begin(), s.nodes.end(),
            [](const DaemonNode& a, const DaemonNode& b) { return a.name < b.name; });
  for (auto& n : s.nodes) {
    if (n.pods.size() > 1) SortDaemonPods(n.pods);
  }
}

bool DaemonSetController::FailedPodBackoffAllows(const std::string& key,
                                                 std::chrono::milliseconds& wait) {
  std::lock_guard lock(backoff_mu_);
  auto now = clock_.Now();
  auto it = backoff_.find(key);
  if (it != backoff_.end()) {
    auto since = std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second.last);
    if (since < it->second.delay) {
      wait = it->second.delay - since;
      return false;
    }
  }
  Backoff& b = backoff_[key];
  // kube's flowcontrol.Backoff: doubling, reset after twice the maximum without failures.
  if (it == backoff_.end() || now - b.last > 2 * kFailedPodBackoffMax) {
    b.delay = kFailedPodBackoffInitial;
  } else {
    b.delay = std::min<std::chrono::milliseconds>(b.delay * 2, kFailedPodBackoffMax);
  }
  b.last = now;
  return true;
}

Status DaemonSetController::Manage(Sync& s) {
  const api::Object& ds = *s.ds;
  int64_t min_ready = api::IntAt(api::Spec(ds), "minReadySeconds");
  DaemonPlan plan = PlanManage(s.nodes, s.hash, AllowsSurge(ds), min_ready, clock_.WallNow());
  for (const auto& pod : plan.failed_pods) {
    std::string node = TargetNodeName(*pod);
    std::chrono::milliseconds wait{0};
    if (!FailedPodBackoffAllows(ds.uid() + "/" + node, wait)) {
      EnqueueAfter(s.key, wait);
      continue;
    }
    events_.Event(ds, "Warning", "FailedDaemonPod",
                  "Found failed daemon pod " + pod->namespace_name() + "/" + pod->name() +
                      " on node " + node + ", will try to kill it");
    plan.delete_pods.push_back(pod);
  }
  for (const auto& pod : plan.succeeded_pods) {
    events_.Event(ds, "Normal", "SucceededDaemonPod",
                  "Found succeeded daemon pod " + pod->namespace_name() + "/" + pod->name() +
                      " on node " + TargetNodeName(*pod) + ", will try to delete it");
    plan.delete_pods.push_back(pod);
  }
  return SyncNodes(s, plan.delete_pods, plan.create_on);
}

Status DaemonSetController::RollingUpdate(Sync& s) {
  const api::Object& ds = *s.ds;
  const auto* spec = api::Spec(ds);
  std::string_view type =
      api::StringAt(spec ? api::ObjectAt(*spec, "updateStrategy") : nullptr, "type");
  if (!type.empty() && type != "RollingUpdate")
    return Status::Ok();  // OnDelete: users delete old pods
  int64_t desired = 0;
  for (const auto& n : s.nodes) desired += n.exists && n.fit.should_run;
  auto limits = RollingUpdateLimits(ds, desired);
  if (!limits.ok()) return limits.status();
  DaemonPlan plan = PlanRollingUpdate(s.nodes, s.hash, limits.value(),
                                      api::IntAt(spec, "minReadySeconds"), clock_.WallNow());
  if (plan.delete_pods.empty() && plan.create_on.empty()) return Status::Ok();
  return SyncNodes(s, plan.delete_pods, plan.create_on);
}

Status DaemonSetController::SyncNodes(Sync& s, const std::vector<api::ObjectPtr>& to_delete,
                                      const std::vector<std::string>& create_on) {
  const api::Object& ds = *s.ds;
  const int creates = static_cast<int>(std::min<size_t>(create_on.size(), kBurstReplicas));
  const int deletes = static_cast<int>(std::min<size_t>(to_delete.size(), kBurstReplicas));
  if (creates == 0 && deletes == 0) return Status::Ok();
  std::unordered_set<std::string> deleting;
  for (int i = 0; i < deletes; ++i)
    deleting.insert(client::ObjectKey(*to_delete[static_cast<size_t>(i)]));
  expectations_.ExpectCreations(s.key, creates);
  expectations_.ExpectDeletions(s.key, deleting);

  Status first;
  if (creates > 0) {
    // The pod every creation starts from: the template, its labels, the daemon tolerations, the
    // owner.
    const json::object* tmpl = TemplateOf(ds);
    json::object meta = tmpl && api::ObjectAt(*tmpl, "metadata") ? *api::ObjectAt(*tmpl, "metadata")
                                                                 : json::object();
    meta.erase("name");
    meta.erase("namespace");
    meta.erase("creationTimestamp");
    json::object& labels = api::MutableObject(meta, "labels");
    labels[kControllerRevisionHashLabel] = s.hash;
    // kube writes the template generation its API server keeps in an
    // annotation; berth's does not keep one, so the revision number stands in.
    std::string_view generation = api::Annotation(ds, kTemplateGenerationAnnotation);
    labels[kPodTemplateGenerationLabel] =
        generation.empty() ? std::to_string(RevisionNumber(*s.current)) : std::string(generation);
    meta["generateName"] = ds.name() + "-";
    meta["ownerReferences"] = json::array{ControllerRef(ds)};
    json::object spec =
        tmpl && api::ObjectAt(*tmpl, "spec") ? *api::ObjectAt(*tmpl, "spec") : json::object();
    AddDaemonPodTolerations(spec);
    const json::object base{{"metadata", std::move(meta)}, {"spec", std::move(spec)}};

    // Slow start: batches of 1, 2, 4, ...; stop at the first batch with a failure.
    int done = 0;
    for (int batch = 1; done < creates; batch *= 2) {
      int n = std::min(batch, creates - done);
      auto [failed, error] = ParallelFor(n, kCreateParallelism, [&](int64_t i) {
        json::object pod = base;
        PinToNode(pod["spec"].as_object(), create_on[static_cast<size_t>(done + i)]);
        auto created = client_.Create(api::Kind::kPod, ds.namespace_name(), std::move(pod));
        if (!created.ok()) {
          expectations_.CreationObserved(s.key);  // it will never be observed
          events_.Event(ds, "Warning", "FailedCreate",
                        "Error creating: " + created.status().message());
          return created.status();
        }
        events_.Event(ds, "Normal", "SuccessfulCreate", "Created pod: " + created.value()->name());
        return Status::Ok();
      });
      done += n;
      if (failed > 0) {
        first = error;
        break;
      }
    }
    // Creations never attempted will not be observed either.
    for (int i = done; i < creates; ++i) expectations_.CreationObserved(s.key);
  }
  if (deletes > 0) {
    auto [failed, error] = ParallelFor(deletes, kCreateParallelism, [&](int64_t i) {
      const auto& pod = to_delete[static_cast<size_t>(i)];
      Status st = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(),
                                 {.uid_precondition = pod->uid()});
      if (st.ok()) {
        events_.Event(ds, "Normal", "SuccessfulDelete", "Deleted pod: " + pod->name());
        return st;
      }
      expectations_.DeletionObserved(s.key, client::ObjectKey(*pod));
      if (st.code() == StatusCode::kNotFound) return Status::Ok();
      events_.Event(ds, "Warning", "FailedDelete", "Error deleting: " + st.message());
      return st;
    });
    if (failed > 0 && first.ok()) first = error;
  }
  return first;
}

}  // namespace berth::controllers
