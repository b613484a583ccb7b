// autoscaling/v2 and v1 messages (k8s.io/api/autoscaling/v2/generated.proto
// and v1's): HorizontalPodAutoscaler.

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kCrossVersionObjectReference{
    "CrossVersionObjectReference",
    {String(1, "kind", kKeep), String(2, "name", kKeep), String(3, "apiVersion")}, {}, "null", "v2"};
const Message kMetricTarget{"MetricTarget",
                            {String(1, "type", kKeep).Go("v2.MetricTargetType"), Quantity(2, "value"),
                             Quantity(3, "averageValue"), Int(4, "averageUtilization", kKeep)}, {}, "null", "v2"};
const Message kMetricIdentifier{"MetricIdentifier",
                                {String(1, "name", kKeep), Nested(2, "selector", kLabelSelector)}, {}, "null", "v2"};
const Message kObjectMetricSource{
    "ObjectMetricSource",
    {Nested(1, "describedObject", kCrossVersionObjectReference), Nested(2, "target", kMetricTarget),
     Nested(3, "metric", kMetricIdentifier)}, {}, "null", "v2"};
const Message kPodsMetricSource{
    "PodsMetricSource",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "target", kMetricTarget)}, {}, "null", "v2"};
const Message kResourceMetricSource{"ResourceMetricSource",
                                    {String(1, "name", kKeep).Go("v1.ResourceName"), Nested(2, "target", kMetricTarget)}, {}, "null", "v2"};
const Message kContainerResourceMetricSource{
    "ContainerResourceMetricSource",
    {String(1, "name", kKeep).Go("v1.ResourceName"), Nested(2, "target", kMetricTarget), String(3, "container", kKeep)}, {}, "null", "v2"};
const Message kExternalMetricSource{
    "ExternalMetricSource",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "target", kMetricTarget)}, {}, "null", "v2"};
const Message kMetricSpec{
    "MetricSpec",
    {String(1, "type", kKeep).Go("v2.MetricSourceType"), Nested(2, "object", kObjectMetricSource),
     Nested(3, "pods", kPodsMetricSource), Nested(4, "resource", kResourceMetricSource),
     Nested(7, "containerResource", kContainerResourceMetricSource),
     Nested(5, "external", kExternalMetricSource)}, {}, "null", "v2"};
const Message kHPAScalingPolicy{
    "HPAScalingPolicy",
    {String(1, "type", kKeep).Go("v2.HPAScalingPolicyType"), Int(2, "value", kKeep), Int(3, "periodSeconds", kKeep)}, {}, "null", "v2"};
const Message kHPAScalingRules{
    "HPAScalingRules",
    {Int(3, "stabilizationWindowSeconds", kKeep), String(1, "selectPolicy", kKeep).Go("v2.ScalingPolicySelect"),
     NestedList(2, "policies", kHPAScalingPolicy), Quantity(4, "tolerance")}, {}, "null", "v2"};
const Message kHorizontalPodAutoscalerBehavior{
    "HorizontalPodAutoscalerBehavior",
    {Nested(1, "scaleUp", kHPAScalingRules), Nested(2, "scaleDown", kHPAScalingRules)}, {}, "null", "v2"};
const Message kHorizontalPodAutoscalerSpec{
    "HorizontalPodAutoscalerSpec",
    {Nested(1, "scaleTargetRef", kCrossVersionObjectReference), Int(2, "minReplicas", kKeep),
     Int(3, "maxReplicas", kKeep), NestedList(4, "metrics", kMetricSpec),
     Nested(5, "behavior", kHorizontalPodAutoscalerBehavior)}, {}, "null", "v2"};
const Message kMetricValueStatus{
    "MetricValueStatus",
    {Quantity(1, "value"), Quantity(2, "averageValue"), Int(3, "averageUtilization", kKeep)}, {}, "null", "v2"};
const Message kObjectMetricStatus{
    "ObjectMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus),
     Nested(3, "describedObject", kCrossVersionObjectReference)}, {}, "null", "v2"};
