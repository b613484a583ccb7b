// Validation of core/v1 kinds (ConfigMap, Secret, Service, Endpoints,
// LimitRange, ResourceQuota, PodTemplate, ReplicationController) and their
// update rules, with kube's messages and field paths.

#include <gtest/gtest.h>

#include "api/codec/base64.h"
#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::Template;
using testing::UpdateProblems;

struct Case {
  std::string name, json, message;
};

void ExpectMessages(const std::vector<Case>& cases) {
  for (const auto& c : cases) EXPECT_EQ(Problems(c.json), c.message) << c.name;
}

std::string ConfigMap(const std::string& body) { return Obj("v1", "ConfigMap", "cm", body); }
std::string Secret(const std::string& body, const std::string& extra_meta = "") {
  return Obj("v1", "Secret", "s", body, true, extra_meta);
}
std::string Service(const std::string& spec, const std::string& name = "web") {
  return Obj("v1", "Service", name, R"("spec":)" + spec);
}

constexpr char kPrefix[] = "Service \"web\" is invalid: ";

TEST(CoreValidation, ConfigMapKeysSizeAndDuplicates) {
  ExpectMessages({
      {"valid", ConfigMap(R"("data":{"app.conf":"x","KEY_1":"y"},"binaryData":{"bin":"AAE="})"),
       ""},
      {"bad key", ConfigMap(R"("data":{"a b":"x"})"),
       "ConfigMap \"cm\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must "
       "consist of "
       "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', "
       "regex used for "
       "validation is '[-._a-zA-Z0-9]+')"},
      {"dot-dot key", ConfigMap(R"("binaryData":{"..":"AAE="})"),
       "ConfigMap \"cm\" is invalid: binaryData[..]: Invalid value: \"..\": must not be '..'"},
      {"key in both", ConfigMap(R"("data":{"k":"v"},"binaryData":{"k":"dg=="})"),
       "ConfigMap \"cm\" is invalid: data[k]: Invalid value: \"k\": duplicate of key present in "
       "binaryData"},
      {"too large", ConfigMap(R"("data":{"big":")" + std::string(1048577, 'x') + "\"}"),
       "ConfigMap \"cm\" is invalid: []: Too long: must have at most 1048576 bytes"},
      {"just fits", ConfigMap(R"("data":{"big":")" + std::string(1048576, 'x') + "\"}"), ""},
  });
  auto cm =
      testing::MustDecode(ConfigMap(R"("data":{"big":")" + std::string(1048577, 'x') + "\"}"));
  Status s = ValidateObject(*cm);
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].type, "FieldValueTooLong");
  EXPECT_EQ(s.causes()[0].field, "[]");
}

TEST(CoreValidation, BinaryDataThatIsNotBase64IsABadRequest) {
  auto cm = testing::MustDecode(ConfigMap(R"("binaryData":{"k":"abcd!"})"));
  Status s = ValidateObject(*cm);
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: illegal base64 data at "
            "input byte 4");
  auto secret = testing::MustDecode(
      Secret(R"("data":{"k":"YWJj"})"));  // "abc" without padding is fine: 4 symbols
  EXPECT_TRUE(ValidateObject(*secret).ok());
  auto unpadded = testing::MustDecode(Secret(R"("data":{"k":"YWI"})"));
  EXPECT_EQ(ValidateObject(*unpadded).message(),
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input "
            "byte 0");
}

