#pragma once
// kube's LimitRanger admission plugin: the LimitRanges of a namespace give
// its pods' containers default requests and limits (annotated
// kubernetes.io/limit-ranger), and refuse pods and claims outside their
// min, max and maxLimitRequestRatio.

#include <memory>

#include "apiserver/admission/admission.h"

namespace berth::apiserver {

std::unique_ptr<AdmissionPlugin> MakeLimitRanger(store::Store& store);

}  // namespace berth::apiserver
