// apps/v1 kinds: kube's pkg/apis/apps/validation for Deployment, ReplicaSet,
// StatefulSet, DaemonSet and ControllerRevision, and their update rules.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"
#include "api/validation/warnings.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

// A StatefulSet's rollingUpdate as kube prints it (Go's %#v).
std::string GoRollingUpdate(const json::value& rolling) {
  const json::object* r = rolling.is_object() ? &rolling.get_object() : nullptr;
  const json::value* max = Present(r, "maxUnavailable");
  return "apps.RollingUpdateStatefulSetStrategy{Partition:" +
         std::to_string(IntAt(r, "partition")) + ", MaxUnavailable:" +
         (max ? "&" + json::serialize(*max) : std::string("(*intstr.IntOrString)(nil)")) + "}";
}

}  // namespace

void ValidateDeploymentOrReplicaSet(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  if (!spec) {
    errors.Required("spec");
    return;
  }
  NonNegative(spec, "replicas", "spec.replicas", errors);
  NonNegative(spec, "minReadySeconds", "spec.minReadySeconds", errors);
  ValidateSelectorForTemplate(spec, "spec", "deployment", errors);
  const json::object* tmpl = ObjectAt(spec, "template");
  ValidatePodTemplateSpec(tmpl, "spec.template", errors);
  ValidateRestartAlways(tmpl, "spec.template", "ReplicaSet", errors);
  if (object.kind() == Kind::kDeployment) {
    NonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errors);
    NonNegative(spec, "progressDeadlineSeconds", "spec.progressDeadlineSeconds", errors);
    const json::object* strategy = ObjectAt(spec, "strategy");
    const std::string_view type = StringAt(strategy, "type");
    const json::object* rolling = ObjectAt(strategy, "rollingUpdate");
    if (type == "Recreate") {
      if (rolling) {
        errors.Forbidden("spec.strategy.rollingUpdate",
                         "may not be specified when strategy `type` is 'Recreate'");
      }
    } else if (type.empty() || type == "RollingUpdate") {
      // Absent values default to 25% each.
      int64_t unavailable = 25, surge = 25;
      if (const json::value* v = Present(rolling, "maxUnavailable")) {
        ValidateIntOrPercent(*v, "spec.strategy.rollingUpdate.maxUnavailable", errors,
                             &unavailable);
      }
      if (const json::value* v = Present(rolling, "maxSurge")) {
        ValidateIntOrPercent(*v, "spec.strategy.rollingUpdate.maxSurge", errors, &surge);
      }
      if (unavailable == 0 && surge == 0) {
        const json::value* v = Present(rolling, "maxUnavailable");
        errors.InvalidValue("spec.strategy.rollingUpdate.maxUnavailable", v ? *v : json::value(0),
                            "may not be 0 when `maxSurge` is 0");
      }
    } else {
      errors.NotSupported("spec.strategy", type, {"Recreate", "RollingUpdate"});
    }
    const json::value* deadline = Present(spec, "progressDeadlineSeconds");
    if (deadline && deadline->is_number() &&
        deadline->to_number<int64_t>() <= IntAt(spec, "minReadySeconds")) {
      errors.InvalidValue("spec.progressDeadlineSeconds", *deadline,
                          "must be greater than minReadySeconds");
    }
  }
}

void ValidateStatefulSet(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  if (auto policy = StringAt(spec, "podManagementPolicy");
      !policy.empty() && policy != "OrderedReady" && policy != "Parallel") {
    errors.Invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'");
  }
  const json::object* strategy = ObjectAt(spec, "updateStrategy");
  const std::string_view type = StringAt(strategy, "type");
  const json::value* rolling = Present(strategy, "rollingUpdate");
  if (type == "OnDelete") {
    if (rolling) {
      errors.InvalidGo("spec.updateStrategy.rollingUpdate", GoRollingUpdate(*rolling),
                       "only allowed for updateStrategy 'RollingUpdate'");
    }
  } else if (type.empty() || type == "RollingUpdate") {
    if (rolling && rolling->is_object()) {
      const json::object& r = rolling->get_object();
      NonNegative(&r, "partition", "spec.updateStrategy.rollingUpdate.partition", errors);
      if (const json::value* max = Present(&r, "maxUnavailable")) {
        int64_t amount = 0;
        const std::string path = "spec.updateStrategy.rollingUpdate.maxUnavailable";
        ValidateIntOrPercent(*max, path, errors, &amount);
        if (amount == 0) errors.InvalidValue(path, *max, "cannot be 0");
      }
    }
  } else {
    errors.InvalidGo("spec.updateStrategy",
                     "apps.StatefulSetUpdateStrategy{Type:" + GoQuote(type) + ", RollingUpdate:" +
                         (rolling ? "&" + GoRollingUpdate(*rolling)
                                  : "(*apps.RollingUpdateStatefulSetStrategy)(nil)") +
                         "}",
                     "must be 'RollingUpdate' or 'OnDelete'");
  }
  const json::object* retention = ObjectAt(spec, "persistentVolumeClaimRetentionPolicy");
  for (std::string_view when : {"whenDeleted", "whenScaled"}) {
    if (auto policy = StringAt(retention, when);
        Present(retention, when) && policy != "Retain" && policy != "Delete") {
      errors.NotSupported("spec.persistentVolumeClaimRetentionPolicy." + std::string(when), policy,
                          {"Retain", "Delete"});
    }
  }
  NonNegative(spec, "replicas", "spec.replicas", errors);
  NonNegative(spec, "minReadySeconds", "spec.minReadySeconds", errors);
  NonNegative(ObjectAt(spec, "ordinals"), "start", "spec.ordinals.start", errors);
  ValidateSelectorForTemplate(spec, "spec", "statefulset", errors);
  const json::object* tmpl = ObjectAt(spec, "template");
  // Its pods mount volumes from the claim templates, too.
  std::set<std::string> claims;
  if (const json::array* templates = ArrayAt(spec, "volumeClaimTemplates")) {
    for (const json::value& t : *templates) {
      if (t.is_object()) claims.insert(std::string(StringAt(ObjectAt(&t.get_object(), "metadata"), "name")));
    }
  }
  ValidatePodTemplateSpec(tmpl, "spec.template", errors, claims);
  ValidateRestartAlways(tmpl, "spec.template", "StatefulSet", errors);
}

