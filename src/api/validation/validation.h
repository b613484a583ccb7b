#pragma once
// Object validation on create and update, with Kubernetes' field paths and
// messages: ValidateObject checks metadata and the kind's spec by the kind's
// rules (kind_rules.h: each group's file lists its kinds'). The pieces it
// is built from have headers of their own: name syntax (name_validation.h),
// the error collector (field_errors.h) and pod specs and pod updates
// (pod_validation.h), included here for callers of the whole.

#include <cstdint>
#include <span>
#include <string_view>

#include "api/object.h"
#include "api/status.h"
#include "api/validation/field_errors.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"
#include "api/validation/pod_validation.h"

namespace berth::api {

// Validates an object for create or update (metadata and the kind's spec),
// with kube's rules for each built-in kind. Fields kube's strategies would
// default pass when absent wherever the default would (ApplyDefaults in
// defaults.h sets them). A Secret's data or a ConfigMap's binaryData that is
// not base64 is BadRequest, as kube's decoder answers; the rest Invalid.
Status ValidateObject(const Object& object);
// The same with the rules a kind's strategy holds (kind_rules.h).
Status ValidateObject(const Object& object, const KindRules& rules);

// kube's update rules: what may not change from `current` to `next` (both of
// the same kind and name; `next` already passed ValidateObject). Immutable
// fields ("field is immutable"): the selectors of Deployments, ReplicaSets,
// DaemonSets and Jobs; a StatefulSet's spec but for replicas, ordinals,
// template, updateStrategy, persistentVolumeClaimRetentionPolicy and
// minReadySeconds; a Job's template (but a suspended, never started Job's
// scheduling directives), completions (but an Indexed Job's, with
// parallelism), completionMode and podFailurePolicy; a Service's clusterIPs
// once set; the data of a ConfigMap or Secret marked immutable, and that
// mark; a Secret's type; a PersistentVolumeClaim's spec (but volumeName once,
// and a bound claim's storage request and volumeAttributesClassName); a
// binding's roleRef; a ResourceQuota's scopes; an IngressClass's controller;
// an EndpointSlice's addressType; a RuntimeClass's handler; a
// VolumeAttachment's spec; a ControllerRevision's data. Pods and
// PriorityClasses: ValidatePodUpdate and ValidatePriorityClassUpdate.
Status ValidateObjectUpdate(const Object& next, const Object& current);
Status ValidateObjectUpdate(const Object& next, const Object& current, const KindRules& rules);

// kube's ValidateEventCreate / ValidateEventUpdate for an Event (core/v1
// form) written through events.k8s.io/v1: ValidateObject, then eventTime,
// type Normal or Warning, a series of at least 2 with lastObservedTime, and
// the deprecated fields unset; on update, nothing but the series and
// metadata changes. Writes through core/v1 get the legacy rules only
// (ValidateObject).
Status ValidateEventsV1Create(const Object& object);
Status ValidateEventsV1Update(const Object& next, const Object& current);

// PriorityClass limits (kube's scheduling API): user classes go up to
// kHighestUserDefinablePriority; names starting with "system-" are reserved
// for the built-in classes, whose values start at kSystemCriticalPriority.
inline constexpr int64_t kHighestUserDefinablePriority = 1'000'000'000;
inline constexpr int64_t kSystemCriticalPriority = 2'000'000'000;
inline constexpr std::string_view kSystemPriorityClassPrefix = "system-";

struct SystemPriorityClass {
  std::string_view name;
  int64_t value;
  std::string_view description;
};
// The built-in classes every cluster has (system-node-critical,
// system-cluster-critical), with kube's values and descriptions.
std::span<const SystemPriorityClass> SystemPriorityClasses();

// kube's ValidatePriorityClassUpdate: `value` and `preemptionPolicy` never
// change once created (ValidateObject checks the rest).
Status ValidatePriorityClassUpdate(const Object& next, const Object& current);

}  // namespace berth::api
