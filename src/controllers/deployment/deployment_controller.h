#pragma once
// The Deployment controller (kube's DeploymentController): one ReplicaSet per
// pod template, named <deployment>-<pod-template-hash>, and the strategy that
// moves replicas from the old ones to the new one:
//
// - RollingUpdate: the new ReplicaSet grows while the total stays within
//   replicas + maxSurge; old ones shrink while available pods stay at least
//   replicas - maxUnavailable (percentages: surge rounds up, unavailable down;
//   both 0 means maxUnavailable 1). Unhealthy old pods go first.
// - Recreate: every old ReplicaSet to 0, wait until their pods are gone, then
//   the new one to replicas.
// - Scaling (spec.replicas changed, seen by an active ReplicaSet's
//   desired-replicas annotation) and paused Deployments: kube's sync — one
//   active ReplicaSet takes the whole count, a saturated new one leaves the
//   old ones at 0, otherwise RollingUpdate shares the change in proportion
//   (deployment_scale.h); no rollout step is taken.
//
// ReplicaSets are claimed as kube's ControllerRefManager claims them: an
// orphan whose labels the selector matches is adopted (controller
// ownerReference) and counts from then on — its revision, its available
// pods — and one whose labels stop matching is released.
//
// Revisions: deployment.kubernetes.io/revision on the ReplicaSets and the
// Deployment (one more than the highest old revision when the template
// changes, an adopted ReplicaSet's included; a template that matches an old
// ReplicaSet reuses it — rollback). Once a rollout is complete (and while
// paused), old ReplicaSets beyond revisionHistoryLimit, lowest revisions
// first, are deleted when idle.
// Status and the Available / Progressing conditions follow kube, so that
// `kubectl rollout status|history|undo` and `kubectl scale` work.
//
// Not done: the deprecated rollbackTo annotation, copying the Deployment's
// annotations to an existing new ReplicaSet, status.terminatingReplicas.
//
// The pod-template-hash is FNV-32a over the template's JSON with keys sorted
// (and the collision count), encoded as kube encodes it; kube hashes Go's
// printed struct instead, so the values differ from kube's for the same
// template, but play the same role.

#include "controllers/controller.h"

namespace berth::controllers {

class DeploymentController final : public Controller {
 public:
  explicit DeploymentController(const ControllerContext& context, int workers = 2);

  // Exposed for tests.
  static std::string PodTemplateHash(const boost::json::object& pod_template, int64_t collision_count);
  // An intOrString ("25%" or 3) against `total`; percentages round up or down.
  static Result<int64_t> ResolveIntOrPercent(const boost::json::value* value, int64_t total, bool round_up,
                                             int64_t fallback_percent);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct State;
  // Reconcile's steps: the ReplicaSets claimed (the new one and the old
  // ones, oldest first), maxSurge and maxUnavailable resolved.
  Status ClaimReplicaSets(State& s);
  Status ResolveRollingLimits(State& s);
  // Whether spec.replicas changed rather than the template (kube's isScalingEvent).
  bool IsScalingEvent(const State& s) const;
  // kube's sync: scaling only, for scaling events and paused Deployments.
  Status SyncScale(State& s);
  Status Scale(State& s);
  Status Rollout(State& s);
  Status RolloutRecreate(State& s);
  Result<api::ObjectPtr> EnsureNewReplicaSet(State& s, bool create);
  Status ScaleReplicaSet(State& s, api::ObjectPtr& rs, int64_t replicas);
  Status Cleanup(State& s);
  Status SyncStatus(State& s);

  client::SharedInformer& deployments_;
  client::SharedInformer& replicasets_;
  client::SharedInformer& pods_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
