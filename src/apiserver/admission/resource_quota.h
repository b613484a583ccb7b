#pragma once
// kube's ResourceQuota admission plugin: a create that would take a
// namespace's usage past a quota's hard limits is refused ("exceeded quota"),
// and one the quota admits is charged to status.used at once, so concurrent
// creates cannot overrun it between the quota controller's recounts.

#include <memory>

#include "apiserver/admission/admission.h"

namespace berth::apiserver {

std::unique_ptr<AdmissionPlugin> MakeResourceQuota(store::Store& store);

}  // namespace berth::apiserver
