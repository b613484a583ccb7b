// Type checks as kube's JSON decoder makes them (decode_check.h): kube's own
// objects decode, and each wrong type gets Go's error.

#include "apiserver/schema/decode_check.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace berth::apiserver {
namespace {

namespace json = boost::json;

std::string ErrorOf(api::Kind kind, std::string_view text) {
  return GoDecodeError(kind, json::parse(text));
}

TEST(DecodeCheckTest, KubesOwnObjectsDecode) {
  namespace fs = std::filesystem;
  const char* more = std::getenv("BERTH_KUBE_TESTDATA");
  fs::path dir = more ? fs::path(more) : fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    json::value object = json::parse(text.str());
    const json::value* api_version = object.as_object().if_contains("apiVersion");
    const json::value* kind_name = object.as_object().if_contains("kind");
    if (!api_version || !kind_name || !api_version->is_string() || !kind_name->is_string())
      continue;
    auto kind = api::KindFromApiVersion(api_version->as_string(), kind_name->as_string());
    if (!kind || !api::IsBuiltin(*kind)) continue;
    ++checked;
    EXPECT_EQ(GoDecodeError(*kind, object), "") << entry.path().filename();
  }
  EXPECT_GE(checked, 12);
}

TEST(DecodeCheckTest, WrongScalarTypesNameTheStructFieldAndGoType) {
  struct Case {
    const char* name;
    api::Kind kind;
    const char* object;
    const char* error;
  };
  const Case cases[] = {
      {"string for int32", api::Kind::kDeployment, R"({"spec":{"replicas":"two"}})",
       "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type "
       "int32"},
      {"string for int64", api::Kind::kPod, R"({"spec":{"terminationGracePeriodSeconds":"long"}})",
       "json: cannot unmarshal string into Go struct field "
       "PodSpec.spec.terminationGracePeriodSeconds of type int64"},
      {"string for a pointer to int32", api::Kind::kPod, R"({"spec":{"priority":"hi"}})",
       "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32"},
      {"int32 out of range", api::Kind::kDeployment, R"({"spec":{"replicas":3000000000}})",
       "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas "
       "of type int32"},
      {"fraction for an integer", api::Kind::kDeployment, R"({"spec":{"replicas":1.5}})",
       "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of "
       "type int32"},
      {"int64 beyond int64", api::Kind::kPod,
       R"({"spec":{"activeDeadlineSeconds":18446744073709551615}})",
       "json: cannot unmarshal number 18446744073709551615 into Go struct field "
       "PodSpec.spec.activeDeadlineSeconds "
       "of type int64"},
      {"number for a string", api::Kind::kPod, R"({"spec":{"nodeName":5}})",
       "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string"},
      {"number for a named string type", api::Kind::kPod, R"({"spec":{"restartPolicy":1}})",
       "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type "
       "v1.RestartPolicy"},
      {"string for a bool", api::Kind::kPod, R"({"spec":{"hostNetwork":"true"}})",
       "json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool"},
      {"object for a list", api::Kind::kPod, R"({"spec":{"containers":{"name":"a"}}})",
       "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
       "[]v1.Container"},
      {"string for a struct", api::Kind::kDeployment, R"({"spec":{"template":"x"}})",
       "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.template of type "
       "v1.PodTemplateSpec"},
      {"string for a list item", api::Kind::kPod, R"({"spec":{"containers":["c"]}})",
       "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type "
       "v1.Container"},
      {"within a list item: no index in the path", api::Kind::kPod,
       R"({"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":"80"}]}]}})",
       "json: cannot unmarshal string into Go struct field "
       "ContainerPort.spec.containers.ports.containerPort of "
       "type int32"},
      {"number for a label value: the map's path", api::Kind::kConfigMap,
       R"({"metadata":{"labels":{"a":1}}})",
       "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type "
       "string"},
      {"list for a map", api::Kind::kConfigMap, R"({"data":["a"]})",
       "json: cannot unmarshal array into Go struct field ConfigMap.data of type "
       "map[string]string"},
      {"the deepest struct of an inlined field", api::Kind::kPod,
       R"({"spec":{"volumes":[{"name":"v","hostPath":{"path":7}}]}})",
       "json: cannot unmarshal number into Go struct field "
       "HostPathVolumeSource.spec.volumes.hostPath.path of type "
       "string"},
      {"an inlined field's own struct is the outer one", api::Kind::kPod,
       R"({"spec":{"volumes":[{"name":"v","hostPath":"x"}]}})",
       "json: cannot unmarshal string into Go struct field Volume.spec.volumes.hostPath of type "
       "v1.HostPathVolumeSource"},
      {"autoscaling/v2's package", api::Kind::kHorizontalPodAutoscaler,
       R"({"spec":{"metrics":{}}})",
       "json: cannot unmarshal object into Go struct field "
       "HorizontalPodAutoscalerSpec.spec.metrics of type "
       "[]v2.MetricSpec"},
      {"the first mismatch in document order", api::Kind::kDeployment,
       R"({"spec":{"minReadySeconds":"a","replicas":"b"}})",
       "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.minReadySeconds of "
       "type int32"},
  };
  for (const Case& c : cases) EXPECT_EQ(ErrorOf(c.kind, c.object), c.error) << c.name;
}

