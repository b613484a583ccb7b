#pragma once
// What volume binding reads from PersistentVolumes, PersistentVolumeClaims
// and StorageClasses, parsed once per object version.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/node_selector.h"
#include "api/selector.h"
#include "api/views.h"

namespace berth::api {

class Object;

struct ObjectReference {
  std::string ns, name, uid;
};

class PersistentVolumeView : public TypedView {
 public:
  int64_t capacity_bytes = 0;  // spec.capacity.storage
  std::vector<std::string> access_modes;
  std::string storage_class_name;
  std::string volume_mode;  // "Filesystem" when unset
  std::string reclaim_policy;
  std::optional<ObjectReference> claim_ref;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  std::string phase;
};

class PersistentVolumeClaimView : public TypedView {
 public:
  std::vector<std::string> access_modes;
  int64_t requested_bytes = 0;  // spec.resources.requests.storage
  // nullopt: unset (the default class applies); "": explicitly no class.
  std::optional<std::string> storage_class_name;
  std::string volume_name;  // spec.volumeName: bound or pre-bound to this PV
  std::string volume_mode;  // "Filesystem" when unset
  std::optional<LabelSelector> selector;
  std::string phase;
  // The volume.kubernetes.io/selected-node annotation (delayed binding).
  std::string selected_node;
  // The claim's class as kube reads it (GetPersistentVolumeClaimClass): the
  // annotation volume.beta.kubernetes.io/storage-class, else
  // spec.storageClassName, else "".
  std::string class_name;
};

class StorageClassView : public TypedView {
 public:
  std::string provisioner;
  bool wait_for_first_consumer = false;  // volumeBindingMode
  std::string reclaim_policy;            // "Delete" when unset
  // allowedTopologies as node selector terms (matchLabelExpressions → In).
  std::vector<NodeSelectorTerm> allowed_topologies;
  bool is_default = false;  // storageclass.kubernetes.io/is-default-class: "true"
};

class PriorityClassView : public TypedView {
 public:
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;  // "PreemptLowerPriority" when unset
};

Result<std::shared_ptr<const TypedView>> ParsePersistentVolumeView(const boost::json::object& pv);
// A claim's class (PersistentVolumeClaimView::class_name); "" for an object
// that is not a claim.
std::string ClaimClass(const Object& claim);

Result<std::shared_ptr<const TypedView>> ParsePersistentVolumeClaimView(const boost::json::object& pvc);
Result<std::shared_ptr<const TypedView>> ParseStorageClassView(const boost::json::object& sc);
Result<std::shared_ptr<const TypedView>> ParsePriorityClassView(const boost::json::object& pc);

}  // namespace berth::api
