// kube's quota arithmetic: what objects use, and which quotas cover them.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/quota.h"

namespace berth::api {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(Quota, PodUsageSumsContainersTakesTheLargestInitContainerAndAddsOverhead) {
  json::object pod = Parse(R"({"spec":{
      "containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m"}}},
                    {"name":"b","resources":{"requests":{"cpu":"300m"}}}],
      "initContainers":[{"name":"i","resources":{"requests":{"cpu":"1"}}}],
      "overhead":{"cpu":"50m"}}})");
  QuotaUsage usage = UsageOf(Kind::kPod, pod);
  EXPECT_EQ(usage.at("pods"), 1000);
  EXPECT_EQ(usage.at("count/pods"), 1000);
  EXPECT_EQ(usage.at("requests.cpu"), 1050);  // max(400m, 1) + 50m
  EXPECT_EQ(usage.at("cpu"), 1050);
  EXPECT_EQ(usage.at("requests.memory"), 64LL * 1024 * 1024 * 1000);
  EXPECT_EQ(usage.at("limits.cpu"), 250);
  EXPECT_EQ(QuotaQuantity("requests.memory", usage.at("requests.memory")), "64Mi");
  EXPECT_EQ(QuotaQuantity("requests.cpu", usage.at("requests.cpu")), "1050m");

  pod["status"] = json::object{{"phase", "Succeeded"}};
  EXPECT_TRUE(UsageOf(Kind::kPod, pod).empty());
}

TEST(Quota, ClaimsServicesAndCountsOfAnyKind) {
  QuotaUsage claim = UsageOf(Kind::kPersistentVolumeClaim, Parse(R"({"spec":{"storageClassName":"fast",
      "resources":{"requests":{"storage":"10Gi"}}}})"));
  EXPECT_EQ(claim.at("persistentvolumeclaims"), 1000);
  EXPECT_EQ(claim.at("fast.storageclass.storage.k8s.io/requests.storage"), 10LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(QuotaQuantity("requests.storage", claim.at("requests.storage")), "10Gi");

  QuotaUsage lb = UsageOf(Kind::kService, Parse(R"({"spec":{"type":"LoadBalancer","ports":[{"port":80},{"port":443}]}})"));
  EXPECT_EQ(lb.at("services"), 1000);
  EXPECT_EQ(lb.at("services.nodeports"), 2000);
  EXPECT_EQ(lb.at("services.loadbalancers"), 1000);

  EXPECT_EQ(UsageOf(Kind::kDeployment, Parse("{}")).at("count/deployments.apps"), 1000);
  EXPECT_EQ(UsageOf(Kind::kConfigMap, Parse("{}")).at("configmaps"), 1000);
}

TEST(Quota, MissingResourcesNameTheContainers) {
  json::object pod = Parse(R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}},
                                                     {"name":"b"}]}})");
  EXPECT_EQ(MissingPodResources(pod, Parse(R"({"requests.cpu":"2","memory":"1Gi"})")),
            (std::vector<std::string>{"requests.cpu for: b", "requests.memory for: a,b"}));
  EXPECT_TRUE(MissingPodResources(pod, Parse(R"({"pods":"3"})")).empty());
}

TEST(Quota, ScopesCoverPodsOnly) {
  json::object best_effort = Parse(R"({"spec":{"containers":[{"name":"a"}]}})");
  json::object burstable = Parse(R"({"spec":{"activeDeadlineSeconds":5,"priorityClassName":"high",
      "containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}})");
  json::object be_quota = Parse(R"({"spec":{"scopes":["BestEffort"]}})");
  EXPECT_TRUE(QuotaCovers(be_quota, Kind::kPod, best_effort));
  EXPECT_FALSE(QuotaCovers(be_quota, Kind::kPod, burstable));
  EXPECT_FALSE(QuotaCovers(be_quota, Kind::kConfigMap, Parse("{}")));
  EXPECT_TRUE(QuotaCovers(Parse(R"({"spec":{"scopes":["NotBestEffort","Terminating"]}})"), Kind::kPod, burstable));
  json::object by_class = Parse(R"({"spec":{"scopeSelector":{"matchExpressions":[
      {"scopeName":"PriorityClass","operator":"In","values":["high"]}]}}})");
  EXPECT_TRUE(QuotaCovers(by_class, Kind::kPod, burstable));
  EXPECT_FALSE(QuotaCovers(by_class, Kind::kPod, best_effort));
  EXPECT_TRUE(QuotaCovers(Parse(R"({"spec":{}})"), Kind::kSecret, Parse("{}")));
}

}  // namespace
}  // namespace berth::api