const Message kPodsMetricStatus{
    "PodsMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus)}, {}, "null", "v2"};
const Message kResourceMetricStatus{
    "ResourceMetricStatus", {String(1, "name", kKeep).Go("v1.ResourceName"), Nested(2, "current", kMetricValueStatus)}, {}, "null", "v2"};
const Message kContainerResourceMetricStatus{
    "ContainerResourceMetricStatus",
    {String(1, "name", kKeep).Go("v1.ResourceName"), Nested(2, "current", kMetricValueStatus),
     String(3, "container", kKeep)}, {}, "null", "v2"};
const Message kExternalMetricStatus{
    "ExternalMetricStatus",
    {Nested(1, "metric", kMetricIdentifier), Nested(2, "current", kMetricValueStatus)}, {}, "null", "v2"};
const Message kMetricStatus{
    "MetricStatus",
    {String(1, "type", kKeep).Go("v2.MetricSourceType"), Nested(2, "object", kObjectMetricStatus),
     Nested(3, "pods", kPodsMetricStatus), Nested(4, "resource", kResourceMetricStatus),
     Nested(7, "containerResource", kContainerResourceMetricStatus),
     Nested(5, "external", kExternalMetricStatus)}, {}, "null", "v2"};
const Message kHorizontalPodAutoscalerCondition{
    "HorizontalPodAutoscalerCondition",
    {String(1, "type", kKeep).Go("v2.HorizontalPodAutoscalerConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message"), Int(6, "observedGeneration", kKeep).Go("int64")}, {}, "null", "v2"};
const Message kHorizontalPodAutoscalerStatus{
    "HorizontalPodAutoscalerStatus",
    {Int(1, "observedGeneration", kKeep).Go("int64"), Time(2, "lastScaleTime"), Int(3, "currentReplicas"),
     Int(4, "desiredReplicas", kKeep), NestedList(5, "currentMetrics", kMetricStatus),
     NestedList(6, "conditions", kHorizontalPodAutoscalerCondition)}, {}, "null", "v2"};
const Message kHorizontalPodAutoscaler{
    "HorizontalPodAutoscaler",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kHorizontalPodAutoscalerSpec),
     Nested(3, "status", kHorizontalPodAutoscalerStatus)}, {}, "null", "v2"};

// autoscaling/v1 (k8s.io/api/autoscaling/v1/generated.proto): what
// `kubectl autoscale` sends.
const Message kHorizontalPodAutoscalerSpecV1{
    "HorizontalPodAutoscalerSpec",
    {Nested(1, "scaleTargetRef", kCrossVersionObjectReference), Int(2, "minReplicas", kKeep),
     Int(3, "maxReplicas", kKeep), Int(4, "targetCPUUtilizationPercentage", kKeep)}, {}, "null", "v1"};
const Message kHorizontalPodAutoscalerStatusV1{
    "HorizontalPodAutoscalerStatus",
    {Int(1, "observedGeneration", kKeep).Go("int64"), Time(2, "lastScaleTime"), Int(3, "currentReplicas", kKeep),
     Int(4, "desiredReplicas", kKeep), Int(5, "currentCPUUtilizationPercentage", kKeep)}, {}, "null", "v1"};
const Message kHorizontalPodAutoscalerV1{
    "HorizontalPodAutoscaler",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kHorizontalPodAutoscalerSpecV1),
     Nested(3, "status", kHorizontalPodAutoscalerStatusV1)}, {}, "null", "v1"};

const Message kScaleSpec{"ScaleSpec", {Int(1, "replicas")}};
const Message kScaleStatus{"ScaleStatus", {Int(1, "replicas", kKeep), String(2, "selector")}};
const Message kScale{"Scale",
                     {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kScaleSpec),
                      Nested(3, "status", kScaleStatus)}};

const KindMessage kAutoscalingKindList[] = {
    {api::Kind::kHorizontalPodAutoscaler, &kHorizontalPodAutoscaler},
    {api::Kind::kHorizontalPodAutoscalerV1, &kHorizontalPodAutoscalerV1},
};
const std::span<const KindMessage> kAutoscalingKinds = kAutoscalingKindList;

}  // namespace berth::apiserver::protobuf_schema
