#include "controllers/daemonset/daemonset_sync.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/pod_view.h"
#include "controllers/deployment/deployment_controller.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

bool Deleting(const api::Object& pod) { return api::BeingDeleted(pod); }
std::string_view Phase(const api::Object& pod) {
  return api::StringAt(api::StatusOf(pod), "phase");
}
std::string_view Created(const api::Object& pod) {
  return api::StringAt(api::Metadata(pod), "creationTimestamp");
}
bool Scheduled(const api::Object& pod) {
  const auto* view = pod.As<api::PodView>();
  return view && !view->node_name.empty();
}

// kube's findUpdatedPodsOnNode: at most one new and one old pod not being
// deleted; false when there are more (the manage step cleans those up).
bool UpdatedAndOld(const DaemonNode& node, std::string_view hash, api::ObjectPtr& updated,
                   api::ObjectPtr& old) {
  for (const auto& pod : node.pods) {
    if (Deleting(*pod)) continue;
    api::ObjectPtr& slot = IsPodUpdated(*pod, hash) ? updated : old;
    if (slot) return false;
    slot = pod;
  }
  return true;
}

bool Wanted(const DaemonNode& node) { return node.exists && node.fit.should_run; }

}  // namespace

void SortDaemonPods(std::vector<api::ObjectPtr>& pods) {
  std::sort(pods.begin(), pods.end(), [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
    bool sa = Scheduled(*a), sb = Scheduled(*b);
    if (sa != sb) return sa;
    std::string_view ca = Created(*a), cb = Created(*b);
    if (ca != cb) return ca < cb;
    return a->name() < b->name();
  });
}

// kube also counts a pod whose pod-template-generation label equals the
// DaemonSet's template generation as updated, but compares the label with
// a printed pointer, so in effect only the hash decides; so here.
bool IsPodUpdated(const api::Object& pod, std::string_view hash) {
  auto have = pod.labels().Get(kControllerRevisionHashLabel);
  return !hash.empty() && have && *have == hash;
}

Result<RollingLimits> RollingUpdateLimits(const api::Object& daemon_set, int64_t desired) {
  const json::object* spec = api::Spec(daemon_set);
  const json::object* strategy = spec ? api::ObjectAt(*spec, "updateStrategy") : nullptr;
  std::string_view type = api::StringAt(strategy, "type");
  RollingLimits limits;
  if (!type.empty() && type != "RollingUpdate") return limits;
  const json::object* rolling = strategy ? api::ObjectAt(*strategy, "rollingUpdate") : nullptr;
  auto unavailable = DeploymentController::ResolveIntOrPercent(
      rolling ? rolling->if_contains("maxUnavailable") : nullptr, desired, true, 0);
  auto surge = DeploymentController::ResolveIntOrPercent(
      rolling ? rolling->if_contains("maxSurge") : nullptr, desired, true, 0);
  if (!unavailable.ok()) return unavailable.status();
  if (!surge.ok()) return surge.status();
  limits.max_unavailable = unavailable.value();
  limits.max_surge = surge.value();
  if (limits.max_unavailable == 0 && limits.max_surge == 0) limits.max_unavailable = 1;
  return limits;
}

bool AllowsSurge(const api::Object& daemon_set) {
  const json::object* spec = api::Spec(daemon_set);
  const json::object* strategy = spec ? api::ObjectAt(*spec, "updateStrategy") : nullptr;
  std::string_view type = api::StringAt(strategy, "type");
  if (!type.empty() && type != "RollingUpdate") return false;
  const json::object* rolling = strategy ? api::ObjectAt(*strategy, "rollingUpdate") : nullptr;
  auto surge = DeploymentController::ResolveIntOrPercent(
      rolling ? rolling->if_contains("maxSurge") : nullptr, 1, true, 0);
  return surge.ok() && surge.value() > 0;
}

