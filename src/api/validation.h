#pragma once
// Object validation on create and update, with Kubernetes' field paths and
// messages: ValidateObject checks metadata and the kind's spec. The pieces it
// is built from have headers of their own: name syntax (name_validation.h),
// the error collector (field_errors.h) and pod specs and pod updates
// (pod_validation.h), included here for callers of the whole.

#include "api/field_errors.h"
#include "api/name_validation.h"
#include "api/object.h"
#include "api/pod_validation.h"
#include "api/status.h"

namespace berth::api {

// Validates an object for create or update (metadata and the kind's spec).
Status ValidateObject(const Object& object);

}  // namespace berth::api
