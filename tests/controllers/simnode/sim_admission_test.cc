// The simulated kubelet's admission (sim_admission.h) against kube's
// predicateAdmitHandler: the first failing check, its reason and message.

#include "controllers/simnode/sim_admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::controllers {
namespace {

namespace json = boost::json;

api::ObjectPtr Parse(std::string_view text) {
  auto object = api::Object::FromJson(json::parse(text));
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.ok() ? object.value() : nullptr;
}

api::ObjectPtr Node(std::string_view allocatable, std::string_view extra = "") {
  return Parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},)" +
               std::string(extra) + R"("status":{"capacity":)" + std::string(allocatable) +
               R"(,"allocatable":)" + std::string(allocatable) + "}}");
}

// A pod on n1 with `requests` and the given container ports and spec fields.
api::ObjectPtr Pod(std::string_view name, std::string_view requests, std::string_view ports = "[]",
                   std::string_view spec = "") {
  return Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
               R"(","namespace":"default","uid":"u-)" + std::string(name) + R"("},"spec":{)" + std::string(spec) +
               R"("nodeName":"n1","containers":[{"name":"c","image":"i","ports":)" + std::string(ports) +
               R"(,"resources":{"requests":)" + std::string(requests) + "}}]}}");
}

constexpr std::string_view kNode = R"({"cpu":"2","memory":"4Gi","pods":"3"})";

TEST(SimAdmission, APodThatFitsIsAdmitted) {
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", R"({"cpu":"1"})"), *Node(kNode), {Pod("q", R"({"cpu":"1"})")}));
}

TEST(SimAdmission, TooLittleCpuIsOutOfcpuWithKubesNumbers) {
  auto rejection = CheckPodAdmission(*Pod("p", R"({"cpu":"1500m"})"), *Node(kNode), {Pod("q", R"({"cpu":"1"})")});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "OutOfcpu");
  EXPECT_EQ(rejection->message, "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000");
}

TEST(SimAdmission, ThePodCountComesFirst) {
  auto rejection = CheckPodAdmission(*Pod("p", R"({"cpu":"3"})"), *Node(kNode),
                                     {Pod("a", "{}"), Pod("b", "{}"), Pod("c", "{}")});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "OutOfpods");
  EXPECT_EQ(rejection->message, "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3");
}

TEST(SimAdmission, ExtendedResourcesTheNodeLacksAreLeftOutButOneItHasCounts) {
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", R"({"example.com/gpu":"1"})"), *Node(kNode), {}));
  auto rejection = CheckPodAdmission(*Pod("p", R"({"example.com/gpu":"2"})"),
                                     *Node(R"({"cpu":"2","pods":"3","example.com/gpu":"1"})"), {});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "OutOfexample.com/gpu");
  EXPECT_EQ(rejection->message,
            "Node didn't have enough resource: example.com/gpu, requested: 2, used: 0, capacity: 1");
}

TEST(SimAdmission, AHostPortTakenIsNodePorts) {
  const std::string port = R"([{"containerPort":80,"hostPort":8080}])";
  auto rejection = CheckPodAdmission(*Pod("p", "{}", port), *Node(kNode), {Pod("q", "{}", port)});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "NodePorts");
  EXPECT_EQ(rejection->message,
            "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports");
  // Another protocol, or two different addresses, do not conflict.
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", "{}", R"([{"containerPort":80,"hostPort":8080,"protocol":"UDP"}])"),
                                 *Node(kNode), {Pod("q", "{}", port)}));
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", "{}", R"([{"containerPort":80,"hostPort":8080,"hostIP":"10.0.0.1"}])"),
                                 *Node(kNode),
                                 {Pod("q", "{}", R"([{"containerPort":80,"hostPort":8080,"hostIP":"10.0.0.2"}])")}));
}

TEST(SimAdmission, ANodeSelectorThatDoesNotMatchIsNodeAffinity) {
  auto rejection = CheckPodAdmission(*Pod("p", "{}", "[]", R"("nodeSelector":{"zone":"b"},)"), *Node(kNode), {});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "NodeAffinity");
  EXPECT_EQ(rejection->message, "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", "{}", "[]", R"("nodeSelector":{"zone":"a"},)"), *Node(kNode), {}));
}

TEST(SimAdmission, OnlyAnUntoleratedNoExecuteTaintRejects) {
  const std::string no_schedule = R"("spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},)";
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", "{}"), *Node(kNode, no_schedule), {}));
  const std::string no_execute = R"("spec":{"taints":[{"key":"k","effect":"NoExecute"}]},)";
  auto rejection = CheckPodAdmission(*Pod("p", "{}"), *Node(kNode, no_execute), {});
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->reason, "TaintToleration");
  EXPECT_EQ(rejection->message, "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate");
  EXPECT_FALSE(CheckPodAdmission(*Pod("p", "{}", "[]", R"("tolerations":[{"key":"k","operator":"Exists"}],)"),
                                 *Node(kNode, no_execute), {}));
}

}  // namespace
}  // namespace berth::controllers
