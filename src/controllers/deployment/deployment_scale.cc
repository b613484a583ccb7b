// Scaling a Deployment: the proportions (ProportionalSizes) and the
// controller's steps that apply them (kube's isScalingEvent, sync, scale).

#include "controllers/deployment/deployment_scale.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "controllers/deployment/deployment_sync.h"

namespace berth::controllers {

namespace {

// kube's getReplicaSetFraction: how many replicas `rs` gains (or loses) to
// keep its share of the Deployment's new maximum.
int64_t Fraction(const ScalableReplicaSet& rs, int64_t replicas, int64_t max_surge,
                 int64_t status_replicas) {
  if (replicas == 0) return -rs.replicas;
  int64_t before = rs.max_replicas.value_or(0);
  if (before == 0) before = status_replicas;
  if (before == 0) return 0;
  const double scaled = static_cast<double>(rs.replicas) *
                        static_cast<double>(replicas + max_surge) / static_cast<double>(before);
  return std::llround(scaled) - rs.replicas;
}

// kube's GetReplicaSetProportion: the fraction, bounded by what is left of
// the change to share out.
int64_t Proportion(const ScalableReplicaSet& rs, int64_t replicas, int64_t max_surge,
                   int64_t status_replicas, int64_t to_add, int64_t added) {
  if (rs.replicas == 0 || to_add == 0 || to_add == added) return 0;
  const int64_t fraction = Fraction(rs, replicas, max_surge, status_replicas);
  const int64_t allowed = to_add - added;
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

// kube's ReplicaSetsBySizeNewer (adding) and ReplicaSetsBySizeOlder
// (removing), over positions in an oldest-first list.
std::vector<size_t> ScalingOrder(const std::vector<ScalableReplicaSet>& sets, bool adding) {
  std::vector<size_t> order(sets.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (adding) std::reverse(order.begin(), order.end());
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sets[a].replicas > sets[b].replicas; });
  return order;
}

}  // namespace

std::vector<int64_t> ProportionalSizes(const std::vector<ScalableReplicaSet>& sets,
                                       int64_t replicas, int64_t max_surge,
                                       int64_t status_replicas) {
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (const auto& rs : sets) {
    sizes.push_back(rs.replicas);
    total += rs.replicas;
  }
  const int64_t allowed = replicas > 0 ? replicas + max_surge : 0;
  const int64_t to_add = allowed - total;
  if (sets.empty() || to_add == 0) return sizes;

  const std::vector<size_t> order = ScalingOrder(sets, to_add > 0);
  int64_t added = 0;
  for (size_t i : order) {
    const int64_t share = Proportion(sets[i], replicas, max_surge, status_replicas, to_add, added);
    sizes[i] += share;
    added += share;
  }
  sizes[order.front()] = std::max<int64_t>(0, sizes[order.front()] + to_add - added);
  return sizes;
}

using deployment::SpecReplicas;

bool DeploymentController::IsScalingEvent(const State& s) const {
  for (const auto& rs : s.owned) {
    if (SpecReplicas(*rs) <= 0) continue;
    auto desired = deployment::IntAnnotation(*rs, deployment::kDesiredReplicas);
    if (desired && *desired != s.replicas) return true;
  }
  return false;
}

Status DeploymentController::SyncScale(State& s) {
  auto found = EnsureNewReplicaSet(s, false);
  if (!found.ok()) return found.status();
  if (Status scaled = Scale(s); !scaled.ok()) return scaled;
  if (api::BoolAt(api::Spec(*s.d), "paused")) {
    if (Status cleaned = Cleanup(s); !cleaned.ok()) return cleaned;
  }
  return SyncStatus(s);
}

namespace {

// kube's IsSaturated: the new ReplicaSet has, wants and was sized for every replica.
bool IsSaturated(const api::Object* new_rs, int64_t replicas) {
  return new_rs && SpecReplicas(*new_rs) == replicas &&
         deployment::IntAnnotation(*new_rs, deployment::kDesiredReplicas) == replicas &&
         deployment::StatusInt(*new_rs, "availableReplicas") == replicas;
}

}  // namespace

Status DeploymentController::Scale(State& s) {
  // The ReplicaSets' places in `s`, oldest first, so that a write's answer replaces them.
  std::vector<api::ObjectPtr*> active, all;
  for (auto& rs : s.old) all.push_back(&rs);
  if (s.new_rs) all.push_back(&s.new_rs);
  std::stable_sort(all.begin(), all.end(), [](const api::ObjectPtr* a, const api::ObjectPtr* b) {
    return deployment::CreatedBefore(**a, **b);
  });
  for (api::ObjectPtr* rs : all) {
    if (SpecReplicas(**rs) > 0) active.push_back(rs);
  }
  // kube's FindActiveOrLatest: one active ReplicaSet (none: the newest) takes the whole count.
  if (active.size() <= 1) {
    api::ObjectPtr* target = !active.empty() ? active.front()
                             : s.new_rs      ? &s.new_rs
                             : all.empty()   ? nullptr
                                             : all.back();
    if (!target || SpecReplicas(**target) == s.replicas) return Status::Ok();
    return ScaleReplicaSet(s, *target, s.replicas);
  }
  // A saturated new ReplicaSet: the old ones have nothing left to do.
  if (IsSaturated(s.new_rs.get(), s.replicas)) {
    for (api::ObjectPtr* rs : active) {
      if (rs == &s.new_rs) continue;
      if (Status st = ScaleReplicaSet(s, *rs, 0); !st.ok()) return st;
    }
    return Status::Ok();
  }
  if (deployment::IsRecreate(*s.d)) return Status::Ok();
  std::vector<ScalableReplicaSet> sets;
  for (const api::ObjectPtr* rs : active) {
    sets.push_back({SpecReplicas(**rs), deployment::IntAnnotation(**rs, deployment::kMaxReplicas)});
  }
  const std::vector<int64_t> sizes =
      ProportionalSizes(sets, s.replicas, s.max_surge, deployment::StatusInt(*s.d, "replicas"));
  for (size_t i = 0; i < active.size(); ++i) {
    if (Status st = ScaleReplicaSet(s, *active[i], sizes[i]); !st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace berth::controllers
