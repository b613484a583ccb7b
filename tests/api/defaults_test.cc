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

// core/v1 SetDefaults_ReplicationController: the template's labels are the
// selector and the controller's labels where those are empty; one replica.
TEST(Defaults, ReplicationControllers) {
  json::object rc = Parse(R"({"apiVersion":"v1","kind":"ReplicationController",
      "metadata":{"name":"web","namespace":"default"},
      "spec":{"template":{"metadata":{"labels":{"app":"web"}},
      "spec":{"containers":[{"name":"c","image":"nginx:1"}]}}}})");
  ApplyDefaults(Kind::kReplicationController, rc);
  EXPECT_EQ(rc.at("spec").at("selector"), Parse(R"({"app":"web"})"));
  EXPECT_EQ(rc.at("spec").at("replicas"), 1);
  EXPECT_EQ(rc.at("metadata").at("labels"), Parse(R"({"app":"web"})"));
  auto object = Object::FromJson(json::value(rc));
  ASSERT_TRUE(object.ok());
  EXPECT_TRUE(ValidateObject(*object.value()).ok()) << ValidateObject(*object.value()).message();

  json::object own = Parse(R"({"metadata":{"labels":{"team":"a"}},"spec":{"replicas":3,
      "selector":{"app":"web","tier":"f"},"template":{"metadata":{"labels":{"app":"web","tier":"f"}}}}})");
  ApplyDefaults(Kind::kReplicationController, own);
  EXPECT_EQ(own.at("spec").at("selector"), Parse(R"({"app":"web","tier":"f"})"));
  EXPECT_EQ(own.at("spec").at("replicas"), 3);
  EXPECT_EQ(own.at("metadata").at("labels"), Parse(R"({"team":"a"})"));
}

// rbac/v1 SetDefaults_RoleBinding, _ClusterRoleBinding and _Subject.
TEST(Defaults, RoleBindingsGetRbacsGroup) {
  for (auto [kind, kind_name] : {std::pair{Kind::kRoleBinding, "RoleBinding"},
                                 std::pair{Kind::kClusterRoleBinding, "ClusterRoleBinding"}}) {
    json::object binding = Parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
        "metadata":{"name":"b","namespace":"default"},"roleRef":{"kind":"ClusterRole","name":"view"},
        "subjects":[{"kind":"User","name":"alice"},{"kind":"Group","name":"devs","apiGroup":""},
        {"kind":"ServiceAccount","name":"default","namespace":"default"}]})");
    binding["kind"] = kind_name;
    if (kind == Kind::kClusterRoleBinding) binding["metadata"].as_object().erase("namespace");
    ApplyDefaults(kind, binding);
    EXPECT_EQ(binding.at("roleRef"), Parse(R"({"kind":"ClusterRole","name":"view",
        "apiGroup":"rbac.authorization.k8s.io"})"));
    EXPECT_EQ(binding.at("subjects"), json::parse(R"([
        {"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"},
        {"kind":"Group","name":"devs","apiGroup":"rbac.authorization.k8s.io"},
        {"kind":"ServiceAccount","name":"default","namespace":"default"}])"));
    auto object = Object::FromJson(json::value(binding));
    ASSERT_TRUE(object.ok());
    EXPECT_TRUE(ValidateObject(*object.value()).ok()) << ValidateObject(*object.value()).message();
  }
}

TEST(Defaults, ServicesStatusAndAffinity) {
  json::object service = Parse(R"({"spec":{"sessionAffinity":"None",
      "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":60}},"ports":[{"port":80}]}})");
  ApplyDefaults(Kind::kService, service);
  EXPECT_EQ(service.at("status"), Parse(R"({"loadBalancer":{}})"));
  EXPECT_FALSE(service.at("spec").as_object().contains("sessionAffinityConfig"));
  json::object external = Parse(R"({"spec":{"type":"ExternalName","externalName":"db"}})");
  ApplyDefaults(Kind::kService, external);
  EXPECT_EQ(external.at("status"), Parse(R"({"loadBalancer":{}})"));
  json::object lb = Parse(R"({"spec":{"type":"LoadBalancer","ports":[{"port":443}]},
      "status":{"loadBalancer":{"ingress":[{"ip":"10.9.0.1"},{"hostname":"lb.example.com"}]}}})");
  ApplyDefaults(Kind::kService, lb);
  EXPECT_EQ(lb.at("status"), Parse(R"({"loadBalancer":{"ingress":[{"ip":"10.9.0.1","ipMode":"VIP"},
      {"hostname":"lb.example.com"}]}})"));
}

