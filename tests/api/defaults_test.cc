// kube's strategy mutations and defaults as pure JSON edits (defaults.h).

#include "api/defaults.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/validation/validation.h"

namespace berth::api {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(Defaults, PrepareSecretMergesStringDataOverData) {
  json::object secret =
      Parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"},
                                   "data":{"user":"YWxpY2U=","keep":"eA=="},"stringData":{"user":"bob","pass":"p@ss"}})");
  PrepareSecret(secret);
  EXPECT_FALSE(secret.contains("stringData"));
  EXPECT_EQ(secret.at("type"), "Opaque");
  EXPECT_EQ(secret.at("data"), Parse(R"({"user":"Ym9i","keep":"eA==","pass":"cEBzcw=="})"));
  json::object typed =
      Parse(R"({"type":"kubernetes.io/tls","stringData":{"tls.crt":"c","tls.key":"k"}})");
  PrepareSecret(typed);
  EXPECT_EQ(typed.at("type"), "kubernetes.io/tls");
  EXPECT_EQ(typed.at("data"), Parse(R"({"tls.crt":"Yw==","tls.key":"aw=="})"));
}

TEST(Defaults, Services) {
  json::object service = Parse(
      R"({"spec":{"clusterIP":"10.0.0.9","ports":[{"port":80},{"port":53,"protocol":"UDP","targetPort":"dns"}]}})");
  ApplyDefaults(Kind::kService, service);
  EXPECT_EQ(service.at("spec"), Parse(R"({"clusterIP":"10.0.0.9","clusterIPs":["10.0.0.9"],
      "ports":[{"port":80,"protocol":"TCP","targetPort":80},{"port":53,"protocol":"UDP","targetPort":"dns"}],
      "type":"ClusterIP","sessionAffinity":"None","ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"],
      "internalTrafficPolicy":"Cluster"})"));
  json::object lb = Parse(
      R"({"spec":{"type":"LoadBalancer","sessionAffinity":"ClientIP","ports":[{"port":443}]}})");
  ApplyDefaults(Kind::kService, lb);
  const json::object& spec = lb.at("spec").as_object();
  EXPECT_EQ(spec.at("externalTrafficPolicy"), "Cluster");
  EXPECT_EQ(spec.at("allocateLoadBalancerNodePorts"), true);
  EXPECT_EQ(spec.at("sessionAffinityConfig"), Parse(R"({"clientIP":{"timeoutSeconds":10800}})"));
  json::object external = Parse(R"({"spec":{"type":"ExternalName","externalName":"db"}})");
  ApplyDefaults(Kind::kService, external);
  EXPECT_FALSE(external.at("spec").as_object().contains("ipFamilyPolicy"));
  EXPECT_FALSE(external.at("spec").as_object().contains("internalTrafficPolicy"));
}

TEST(Defaults, JobsAndCronJobs) {
  json::object job = Parse(
      R"({"metadata":{"name":"pi"},"spec":{"template":{"metadata":{"labels":{"app":"pi"}}}}})");
  ApplyDefaults(Kind::kJob, job);
  const json::object& spec = job.at("spec").as_object();
  EXPECT_EQ(spec.at("completions"), 1);
  EXPECT_EQ(spec.at("parallelism"), 1);
  EXPECT_EQ(spec.at("backoffLimit"), 6);
  EXPECT_EQ(spec.at("completionMode"), "NonIndexed");
  EXPECT_EQ(spec.at("suspend"), false);
  EXPECT_EQ(spec.at("podReplacementPolicy"), "TerminatingOrFailed");
  EXPECT_EQ(job.at("metadata").at("labels"), Parse(R"({"app":"pi"})"));

  // parallelism alone leaves completions unset (a work queue).
  json::object queue = Parse(
      R"({"spec":{"parallelism":4,"backoffLimitPerIndex":2,"podFailurePolicy":{"rules":[]}}})");
  ApplyDefaults(Kind::kJob, queue);
  EXPECT_FALSE(queue.at("spec").as_object().contains("completions"));
  EXPECT_EQ(queue.at("spec").at("backoffLimit"), 2147483647);
  EXPECT_EQ(queue.at("spec").at("podReplacementPolicy"), "Failed");

  json::object cron = Parse(R"({"spec":{"schedule":"* * * * *","concurrencyPolicy":"Forbid"}})");
  ApplyDefaults(Kind::kCronJob, cron);
  EXPECT_EQ(cron.at("spec"),
            Parse(R"({"schedule":"* * * * *","concurrencyPolicy":"Forbid","suspend":false,
      "successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1})"));
}

TEST(Defaults, StatefulSetsAndDaemonSets) {
  json::object sts = Parse(
      R"({"metadata":{"name":"db"},"spec":{"template":{"metadata":{"labels":{"app":"db"}}}}})");
  ApplyDefaults(Kind::kStatefulSet, sts);
  EXPECT_EQ(sts.at("spec").at("podManagementPolicy"), "OrderedReady");
  EXPECT_EQ(sts.at("spec").at("updateStrategy"),
            Parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
  EXPECT_EQ(sts.at("spec").at("revisionHistoryLimit"), 10);
  EXPECT_EQ(sts.at("spec").at("replicas"), 1);
  EXPECT_EQ(sts.at("spec").at("persistentVolumeClaimRetentionPolicy"),
            Parse(R"({"whenDeleted":"Retain","whenScaled":"Retain"})"));
  EXPECT_EQ(sts.at("metadata").at("labels"), Parse(R"({"app":"db"})"));
  json::object on_delete = Parse(R"({"spec":{"updateStrategy":{"type":"OnDelete"}}})");
  ApplyDefaults(Kind::kStatefulSet, on_delete);
  EXPECT_EQ(on_delete.at("spec").at("updateStrategy"), Parse(R"({"type":"OnDelete"})"));

  json::object ds = Parse(R"({"spec":{}})");
  ApplyDefaults(Kind::kDaemonSet, ds);
  EXPECT_EQ(ds.at("spec"),
            Parse(R"({"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,
      "maxSurge":0}},"revisionHistoryLimit":10})"));
}

TEST(Defaults, DefaultedObjectsValidate) {
  json::object sts = Parse(
      R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"default"},
      "spec":{"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},
      "spec":{"containers":[{"name":"c","image":"x"}]}}}})");
  ApplyDefaults(Kind::kStatefulSet, sts);
  auto object = Object::FromJson(json::value(sts));
  ASSERT_TRUE(object.ok());
  EXPECT_TRUE(ValidateObject(*object.value()).ok()) << ValidateObject(*object.value()).message();
  json::object ds = Parse(
      R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"a","namespace":"default"},
      "spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},
      "spec":{"containers":[{"name":"c","image":"x"}]}}}})");
  ApplyDefaults(Kind::kDaemonSet, ds);
  auto daemon = Object::FromJson(json::value(ds));
  ASSERT_TRUE(daemon.ok());
  EXPECT_TRUE(ValidateObject(*daemon.value()).ok()) << ValidateObject(*daemon.value()).message();
}

}  // namespace
}  // namespace berth::api
