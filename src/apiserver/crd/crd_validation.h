#pragma once
// The validation of a CustomResourceDefinition (kube's
// ValidateCustomResourceDefinition and its update rules), as CrdStrategy
// applies it (crd_controller.h).

#include "api/object.h"
#include "api/status.h"

namespace berth::apiserver::crd {

// Invalid with kube's field errors and messages; `old`: the stored
// definition on update, nullptr on create.
Status ValidateCrd(const api::Object& object, const api::Object* old);

}  // namespace berth::apiserver::crd