// core/v1 SetDefaults_NodeStatus, _Endpoints, _PersistentVolume with its
// hostPath's type; discovery/v1
// SetDefaults_EndpointPort; networking/v1 SetDefaults_NetworkPolicy(Port),
// _IngressClass; storage/v1 SetDefaults_CSIDriver.
TEST(Defaults, ClusterKinds) {
  struct Case {
    const char* name;
    Kind kind;
    const char* object;
    const char* expected;
  };
  const Case cases[] = {
      {"node allocatable", Kind::kNode, R"({"status":{"capacity":{"cpu":"4"}}})",
       R"({"status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"4"}}})"},
      {"node's own allocatable", Kind::kNode,
       R"({"status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3"}}})",
       R"({"status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3"}}})"},
      {"endpoints", Kind::kEndpoints,
       R"({"subsets":[{"ports":[{"port":80},{"port":53,"protocol":"UDP"}]}]})",
       R"({"subsets":[{"ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}]}]})"},
      {"endpoint slice", Kind::kEndpointSlice, R"({"addressType":"IPv4","ports":[{"port":80}]})",
       R"({"addressType":"IPv4","ports":[{"port":80,"name":"","protocol":"TCP"}]})"},
      {"ingress-only policy", Kind::kNetworkPolicy,
       R"({"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}})",
       R"({"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80,"protocol":"TCP"}]}],
           "policyTypes":["Ingress"]}})"},
      {"egress policy", Kind::kNetworkPolicy, R"({"spec":{"podSelector":{},"egress":[{}]}})",
       R"({"spec":{"podSelector":{},"egress":[{}],"policyTypes":["Ingress","Egress"]}})"},
      {"ingress class", Kind::kIngressClass,
       R"({"spec":{"controller":"x/y","parameters":{"kind":"P","name":"p"}}})",
       R"({"spec":{"controller":"x/y","parameters":{"kind":"P","name":"p","scope":"Cluster"}}})"},
      {"csi driver", Kind::kCSIDriver, R"({"spec":{"attachRequired":false}})",
       R"({"spec":{"attachRequired":false,"podInfoOnMount":false,"storageCapacity":false,
           "fsGroupPolicy":"ReadWriteOnceWithFSType","volumeLifecycleModes":["Persistent"],
           "requiresRepublish":false,"seLinuxMount":false}})"},
      {"host path volume", Kind::kPersistentVolume, R"({"spec":{"hostPath":{"path":"/data"}}})",
       R"({"spec":{"hostPath":{"path":"/data","type":""},"persistentVolumeReclaimPolicy":"Retain",
           "volumeMode":"Filesystem"},"status":{"phase":"Pending"}})"},
  };
  for (const Case& c : cases) {
    json::object object = Parse(c.object);
    ApplyDefaults(c.kind, object);
    EXPECT_EQ(object, Parse(c.expected)) << c.name;
  }
}

// autoscaling/v2 SetDefaults_HorizontalPodAutoscalerBehavior: a behavior
// given gets kube's rules for what it leaves out.
TEST(Defaults, AutoscalerBehavior) {
  json::object hpa = Parse(R"({"spec":{"minReplicas":2,"metrics":[{"type":"Resource","resource":{
      "name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}],
      "behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}})");
  ApplyDefaults(Kind::kHorizontalPodAutoscaler, hpa);
  EXPECT_EQ(hpa.at("spec").at("behavior"), Parse(R"({
      "scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[
          {"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},
      "scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max","policies":[
          {"type":"Percent","value":100,"periodSeconds":15}]}})"));
  json::object plain = Parse(R"({"spec":{}})");
  ApplyDefaults(Kind::kHorizontalPodAutoscaler, plain);
  EXPECT_FALSE(plain.at("spec").as_object().contains("behavior"));
}

// batch/v1 SetDefaults_Job: a failure policy's pod condition patterns
// match status True unless said otherwise; apps/v1 SetDefaults_StatefulSet:
// an explicit RollingUpdate without rollingUpdate stays without.
TEST(Defaults, JobFailurePolicyAndStatefulSetRollingUpdate) {
  json::object job = Parse(R"({"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore",
      "onPodConditions":[{"type":"DisruptionTarget"},{"type":"Ready","status":"False"}]}]}}})");
  ApplyDefaults(Kind::kJob, job);
  EXPECT_EQ(
      job.at("spec").at("podFailurePolicy").at("rules").at(0).at("onPodConditions"),
      json::parse(
          R"([{"type":"DisruptionTarget","status":"True"},{"type":"Ready","status":"False"}])"));
  json::object sts = Parse(R"({"spec":{"updateStrategy":{"type":"RollingUpdate"}}})");
  ApplyDefaults(Kind::kStatefulSet, sts);
  EXPECT_EQ(sts.at("spec").at("updateStrategy"), Parse(R"({"type":"RollingUpdate"})"));
  json::object partitioned = Parse(
      R"({"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":2}}}})");
  ApplyDefaults(Kind::kStatefulSet, partitioned);
  EXPECT_EQ(
      partitioned.at("spec").at("updateStrategy"),
      Parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":2,"partition":0}})"));
}

}  // namespace
}  // namespace berth::api
