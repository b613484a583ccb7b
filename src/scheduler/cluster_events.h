#pragma once
// The cluster events that move unschedulable pods back to the active or
// backoff queue, by the labels kube-scheduler gives them in
// scheduler_queue_incoming_pods_total{event} and
// scheduler_event_handling_duration_seconds{event} (its framework's
// ClusterEvent labels): NodeAdd, NodeTaintChange, AssignedPodDelete, PvAdd, …
// These are kube 1.31's labels, the release whose scheduler metrics berth
// exposes (pod_scheduling_duration_seconds, scheduler_scheduler_cache_size);
// later releases make them of the resource and the action
// ("NodeUpdateNodeTaint"). Each is a literal: the queue keeps the label it
// is given.

#include <span>
#include <string_view>

#include "api/object.h"

namespace berth::scheduler::events {

inline constexpr std::string_view kNodeAdd = "NodeAdd";
inline constexpr std::string_view kNodeDelete = "NodeDelete";
inline constexpr std::string_view kNodeSpecUnschedulableChange = "NodeSpecUnschedulableChange";
inline constexpr std::string_view kNodeAllocatableChange = "NodeAllocatableChange";
inline constexpr std::string_view kNodeLabelChange = "NodeLabelChange";
inline constexpr std::string_view kNodeTaintChange = "NodeTaintChange";
inline constexpr std::string_view kNodeConditionChange = "NodeConditionChange";
inline constexpr std::string_view kNodeAnnotationChange = "NodeAnnotationChange";
inline constexpr std::string_view kAssignedPodAdd = "AssignedPodAdd";
inline constexpr std::string_view kAssignedPodUpdate = "AssignedPodUpdate";
inline constexpr std::string_view kAssignedPodDelete = "AssignedPodDelete";
inline constexpr std::string_view kUnscheduledPodAdd = "UnscheduledPodAdd";
inline constexpr std::string_view kUnscheduledPodUpdate = "UnscheduledPodUpdate";
inline constexpr std::string_view kUnscheduledPodDelete = "UnscheduledPodDelete";
inline constexpr std::string_view kPvAdd = "PvAdd";
inline constexpr std::string_view kPvUpdate = "PvUpdate";
inline constexpr std::string_view kPvcAdd = "PvcAdd";
inline constexpr std::string_view kPvcUpdate = "PvcUpdate";
inline constexpr std::string_view kStorageClassAdd = "StorageClassAdd";
inline constexpr std::string_view kStorageClassUpdate = "StorageClassUpdate";
inline constexpr std::string_view kCSINodeAdd = "CSINodeAdd";
inline constexpr std::string_view kCSINodeUpdate = "CSINodeUpdate";
inline constexpr std::string_view kCSIDriverAdd = "CSIDriverAdd";
inline constexpr std::string_view kCSIDriverUpdate = "CSIDriverUpdate";
inline constexpr std::string_view kCSIStorageCapacityAdd = "CSIStorageCapacityAdd";
inline constexpr std::string_view kCSIStorageCapacityUpdate = "CSIStorageCapacityUpdate";
// berth moves pods when a CSINode or CSIDriver goes away (a limit or a
// capacity check gone); kube has no such event. Named as its others.
inline constexpr std::string_view kCSINodeDelete = "CSINodeDelete";
inline constexpr std::string_view kCSIDriverDelete = "CSIDriverDelete";

// Every label above, for the metrics' children made at start.
std::span<const std::string_view> AllLabels();

// The event a node's update is, as kube reads it (NodeSchedulingPropertiesChange):
// the first of spec.unschedulable turned off, allocatable, labels, taints,
// condition statuses and annotations that changed, in that order; "" when
// none did (kube moves no pod then: a heartbeat changes nothing here).
std::string_view NodeUpdateEvent(const api::Object& before, const api::Object& after);

}  // namespace berth::scheduler::events