TEST(DecodeCheckTest, ValuesWithDecodersOfTheirOwnStopDecoding) {
  // A quantity's error wins over an earlier mismatch: it stops decoding.
  EXPECT_EQ(
      ErrorOf(
          api::Kind::kPod,
          R"({"spec":{"priority":"x","containers":[{"name":"a","resources":{"limits":{"cpu":"lots"}}}]}})"),
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(ErrorOf(api::Kind::kPod,
                    R"({"spec":{"containers":[{"resources":{"requests":{"cpu":true}}}]}})"),
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(ErrorOf(api::Kind::kPod,
                    R"({"spec":{"containers":[{"resources":{"requests":{"cpu":0.5}}}]}})"),
            "");
  // An int-or-string: Go's error for its int32, with the field's context.
  EXPECT_EQ(ErrorOf(api::Kind::kDeployment,
                    R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":true}}}})"),
            "json: cannot unmarshal bool into Go struct field "
            "RollingUpdateDeployment.spec.strategy.rollingUpdate."
            "maxSurge of type int32");
  EXPECT_EQ(ErrorOf(api::Kind::kDeployment,
                    R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%"}}}})"),
            "");
  // Times.
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap, R"({"metadata":{"creationTimestamp":5}})"),
            "json: cannot unmarshal number into Go struct field "
            "ObjectMeta.metadata.creationTimestamp of type string");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap, R"({"metadata":{"creationTimestamp":"yesterday"}})"),
            "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
            "\"yesterday\" as \"2006\"");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap,
                    R"({"metadata":{"creationTimestamp":"2026-13-01T00:00:00Z"}})"),
            "parsing time \"2026-13-01T00:00:00Z\": month out of range");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap,
                    R"({"metadata":{"creationTimestamp":"2026-02-30T00:00:00Z"}})"),
            "parsing time \"2026-02-30T00:00:00Z\": day out of range");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap,
                    R"({"metadata":{"creationTimestamp":"2026-01-01 00:00:00Z"}})"),
            "parsing time \"2026-01-01 00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
            "\" 00:00:00Z\" as "
            "\"T\"");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap,
                    R"({"metadata":{"creationTimestamp":"2026-01-01T00:00:00Zextra"}})"),
            "parsing time \"2026-01-01T00:00:00Zextra\": extra text: \"extra\"");
  EXPECT_EQ(ErrorOf(api::Kind::kConfigMap,
                    R"({"metadata":{"creationTimestamp":"2026-01-01T10:00:00.5+02:00"}})"),
            "");
  EXPECT_EQ(ErrorOf(api::Kind::kLease, R"({"spec":{"renewTime":"2026-01-01T10:00:00Z"}})"),
            "parsing time \"2026-01-01T10:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot "
            "parse \"Z\" as "
            "\".000000\"");
}

TEST(DecodeCheckTest, NullsAndOpenValuesDecode) {
  EXPECT_EQ(ErrorOf(api::Kind::kDeployment,
                    R"({"spec":{"replicas":null,"template":null,"selector":null}})"),
            "");
  EXPECT_EQ(ErrorOf(api::Kind::kPod, R"({"spec":{"containers":[null]}})"), "");
  EXPECT_EQ(ErrorOf(api::Kind::kControllerRevision, R"({"data":[1,"x",{"y":true}]})"), "");
  // Fields the tables do not know are field validation's, not the decoder's.
  EXPECT_EQ(ErrorOf(api::Kind::kDeployment, R"({"spec":{"replicaz":"two"}})"), "");
}

TEST(DecodeCheckTest, SecretDataIsBase64) {
  EXPECT_EQ(ErrorOf(api::Kind::kSecret, R"({"data":{"a":"!!!!"}})"),
            "illegal base64 data at input byte 0");
  EXPECT_EQ(ErrorOf(api::Kind::kSecret, R"({"data":{"a":1}})"),
            "json: cannot unmarshal number into Go struct field Secret.data of type []uint8");
}

TEST(DecodeCheckTest, StatusPerVerb) {
  const api::KindInfo& deployment = api::Info(api::Kind::kDeployment);
  json::value bad = json::parse(R"({"spec":{"replicas":"two"}})");
  Status create = CheckDecodable(deployment, WriteVerb::kCreate, bad);
  EXPECT_EQ(create.code(), StatusCode::kBadRequest);
  EXPECT_EQ(create.message(),
            "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot "
            "unmarshal string into Go "
            "struct field DeploymentSpec.spec.replicas of type int32");
  Status patch = CheckDecodable(deployment, WriteVerb::kPatch, bad);
  EXPECT_EQ(patch.code(), StatusCode::kInvalid);
  EXPECT_NE(patch.message().find(
                "patch: Invalid value: \"{\\\"spec\\\":{\\\"replicas\\\":\\\"two\\\"}}\": json: "
                "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type "
                "int32"),
            std::string::npos)
      << patch.message();
  ASSERT_EQ(patch.causes().size(), 1u);
  EXPECT_EQ(patch.causes()[0].field, "patch");
  EXPECT_TRUE(
      CheckDecodable(deployment, WriteVerb::kCreate, json::parse(R"({"spec":{"replicas":2}})"))
          .ok());
}

}  // namespace
}  // namespace berth::apiserver
