#pragma once
// Proportional scaling, as kube's deployment controller does it
// (pkg/controller/deployment/sync.go scale, and util's
// GetReplicaSetProportion): a RollingUpdate Deployment scaled while more
// than one of its ReplicaSets has replicas shares what it gains or loses
// among them in proportion to their sizes, so that a rollout in progress
// (or paused) keeps its old and new replicas in the same ratio.

#include <cstdint>
#include <optional>
#include <vector>

namespace berth::controllers {

// An active ReplicaSet (spec.replicas > 0) as proportional scaling sees it.
struct ScalableReplicaSet {
  int64_t replicas = 0;
  // Its deployment.kubernetes.io/max-replicas: the Deployment's replicas +
  // maxSurge when the ReplicaSet was last scaled.
  std::optional<int64_t> max_replicas;
};

// The new spec.replicas of each of `sets` (given oldest first; answered in
// the same order) for a Deployment that now wants `replicas` with
// `max_surge`. The change is replicas + max_surge (0 when replicas is 0)
// less the sets' sum. Each set's share is its size scaled by
// (replicas + max_surge) / max-replicas, rounded half away from zero — the
// Deployment's `status_replicas` standing in for a missing annotation, no
// share at all when that is 0 too; scaling to 0 takes each set's whole
// size. Shares never add up past the change; the sets are served largest
// first (of two the same size, the newer first when adding, the older when
// removing) and what rounding leaves over goes to the first of them, never
// below 0.
std::vector<int64_t> ProportionalSizes(const std::vector<ScalableReplicaSet>& sets,
                                       int64_t replicas, int64_t max_surge,
                                       int64_t status_replicas);

}  // namespace berth::controllers
