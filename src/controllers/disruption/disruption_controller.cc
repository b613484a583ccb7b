#include "controllers/disruption/disruption_controller.h"

#include <boost/json.hpp>
#include <map>

#include "api/conditions.h"
#include "api/disruption_budget.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

struct OwnerRef {
  std::string_view kind, name, uid;
};

// The ownerReference with controller: true, if any.
std::optional<OwnerRef> ControllerOf(const api::Object& o) {
  const auto* meta = api::Metadata(o);
  const auto* refs = meta ? api::ArrayAt(*meta, "ownerReferences") : nullptr;
  if (!refs) return std::nullopt;
  for (const auto& ref : *refs) {
    if (!ref.is_object() || !api::BoolAt(&ref.get_object(), "controller")) continue;
    const json::object& r = ref.get_object();
    return OwnerRef{api::StringAt(r, "kind"), api::StringAt(r, "name"), api::StringAt(r, "uid")};
  }
  return std::nullopt;
}

const json::value* SpecField(const api::Object& o, std::string_view field) {
  const json::object* spec = api::Spec(o);
  const json::value* v = spec ? spec->if_contains(field) : nullptr;
  return v && !v->is_null() ? v : nullptr;
}

bool ConditionUpToDate(const json::object* status, int64_t generation) {
  const json::object* c = api::FindCondition(status, "DisruptionAllowed");
  if (!c || api::IntAt(status, "observedGeneration") != generation) return false;
  if (api::IntAt(status, "disruptionsAllowed") > 0) {
    return api::StringAt(c, "status") == "True" && api::StringAt(c, "reason") == "SufficientPods";
  }
  return api::StringAt(c, "status") == "False" && api::StringAt(c, "reason") == "InsufficientPods";
}

}  // namespace

DisruptionController::DisruptionController(const ControllerContext& context, int workers)
    : Controller("disruption", context, workers),
      budgets_(context.informers.For(api::Kind::kPodDisruptionBudget)),
      pods_(context.informers.For(api::Kind::kPod)),
      replicasets_(context.informers.For(api::Kind::kReplicaSet)),
      deployments_(context.informers.For(api::Kind::kDeployment)),
      events_(context.events, {"controllermanager", ""}) {
  auto enqueue = [this](const api::ObjectPtr& b) { Enqueue(client::ObjectKey(*b)); };
  budgets_.AddHandlers({enqueue, enqueue, nullptr});
  // A pod's change wakes the budgets that cover it.
  auto pod_changed = [this](const api::ObjectPtr& pod) {
    for (const auto& b : budgets_.ByIndex(client::kNamespaceIndex, pod->namespace_name())) {
      if (api::BudgetCoversPod(*b, *pod)) Enqueue(client::ObjectKey(*b));
    }
  };
  pods_.AddHandlers({pod_changed, pod_changed, pod_changed});
}

