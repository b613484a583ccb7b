#include "api/conversion.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::api {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(ConversionTest, EventsV1FieldsMapToCoreNamesAndBack) {
  json::object v1 = Parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
      "metadata":{"name":"e","namespace":"default"},
      "eventTime":"2024-01-02T03:04:05.000000Z","series":{"count":2,"lastObservedTime":"2024-01-02T03:04:06.000000Z"},
      "reportingController":"example.com/ctl","reportingInstance":"ctl-1","action":"Scale","reason":"Scaled",
      "regarding":{"kind":"Deployment","name":"web","namespace":"default"},
      "related":{"kind":"ReplicaSet","name":"web-1"},"note":"scaled up","type":"Normal",
      "deprecatedSource":{"component":"old"},"deprecatedFirstTimestamp":"2024-01-01T00:00:00Z",
      "deprecatedLastTimestamp":"2024-01-01T00:00:01Z","deprecatedCount":3})");
  auto core = ConvertToStored(Kind::kEventsEvent, v1);
  ASSERT_TRUE(core.ok()) << core.status().message();
  EXPECT_EQ(StringAt(*core, "apiVersion"), "v1");
  EXPECT_EQ(StringAt(*core, "message"), "scaled up");
  EXPECT_EQ(StringAt(*core, "reportingComponent"), "example.com/ctl");
  EXPECT_EQ(StringAt(ObjectAt(*core, "involvedObject"), "name"), "web");
  EXPECT_EQ(StringAt(ObjectAt(*core, "source"), "component"), "old");
  EXPECT_EQ(StringAt(*core, "firstTimestamp"), "2024-01-01T00:00:00Z");
  EXPECT_EQ(StringAt(*core, "lastTimestamp"), "2024-01-01T00:00:01Z");
  EXPECT_EQ(IntAt(&*core, "count"), 3);
  EXPECT_EQ(StringAt(*core, "action"), "Scale");
  EXPECT_EQ(StringAt(ObjectAt(*core, "related"), "name"), "web-1");
  for (const char* gone : {"note", "regarding", "reportingController", "deprecatedSource", "deprecatedCount"}) {
    EXPECT_FALSE(core->contains(gone)) << gone;
  }
  // And back: the same object.
  EXPECT_EQ(ConvertFromStored(Kind::kEventsEvent, *core), v1);
}

TEST(ConversionTest, CoreNamesSentToEventsV1AreDropped) {
  // "message" is not a field of events.k8s.io/v1: kube's decoder drops it.
  auto core = ConvertToStored(Kind::kEventsEvent,
                              Parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","message":"x"})"));
  ASSERT_TRUE(core.ok());
  EXPECT_FALSE(core->contains("message"));
}

TEST(ConversionTest, HpaV1CpuTargetIsAV2UtilizationMetric) {
  auto v2 = ConvertToStored(Kind::kHorizontalPodAutoscalerV1, Parse(R"({"apiVersion":"autoscaling/v1",
      "kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"default"},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
              "minReplicas":2,"maxReplicas":5,"targetCPUUtilizationPercentage":70}})"));
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(StringAt(*v2, "apiVersion"), "autoscaling/v2");
  const json::object* spec = ObjectAt(*v2, "spec");
  EXPECT_EQ(IntAt(spec, "minReplicas"), 2);
  EXPECT_EQ(IntAt(spec, "maxReplicas"), 5);
  EXPECT_EQ(json::serialize(spec->at("metrics")),
            R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}])");
  EXPECT_FALSE(spec->contains("targetCPUUtilizationPercentage"));
}

TEST(ConversionTest, HpaV1WithoutTargetGetsKubesDefaultOf80Percent) {
  auto v2 = ConvertToStored(Kind::kHorizontalPodAutoscalerV1, Parse(R"({"apiVersion":"autoscaling/v1",
      "kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"spec":{"maxReplicas":3}})"));
  ASSERT_TRUE(v2.ok());
  const json::array* metrics = ArrayAt(ObjectAt(*v2, "spec"), "metrics");
  ASSERT_TRUE(metrics && metrics->size() == 1);
  EXPECT_EQ(IntAt(ObjectAt(ObjectAt(metrics->at(0).as_object(), "resource"), "target"), "averageUtilization"), 80);
}

