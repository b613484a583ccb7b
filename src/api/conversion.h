#pragma once
// Conversion between a kind served over another kind's objects
// (KindInfo::stored_as) and that kind, as kube's conversion functions do it:
//
//   events.k8s.io/v1 Event  <->  core/v1 Event: regarding/involvedObject,
//     note/message, reportingController/reportingComponent, deprecatedSource/
//     source, deprecatedFirstTimestamp/firstTimestamp, deprecatedLastTimestamp/
//     lastTimestamp, deprecatedCount/count; the rest keeps its names.
//   autoscaling/v1 HorizontalPodAutoscaler  <->  autoscaling/v2: v1's
//     spec.targetCPUUtilizationPercentage is v2's cpu Resource metric of type
//     Utilization (80 when no metric is given, kube's default), and
//     status.currentCPUUtilizationPercentage its current utilization; what v1
//     cannot say travels in kube's annotations (autoscaling.alpha.kubernetes.io/
//     metrics, current-metrics, conditions, behavior) and is lifted back out
//     when a v1 object is written.
//
// Pure functions of JSON; thread-safe.

#include <boost/json/object.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::api {

// kube's annotations of an autoscaling/v1 HorizontalPodAutoscaler.
inline constexpr std::string_view kHpaMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr std::string_view kHpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr std::string_view kHpaConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr std::string_view kHpaBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

// An object of `served` (a kind with stored_as) as its storage kind has it.
// BadRequest when one of the annotations above is not the JSON it names.
// Kinds without stored_as: `object` unchanged.
Result<boost::json::object> ConvertToStored(Kind served, boost::json::object object);

// A stored object (of StorageKindOf(served)) as `served` shows it. Kinds
// without stored_as: `stored` unchanged.
boost::json::object ConvertFromStored(Kind served, const boost::json::object& stored);

}  // namespace berth::api