Result<DisruptionController::BudgetStatus> DisruptionController::Compute(
    const api::Object& budget, const std::vector<api::ObjectPtr>& pods,
    const std::function<Result<int64_t>()>& expected_scale,
    std::chrono::system_clock::time_point now) {
  BudgetStatus out;
  for (const auto& pod : pods) {
    if (!ControllerOf(*pod)) out.unmanaged_pods.push_back(pod->name());
  }
  // kube's getExpectedPodCount.
  const json::value* max_unavailable = SpecField(budget, "maxUnavailable");
  const json::value* min_available = SpecField(budget, "minAvailable");
  if (max_unavailable) {
    auto scale = expected_scale();
    if (!scale.ok()) return scale.status();
    out.expected_pods = scale.value();
    auto unavailable = api::ScaledValueFromIntOrPercent(*max_unavailable, out.expected_pods, true);
    if (!unavailable.ok()) return unavailable.status();
    out.desired_healthy = std::max<int64_t>(0, out.expected_pods - unavailable.value());
  } else if (min_available && !min_available->is_string()) {
    auto available = api::ScaledValueFromIntOrPercent(*min_available, 0, true);
    if (!available.ok()) return available.status();
    out.desired_healthy = available.value();
    out.expected_pods = static_cast<int64_t>(pods.size());
  } else if (min_available) {
    auto scale = expected_scale();
    if (!scale.ok()) return scale.status();
    out.expected_pods = scale.value();
    auto available = api::ScaledValueFromIntOrPercent(*min_available, out.expected_pods, true);
    if (!available.ok()) return available.status();
    out.desired_healthy = available.value();
  }

  // kube's buildDisruptedPodMap: entries of pods that still exist, not yet
  // being deleted and not yet expired.
  const json::object* recorded = api::ObjectAt(api::StatusOf(budget), "disruptedPods");
  std::map<std::string, std::chrono::system_clock::time_point> disrupted;
  if (recorded) {
    for (const auto& pod : pods) {
      if (api::BeingDeleted(*pod)) continue;
      auto entry = recorded->find(pod->name());
      if (entry == recorded->end() || !entry->value().is_string()) continue;
      auto at = api::ParseRfc3339(entry->value().get_string());
      if (!at) continue;
      auto expires = *at + api::kDisruptedPodTimeout;
      if (expires < now) {
        out.expired_pods.push_back(pod->name());
        continue;
      }
      if (!out.recheck_at || expires < *out.recheck_at) out.recheck_at = expires;
      disrupted[pod->name()] = *at;
      out.disrupted_pods[pod->name()] = entry->value();
    }
  }
  // kube's countHealthyPods.
  for (const auto& pod : pods) {
    if (api::BeingDeleted(*pod)) continue;
    if (auto d = disrupted.find(pod->name());
        d != disrupted.end() && d->second + api::kDisruptedPodTimeout > now) {
      continue;
    }
    if (api::IsPodReady(*pod)) ++out.current_healthy;
  }
  out.disruptions_allowed = out.current_healthy - out.desired_healthy;
  if (out.expected_pods <= 0 || out.disruptions_allowed <= 0) out.disruptions_allowed = 0;
  return out;
}

Result<int64_t> DisruptionController::ExpectedScale(const std::vector<api::ObjectPtr>& pods) const {
  // kube's getExpectedScale: each controller counted once, by uid.
  std::map<std::string, int64_t, std::less<>> scale_by_uid;
  for (const auto& pod : pods) {
    auto ref = ControllerOf(*pod);
    if (!ref) continue;  // unmanaged: left out
    if (scale_by_uid.count(ref->uid)) continue;
    bool found = false;
    if (ref->kind == "ReplicaSet") {
      auto rs = replicasets_.Get(client::ObjectKey(pod->namespace_name(), ref->name));
      if (rs && rs->uid() == ref->uid) {
        auto rs_owner = ControllerOf(*rs);
        if (rs_owner && rs_owner->kind == "Deployment") {
          // Pods of a Deployment's ReplicaSet count by the Deployment's replicas.
          auto d = deployments_.Get(client::ObjectKey(rs->namespace_name(), rs_owner->name));
          if (d && d->uid() == rs_owner->uid) {
            scale_by_uid[d->uid()] = api::IntAt(api::Spec(*d), "replicas", 1);
            scale_by_uid[std::string(ref->uid)] = 0;  // the ReplicaSet itself is accounted for
            found = true;
          }
        } else {
          scale_by_uid[rs->uid()] = api::IntAt(api::Spec(*rs), "replicas", 1);
          found = true;
        }
      }
    } else if (ref->kind == "Deployment") {
      auto d = deployments_.Get(client::ObjectKey(pod->namespace_name(), ref->name));
      if (d && d->uid() == ref->uid) {
        scale_by_uid[d->uid()] = api::IntAt(api::Spec(*d), "replicas", 1);
        found = true;
      }
    }
    if (!found) return Status::NotFound("found no controllers for pod \"" + pod->name() + "\"");
  }
  int64_t total = 0;
  for (const auto& [uid, scale] : scale_by_uid) total += scale;
  return total;
}

