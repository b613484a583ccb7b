#include "scheduler/cluster_events.h"

#include <boost/json.hpp>
#include <map>
#include <string>

#include "api/json_fields.h"

namespace berth::scheduler::events {

namespace {

namespace json = boost::json;

// Whether `key` of the two objects differs (absent and null read alike).
bool Differs(const json::object* a, const json::object* b, std::string_view key) {
  const json::value* va = a ? a->if_contains(key) : nullptr;
  const json::value* vb = b ? b->if_contains(key) : nullptr;
  if (va && va->is_null()) va = nullptr;
  if (vb && vb->is_null()) vb = nullptr;
  if (!va || !vb) return va != vb;
  return *va != *vb;
}

// status.conditions as type → status (kube compares nothing else of them).
std::map<std::string, std::string> ConditionStatuses(const api::Object& node) {
  std::map<std::string, std::string> out;
  if (const json::array* conditions = api::ArrayAt(api::StatusOf(node), "conditions")) {
    for (const json::value& c : *conditions) {
      if (!c.is_object()) continue;
      out[std::string(api::StringAt(c.get_object(), "type"))] =
          std::string(api::StringAt(c.get_object(), "status"));
    }
  }
  return out;
}

}  // namespace

std::span<const std::string_view> AllLabels() {
  static constexpr std::string_view kAll[] = {kNodeAdd,
                                              kNodeDelete,
                                              kNodeSpecUnschedulableChange,
                                              kNodeAllocatableChange,
                                              kNodeLabelChange,
                                              kNodeTaintChange,
                                              kNodeConditionChange,
                                              kNodeAnnotationChange,
                                              kAssignedPodAdd,
                                              kAssignedPodUpdate,
                                              kAssignedPodDelete,
                                              kUnscheduledPodAdd,
                                              kUnscheduledPodUpdate,
                                              kUnscheduledPodDelete,
                                              kPvAdd,
                                              kPvUpdate,
                                              kPvcAdd,
                                              kPvcUpdate,
                                              kStorageClassAdd,
                                              kStorageClassUpdate,
                                              kCSINodeAdd,
                                              kCSINodeUpdate,
                                              kCSIDriverAdd,
                                              kCSIDriverUpdate,
                                              kCSIStorageCapacityAdd,
                                              kCSIStorageCapacityUpdate,
                                              kCSINodeDelete,
                                              kCSIDriverDelete};
  return kAll;
}

std::string_view NodeUpdateEvent(const api::Object& before, const api::Object& after) {
  const json::object* spec_before = api::Spec(before);
  const json::object* spec_after = api::Spec(after);
  if (api::BoolAt(spec_before, "unschedulable") && !api::BoolAt(spec_after, "unschedulable")) {
    return kNodeSpecUnschedulableChange;
  }
  if (Differs(api::StatusOf(before), api::StatusOf(after), "allocatable"))
    return kNodeAllocatableChange;
  if (Differs(api::Metadata(before), api::Metadata(after), "labels")) return kNodeLabelChange;
  if (Differs(spec_before, spec_after, "taints")) return kNodeTaintChange;
  if (ConditionStatuses(before) != ConditionStatuses(after)) return kNodeConditionChange;
  if (Differs(api::Metadata(before), api::Metadata(after), "annotations"))
    return kNodeAnnotationChange;
  return {};
}

}  // namespace berth::scheduler::events
