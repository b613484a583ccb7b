// autoscaling/v2 and v1 messages (k8s.io/api/autoscaling/v2/generated.proto
// and v1's): HorizontalPodAutoscaler.

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kCrossVersionObjectReference{
    "CrossVersionObjectReference",
    {String(1, "kind", kKeep), String(2, "name", kKeep), String(3, "apiVersion")}};
const Message kMetricTarget{"MetricTarget",
                            {String(1, "type", kKeep), Quantity(2, "value"),
                             Quantity(3, "averageValue"), Int(4, "averageUtilization", kKeep)}};
const Message kMetricIdentifier{"MetricIdentifier",
                                {String(1, "name", kKeep), Nested(2, "selector", kLabelSelector)}};
const Message kObjectMetricSource{
    "ObjectMetricSource",
    {Nested(1, "describedObject", kCrossVersionObjectReference), Nested(2, "target", kMetricTarget),
     Nested(3, "metric", kMetricIdentifier)}};
const Message kPodsMetricSource{
    "PodsMetricSource",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "target", kMetricTarget)}};
const Message kResourceMetricSource{"ResourceMetricSource",
                                    {String(1, "name", kKeep), Nested(2, "target", kMetricTarget)}};
const Message kContainerResourceMetricSource{
    "ContainerResourceMetricSource",
    {String(1, "name", kKeep), Nested(2, "target", kMetricTarget), String(3, "container", kKeep)}};
const Message kExternalMetricSource{
    "ExternalMetricSource",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "target", kMetricTarget)}};
const Message kMetricSpec{
    "MetricSpec",
    {String(1, "type", kKeep), Nested(2, "object", kObjectMetricSource),
     Nested(3, "pods", kPodsMetricSource), Nested(4, "resource", kResourceMetricSource),
     Nested(7, "containerResource", kContainerResourceMetricSource),
     Nested(5, "external", kExternalMetricSource)}};
const Message kHPAScalingPolicy{
    "HPAScalingPolicy",
    {String(1, "type", kKeep), Int(2, "value", kKeep), Int(3, "periodSeconds", kKeep)}};
const Message kHPAScalingRules{
    "HPAScalingRules",
    {Int(3, "stabilizationWindowSeconds", kKeep), String(1, "selectPolicy", kKeep),
     NestedList(2, "policies", kHPAScalingPolicy), Quantity(4, "tolerance")}};
const Message kHorizontalPodAutoscalerBehavior{
    "HorizontalPodAutoscalerBehavior",
    {Nested(1, "scaleUp", kHPAScalingRules), Nested(2, "scaleDown", kHPAScalingRules)}};
const Message kHorizontalPodAutoscalerSpec{
    "HorizontalPodAutoscalerSpec",
    {Nested(1, "scaleTargetRef", kCrossVersionObjectReference), Int(2, "minReplicas", kKeep),
     Int(3, "maxReplicas", kKeep), NestedList(4, "metrics", kMetricSpec),
     Nested(5, "behavior", kHorizontalPodAutoscalerBehavior)}};
const Message kMetricValueStatus{
    "MetricValueStatus",
    {Quantity(1, "value"), Quantity(2, "averageValue"), Int(3, "averageUtilization", kKeep)}};
const Message kObjectMetricStatus{
    "ObjectMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus),
     Nested(3, "describedObject", kCrossVersionObjectReference)}};
const Message kPodsMetricStatus{
    "PodsMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus)}};
const Message kResourceMetricStatus{
    "ResourceMetricStatus", {String(1, "name", kKeep), Nested(2, "current", kMetricValueStatus)}};
const Message kContainerResourceMetricStatus{
    "ContainerResourceMetricStatus",
    {String(1, "name", kKeep), Nested(2, "current", kMetricValueStatus),
     String(3, "container", kKeep)}};
const Message kExternalMetricStatus{
    "ExternalMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus)}};
const Message kMetricStatus{
    "MetricStatus",
    {String(1, "type", kKeep), Nested(2, "object", kObjectMetricStatus),
     Nested(3, "pods", kPodsMetricStatus), Nested(4, "resource", kResourceMetricStatus),
     Nested(7, "containerResource", kContainerResourceMetricStatus),
     Nested(5, "external", kExternalMetricStatus)}};
const Message kHorizontalPodAutoscalerCondition{
    "HorizontalPodAutoscalerCondition",
    {String(1, "type", kKeep), String(2, "status", kKeep), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message"), Int(6, "observedGeneration", kKeep)}};
const Message kHorizontalPodAutoscalerStatus{
    "HorizontalPodAutoscalerStatus",
    {Int(1, "observedGeneration", kKeep), Time(2, "lastScaleTime"), Int(3, "currentReplicas"),
     Int(4, "desiredReplicas", kKeep), NestedList(5, "currentMetrics", kMetricStatus),
     NestedList(6, "conditions", kHorizontalPodAutoscalerCondition)}};
const Message kHorizontalPodAutoscaler{
    "HorizontalPodAutoscaler",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kHorizontalPodAutoscalerSpec),
     Nested(3, "status", kHorizontalPodAutoscalerStatus)}};

// autoscaling/v1 (k8s.io/api/autoscaling/v1/generated.proto): what
// `kubectl autoscale` sends.
const Message kHorizontalPodAutoscalerSpecV1{
    "HorizontalPodAutoscalerSpec",
    {Nested(1, "scaleTargetRef", kCrossVersionObjectReference), Int(2, "minReplicas", kKeep),
     Int(3, "maxReplicas", kKeep), Int(4, "targetCPUUtilizationPercentage", kKeep)}};
const Message kHorizontalPodAutoscalerStatusV1{
    "HorizontalPodAutoscalerStatus",
    {Int(1, "observedGeneration", kKeep), Time(2, "lastScaleTime"), Int(3, "currentReplicas", kKeep),
     Int(4, "desiredReplicas", kKeep), Int(5, "currentCPUUtilizationPercentage", kKeep)}};
const Message kHorizontalPodAutoscalerV1{
    "HorizontalPodAutoscaler",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kHorizontalPodAutoscalerSpecV1),
     Nested(3, "status", kHorizontalPodAutoscalerStatusV1)}};

const KindMessage kAutoscalingKindList[] = {
    {api::Kind::kHorizontalPodAutoscaler, &kHorizontalPodAutoscaler},
    {api::Kind::kHorizontalPodAutoscalerV1, &kHorizontalPodAutoscalerV1},
};
const std::span<const KindMessage> kAutoscalingKinds = kAutoscalingKindList;

}  // namespace berth::apiserver::protobuf_schema
