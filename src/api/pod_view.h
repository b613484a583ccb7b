#pragma once
// What berth reads from a Pod, parsed once per object version
// (Object::As<PodView>()).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/node_selector.h"
#include "api/resources.h"
#include "api/selector.h"
#include "api/taints.h"
#include "api/views.h"

namespace berth::api {

struct PodAffinityTerm {
  LabelSelector label_selector = LabelSelector::Nothing();  // nil selects nothing
  std::vector<std::string> namespaces;
  // nullopt: only `namespaces` (or the pod's own namespace when both are empty).
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
};

struct PodAffinityRules {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
  bool empty() const { return required.empty() && preferred.empty(); }
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  bool do_not_schedule = true;  // whenUnsatisfiable: DoNotSchedule (else ScheduleAnyway)
  LabelSelector label_selector = LabelSelector::Nothing();
  std::optional<int32_t> min_domains;
  bool node_affinity_honor = true;  // nodeAffinityPolicy: Honor (default) or Ignore
  bool node_taints_honor = false;   // nodeTaintsPolicy: Ignore (default) or Honor
  std::vector<std::string> match_label_keys;
};

struct HostPort {
  std::string protocol;  // "TCP" when unset
  std::string host_ip;   // "0.0.0.0" when unset
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// Whether two pods asking for these host ports cannot share a node (kube's
// NodePorts rule): the same port and protocol, on the same address or on
// 0.0.0.0 (every address).
bool HostPortsConflict(const HostPort& a, const HostPort& b);

struct PodVolume {
  std::string name;
  // The claim this volume uses: persistentVolumeClaim.claimName, or for a
  // generic ephemeral volume the claim Kubernetes creates ("<pod>-<volume>").
  std::string claim_name;
  bool ephemeral = false;
};

struct OwnerReference {
  std::string api_version, kind, name, uid;
  bool controller = false;
};

class PodView : public TypedView {
 public:
  // Effective requests by kube's rule: the sum over containers (and sidecar
  // init containers, restartPolicy Always), or the largest init container step
  // if larger, plus spec.overhead. A container with limits but no requests
  // requests its limits (API defaulting).
  ResourceList requests;
  // The same, counting a container with no cpu or memory request as 100m / 200Mi:
  // what scoring plugins use (kube's non-zero requests).
  ResourceList non_zero_requests;

  Labels node_selector;
  std::optional<NodeSelector> required_node_affinity;
  std::vector<PreferredSchedulingTerm> preferred_node_affinity;
  PodAffinityRules pod_affinity;
  PodAffinityRules pod_anti_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;

  int32_t priority = 0;
  bool has_priority = false;
  std::string priority_class_name;
  std::string preemption_policy;  // "PreemptLowerPriority" (default) or "Never"
  std::string scheduler_name;     // "default-scheduler" when unset
  std::string node_name;
  std::string nominated_node_name;
  std::vector<std::string> scheduling_gates;

  std::vector<PodVolume> volumes;
  std::vector<HostPort> host_ports;  // containers' and sidecars' ports with hostPort > 0
  std::vector<std::string> images;   // containers', then init containers'

  std::string phase;  // status.phase
  bool terminating = false;  // metadata.deletionTimestamp set
  std::vector<OwnerReference> owner_references;

  const OwnerReference* ControllerRef() const;
  bool HasAffinityConstraints() const { return !pod_affinity.empty() || !pod_anti_affinity.empty(); }
};

Result<std::shared_ptr<const TypedView>> ParsePodView(const boost::json::object& pod);

// Pod predicates as kube's controllers count pods (k8s.io/kubernetes/pkg/api/v1/pod
// and controller_utils), read from the pod's JSON.
class Object;
// IsPodReady: the Ready condition's status is True.
bool IsPodReady(const Object& pod);
// When the pod became ready: the Ready condition's lastTransitionTime while it
// is True; "" when not ready.
std::string_view PodReadySince(const Object& pod);
// IsPodAvailable: ready, and for at least `min_ready_seconds` before `now`
// (counted from the Ready condition's lastTransitionTime; a pod whose time is
// missing or malformed is not available unless min_ready_seconds <= 0).
bool IsPodAvailable(const Object& pod, int64_t min_ready_seconds,
                    std::chrono::system_clock::time_point now);
// IsPodActive (FilterActivePods): neither finished (Succeeded, Failed) nor being deleted.
bool IsPodActive(const Object& pod);

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";
inline constexpr int64_t kDefaultMilliCpuRequest = 100;                 // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

}  // namespace berth::api