TEST(CoreValidation, SecretTypesSizeAndKeys) {
  const std::string big = Base64Encode(std::string(1048577, 'x'));
  ExpectMessages({
      {"opaque", Secret(R"("type":"Opaque","data":{"password":"c2VjcmV0"})"), ""},
      {"bad key", Secret(R"("data":{"a/b":"c2VjcmV0"})"),
       "Secret \"s\" is invalid: data[a/b]: Invalid value: \"a/b\": a valid config key must "
       "consist of alphanumeric "
       "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used "
       "for validation is "
       "'[-._a-zA-Z0-9]+')"},
      {"too large", Secret(R"("data":{"big":")" + big + "\"}"),
       "Secret \"s\" is invalid: data: Too long: must have at most 1048576 bytes"},
      {"token without account", Secret(R"("type":"kubernetes.io/service-account-token")"),
       "Secret \"s\" is invalid: metadata.annotations[kubernetes.io/service-account.name]: "
       "Required value"},
      {"token with account",
       Secret(R"("type":"kubernetes.io/service-account-token")",
              R"("annotations":{"kubernetes.io/service-account.name":"default"})"),
       ""},
      {"dockerconfigjson missing", Secret(R"("type":"kubernetes.io/dockerconfigjson","data":{})"),
       "Secret \"s\" is invalid: data[.dockerconfigjson]: Required value"},
      {"dockerconfigjson truncated",
       Secret(R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")" +
              Base64Encode("{") + "\"}"),
       "Secret \"s\" is invalid: data[.dockerconfigjson]: Invalid value: \"<secret contents "
       "redacted>\": unexpected "
       "end of JSON input"},
      {"dockerconfigjson not an object",
       Secret(R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")" +
              Base64Encode("[1]") + "\"}"),
       "Secret \"s\" is invalid: data[.dockerconfigjson]: Invalid value: \"<secret contents "
       "redacted>\": json: cannot "
       "unmarshal array into Go value of type map[string]interface {}"},
      {"dockerconfigjson ok",
       Secret(R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")" +
              Base64Encode(R"({"auths":{}})") + "\"}"),
       ""},
      {"basic-auth empty", Secret(R"("type":"kubernetes.io/basic-auth")"),
       "Secret \"s\" is invalid: [data[username]: Required value, data[password]: Required value]"},
      {"basic-auth username only",
       Secret(R"("type":"kubernetes.io/basic-auth","data":{"username":""})"), ""},
      {"ssh-auth", Secret(R"("type":"kubernetes.io/ssh-auth","data":{"ssh-privatekey":""})"),
       "Secret \"s\" is invalid: data[ssh-privatekey]: Required value"},
      {"tls without key", Secret(R"("type":"kubernetes.io/tls","data":{"tls.crt":"eA=="})"),
       "Secret \"s\" is invalid: data[tls.key]: Required value"},
  });
}

TEST(CoreValidation, SecretAndConfigMapUpdates) {
  const std::string immutable = ConfigMap(R"("immutable":true,"data":{"a":"1"})");
  EXPECT_EQ(UpdateProblems(immutable, immutable), "");
  EXPECT_EQ(
      UpdateProblems(ConfigMap(R"("immutable":true,"data":{"a":"2"})"), immutable),
      "ConfigMap \"cm\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(UpdateProblems(ConfigMap(R"("data":{"a":"1"})"), immutable),
            "ConfigMap \"cm\" is invalid: immutable: Forbidden: field is immutable when "
            "`immutable` is set");
  EXPECT_EQ(UpdateProblems(ConfigMap(R"("data":{"a":"2"})"), ConfigMap(R"("data":{"a":"1"})")), "");
  EXPECT_EQ(UpdateProblems(Secret(R"("immutable":true,"data":{"a":"Yg=="})"),
                           Secret(R"("immutable":true,"data":{"a":"YQ=="})")),
            "Secret \"s\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(
      UpdateProblems(
          Secret(R"("type":"kubernetes.io/tls","data":{"tls.crt":"eA==","tls.key":"eA=="})"),
          Secret(R"("data":{"tls.crt":"eA==","tls.key":"eA=="})")),
      "Secret \"s\" is invalid: type: Invalid value: \"kubernetes.io/tls\": field is immutable");
  EXPECT_EQ(UpdateProblems(Secret(R"("type":"Opaque")"), Secret("")), "");  // absent type is Opaque
}