DaemonPlan PlanManage(const std::vector<DaemonNode>& nodes, std::string_view hash,
                      bool allows_surge, int64_t min_ready_seconds, WallTime now) {
  DaemonPlan plan;
  for (const auto& node : nodes) {
    if (!node.exists) {
      // Pods for a node that is gone: the unscheduled ones can never run
      // (kube's getUnscheduledPodsWithoutNode); bound ones are the pod
      // garbage collector's.
      for (const auto& pod : node.pods) {
        if (!Scheduled(*pod) && !Deleting(*pod)) plan.delete_pods.push_back(pod);
      }
      continue;
    }
    if (node.fit.should_run && node.pods.empty()) {
      plan.create_on.push_back(node.name);
      continue;
    }
    if (!node.fit.should_continue_running) {
      for (const auto& pod : node.pods) {
        if (!Deleting(*pod)) plan.delete_pods.push_back(pod);
      }
      continue;
    }
    std::vector<api::ObjectPtr> running;
    for (const auto& pod : node.pods) {
      if (Deleting(*pod)) continue;
      std::string_view phase = Phase(*pod);
      if (phase == "Failed") {
        plan.failed_pods.push_back(pod);
      } else if (phase == "Succeeded") {
        plan.succeeded_pods.push_back(pod);
      } else {
        running.push_back(pod);
      }
    }
    if (running.size() <= 1) continue;
    SortDaemonPods(running);
    if (!allows_surge) {
      // One pod a node: the oldest stays.
      plan.delete_pods.insert(plan.delete_pods.end(), running.begin() + 1, running.end());
      continue;
    }
    // With surge, the oldest old pod and the oldest new pod may both stay
    // while the new one is not yet available (and the old one is ready).
    api::ObjectPtr oldest_new, oldest_old;
    for (const auto& pod : running) {
      api::ObjectPtr& slot = IsPodUpdated(*pod, hash) ? oldest_new : oldest_old;
      if (!slot) {
        slot = pod;
      } else {
        plan.delete_pods.push_back(pod);
      }
    }
    if (oldest_new && oldest_old &&
        (!api::IsPodReady(*oldest_old) ||
         api::IsPodAvailable(*oldest_new, min_ready_seconds, now))) {
      plan.delete_pods.push_back(oldest_old);
    }
  }
  return plan;
}

DaemonPlan PlanRollingUpdate(const std::vector<DaemonNode>& nodes, std::string_view hash,
                             const RollingLimits& limits, int64_t min_ready_seconds, WallTime now) {
  DaemonPlan plan;
  auto available = [&](const api::Object& pod) {
    return api::IsPodAvailable(pod, min_ready_seconds, now);
  };
  if (limits.max_surge == 0) {
    int64_t unavailable = 0;
    std::vector<api::ObjectPtr> replace, candidates;
    for (const auto& node : nodes) {
      if (!Wanted(node) && node.pods.empty()) continue;
      api::ObjectPtr updated, old;
      if (!UpdatedAndOld(node, hash, updated, old) || (updated && old) || (!updated && !old)) {
        // The manage step creates or deletes here: count the node as unavailable.
        ++unavailable;
      } else if (updated) {
        if (!available(*updated)) ++unavailable;
      } else if (!available(*old)) {
        replace.push_back(old);  // not available anyway: replaced whatever the budget
      } else if (unavailable < limits.max_unavailable) {
        candidates.push_back(old);
      }
    }
    int64_t budget = std::clamp<int64_t>(limits.max_unavailable - unavailable, 0,
                                         static_cast<int64_t>(candidates.size()));
    plan.delete_pods = std::move(replace);
    plan.delete_pods.insert(plan.delete_pods.end(), candidates.begin(),
                            candidates.begin() + budget);
    return plan;
  }
  int64_t surging = 0;
  std::vector<std::string> allowed, candidates;
  for (const auto& node : nodes) {
    if (!Wanted(node) && node.pods.empty()) continue;
    api::ObjectPtr updated, old;
    if (!UpdatedAndOld(node, hash, updated, old)) {
      ++surging;  // excess pods: the manage step cleans up; counts as surging
      continue;
    }
    if (!old) continue;  // nothing old here: the manage step handles the node
    if (!updated) {
      if (!available(*old)) {
        if (!node.fit.should_run || !node.exists) {
          plan.delete_pods.push_back(old);  // unavailable where it may not run: just remove it
        } else {
          allowed.push_back(node.name);  // unavailable anyway: replace at once
        }
      } else if (surging < limits.max_surge) {
        candidates.push_back(node.name);
      }
      continue;
    }
    // Already surged here: the old pod goes once the new one is available.
    if (!available(*updated)) {
      ++surging;
    } else {
      plan.delete_pods.push_back(old);
    }
  }
  int64_t budget =
      std::clamp<int64_t>(limits.max_surge - surging, 0, static_cast<int64_t>(candidates.size()));
  plan.create_on = std::move(allowed);
  plan.create_on.insert(plan.create_on.end(), candidates.begin(), candidates.begin() + budget);
  return plan;
}

DaemonCounts CountDaemonPods(const std::vector<DaemonNode>& nodes, std::string_view hash,
                             int64_t min_ready_seconds, WallTime now) {
  DaemonCounts c;
  for (const auto& node : nodes) {
    if (!node.exists) continue;
    bool scheduled = !node.pods.empty();
    if (!node.fit.should_run) {
      if (scheduled) ++c.misscheduled;
      continue;
    }
    ++c.desired;
    if (!scheduled) continue;
    ++c.current;
    const api::Object& oldest = *node.pods.front();  // pods are sorted oldest first
    if (api::IsPodReady(oldest)) {
      ++c.ready;
      if (api::IsPodAvailable(oldest, min_ready_seconds, now)) ++c.available;
    }
    if (IsPodUpdated(oldest, hash)) ++c.updated;
  }
  c.unavailable = c.desired - c.available;
  return c;
}

}  // namespace berth::controllers