Status DisruptionController::Reconcile(const std::string& key) {
  api::ObjectPtr budget = budgets_.Get(key);
  if (!budget) return Status::Ok();
  std::vector<api::ObjectPtr> pods;
  api::LabelSelector selector = api::BudgetSelector(*budget);
  for (const auto& pod : pods_.ByIndex(client::kNamespaceIndex, budget->namespace_name())) {
    if (selector.Matches(pod->labels())) pods.push_back(pod);
  }
  if (pods.empty()) events_.Event(*budget, "Normal", "NoPods", "No matching pods found");
  const auto now = clock_.WallNow();
  auto computed = Compute(
      *budget, pods, [&] { return ExpectedScale(pods); }, now);
  if (!computed.ok()) {
    events_.Event(
        *budget, "Warning", "CalculateExpectedPodCountFailed",
        "Failed to calculate the number of expected pods: " + computed.status().message());
    return FailSafe(*budget, computed.status());
  }
  if (!computed->unmanaged_pods.empty() && SpecField(*budget, "minAvailable") &&
      SpecField(*budget, "minAvailable")->is_string()) {
    events_.Event(
        *budget, "Warning", "UnmanagedPods",
        "Pods selected by this PodDisruptionBudget were found to be unmanaged. As a result, the "
        "status of "
        "the PDB cannot be calculated correctly, which may result in undefined behavior. To "
        "account for "
        "these pods please set \".spec.minAvailable\" field of the PDB to an integer value.");
  }
  for (const auto& name : computed->expired_pods) {
    for (const auto& pod : pods) {
      if (pod->name() != name) continue;
      events_.Event(*pod, "Warning", "NotDeleted",
                    "Pod was expected by PDB " + budget->namespace_name() + "/" + budget->name() +
                        " to be deleted but it wasn't");
    }
  }
  Status written = WriteStatus(*budget, computed.value());
  if (written.code() == StatusCode::kConflict) return written;  // retried from a fresher cache
  if (!written.ok()) return FailSafe(*budget, written);
  if (computed->recheck_at) {
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*computed->recheck_at - now);
    EnqueueAfter(key,
                 std::max(delay, std::chrono::milliseconds(0)) + std::chrono::milliseconds(10));
  }
  return Status::Ok();
}

Status DisruptionController::WriteStatus(const api::Object& budget, const BudgetStatus& computed) {
  const json::object* status = api::StatusOf(budget);
  const int64_t generation = api::Generation(budget);
  const json::object* recorded = api::ObjectAt(status, "disruptedPods");
  const bool same_disrupted =
      recorded ? *recorded == computed.disrupted_pods : computed.disrupted_pods.empty();
  if (status && api::IntAt(status, "currentHealthy") == computed.current_healthy &&
      api::IntAt(status, "desiredHealthy") == computed.desired_healthy &&
      api::IntAt(status, "expectedPods") == computed.expected_pods &&
      api::IntAt(status, "disruptionsAllowed") == computed.disruptions_allowed && same_disrupted &&
      ConditionUpToDate(status, generation)) {
    return Status::Ok();
  }
  json::object next = ForUpdate(budget);
  json::object& st = api::MutableObject(next, "status");
  st["currentHealthy"] = computed.current_healthy;
  st["desiredHealthy"] = computed.desired_healthy;
  st["expectedPods"] = computed.expected_pods;
  st["disruptionsAllowed"] = computed.disruptions_allowed;
  if (computed.disrupted_pods.empty()) {
    st.erase("disruptedPods");
  } else {
    st["disruptedPods"] = computed.disrupted_pods;
  }
  st["observedGeneration"] = generation;
  api::SetDisruptionAllowedCondition(st, api::FormatRfc3339(clock_.WallNow()));
  auto written = client_.UpdateStatus(api::Kind::kPodDisruptionBudget, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

Status DisruptionController::FailSafe(const api::Object& budget, const Status& error) {
  json::object next = ForUpdate(budget);
  json::object& st = api::MutableObject(next, "status");
  st["disruptionsAllowed"] = 0;
  api::SetDisruptionSyncFailedCondition(st, error.message(), api::FormatRfc3339(clock_.WallNow()));
  auto written = client_.UpdateStatus(api::Kind::kPodDisruptionBudget, next);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) return written.status();
  return Status::Ok();
}

}  // namespace berth::controllers