TEST(CoreValidation, ServicePortsTypesAndAffinity) {
  const std::string p = kPrefix;
  ExpectMessages({
      {"valid", Service(R"({"selector":{"app":"web"},"ports":[{"port":80,"targetPort":"http"}]})"),
       ""},
      {"port 0", Service(R"({"ports":[{"port":0}]})"),
       p + "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"},
      {"names required", Service(R"({"ports":[{"port":80},{"port":81}]})"),
       p + "[spec.ports[0].name: Required value, spec.ports[1].name: Required value]"},
      {"duplicate names", Service(R"({"ports":[{"name":"a","port":80},{"name":"a","port":81}]})"),
       p + "spec.ports[1].name: Duplicate value: \"a\""},
      {"duplicate port", Service(R"({"ports":[{"name":"a","port":80},{"name":"b","port":80}]})"),
       p + "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", "
           "AppProtocol:(*string)(nil), "
           "Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}"},
      {"protocol", Service(R"({"ports":[{"port":80,"protocol":"HTTP"}]})"),
       p + "spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", "
           "\"TCP\", \"UDP\""},
      {"target number", Service(R"({"ports":[{"port":80,"targetPort":70000}]})"),
       p + "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, "
           "inclusive"},
      {"target name", Service(R"({"ports":[{"port":80,"targetPort":"Http_port"}]})"),
       p + "spec.ports[0].targetPort: Invalid value: \"Http_port\": must contain only "
           "alpha-numeric characters (a-z, "
           "0-9), and hyphens (-)"},
      {"target name digits", Service(R"({"ports":[{"port":80,"targetPort":"8080"}]})"),
       p + "spec.ports[0].targetPort: Invalid value: \"8080\": must contain at least one letter "
           "(a-z)"},
      {"type", Service(R"({"type":"Weird","ports":[{"port":80}]})"),
       p + "spec.type: Unsupported value: \"Weird\": supported values: \"ClusterIP\", "
           "\"ExternalName\", "
           "\"LoadBalancer\", \"NodePort\""},
      {"no ports", Service(R"({"selector":{"app":"web"}})"), p + "spec.ports: Required value"},
      {"headless without ports", Service(R"({"clusterIP":"None"})"), ""},
      {"headless NodePort",
       Service(R"({"type":"NodePort","clusterIP":"None","ports":[{"port":80}]})"),
       p + "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort "
           "services"},
      {"node port on ClusterIP", Service(R"({"ports":[{"port":80,"nodePort":30080}]})"),
       p + "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
      {"selector value", Service(R"({"selector":{"app":"a b"},"ports":[{"port":80}]})"),
       p + "spec.selector: Invalid value: \"a b\": a valid label must be an empty string or "
           "consist of alphanumeric "
           "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
           "(e.g. 'MyValue',  or "
           "'my_value',  or '12345', regex used for validation is "
           "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"},
      {"session affinity", Service(R"({"sessionAffinity":"Sticky","ports":[{"port":80}]})"),
       p + "spec.sessionAffinity: Unsupported value: \"Sticky\": supported values: \"ClientIP\", "
           "\"None\""},
      {"affinity config without ClientIP",
       Service(
           R"({"sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10}},"ports":[{"port":80}]})"),
       p + "spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None"},
      {"ip family policy", Service(R"({"ipFamilyPolicy":"Dual","ports":[{"port":80}]})"),
       p + "spec.ipFamilyPolicy: Unsupported value: \"Dual\": supported values: "
           "\"PreferDualStack\", "
           "\"RequireDualStack\", \"SingleStack\""},
      {"external traffic policy on ClusterIP",
       Service(R"({"externalTrafficPolicy":"Local","ports":[{"port":80}]})"),
       p + "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for "
           "externally-accessible services"},
      {"name is a DNS-1035 label", Service(R"({"ports":[{"port":80}]})", "1web"),
       "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must "
       "consist of lower "
       "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
       "alphanumeric "
       "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
       "'[a-z]([-a-z0-9]*[a-z0-9])?')"},
  });
}

TEST(CoreValidation, ExternalNameServices) {
  const std::string p = kPrefix;
  ExpectMessages({
      {"valid", Service(R"({"type":"ExternalName","externalName":"db.example.com."})"), ""},
      {"missing", Service(R"({"type":"ExternalName"})"), p + "spec.externalName: Required value"},
      {"not a subdomain", Service(R"({"type":"ExternalName","externalName":"db_1.example.com"})"),
       p + "spec.externalName: Invalid value: \"db_1.example.com\": a lowercase RFC 1123 subdomain "
           "must consist of "
           "lower case alphanumeric characters, '-' or '.', and must start and end with an "
           "alphanumeric character "
           "(e.g. 'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"cluster IP",
       Service(R"({"type":"ExternalName","externalName":"db","clusterIP":"10.0.0.1"})"),
       p + "spec.clusterIPs: Forbidden: may not be set for ExternalName services"},
  });
}

