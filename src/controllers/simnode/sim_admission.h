#pragma once
// What a kubelet checks before it runs a pod bound to its node (kube's
// predicateAdmitHandler): the scheduler's admission checks — resources
// (pods, cpu, memory, ephemeral-storage, then the others), node affinity
// and nodeSelector, host ports — against the pods the kubelet has already
// admitted, then the node's NoExecute taints the pod does not tolerate. A
// pod bound by a scheduler passes; one bound by hand (spec.nodeName) may
// not. The first failure is the rejection, in kube's words.

#include <optional>
#include <string>
#include <vector>

#include "api/object.h"

namespace berth::controllers {

struct PodRejection {
  std::string reason;   // "OutOfcpu", "NodePorts", "NodeAffinity", "TaintToleration" ...
  std::string message;  // the event's; the pod's status.message is "Pod was rejected: " + this
};

// nullopt: `pod` may run on `node` beside `admitted` (the active pods the
// kubelet runs there, not `pod` itself).
std::optional<PodRejection> CheckPodAdmission(const api::Object& pod, const api::Object& node,
                                              const std::vector<api::ObjectPtr>& admitted);

}  // namespace berth::controllers
