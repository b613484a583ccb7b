// Quantities written as JSON numbers, read and stored as kube's decoder
// reads and stores them (quantity_json.h).

#include "api/quantity_json.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/object.h"
#include "api/resources.h"
#include "api/validation/validation.h"

namespace berth::api {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(QuantityJson, NumbersReadAsTheTextGoClientsSend) {
  struct Case {
    const char* json;
    std::optional<std::string> text;
  };
  const Case cases[] = {
      {R"(" 100m ")", "100m"},
      {"1024", "1024"},
      {"0.15", "0.15"},
      {"0.5", "0.5"},
      {"1e3", "1000"},
      {"-2", "-2"},
      {"18446744073709551615", "18446744073709551615"},
      {"1e-7", "1e-07"},
      {"2e21", "2e+21"},
      {"true", std::nullopt},
      {"{}", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(QuantityText(json::parse(c.json)), c.text) << c.json;
}

TEST(QuantityJson, ParsesNumbersAndStrings) {
  EXPECT_EQ(QuantityFromJson(json::parse("0.15")).value().MilliValue(), 150);
  EXPECT_EQ(QuantityFromJson(json::parse(R"("1Gi")")).value().Value(), 1073741824);
  EXPECT_FALSE(QuantityFromJson(json::parse(R"("1Gb")")).ok());
  EXPECT_FALSE(QuantityFromJson(json::parse("[]")).ok());
}

// kube's Quantity.UnmarshalJSON then MarshalJSON: the canonical string; in
// resource lists rounded up to thousandths first (SetDefaults_ResourceList).
TEST(QuantityJson, NumbersInResourceListsBecomeKubesStrings) {
  json::object pod = Parse(R"({"spec":{"containers":[{"name":"c","image":"x:1","resources":{
      "limits":{"cpu":0.5,"memory":1024},
      "requests":{"cpu":0.15,"memory":1000,"ephemeral-storage":1e3,"example.com/gpu":2,"hugepages-2Mi":"4Mi"}}}],
      "initContainers":[{"name":"i","image":"x:1","resources":{"requests":{"cpu":0.0001}}}],
      "overhead":{"cpu":0.25},
      "volumes":[{"name":"v","emptyDir":{"sizeLimit":0.0001}}]}})");
  ApplyDefaults(Kind::kPod, pod);
  const json::object& spec = pod.at("spec").as_object();
  const json::value& resources = spec.at("containers").at(0).at("resources");
  EXPECT_EQ(resources.at("limits"), Parse(R"({"cpu":"500m","memory":"1024"})"));
  EXPECT_EQ(resources.at("requests"), Parse(R"({"cpu":"150m","memory":"1k","ephemeral-storage":"1k",
      "example.com/gpu":"2","hugepages-2Mi":"4Mi"})"));
  EXPECT_EQ(spec.at("initContainers").at(0).at("resources").at("requests"),
            Parse(R"({"cpu":"1m"})"));
  EXPECT_EQ(spec.at("overhead"), Parse(R"({"cpu":"250m"})"));
  // A single quantity is not a resource list: not rounded.
  EXPECT_EQ(spec.at("volumes").at(0).at("emptyDir").at("sizeLimit"), "100u");
}

TEST(QuantityJson, StringsAreLeftAsWritten) {
  json::object pod = Parse(
      R"({"spec":{"containers":[{"name":"c","image":"x:1","resources":{"requests":{"cpu":"0.5"}}}]}})");
  ApplyDefaults(Kind::kPod, pod);
  EXPECT_EQ(pod.at("spec").at("containers").at(0).at("resources").at("requests").at("cpu"), "0.5");
}