TEST(CoreValidation, ServiceClusterIpNeverChanges) {
  const std::string before = Service(R"({"clusterIP":"10.0.0.1","ports":[{"port":80}]})");
  EXPECT_EQ(
      UpdateProblems(Service(R"({"clusterIP":"10.0.0.2","ports":[{"port":80}]})"), before),
      std::string(kPrefix) +
          "spec.clusterIPs[0]: Invalid value: []string{\"10.0.0.2\"}: may not change once set");
  EXPECT_EQ(UpdateProblems(Service(R"({"clusterIP":"10.0.0.1","ports":[{"port":81}]})"), before),
            "");
  // Left out, the allocated address stays.
  EXPECT_EQ(UpdateProblems(Service(R"({"ports":[{"port":80}]})"), before), "");
  // To ExternalName and back, addresses go.
  EXPECT_EQ(UpdateProblems(Service(R"({"type":"ExternalName","externalName":"x"})"), before), "");
}

TEST(CoreValidation, EndpointsSubsets) {
  auto endpoints = [](const std::string& subsets) {
    return Obj("v1", "Endpoints", "e", R"("subsets":)" + subsets);
  };
  ExpectMessages({
      {"valid", endpoints(R"([{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80}]}])"), ""},
      {"no addresses", endpoints("[{}]"),
       "Endpoints \"e\" is invalid: subsets[0]: Required value: must specify `addresses` or "
       "`notReadyAddresses`"},
      {"loopback", endpoints(R"([{"addresses":[{"ip":"127.0.0.1"}]}])"),
       "Endpoints \"e\" is invalid: subsets[0].addresses[0].ip: Invalid value: \"127.0.0.1\": may "
       "not be in the "
       "loopback range (127.0.0.0/8, ::1/128)"},
      {"ports need names",
       endpoints(
           R"([{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80},{"name":"b","port":81}]}])"),
       "Endpoints \"e\" is invalid: subsets[0].ports[0].name: Required value"},
  });
}

TEST(CoreValidation, LimitRangesAndQuotas) {
  auto limits = [](const std::string& l) {
    return Obj("v1", "LimitRange", "lr", R"("spec":{"limits":)" + l + "}");
  };
  auto quota = [](const std::string& spec) {
    return Obj("v1", "ResourceQuota", "q", R"("spec":)" + spec);
  };
  ExpectMessages({
      {"valid",
       limits(
           R"([{"type":"Container","min":{"cpu":"100m"},"max":{"cpu":"2"},"default":{"cpu":"1"}}])"),
       ""},
      {"min over max", limits(R"([{"type":"Container","min":{"cpu":"2"},"max":{"cpu":"1"}}])"),
       "LimitRange \"lr\" is invalid: spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 "
       "is greater than max "
       "value 1"},
      {"pod default", limits(R"([{"type":"Pod","default":{"cpu":"1"}}])"),
       "LimitRange \"lr\" is invalid: spec.limits[0].default: Forbidden: may not be specified when "
       "`type` is 'Pod'"},
      {"claim without storage", limits(R"([{"type":"PersistentVolumeClaim"}])"),
       "LimitRange \"lr\" is invalid: spec.limits[0].limits: Required value: either minimum or "
       "maximum storage value "
       "is required, but neither was provided"},
      {"negative", limits(R"([{"type":"Container","max":{"memory":"-1"}}])"),
       "LimitRange \"lr\" is invalid: spec.limits[0].max[memory]: Invalid value: \"-1\": must be "
       "greater than or "
       "equal to 0"},
      {"quota", quota(R"({"hard":{"pods":"10"},"scopes":["BestEffort"]})"), ""},
      {"quota negative", quota(R"({"hard":{"pods":"-1"}})"),
       "ResourceQuota \"q\" is invalid: spec.hard[pods]: Invalid value: \"-1\": must be greater "
       "than or equal to 0"},
      {"conflicting scopes", quota(R"({"scopes":["BestEffort","NotBestEffort"]})"),
       "ResourceQuota \"q\" is invalid: spec.scopes: Invalid value: "
       "[]core.ResourceQuotaScope{\"BestEffort\", "
       "\"NotBestEffort\"}: conflicting scopes"},
  });
  EXPECT_EQ(UpdateProblems(quota(R"({"scopes":["NotBestEffort"]})"),
                           quota(R"({"scopes":["BestEffort"]})")),
            "ResourceQuota \"q\" is invalid: spec.scopes: Invalid value: "
            "[]core.ResourceQuotaScope{\"NotBestEffort\"}: "
            "field is immutable");
}

