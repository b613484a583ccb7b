#include "apiserver/schema/protobuf.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// Protobuf wire encoding by hand: a length-delimited field, a varint field.
std::string Raw(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string Bytes(int field, const std::string& payload) {
  return Raw(static_cast<uint64_t>(field) << 3 | 2) + Raw(payload.size()) + payload;
}
std::string Varint(int field, uint64_t v) { return Raw(static_cast<uint64_t>(field) << 3) + Raw(v); }
std::string Envelope(const std::string& api_version, const std::string& kind, const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) + Bytes(2, raw);
}

TEST(Protobuf, DecodesADeploymentAsKubectlSendsIt) {
  std::string meta = Bytes(1, "web") + Bytes(2, "") + Bytes(11, Bytes(1, "app") + Bytes(2, "web")) + Bytes(8, "");
  std::string container = Bytes(1, "nginx") + Bytes(2, "nginx:1.27") + Bytes(8, "") + Bytes(14, "") +
                          Varint(16, 0) + Bytes(6, Varint(3, 80) + Bytes(4, "TCP"));
  std::string resources = Bytes(2, Bytes(1, "cpu") + Bytes(2, Bytes(1, "250m")));
  container += Bytes(8, resources);
  std::string tmpl = Bytes(1, Bytes(11, Bytes(1, "app") + Bytes(2, "web"))) + Bytes(2, Bytes(2, container));
  std::string strategy = Bytes(1, "RollingUpdate") +
                         Bytes(2, Bytes(1, Varint(1, 1) + Bytes(3, "50%")) + Bytes(2, Varint(1, 0) + Varint(2, 2)));
  std::string spec = Varint(1, 3) + Bytes(2, Bytes(1, Bytes(1, "app") + Bytes(2, "web"))) + Bytes(3, tmpl) +
                     Bytes(4, strategy) + Varint(5, 0) + Varint(7, 0);
  std::string status = Varint(1, 0) + Varint(2, 0);  // zero values, omitempty: dropped
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(1, meta) + Bytes(2, spec) + Bytes(3, status)),
                                api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  json::value want = json::parse(R"({
    "metadata":{"name":"web","labels":{"app":"web"},"creationTimestamp":null},
    "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"nginx","image":"nginx:1.27",
          "resources":{"requests":{"cpu":"250m"}},"ports":[{"containerPort":80,"protocol":"TCP"}]}]}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"50%","maxSurge":2}}},
    "status":{},
    "apiVersion":"apps/v1","kind":"Deployment"})");
  EXPECT_EQ(decoded.value(), want) << json::serialize(decoded.value());
}

// Shorthands for the bodies below: a map entry, an IntOrString, a Quantity.
std::string Entry(int field, const std::string& key, const std::string& value) {
  return Bytes(field, Bytes(1, key) + Bytes(2, value));
}
std::string IntValue(uint64_t v) { return Varint(1, 0) + Varint(2, v) + Bytes(3, ""); }
std::string NamedValue(const std::string& name) { return Varint(1, 1) + Varint(2, 0) + Bytes(3, name); }
std::string Quantity(const std::string& q) { return Bytes(1, q); }
// ObjectMeta as Go writes an object kubectl create builds: name and the
// zero-valued non-pointer fields.
std::string Meta(const std::string& name, const std::string& extra = "") {
  return Bytes(1, Bytes(1, name) + Bytes(2, "") + Bytes(3, "") + Varint(7, 0) + Bytes(8, "") + extra);
}
// A pod template as kubectl create job / cronjob / deployment write it.
std::string Template(const std::string& container_extra = "", const std::string& spec_extra = "") {
  std::string container = Bytes(1, "c") + Bytes(2, "busybox") + Bytes(3, "sh") + Bytes(3, "-c") + Bytes(3, "echo hi") +
                          Bytes(5, "") + Bytes(8, "") + Bytes(13, "") + Bytes(14, "") + Varint(16, 0) +
                          Varint(17, 0) + Varint(18, 0) + Bytes(20, "") + container_extra;
  return Bytes(1, Bytes(8, "")) + Bytes(2, Bytes(2, container) + Bytes(3, "Never") + Bytes(6, "") + Bytes(8, "") +
                                           Bytes(9, "") + Bytes(10, "") + Varint(11, 0) + spec_extra);
}
constexpr const char* kTemplateJson =
    R"({"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"busybox",)"
    R"("command":["sh","-c","echo hi"],"resources":{}}],"restartPolicy":"Never"}})";