void ValidateDaemonSet(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(&object.json(), "spec");
  ValidateSelectorForTemplate(spec, "spec", "daemonset", errors);
  const json::object* tmpl = ObjectAt(spec, "template");
  ValidatePodTemplateSpec(tmpl, "spec.template", errors);
  ValidateRestartAlways(tmpl, "spec.template", "DaemonSet", errors);
  NonNegative(spec, "minReadySeconds", "spec.minReadySeconds", errors);
  NonNegative(spec, "templateGeneration", "spec.templateGeneration", errors);
  NonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errors);

  const json::object* strategy = ObjectAt(spec, "updateStrategy");
  const std::string_view type = StringAt(strategy, "type");
  if (type == "OnDelete") return;
  if (!type.empty() && type != "RollingUpdate") {
    errors.NotSupported("spec.updateStrategy", type, {"RollingUpdate", "OnDelete"});
    return;
  }
  // Defaults: maxUnavailable 1, maxSurge 0.
  const json::object* rolling = ObjectAt(strategy, "rollingUpdate");
  const std::string path = "spec.updateStrategy.rollingUpdate";
  int64_t unavailable = 1, surge = 0;
  const json::value* max_unavailable = Present(rolling, "maxUnavailable");
  const json::value* max_surge = Present(rolling, "maxSurge");
  if (max_unavailable)
    ValidateIntOrPercent(*max_unavailable, path + ".maxUnavailable", errors, &unavailable);
  if (max_surge) ValidateIntOrPercent(*max_surge, path + ".maxSurge", errors, &surge);
  if (unavailable != 0 && surge != 0) {
    errors.InvalidValue(path + ".maxSurge", *max_surge,
                        "may not be set when maxUnavailable is non-zero");
  } else if (unavailable == 0 && surge == 0) {
    errors.Required(path + ".maxUnavailable", "cannot be 0 when maxSurge is 0");
  }
}

void ValidateControllerRevision(const Object& object, FieldErrors& errors) {
  if (!Present(&object.json(), "data")) errors.Required("data", "data is mandatory");
  NonNegative(&object.json(), "revision", "revision", errors);
}

void ValidateSelectorUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  const json::value* after = Present(ObjectAt(&next.json(), "spec"), "selector");
  const json::value* before = Present(ObjectAt(&current.json(), "spec"), "selector");
  if ((after == nullptr) == (before == nullptr) && (!after || *after == *before)) return;
  errors.InvalidGo("spec.selector", GoLabelSelector(after), "field is immutable");
}

void ValidateStatefulSetUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  static const json::object kEmpty;
  const json::object* next_spec = ObjectAt(&next.json(), "spec");
  const json::object* cur_spec = ObjectAt(&current.json(), "spec");
  json::object after = next_spec ? *next_spec : kEmpty;
  const json::object& before = cur_spec ? *cur_spec : kEmpty;
  for (std::string_view key : {"replicas", "ordinals", "template", "updateStrategy",
                               "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
    if (const json::value* v = before.if_contains(key)) {
      after[key] = *v;
    } else {
      after.erase(key);
    }
  }
  if (after != before) {
    errors.Forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
        "forbidden");
  }
}

void ValidateControllerRevisionUpdate(const Object& next, const Object& current,
                                      FieldErrors& errors) {
  CheckImmutable(next.json().if_contains("data"), current.json().if_contains("data"), "data",
                 errors);
}

void AddAppsRules(KindRuleTable& table) {
  const KindRules workload{.validate = ValidateDeploymentOrReplicaSet,
                           .validate_update = CollectedUpdateErrors<ValidateSelectorUpdate>,
                           .warnings = WorkloadTemplateWarnings};
  table.Set(Kind::kDeployment, workload);
  table.Set(Kind::kReplicaSet, workload);
  table.Set(Kind::kDaemonSet,
            {.validate = ValidateDaemonSet,
             .validate_update = CollectedUpdateErrors<ValidateSelectorUpdate>,
             .warnings = WorkloadTemplateWarnings});
  table.Set(Kind::kStatefulSet, {.name_problems = IsDns1123Label,
                                 .validate = ValidateStatefulSet,
                                 .validate_update = CollectedUpdateErrors<ValidateStatefulSetUpdate>,
                                 .warnings = WorkloadTemplateWarnings});
  table.Set(Kind::kControllerRevision, {.validate = ValidateControllerRevision,
                                        .validate_update = CollectedUpdateErrors<ValidateControllerRevisionUpdate>});
}

}  // namespace berth::api::validation
