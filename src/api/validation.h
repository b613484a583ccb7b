#pragma once
// Object validation on create and update, with Kubernetes' field paths and
// messages: ValidateObject checks metadata and the kind's spec. The pieces it
// is built from have headers of their own: name syntax (name_validation.h),
// the error collector (field_errors.h) and pod specs and pod updates
// (pod_validation.h), included here for callers of the whole.

#include <cstdint>
#include <span>
#include <string_view>

#include "api/field_errors.h"
#include "api/name_validation.h"
#include "api/object.h"
#include "api/pod_validation.h"
#include "api/status.h"

namespace berth::api {

// Validates an object for create or update (metadata and the kind's spec).
Status ValidateObject(const Object& object);

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
