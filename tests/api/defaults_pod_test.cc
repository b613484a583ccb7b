// kube's pod spec defaults (pkg/apis/core/v1 SetDefaults_PodSpec, _Container,
// _Probe, _Volume and the volume sources'; SetDefaults_Pod), as the API
// server applies them before validation (defaults.h).

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/defaults.h"
#include "api/object.h"
#include "api/validation/validation.h"

namespace berth::api {
namespace {

namespace json = boost::json;

json::object Parse(std::string_view text) { return json::parse(text).as_object(); }

ObjectPtr Built(const json::object& o) {
  auto object = Object::FromJson(json::value(o));
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.ok() ? object.value() : nullptr;
}

TEST(PodDefaults, ProbesHandlersAndFieldReferences) {
  json::object pod = Parse(R"({"spec":{"containers":[{"name":"c","image":"web:1",
      "livenessProbe":{"httpGet":{"port":8080}},
      "readinessProbe":{"grpc":{"port":9000},"periodSeconds":5},
      "startupProbe":{"exec":{"command":["true"]},"timeoutSeconds":0},
      "lifecycle":{"preStop":{"httpGet":{"port":80,"path":"/quit"}}},
      "env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}}]}]}})");
  ApplyDefaults(Kind::kPod, pod);
  const json::object& c = pod.at("spec").at("containers").at(0).as_object();
  EXPECT_EQ(c.at("livenessProbe"), Parse(R"({"httpGet":{"port":8080,"path":"/","scheme":"HTTP"},
      "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3})"));
  EXPECT_EQ(c.at("readinessProbe"), Parse(R"({"grpc":{"port":9000,"service":""},"periodSeconds":5,
      "timeoutSeconds":1,"successThreshold":1,"failureThreshold":3})"));
  EXPECT_EQ(c.at("startupProbe"), Parse(R"({"exec":{"command":["true"]},"timeoutSeconds":1,
      "periodSeconds":10,"successThreshold":1,"failureThreshold":3})"));
  EXPECT_EQ(c.at("lifecycle"),
            Parse(R"({"preStop":{"httpGet":{"port":80,"path":"/quit","scheme":"HTTP"}}})"));
  EXPECT_EQ(c.at("env").at(0).at("valueFrom"),
            Parse(R"({"fieldRef":{"fieldPath":"spec.nodeName","apiVersion":"v1"}})"));
}

TEST(PodDefaults, VolumesAndTheirSources) {
  json::object pod = Parse(R"({"spec":{"containers":[{"name":"c","image":"web:1"}],"volumes":[
      {"name":"scratch"},
      {"name":"cfg","configMap":{"name":"c"}},
      {"name":"sec","secret":{"secretName":"s","defaultMode":256}},
      {"name":"info","downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}},
      {"name":"tok","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}},
      {"name":"host","hostPath":{"path":"/var"}},
      {"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],
          "resources":{"requests":{"storage":"1Gi"}}}}}}]}})");
  ApplyDefaults(Kind::kPod, pod);
  EXPECT_EQ(pod.at("spec").at("volumes"), json::parse(R"([
      {"name":"scratch","emptyDir":{}},
      {"name":"cfg","configMap":{"name":"c","defaultMode":420}},
      {"name":"sec","secret":{"secretName":"s","defaultMode":256}},
      {"name":"info","downwardAPI":{"defaultMode":420,
          "items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name","apiVersion":"v1"}}]}},
      {"name":"tok","projected":{"defaultMode":420,
          "sources":[{"serviceAccountToken":{"path":"t","expirationSeconds":3600}}]}},
      {"name":"host","hostPath":{"path":"/var","type":""}},
      {"name":"eph","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],
          "resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"}}}}])"));
  json::object full =
      Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"}})");
  full["spec"] = pod.at("spec");
  ObjectPtr object = Built(full);
  ASSERT_TRUE(object);
  EXPECT_TRUE(ValidateObject(*object).ok()) << ValidateObject(*object).message();
}

