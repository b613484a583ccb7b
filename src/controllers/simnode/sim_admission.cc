#include "controllers/simnode/sim_admission.h"

#include "api/node_view.h"
#include "api/pod_view.h"
#include "api/resource_names.h"
#include "api/resources.h"
#include "api/taints.h"

namespace berth::controllers {

namespace {

// kube's OutOf<resource> reasons, with its InsufficientResourceError message.
PodRejection OutOf(std::string_view resource, int64_t requested, int64_t used, int64_t capacity) {
  return {"OutOf" + std::string(resource),
          "Node didn't have enough resource: " + std::string(resource) + ", requested: " + std::to_string(requested) +
              ", used: " + std::to_string(used) + ", capacity: " + std::to_string(capacity)};
}

// kube's PredicateFailureError: "Predicate NAME failed: DESCRIPTION".
PodRejection PredicateFailed(std::string name, std::string_view description) {
  std::string message = "Predicate " + name + " failed: " + std::string(description);
  return {std::move(name), std::move(message)};
}

// The first resource the node lacks for `want` (kube's fitsRequest order:
// the pod count, cpu, memory, ephemeral-storage, then the others by name).
// Extended resources the node does not have at all are left out, as the
// kubelet leaves them to cluster-level managers.
std::optional<PodRejection> CheckResources(const api::ResourceList& want, const api::ResourceList& allocatable,
                                           const api::ResourceList& used, int64_t pods) {
  if (pods + 1 > allocatable.pods) return OutOf("pods", 1, pods, allocatable.pods);
  if (want.milli_cpu > 0 && want.milli_cpu > allocatable.milli_cpu - used.milli_cpu) {
    return OutOf("cpu", want.milli_cpu, used.milli_cpu, allocatable.milli_cpu);
  }
  if (want.memory > 0 && want.memory > allocatable.memory - used.memory) {
    return OutOf("memory", want.memory, used.memory, allocatable.memory);
  }
  if (want.ephemeral_storage > 0 && want.ephemeral_storage > allocatable.ephemeral_storage - used.ephemeral_storage) {
    return OutOf("ephemeral-storage", want.ephemeral_storage, used.ephemeral_storage, allocatable.ephemeral_storage);
  }
  for (const auto& [name, amount] : want.scalars) {
    if (amount == 0) continue;
    if (api::IsExtendedResourceName(name) && !allocatable.HasScalar(name)) continue;
    if (amount > allocatable.Get(name) - used.Get(name)) {
      return OutOf(name, amount, used.Get(name), allocatable.Get(name));
    }
  }
  return std::nullopt;
}

bool MatchesNodeSelection(const api::PodView& pod, const api::Object& node) {
  for (const auto& [key, value] : pod.node_selector) {
    if (node.labels().Get(key) != value) return false;
  }
  return !pod.required_node_affinity || pod.required_node_affinity->Matches(node.labels(), node.name());
}

bool HostPortTaken(const api::PodView& pod, const std::vector<const api::PodView*>& admitted) {
  for (const auto& want : pod.host_ports) {
    for (const api::PodView* other : admitted) {
      for (const auto& used : other->host_ports) {
        if (api::HostPortsConflict(want, used)) return true;
      }
    }
  }
  return false;
}

bool UntoleratedNoExecuteTaint(const api::PodView& pod, const api::NodeView& node) {
  for (const auto& taint : node.taints) {
    if (taint.effect == api::TaintEffect::kNoExecute && !api::Tolerated(pod.tolerations, taint)) return true;
  }
  return false;
}

}  // namespace

std::optional<PodRejection> CheckPodAdmission(const api::Object& pod, const api::Object& node,
                                              const std::vector<api::ObjectPtr>& admitted) {
  const auto* view = pod.As<api::PodView>();
  const auto* node_view = node.As<api::NodeView>();
  if (!view || !node_view) return std::nullopt;
  api::ResourceList used;
  std::vector<const api::PodView*> others;
  for (const auto& other : admitted) {
    const auto* v = other->As<api::PodView>();
    if (!v) continue;
    used.Add(v->requests);
    others.push_back(v);
  }
  if (auto lacking = CheckResources(view->requests, node_view->allocatable, used,
                                    static_cast<int64_t>(others.size()))) {
    return lacking;
  }
  if (!MatchesNodeSelection(*view, node)) {
    return PredicateFailed("NodeAffinity", "node(s) didn't match Pod's node affinity/selector");
  }
  if (HostPortTaken(*view, others)) {
    return PredicateFailed("NodePorts", "node(s) didn't have free ports for the requested pod ports");
  }
  if (UntoleratedNoExecuteTaint(*view, *node_view)) {
    return PredicateFailed("TaintToleration", "node(s) had taints that the pod didn't tolerate");
  }
  return std::nullopt;
}

}  // namespace berth::controllers