struct KindCase {
  const char* name;
  api::Kind kind;
  const char* api_version;
  const char* kind_name;
  std::string raw;
  std::string want;  // JSON, without apiVersion and kind
};

// What kubectl's typed create commands send, kind by kind, and the JSON
// kube-apiserver would store for it.
std::vector<KindCase> KindCases() {
  std::string tmpl = kTemplateJson;
  return {
      {"ConfigMapWithTextAndBinaryData", api::Kind::kConfigMap, "v1", "ConfigMap",
       Meta("cm") + Entry(2, "k", "v") + Entry(2, "empty", "") + Entry(3, "blob", std::string("\xff\x00\xfe", 3)),
       R"({"metadata":{"name":"cm","creationTimestamp":null},"data":{"k":"v","empty":""},"binaryData":{"blob":"/wD+"}})"},
      {"SecretBytesAreBase64AndImmutableFalseIsKept", api::Kind::kSecret, "v1", "Secret",
       Meta("s") + Entry(2, "user", "admin") + Entry(2, "one", "a") + Bytes(3, "Opaque") + Varint(5, 0) +
           Entry(4, "plain", "text"),
       R"({"metadata":{"name":"s","creationTimestamp":null},"data":{"user":"YWRtaW4=","one":"YQ=="},"type":"Opaque",)"
       R"("immutable":false,"stringData":{"plain":"text"}})"},
      {"ServiceWithIntAndNamedTargetPorts", api::Kind::kService, "v1", "Service",
       Meta("web", Entry(11, "app", "web")) +
           Bytes(2, Bytes(1, Bytes(1, "80-8080") + Bytes(2, "TCP") + Varint(3, 80) + Bytes(4, IntValue(8080)) +
                                 Varint(5, 0)) +
                        Bytes(1, Bytes(1, "443-https") + Bytes(2, "TCP") + Varint(3, 443) +
                                 Bytes(4, NamedValue("https")) + Varint(5, 30443)) +
                        Entry(2, "app", "web") + Bytes(3, "") + Bytes(4, "NodePort") + Bytes(7, "None") +
                        Bytes(8, "") + Bytes(10, "") + Bytes(11, "Local") + Varint(12, 0) + Varint(13, 0) +
                        Bytes(14, Bytes(1, Varint(1, 10800))) + Bytes(17, "SingleStack") + Bytes(19, "IPv4") +
                        Varint(20, 0) + Bytes(22, "Cluster")) +
           Bytes(3, Bytes(1, "")),
       R"({"metadata":{"name":"web","labels":{"app":"web"},"creationTimestamp":null},"spec":{"ports":[
         {"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080},
         {"name":"443-https","protocol":"TCP","port":443,"targetPort":"https","nodePort":30443}],
         "selector":{"app":"web"},"type":"NodePort","sessionAffinity":"None","externalTrafficPolicy":"Local",
         "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"ipFamilyPolicy":"SingleStack",
         "ipFamilies":["IPv4"],"allocateLoadBalancerNodePorts":false,"internalTrafficPolicy":"Cluster"},
         "status":{"loadBalancer":{}}})"},
      {"ExternalNameService", api::Kind::kService, "v1", "Service",
       Meta("ext") + Bytes(2, Bytes(3, "") + Bytes(4, "ExternalName") + Bytes(10, "db.example.com")),
       R"({"metadata":{"name":"ext","creationTimestamp":null},"spec":{"type":"ExternalName",)"
       R"("externalName":"db.example.com"}})"},
      {"ServiceAccount", api::Kind::kServiceAccount, "v1", "ServiceAccount",
       Meta("robot") + Bytes(2, Bytes(3, "robot-token") + Bytes(1, "")) + Bytes(3, Bytes(1, "regcred")) + Varint(4, 0),
       R"({"metadata":{"name":"robot","creationTimestamp":null},"secrets":[{"name":"robot-token"}],)"
       R"("imagePullSecrets":[{"name":"regcred"}],"automountServiceAccountToken":false})"},
      {"ResourceQuota", api::Kind::kResourceQuota, "v1", "ResourceQuota",
       Meta("q") +
           Bytes(2, Entry(1, "cpu", Quantity("1")) + Entry(1, "pods", Quantity("2")) + Bytes(2, "NotBestEffort") +
                        Bytes(3, Bytes(1, Bytes(1, "PriorityClass") + Bytes(2, "In") + Bytes(3, "high")))) +
           Bytes(3, ""),
       R"({"metadata":{"name":"q","creationTimestamp":null},"spec":{"hard":{"cpu":"1","pods":"2"},)"
       R"("scopes":["NotBestEffort"],"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass",)"
       R"("operator":"In","values":["high"]}]}},"status":{}})"},
      {"JobPointersKeepTheirZeros", api::Kind::kJob, "batch/v1", "Job",
       Meta("once") +
           Bytes(2, Varint(1, 0) + Varint(2, 1) + Varint(7, 6) + Varint(5, 0) + Bytes(6, Template()) +
                        Varint(8, 100) + Bytes(9, "NonIndexed") + Varint(10, 0) +
                        Bytes(11, Bytes(1, Bytes(1, "FailJob") +
                                               Bytes(2, Bytes(1, "c") + Bytes(2, "In") + Varint(3, 42) +
                                                            Bytes(3, Raw(1) + Raw(2))) +
                                               Bytes(3, Bytes(1, "DisruptionTarget") + Bytes(2, "True"))))) +
           Bytes(3, ""),
       R"({"metadata":{"name":"once","creationTimestamp":null},"spec":{"parallelism":0,"completions":1,)"
       R"("backoffLimit":6,"manualSelector":false,"template":)" +
           tmpl +
           R"(,"ttlSecondsAfterFinished":100,"completionMode":"NonIndexed","suspend":false,)"
           R"("podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"containerName":"c","operator":"In",)"
           R"("values":[42,1,2]},"onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]}},"status":{}})"},
      {"CronJob", api::Kind::kCronJob, "batch/v1", "CronJob",
       Meta("tick") +
           Bytes(2, Bytes(1, "*/1 * * * *") + Bytes(8, "Etc/UTC") + Varint(2, 30) + Bytes(3, "Forbid") +
                        Varint(4, 0) + Bytes(5, Meta("tick") + Bytes(2, Bytes(6, Template()))) + Varint(6, 3) +
                        Varint(7, 1)) +
           Bytes(3, ""),
       R"({"metadata":{"name":"tick","creationTimestamp":null},"spec":{"schedule":"*/1 * * * *",)"
       R"("timeZone":"Etc/UTC","startingDeadlineSeconds":30,"concurrencyPolicy":"Forbid","suspend":false,)"
       R"("jobTemplate":{"metadata":{"name":"tick","creationTimestamp":null},"spec":{"template":)" +
           tmpl + R"(}},"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1},"status":{}})"},
      {"IngressRulesInlineTheirHttpValue", api::Kind::kIngress, "networking.k8s.io/v1", "Ingress",
       Meta("site") +
           Bytes(2, Bytes(4, "nginx") +
                        Bytes(1, Bytes(4, Bytes(1, "fallback") + Bytes(2, Bytes(1, "") + Varint(2, 80)))) +
                        Bytes(2, Bytes(1, "shop.test") + Bytes(2, "shop-cert")) +
                        Bytes(3, Bytes(1, "shop.test") +
                                     Bytes(2, Bytes(1, Bytes(1, Bytes(1, "/cart") + Bytes(3, "Exact") +
                                                                  Bytes(2, Bytes(4, Bytes(1, "cart") +
                                                                                        Bytes(2, Bytes(1, "http") +
                                                                                                     Varint(2, 0))))))))) +
           Bytes(3, ""),
       R"({"metadata":{"name":"site","creationTimestamp":null},"spec":{"ingressClassName":"nginx",)"
       R"("defaultBackend":{"service":{"name":"fallback","port":{"number":80}}},)"
       R"("tls":[{"hosts":["shop.test"],"secretName":"shop-cert"}],"rules":[{"host":"shop.test","http":{"paths":[)"
       R"({"path":"/cart","pathType":"Exact","backend":{"service":{"name":"cart","port":{"name":"http"}}}}]}}]},)"
       R"("status":{}})"},
      {"Role", api::Kind::kRole, "rbac.authorization.k8s.io/v1", "Role",
       Meta("reader") + Bytes(2, Bytes(1, "get") + Bytes(1, "list") + Bytes(2, "") + Bytes(3, "pods") +
                                 Bytes(4, "one")),
       R"({"metadata":{"name":"reader","creationTimestamp":null},"rules":[{"verbs":["get","list"],)"
       R"("apiGroups":[""],"resources":["pods"],"resourceNames":["one"]}]})"},
      {"ClusterRoleWithAggregationRule", api::Kind::kClusterRole, "rbac.authorization.k8s.io/v1", "ClusterRole",
       Meta("logs") + Bytes(2, Bytes(1, "get") + Bytes(5, "/logs/*")) +
           Bytes(3, Bytes(1, Entry(1, "example.com/aggregate", "true"))),
       R"({"metadata":{"name":"logs","creationTimestamp":null},"rules":[{"verbs":["get"],)"
       R"("nonResourceURLs":["/logs/*"]}],"aggregationRule":{"clusterRoleSelectors":[)"
       R"({"matchLabels":{"example.com/aggregate":"true"}}]}})"},
      {"RoleBindingSubjects", api::Kind::kRoleBinding, "rbac.authorization.k8s.io/v1", "RoleBinding",
       Meta("readers") +
           Bytes(2, Bytes(1, "User") + Bytes(2, "rbac.authorization.k8s.io") + Bytes(3, "ann") + Bytes(4, "")) +
           Bytes(2, Bytes(1, "ServiceAccount") + Bytes(2, "") + Bytes(3, "robot") + Bytes(4, "made")) +
           Bytes(3, Bytes(1, "rbac.authorization.k8s.io") + Bytes(2, "Role") + Bytes(3, "reader")),
       R"({"metadata":{"name":"readers","creationTimestamp":null},"subjects":[)"
       R"({"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"ann"},)"
       R"({"kind":"ServiceAccount","name":"robot","namespace":"made"}],)"
       R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"}})"},
      {"ClusterRoleBinding", api::Kind::kClusterRoleBinding, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding",
       Meta("ann-view") + Bytes(2, Bytes(1, "Group") + Bytes(2, "rbac.authorization.k8s.io") + Bytes(3, "devs")) +
           Bytes(3, Bytes(1, "rbac.authorization.k8s.io") + Bytes(2, "ClusterRole") + Bytes(3, "view")),
       R"({"metadata":{"name":"ann-view","creationTimestamp":null},"subjects":[)"
       R"({"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"devs"}],)"
       R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}})"},
  };
}

TEST(Protobuf, DecodesEveryKindKubectlCreateSends) {
  for (const KindCase& c : KindCases()) {
    SCOPED_TRACE(c.name);
    auto decoded = DecodeProtobuf(Envelope(c.api_version, c.kind_name, c.raw), c.kind);
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    json::object want = json::parse(c.want).as_object();
    want["apiVersion"] = c.api_version;
    want["kind"] = c.kind_name;
    EXPECT_EQ(decoded.value(), json::value(want)) << json::serialize(decoded.value());
  }
}

// The pod template's embedded Go structs (json:",inline") arrive as nested
// messages and land in their parent's JSON object.
TEST(Protobuf, PodTemplateInlinesEmbeddedStructs) {
  std::string env = Bytes(1, "MODE") + Bytes(2, "") +
                    Bytes(3, Bytes(3, Bytes(1, Bytes(1, "settings")) + Bytes(2, "mode") + Varint(3, 1)));
  std::string probe = Bytes(1, Bytes(2, Bytes(1, "/healthz") + Bytes(2, NamedValue("http")) + Bytes(3, "") +
                                          Bytes(4, "HTTP"))) +
                      Varint(2, 0) + Varint(3, 1) + Varint(4, 10);
  std::string mount = Bytes(1, "config") + Varint(2, 1) + Bytes(3, "/etc/app") + Bytes(4, "") + Bytes(6, "");
  std::string security = Bytes(1, Bytes(2, "ALL")) + Varint(5, 1) + Varint(7, 0);
  std::string container = Bytes(7, env) + Bytes(11, probe) + Bytes(9, mount) + Bytes(15, security);
  std::string volume = Bytes(1, "config") + Bytes(2, Bytes(19, Bytes(1, Bytes(1, "settings")) + Varint(3, 420)));
  std::string affinity = Bytes(
      1, Bytes(1, Bytes(1, Bytes(1, Bytes(1, "disk") + Bytes(2, "In") + Bytes(3, "ssd")))));
  std::string pod_security = Varint(2, 1000) + Varint(4, 5) + Varint(4, 6) + Varint(5, 2000);
  std::string spec = Bytes(2, Varint(1, 1) + Bytes(3, Template(container, Bytes(1, volume) + Bytes(18, affinity) +
                                                                         Bytes(14, pod_security))));
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Meta("web") + spec), api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const json::value& pod = decoded.value().at("spec").at("template").at("spec");
  const json::value& c = pod.at("containers").at(0);
  EXPECT_EQ(c.at("env"), json::parse(R"([{"name":"MODE","valueFrom":{"configMapKeyRef":)"
                                     R"({"name":"settings","key":"mode","optional":true}}}])"));
  EXPECT_EQ(c.at("readinessProbe"), json::parse(R"({"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},)"
                                                R"("timeoutSeconds":1,"periodSeconds":10})"));
  EXPECT_EQ(c.at("volumeMounts"), json::parse(R"([{"name":"config","readOnly":true,"mountPath":"/etc/app"}])"));
  EXPECT_EQ(c.at("securityContext"),
            json::parse(R"({"capabilities":{"drop":["ALL"]},"runAsNonRoot":true,"allowPrivilegeEscalation":false})"));
  EXPECT_EQ(pod.at("volumes"), json::parse(R"([{"name":"config","configMap":{"name":"settings","defaultMode":420}}])"));
  EXPECT_EQ(pod.at("affinity"), json::parse(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
                                            R"({"nodeSelectorTerms":[{"matchExpressions":[)"
                                            R"({"key":"disk","operator":"In","values":["ssd"]}]}]}}})"));
  EXPECT_EQ(pod.at("securityContext"),
            json::parse(R"({"runAsUser":1000,"supplementalGroups":[5,6],"fsGroup":2000})"));
}

TEST(Protobuf, ManagedFieldsCarryTheirFieldSetAsJson) {
  std::string entry = Bytes(1, "kubectl") + Bytes(2, "Update") + Bytes(3, "v1") + Bytes(4, Varint(1, 1700000000)) +
                      Bytes(6, "FieldsV1") + Bytes(7, Bytes(1, R"({"f:data":{"f:k":{}}})")) + Bytes(8, "");
  auto decoded = DecodeProtobuf(Envelope("v1", "ConfigMap", Bytes(1, Bytes(1, "cm") + Bytes(17, entry))),
                                api::Kind::kConfigMap);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value().at("metadata").at("managedFields"),
            json::parse(R"([{"manager":"kubectl","operation":"Update","apiVersion":"v1",)"
                        R"("time":"2023-11-14T22:13:20Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}])"));
}

TEST(Protobuf, AVolumeSourceBerthDoesNotKnowIsSkippedAsKubeSkipsIt) {
  std::string volume = Bytes(1, "disk") + Bytes(2, Bytes(99, Bytes(1, "pd-1")));  // no such source
  auto decoded = DecodeProtobuf(Envelope("batch/v1", "Job", Bytes(2, Bytes(6, Template("", Bytes(1, volume))))),
                                api::Kind::kJob);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value().at("spec").at("template").at("spec").at("volumes"), json::parse(R"([{"name":"disk"}])"));
}

TEST(Protobuf, ReplicasZeroIsKeptBecauseThePointerWasSet) {
  std::string spec = Varint(1, 0);
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(1, Bytes(1, "z")) + Bytes(2, spec)),
                                api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded.value().at("spec").at("replicas"), 0);
}

// A tag: field number and wire type.
std::string Tag(int field, int wire) { return Raw(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire)); }

// kube's generated decoders skip fields they do not have (skipGenerated),
// of every wire type, groups included.
TEST(Protobuf, UnknownFieldsOfEveryWireTypeAreSkipped) {
  const std::string unknown = Varint(90, 7) + Tag(91, 1) + std::string(8, 'x') + Bytes(92, "y") + Tag(93, 5) +
                              std::string(4, 'z') + Tag(94, 3) + Varint(1, 1) + Tag(95, 3) + Tag(95, 4) + Tag(94, 4);
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(1, Bytes(1, "d") + unknown) +
                                                                      Bytes(2, unknown + Varint(1, 3))),
                                api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value().at("metadata").at("name"), "d");
  EXPECT_EQ(decoded.value().at("spec").at("replicas"), 3);
}

// client-go <= 1.24 writes ObjectMeta's clusterName (field 15), which kube
// removed in 1.25.
TEST(Protobuf, ObjectMetaClusterNameOfOldClientsIsSkipped) {
  auto decoded = DecodeProtobuf(Envelope("v1", "ConfigMap", Bytes(1, Bytes(1, "cm") + Bytes(15, ""))),
                                api::Kind::kConfigMap);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const json::object& meta = decoded.value().at("metadata").as_object();
  EXPECT_EQ(meta.at("name"), "cm");
  EXPECT_FALSE(meta.contains("clusterName")) << json::serialize(meta);
}

TEST(Protobuf, MalformedInputIsABadRequest) {
  EXPECT_EQ(DecodeProtobuf("{}", api::Kind::kNamespace).status().code(), StatusCode::kBadRequest);
  std::string truncated = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "shop")));
  truncated.pop_back();
  EXPECT_EQ(DecodeProtobuf(truncated, api::Kind::kNamespace).status().code(), StatusCode::kBadRequest);
  // Unknown fields that are not well-formed: cut short, an unclosed group, a
  // lone end-group, wire types 6 and 7, field number 0.
  for (const std::string& spec : {Tag(91, 1) + "abc", Tag(92, 2) + Raw(10) + "ab", Tag(93, 5) + "a",
                                  Tag(90, 0) + "\xff", Tag(94, 3) + Varint(1, 1), Tag(94, 4), Tag(96, 6) + "a",
                                  Tag(97, 7) + "a", Tag(0, 0) + Raw(1)}) {
    auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(2, spec)), api::Kind::kDeployment);
    ASSERT_FALSE(decoded.ok()) << json::serialize(decoded.value());
    EXPECT_EQ(decoded.status().code(), StatusCode::kBadRequest) << decoded.status().message();
    EXPECT_EQ(decoded.status().message(), "malformed protobuf in DeploymentSpec");
  }
}

// What kubectl drain --dry-run=server sends with its DELETE (the bytes
// observed, with the kind's length byte 13, "\r").
TEST(Protobuf, DecodesDeleteOptionsAsKubectlDrainSendsThem) {
  std::string body("k8s\0\n\x13\n\x02v1\x12\rDeleteOptions\x12\x05*\x03"
                   "All\x1a\x00\"\x00",
                   36);
  auto decoded = DecodeProtobufDeleteOptions(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({"dryRun":["All"],"apiVersion":"v1","kind":"DeleteOptions"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, DeleteOptionsKeepAZeroGracePeriodAndPreconditions) {
  std::string options = Varint(1, 0) + Bytes(2, Bytes(1, "uid-1") + Bytes(2, "42")) + Bytes(4, "Foreground");
  auto decoded = DecodeProtobufDeleteOptions(Envelope("v1", "DeleteOptions", options));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({"gracePeriodSeconds":0,
    "preconditions":{"uid":"uid-1","resourceVersion":"42"},"propagationPolicy":"Foreground",
    "apiVersion":"v1","kind":"DeleteOptions"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, DecodesAnEvictionAsKubectlsTypedClientSendsIt) {
  std::string meta = Bytes(1, "web-1") + Bytes(2, "") + Bytes(3, "default") + Bytes(8, "");
  std::string options = Varint(1, 5) + Bytes(5, "All");
  auto decoded = DecodeProtobufEviction(Envelope("policy/v1", "Eviction", Bytes(1, meta) + Bytes(2, options)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({
    "metadata":{"name":"web-1","namespace":"default","creationTimestamp":null},
    "deleteOptions":{"gracePeriodSeconds":5,"dryRun":["All"]},
    "apiVersion":"policy/v1","kind":"Eviction"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, AnEvictionsUnknownFieldIsSkipped) {
  auto decoded = DecodeProtobufEviction(Envelope("policy/v1", "Eviction", Bytes(1, Bytes(1, "web-1")) + Varint(9, 1)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value().at("metadata").at("name"), "web-1");
}

// Found by fuzz_protobuf: protobuf strings are bytes, and one that was not
// UTF-8 was stored as it came, as JSON that could not be parsed again. Each
// invalid byte becomes U+FFFD, as kube's JSON output writes it.
TEST(Protobuf, InvalidUtf8InStringsBecomesReplacementCharacters) {
  std::string meta = Bytes(1, std::string("a\xff" "b", 3));
  std::string data = Bytes(1, std::string("k\xc3", 2)) + Bytes(2, std::string("\xed\xa0\x80" "ok\xc3\xa9", 7));
  auto decoded = DecodeProtobuf(Envelope("v1", "ConfigMap", Bytes(1, meta) + Bytes(2, data)), api::Kind::kConfigMap);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const std::string replacement = "\xef\xbf\xbd";
  EXPECT_EQ(decoded->at("metadata").at("name"), json::value("a" + replacement + "b"));
  const json::object& got = decoded->at("data").as_object();
  ASSERT_EQ(got.size(), 1u) << json::serialize(*decoded);
  EXPECT_EQ(got.begin()->key(), "k" + replacement);
  EXPECT_EQ(got.begin()->value(), json::value(replacement + replacement + replacement + "ok\xc3\xa9"));
  json::error_code ec;
  json::value reparsed = json::parse(json::serialize(*decoded), ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(reparsed, *decoded);
}

// Found by fuzz_protobuf: a Timestamp beyond 2262 overflowed the clock's
// nanoseconds. Times are written from their seconds for the years 0–9999, as
// Go writes them, and refused outside them, as Go's JSON encoder refuses them.
TEST(Protobuf, TimesAreWrittenForYearsZeroTo9999AndRefusedBeyond) {
  auto creation = [](int64_t seconds) {
    std::string meta = Bytes(1, "c") + Bytes(8, Varint(1, static_cast<uint64_t>(seconds)));
    return DecodeProtobuf(Envelope("v1", "ConfigMap", Bytes(1, meta)), api::Kind::kConfigMap);
  };
  auto text = [&](int64_t seconds) {
    auto decoded = creation(seconds);
    return decoded.ok() ? json::serialize(decoded->at("metadata").at("creationTimestamp"))
                        : decoded.status().message();
  };
  EXPECT_EQ(text(1199149261), R"("2008-01-01T01:01:01Z")");
  EXPECT_EQ(text(-1), R"("1969-12-31T23:59:59Z")");
  EXPECT_EQ(text(253402300799), R"("9999-12-31T23:59:59Z")");
  EXPECT_EQ(text(-62167219200), R"("0000-01-01T00:00:00Z")");
  EXPECT_EQ(text(34090479949).substr(0, 6), R"("3050-)") << "beyond system_clock's 2262";
  EXPECT_FALSE(creation(253402300800).ok());
  EXPECT_FALSE(creation(-62167219201).ok());
  EXPECT_EQ(creation(253402300800).status().code(), StatusCode::kBadRequest);
  EXPECT_NE(creation(253402300800).status().message().find("year outside of range [0,9999]"), std::string::npos);
}

}  // namespace
}  // namespace berth::apiserver