TEST(QuantityJson, EveryKindsQuantityFields) {
  struct Case {
    const char* name;
    Kind kind;
    const char* object;
    const char* expected;
  };
  const Case cases[] = {
      {"node capacity", Kind::kNode,
       R"({"status":{"capacity":{"cpu":4,"memory":8589934592,"pods":110}}})",
       R"({"status":{"capacity":{"cpu":"4","memory":"8589934592","pods":"110"},
           "allocatable":{"cpu":"4","memory":"8589934592","pods":"110"}}})"},
      {"quota", Kind::kResourceQuota, R"({"spec":{"hard":{"pods":10,"requests.cpu":1.5}}})",
       R"({"spec":{"hard":{"pods":"10","requests.cpu":"1500m"}}})"},
      {"claim", Kind::kPersistentVolumeClaim,
       R"({"spec":{"resources":{"requests":{"storage":1073741824}}}})",
       R"({"spec":{"resources":{"requests":{"storage":"1073741824"}},"volumeMode":"Filesystem"},
           "status":{"phase":"Pending"}})"},
      {"limit range", Kind::kLimitRange, R"({"spec":{"limits":[{"type":"Pod","max":{"cpu":2}}]}})",
       R"({"spec":{"limits":[{"type":"Pod","max":{"cpu":"2"}}]}})"},
      {"storage capacity", Kind::kCSIStorageCapacity,
       R"({"capacity":0.5,"maximumVolumeSize":2048})",
       R"({"capacity":"500m","maximumVolumeSize":"2048"})"},
      {"runtime class", Kind::kRuntimeClass,
       R"({"handler":"h","overhead":{"podFixed":{"cpu":0.0001}}})",
       R"({"handler":"h","overhead":{"podFixed":{"cpu":"100u"}}})"},
      {"autoscaler", Kind::kHorizontalPodAutoscaler,
       R"({"spec":{"minReplicas":1,"metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},
           "target":{"type":"AverageValue","averageValue":0.5}}}]}})",
       R"({"spec":{"minReplicas":1,"metrics":[{"type":"Pods","pods":{"metric":{"name":"qps"},
           "target":{"type":"AverageValue","averageValue":"500m"}}}]}})"},
  };
  for (const Case& c : cases) {
    json::object object = Parse(c.object);
    ApplyDefaults(c.kind, object);
    EXPECT_EQ(object, Parse(c.expected)) << c.name;
  }
}

TEST(QuantityJson, ResourceListsAcceptNumbers) {
  auto list =
      ParseResourceList(json::parse(R"({"cpu":0.15,"memory":1024,"pods":"3"})"), "requests");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->milli_cpu, 150);
  EXPECT_EQ(list->memory, 1024);
  EXPECT_EQ(list->pods, 3);
  EXPECT_FALSE(ParseResourceList(json::parse(R"({"cpu":true})"), "requests").ok());
}

// A DaemonSet asking for `cpu: 0.15` is stored with "150m", and the pod its
// controller makes from the template validates and reads.
TEST(QuantityJson, DaemonSetWithFractionalCpuMakesValidPods) {
  json::object ds = Parse(R"({"apiVersion":"apps/v1","kind":"DaemonSet",
      "metadata":{"name":"agent","namespace":"default"},
      "spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},
      "spec":{"containers":[{"name":"c","image":"agent:1","resources":{"requests":{"cpu":0.15,"memory":1024}}}]}}}})");
  ApplyDefaults(Kind::kDaemonSet, ds);
  const json::object& tmpl = ds.at("spec").at("template").as_object();
  EXPECT_EQ(tmpl.at("spec").at("containers").at(0).at("resources").at("requests"),
            Parse(R"({"cpu":"150m","memory":"1024"})"));
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"spec", tmpl.at("spec")},
                   {"metadata", json::object{{"name", "agent-x"}, {"namespace", "default"}}}};
  ApplyDefaults(Kind::kPod, pod);
  auto object = Object::FromJson(json::value(pod));
  ASSERT_TRUE(object.ok()) << object.status().message();
  EXPECT_TRUE(ValidateObject(*object.value()).ok()) << ValidateObject(*object.value()).message();
}

}  // namespace
}  // namespace berth::api