TEST(ConversionTest, HpaV2ReadAsV1KeepsWhatV1CannotSayInKubesAnnotations) {
  json::object v2 = Parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
      "metadata":{"name":"web","namespace":"default","annotations":{"team":"a"}},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":1,"maxReplicas":4,
        "metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
                   {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}},
                   {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}}],
        "behavior":{"scaleDown":{"stabilizationWindowSeconds":30}}},
      "status":{"currentReplicas":2,"desiredReplicas":3,
        "currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":45,"averageValue":"120m"}}}],
        "conditions":[{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale"}]}})");
  json::object v1 = ConvertFromStored(Kind::kHorizontalPodAutoscalerV1, v2);
  EXPECT_EQ(StringAt(v1, "apiVersion"), "autoscaling/v1");
  EXPECT_EQ(IntAt(ObjectAt(v1, "spec"), "targetCPUUtilizationPercentage"), 60);
  EXPECT_EQ(IntAt(ObjectAt(v1, "status"), "currentCPUUtilizationPercentage"), 45);
  EXPECT_EQ(IntAt(ObjectAt(v1, "status"), "desiredReplicas"), 3);
  const json::object* annotations = ObjectAt(ObjectAt(v1, "metadata"), "annotations");
  ASSERT_NE(annotations, nullptr);
  EXPECT_EQ(StringAt(annotations, "team"), "a");
  EXPECT_EQ(StringAt(annotations, kHpaMetricsAnnotation),
            R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},)"
            R"({"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}])");
  EXPECT_EQ(StringAt(annotations, kHpaCurrentMetricsAnnotation),
            R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":45,"currentAverageValue":"120m"}}])");
  EXPECT_EQ(StringAt(annotations, kHpaConditionsAnnotation),
            R"([{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale"}])");
  EXPECT_EQ(StringAt(annotations, kHpaBehaviorAnnotation), R"({"ScaleDown":{"StabilizationWindowSeconds":30}})");

  // Written back through v1 (kubectl edit), the annotations become v2 fields again.
  auto back = ConvertToStored(Kind::kHorizontalPodAutoscalerV1, v1);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const json::object* spec = ObjectAt(*back, "spec");
  const json::array* metrics = ArrayAt(spec, "metrics");
  ASSERT_TRUE(metrics && metrics->size() == 3);
  // kube's order: the annotation's metrics, then v1's cpu target.
  EXPECT_EQ(StringAt(ObjectAt(metrics->at(0).as_object(), "resource"), "name"), "memory");
  EXPECT_EQ(StringAt(ObjectAt(ObjectAt(metrics->at(1).as_object(), "pods"), "metric"), "name"), "qps");
  EXPECT_EQ(StringAt(ObjectAt(metrics->at(2).as_object(), "resource"), "name"), "cpu");
  EXPECT_EQ(spec->at("behavior"), v2.at("spec").at("behavior"));
  EXPECT_EQ(back->at("status").at("conditions"), v2.at("status").at("conditions"));
  EXPECT_EQ(back->at("status").at("currentMetrics"), v2.at("status").at("currentMetrics"));
  EXPECT_EQ(ObjectAt(ObjectAt(*back, "metadata"), "annotations")->size(), 1u);
}

TEST(ConversionTest, AMalformedMetricsAnnotationIsABadRequest) {
  auto v2 = ConvertToStored(Kind::kHorizontalPodAutoscalerV1, Parse(R"({"apiVersion":"autoscaling/v1",
      "kind":"HorizontalPodAutoscaler","metadata":{"name":"web",
      "annotations":{"autoscaling.alpha.kubernetes.io/metrics":"{not json"}},"spec":{"maxReplicas":3}})"));
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().code(), StatusCode::kBadRequest);
}

TEST(ConversionTest, KindsWithoutAStorageKindAreUnchanged) {
  json::object pod = Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}})");
  auto same = ConvertToStored(Kind::kPod, pod);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, pod);
  EXPECT_EQ(StorageKindOf(Kind::kEventsEvent), Kind::kEvent);
  EXPECT_EQ(StorageKindOf(Kind::kHorizontalPodAutoscalerV1), Kind::kHorizontalPodAutoscaler);
  EXPECT_EQ(StoragePrefix(Kind::kEventsEvent, "default"), StoragePrefix(Kind::kEvent, "default"));
  EXPECT_EQ(QualifiedKind(Info(Kind::kDeployment)), "Deployment.apps");
  EXPECT_EQ(QualifiedKind(Info(Kind::kPod)), "Pod");
}

}  // namespace
}  // namespace berth::api
