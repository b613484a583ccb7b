#pragma once
// What a DaemonSet's pods look like and where they may run, by the rules of
// kube's pkg/controller/daemon and its util package:
//
// - every daemon pod tolerates node.kubernetes.io/not-ready and unreachable
//   (NoExecute, for ever), disk-, memory- and pid-pressure and unschedulable
//   (NoSchedule), and network-unavailable when it uses the host's network;
// - a node should run the pod when the template's nodeName (if any), its
//   nodeSelector and required node affinity match the node, and no NoSchedule
//   or NoExecute taint goes untolerated; a pod already there may continue
//   running on a node whose only untolerated taints are NoSchedule;
// - each pod is pinned to its node by a required node affinity term
//   matchFields metadata.name In [node] that replaces the template's
//   required terms (which the node was checked against), so the scheduler
//   places it (resources, preemption) and spec.nodeName stays empty;
// - its ControllerRevisions are those of controllers/history.h.

#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/node_selector.h"
#include "api/object.h"
#include "api/status.h"
#include "api/taints.h"
#include "controllers/history.h"

namespace berth::controllers {

inline constexpr char kPodTemplateGenerationLabel[] = "pod-template-generation";
inline constexpr char kTemplateGenerationAnnotation[] = "deprecated.daemonset.template.generation";

// Adds (or replaces, matching key, operator, value and effect) the
// tolerations kube gives every daemon pod. `pod_spec` is a PodSpec.
void AddDaemonPodTolerations(boost::json::object& pod_spec);

// Sets the PodSpec's required node affinity to the one term
// matchFields metadata.name In [node], keeping preferred terms and
// pod (anti-)affinity (kube's ReplaceDaemonSetPodNodeNameNodeAffinity).
void PinToNode(boost::json::object& pod_spec, std::string_view node);

// The node a daemon pod is for: spec.nodeName, or else the value of its
// required matchFields metadata.name In term; "" when it names none (or
// several).
std::string TargetNodeName(const api::Object& pod);

// Where a DaemonSet's pods may run, read once per DaemonSet version.
class DaemonPlacement {
 public:
  struct Fit {
    bool should_run = false;               // a pod should be created there
    bool should_continue_running = false;  // a pod already there may stay
    bool operator==(const Fit&) const = default;
  };

  // From the DaemonSet's spec.template (with the daemon tolerations added).
  // BadRequest when the template cannot be read as a pod.
  static Result<std::shared_ptr<const DaemonPlacement>> For(const api::Object& daemon_set);

  Fit Evaluate(const api::Object& node) const;
  Fit Evaluate(std::string_view node_name, const api::Labels& labels,
               const std::vector<api::Taint>& taints) const;

 private:
  std::string node_name_;  // the template's spec.nodeName
  api::Labels node_selector_;
  std::optional<api::NodeSelector> required_;
  std::vector<api::Toleration> tolerations_;
};

}  // namespace berth::controllers
