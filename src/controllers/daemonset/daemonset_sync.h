#pragma once
// The DaemonSet controller's decisions, as pure functions of what its caches
// show (kube's podsShouldBeOnNode, rollingUpdate and updateDaemonSetStatus),
// so they can be tested without a server. Nodes are visited in the order
// given (the controller sorts them by name); kube visits them in map order.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "api/status.h"
#include "controllers/daemonset/daemon_pod.h"

namespace berth::controllers {

// One node as the DaemonSet sees it.
struct DaemonNode {
  std::string name;
  bool exists = true;  // false: pods target a node that is not (or no longer) in the cache
  DaemonPlacement::Fit fit;
  // The DaemonSet's pods for this node, oldest first (scheduled before
  // unscheduled, then by creation time and name); pods that finished and are
  // being deleted are left out.
  std::vector<api::ObjectPtr> pods;
};

struct DaemonPlan {
  std::vector<std::string> create_on;  // node names
  std::vector<api::ObjectPtr> delete_pods;
  std::vector<api::ObjectPtr> failed_pods;     // to delete, subject to the failed-pod backoff
  std::vector<api::ObjectPtr> succeeded_pods;  // to delete (a daemon pod must not finish)
};

struct DaemonCounts {
  int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, updated = 0, available = 0,
          unavailable = 0;
  bool operator==(const DaemonCounts&) const = default;
};

using WallTime = std::chrono::system_clock::time_point;

// kube's podByCreationTimestampAndPhase: scheduled pods first, then oldest,
// then by name.
void SortDaemonPods(std::vector<api::ObjectPtr>& pods);

// Whether the pod runs the template of revision `hash`.
bool IsPodUpdated(const api::Object& pod, std::string_view hash);

// maxSurge and maxUnavailable of a RollingUpdate DaemonSet over `desired`
// nodes (percentages round up; both 0 means maxUnavailable 1). Both 0 for
// OnDelete. BadRequest for a malformed value.
struct RollingLimits {
  int64_t max_surge = 0, max_unavailable = 0;
};
Result<RollingLimits> RollingUpdateLimits(const api::Object& daemon_set, int64_t desired);
// Whether the DaemonSet allows two pods on a node during an update.
bool AllowsSurge(const api::Object& daemon_set);

// kube's manage step: a pod for every node that should run one and has
// none; excess, finished and misplaced pods deleted; with surge, an old and
// a new pod may share a node until the new one is available.
DaemonPlan PlanManage(const std::vector<DaemonNode>& nodes, std::string_view hash,
                      bool allows_surge, int64_t min_ready_seconds, WallTime now);

// kube's rollingUpdate step. Without surge: old pods are deleted while at
// most maxUnavailable nodes are without an available updated pod (old pods
// that are not available go first, and always). With surge: a new pod is
// created beside an old one on at most maxSurge nodes at once (at once where
// the old one is not available), and the old one deleted when the new one
// is available.
DaemonPlan PlanRollingUpdate(const std::vector<DaemonNode>& nodes, std::string_view hash,
                             const RollingLimits& limits, int64_t min_ready_seconds, WallTime now);

// The counts of the DaemonSet's status over the nodes that exist.
DaemonCounts CountDaemonPods(const std::vector<DaemonNode>& nodes, std::string_view hash,
                             int64_t min_ready_seconds, WallTime now);

}  // namespace berth::controllers