// SetDefaults_Volume holds for templates as well: a Deployment's volume
// naming no source is an emptyDir. SetDefaults_Pod's hostPorts do not.
TEST(PodDefaults, TemplatesGetPodSpecDefaultsButNotPodOnes) {
  const char* spec = R"({"hostNetwork":true,"containers":[{"name":"c","image":"web:1","ports":[
      {"containerPort":8080},{"containerPort":9090,"hostPort":9090}]}],"volumes":[{"name":"scratch"}]})";
  json::object deployment = Parse(
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
      "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}}}}})");
  deployment["spec"].as_object()["template"].as_object()["spec"] = json::parse(spec);
  ApplyDefaults(Kind::kDeployment, deployment);
  const json::object& tmpl = deployment.at("spec").at("template").at("spec").as_object();
  EXPECT_EQ(tmpl.at("volumes"), json::parse(R"([{"name":"scratch","emptyDir":{}}])"));
  EXPECT_EQ(tmpl.at("containers").at(0).at("ports"),
            json::parse(R"([{"containerPort":8080,"protocol":"TCP"},
                            {"containerPort":9090,"hostPort":9090,"protocol":"TCP"}])"));
  ObjectPtr object = Built(deployment);
  ASSERT_TRUE(object);
  EXPECT_TRUE(ValidateObject(*object).ok()) << ValidateObject(*object).message();

  json::object pod{{"spec", json::parse(spec)}};
  ApplyDefaults(Kind::kPod, pod);
  EXPECT_EQ(pod.at("spec").at("containers").at(0).at("ports"),
            json::parse(R"([{"containerPort":8080,"protocol":"TCP","hostPort":8080},
                            {"containerPort":9090,"hostPort":9090,"protocol":"TCP"}])"));
}

// kube defaults what it reads from storage too, so a pod or Job stored
// before these defaults (a bare probe, `cpu: 1` as a number) still takes an
// update that changes none of its spec.
TEST(PodDefaults, ObjectsStoredWithoutTodaysDefaultsStillUpdate) {
  const json::object stored_pod = Parse(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","namespace":"default"},
      "spec":{"containers":[{"name":"c","image":"web:1","livenessProbe":{"httpGet":{"port":80}},
      "resources":{"requests":{"cpu":1},"limits":{"cpu":1}}}],"volumes":[{"name":"cfg","configMap":{"name":"c"}}]}})");
  json::object next = stored_pod;
  ApplyDefaults(Kind::kPod, next);
  next["metadata"].as_object()["labels"] = json::object{{"app", "web"}};
  ObjectPtr next_pod = Built(next), current_pod = Built(stored_pod);
  ASSERT_TRUE(next_pod && current_pod);
  EXPECT_TRUE(ValidateObjectUpdate(*next_pod, *current_pod).ok())
      << ValidateObjectUpdate(*next_pod, *current_pod).message();
  // A change kube refuses is still refused.
  next["spec"].as_object()["restartPolicy"] = "Never";
  ObjectPtr changed = Built(next);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(ValidateObjectUpdate(*changed, *current_pod).ok());

  const json::object stored_job = Parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"j","namespace":"default"},
      "spec":{"completions":1,"parallelism":1,"backoffLimit":6,"completionMode":"NonIndexed",
      "suspend":false,"podReplacementPolicy":"TerminatingOrFailed",
      "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"pi:1",
      "readinessProbe":{"exec":{"command":["true"]}},"resources":{"requests":{"memory":1024}}}]}}}})");
  json::object next_job = stored_job;
  ApplyDefaults(Kind::kJob, next_job);
  ObjectPtr next_j = Built(next_job), current_j = Built(stored_job);
  ASSERT_TRUE(next_j && current_j);
  EXPECT_TRUE(ValidateObjectUpdate(*next_j, *current_j).ok())
      << ValidateObjectUpdate(*next_j, *current_j).message();
}

}  // namespace
}  // namespace berth::api