TEST(CoreValidation, PodTemplatesAndReplicationControllers) {
  auto rc = [](const std::string& spec) {
    return Obj("v1", "ReplicationController", "rc", R"("spec":)" + spec);
  };
  ExpectMessages({
      {"pod template", Obj("v1", "PodTemplate", "pt", R"("template":{"spec":{}})"),
       "PodTemplate \"pt\" is invalid: template.spec.containers: Required value"},
      {"rc selector from labels", rc(R"({"replicas":1,"template":)" + Template() + "}"), ""},
      {"rc restart policy", rc(R"({"template":)" + Template("OnFailure") + "}"),
       "ReplicationController \"rc\" is invalid: spec.template.spec.restartPolicy: Unsupported "
       "value: \"OnFailure\": "
       "supported values: \"Always\""},
      {"rc selector mismatch", rc(R"({"selector":{"app":"x"},"template":)" + Template() + "}"),
       "ReplicationController \"rc\" is invalid: spec.template.metadata.labels: Invalid value: "
       "map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"},
      {"rc negative replicas", rc(R"({"replicas":-1,"template":)" + Template() + "}"),
       "ReplicationController \"rc\" is invalid: spec.replicas: Invalid value: -1: must be greater "
       "than or equal to 0"},
  });
}

TEST(CoreValidation, PersistentVolumeClaimSpecIsFixedButForBoundGrowth) {
  auto claim = [](const std::string& extra_spec, const std::string& size,
                  const std::string& phase) {
    return Obj("v1", "PersistentVolumeClaim", "data",
               R"("spec":{"accessModes":["ReadWriteOnce"])" + extra_spec +
                   R"(,"resources":{"requests":{"storage":")" + size +
                   R"("}}},"status":{"phase":")" + phase + R"(","capacity":{"storage":"1Gi"}})");
  };
  const std::string bound =
      claim(R"(,"storageClassName":"fast","volumeName":"pv1")", "1Gi", "Bound");
  EXPECT_EQ(UpdateProblems(
                claim(R"(,"storageClassName":"fast","volumeName":"pv1")", "2Gi", "Bound"), bound),
            "");
  EXPECT_EQ(UpdateProblems(
                claim(R"(,"storageClassName":"fast","volumeName":"pv1")", "512Mi", "Bound"), bound),
            "PersistentVolumeClaim \"data\" is invalid: spec.resources.requests.storage: "
            "Forbidden: field can not be "
            "less than status.capacity");
  EXPECT_EQ(UpdateProblems(
                claim(R"(,"storageClassName":"slow","volumeName":"pv1")", "1Gi", "Bound"), bound),
            "PersistentVolumeClaim \"data\" is invalid: spec: Forbidden: spec is immutable after "
            "creation except "
            "resources.requests and volumeAttributesClassName for bound claims\n"
            "  - storageClassName: \"fast\"\n  + storageClassName: \"slow\"");
  // Pending: the size is fixed too. volumeName may be set once.
  const std::string pending = claim("", "1Gi", "Pending");
  EXPECT_NE(UpdateProblems(claim("", "2Gi", "Pending"), pending)
                .find("spec: Forbidden: spec is immutable"),
            std::string::npos);
  EXPECT_EQ(UpdateProblems(claim(R"(,"volumeName":"pv1")", "1Gi", "Pending"), pending), "");
}

}  // namespace
}  // namespace berth::api
