// OpenAPI documents and server-side field validation.

#include "apiserver/openapi/openapi.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "api_fixture.h"
#include "apiserver/api_server.h"
#include "apiserver/openapi/field_validation.h"
#include "apiserver/registry/registry.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

std::string GroupVersionPath(const api::KindInfo& k) {
  return k.group.empty() ? "api/" + std::string(k.version)
                         : "apis/" + std::string(k.group) + "/" + std::string(k.version);
}

json::object Doc(OpenApi& openapi, std::string_view path) {
  auto doc = openapi.V3GroupVersion(path);
  EXPECT_NE(doc, nullptr) << path;
  return doc ? json::parse(doc->body).as_object() : json::object();
}

TEST(OpenApiTest, IndexListsEveryServedGroupVersionWithItsHash) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  json::object index = json::parse(openapi.V3Index()).as_object();
  const json::object& paths = index.at("paths").as_object();
  std::set<std::string> served;
  for (const auto& k : api::AllKinds()) served.insert(GroupVersionPath(k));
  EXPECT_EQ(paths.size(), served.size());
  for (const auto& gv : served) {
    ASSERT_TRUE(paths.contains(gv)) << gv;
    auto doc = openapi.V3GroupVersion(gv);
    ASSERT_NE(doc, nullptr);
    EXPECT_EQ(paths.at(gv).at("serverRelativeURL").as_string(), "/openapi/v3/" + gv + "?hash=" + doc->hash);
    EXPECT_EQ(doc->hash.size(), 128u) << "SHA-512 in hex";
    EXPECT_EQ(doc->hash.find_first_not_of("0123456789ABCDEF"), std::string::npos) << "uppercase hex";
  }
  EXPECT_TRUE(paths.contains("apis/autoscaling/v2"));
  EXPECT_EQ(openapi.V3GroupVersion("apis/nope/v1"), nullptr);
}

TEST(OpenApiTest, PatchOperationsCarryFieldValidationAndTheirKind) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  json::object doc = Doc(openapi, "apis/apps/v1");
  EXPECT_EQ(doc.at("openapi"), "3.0.0");
  const json::object& patch =
      doc.at("paths").at("/apis/apps/v1/namespaces/{namespace}/deployments/{name}").at("patch").as_object();
  EXPECT_EQ(patch.at("x-kubernetes-action"), "patch");
  EXPECT_EQ(patch.at("x-kubernetes-group-version-kind"),
            (json::value{{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}));
  std::set<std::string> params;
  for (const auto& p : patch.at("parameters").as_array()) params.insert(std::string(p.at("name").as_string()));
  for (const char* name : {"fieldValidation", "fieldManager", "dryRun", "force"}) EXPECT_TRUE(params.count(name)) << name;

  const json::object& list = doc.at("paths").at("/apis/apps/v1/namespaces/{namespace}/deployments").at("get").as_object();
  EXPECT_EQ(list.at("x-kubernetes-action"), "list");
  params.clear();
  for (const auto& p : list.at("parameters").as_array()) params.insert(std::string(p.at("name").as_string()));
  for (const char* name : {"labelSelector", "fieldSelector", "limit", "continue", "watch", "resourceVersion"}) {
    EXPECT_TRUE(params.count(name)) << name;
  }
  EXPECT_TRUE(doc.at("paths").as_object().contains("/apis/apps/v1/deployments")) << "list across namespaces";
  EXPECT_TRUE(doc.at("paths").as_object().contains("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"));
  EXPECT_TRUE(doc.at("paths").as_object().contains("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"));

  json::object core = Doc(openapi, "api/v1");
  EXPECT_TRUE(core.at("paths").as_object().contains("/api/v1/nodes/{name}")) << "cluster-scoped item";
  EXPECT_TRUE(core.at("paths").as_object().contains("/api/v1/namespaces/{namespace}/pods/{name}/status"));
  EXPECT_FALSE(core.at("paths").as_object().contains("/api/v1/namespaces/{namespace}/nodes")) << "nodes have no namespace";
}

TEST(OpenApiTest, SchemasUseKubesDefinitionNamesAndCarryTheirKind) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  json::object core = Doc(openapi, "api/v1");
  const json::object& schemas = core.at("components").at("schemas").as_object();
  for (const char* name : {"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.Container",
                           "io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.PodList",
                           "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                           "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"}) {
    EXPECT_TRUE(schemas.contains(name)) << name;
  }
  EXPECT_EQ(schemas.at("io.k8s.api.core.v1.Pod").at("x-kubernetes-group-version-kind"),
            (json::array{json::object{{"group", ""}, {"kind", "Pod"}, {"version", "v1"}}}));
  const json::object& meta = schemas.at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").at("properties").as_object();
  for (const char* field : {"name", "namespace", "labels", "annotations", "ownerReferences", "finalizers", "uid",
                            "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp"}) {
    EXPECT_TRUE(meta.contains(field)) << field;
  }
  EXPECT_FALSE(schemas.contains("io.k8s.api.apps.v1.DeploymentSpec")) << "only what the document refers to";

  json::object apps = Doc(openapi, "apis/apps/v1");
  EXPECT_TRUE(apps.at("components").at("schemas").as_object().contains("io.k8s.api.apps.v1.DeploymentSpec"));
  EXPECT_TRUE(apps.at("components").at("schemas").as_object().contains("io.k8s.api.autoscaling.v1.Scale"));
}

TEST(OpenApiTest, DocumentsAndHashesAreStable) {
  ResourceRegistry registry;
  OpenApi a(registry), b(registry);
  EXPECT_EQ(a.V3Index(), b.V3Index());
  EXPECT_EQ(a.V3GroupVersion("api/v1")->body, b.V3GroupVersion("api/v1")->body);
  EXPECT_EQ(a.V3GroupVersion("api/v1"), a.V3GroupVersion("api/v1")) << "cached";
}

TEST(OpenApiTest, SetSchemaChangesTheDocumentAndItsHash) {
  auto kind = api::RegisterKind({.group = "stable.example.com", .version = "v1", .name = "CronTab",
                                 .resource = "crontabs", .singular = "crontab"});
  ASSERT_TRUE(kind.ok());
  ResourceRegistry registry;
  OpenApi openapi(registry);
  auto before = openapi.V3GroupVersion("apis/stable.example.com/v1");
  ASSERT_NE(before, nullptr);
  json::object doc = json::parse(before->body).as_object();
  EXPECT_TRUE(doc.at("paths").as_object().contains("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"));
  EXPECT_TRUE(doc.at("components").at("schemas").as_object().contains("com.example.stable.v1.CronTab"));

  openapi.SetSchema(*kind, json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"cronSpec":{"type":"string"},"replicas":{"type":"integer"}}}}})"));
  auto after = openapi.V3GroupVersion("apis/stable.example.com/v1");
  EXPECT_NE(after->hash, before->hash);
  json::object schema = json::parse(after->body).at("components").at("schemas").at("com.example.stable.v1.CronTab").as_object();
  EXPECT_TRUE(schema.at("properties").at("spec").at("properties").as_object().contains("cronSpec"));
  EXPECT_NE(openapi.V3Index().find(after->hash), std::string::npos);

  json::value object = json::parse(R"({"apiVersion":"stable.example.com/v1","kind":"CronTab",
      "metadata":{"name":"x","nmae":"y"},"spec":{"cronSpec":"* * * * *","image":"nginx"}})");
  EXPECT_EQ(openapi.UnknownFields(*kind, object), (std::vector<std::string>{"metadata.nmae", "spec.image"}));

  openapi.ClearSchema(*kind);
  EXPECT_TRUE(openapi.UnknownFields(*kind, object).empty()) << "no schema: nothing is known to be unknown";
  EXPECT_EQ(openapi.V3GroupVersion("apis/stable.example.com/v1")->hash, before->hash);
  api::UnregisterKind(*kind);
  EXPECT_EQ(openapi.V3GroupVersion("apis/stable.example.com/v1"), nullptr) << "the kind table changed";
}

TEST(OpenApiTest, UnknownFieldsOnlyWhereTheSchemaIsComplete) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  struct Case {
    std::string name;
    api::Kind kind;
    std::string object;
    std::vector<std::string> unknown;
  };
  const std::vector<Case> cases = {
      {"valid deployment", api::Kind::kDeployment,
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},
           "spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},"strategy":{"rollingUpdate":{"maxSurge":"25%"}},
           "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i",
           "ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},"securityContext":{"anything":1}}]}}}})",
       {}},
      {"typos in spec and container", api::Kind::kDeployment,
       R"({"spec":{"replica":2,"template":{"spec":{"containers":[{"name":"c","imagee":"i"},
           {"name":"d","ports":[{"containerPorts":80}]}]}}}})",
       {"spec.replica", "spec.template.spec.containers[0].imagee", "spec.template.spec.containers[1].ports[0].containerPorts"}},
      {"top-level unknown", api::Kind::kConfigMap, R"({"data":{"k":"v"},"template":{}})", {"template"}},
      {"metadata is complete everywhere", api::Kind::kRole, R"({"metadata":{"labelz":{}},"rules":[]})",
       {"metadata.labelz"}},
      {"open below preserve-unknown-fields", api::Kind::kPod,
       R"({"spec":{"affinity":{"whatever":{}},"containers":[]},"status":{"anything":1}})", {}},
      {"kinds without hand-written schemas are complete too", api::Kind::kStatefulSet,
       R"({"spec":{"replicas":1,"foo":1,"volumeClaimTemplates":[{"spec":{"resourcez":{}}}]},"bar":2})",
       {"spec.foo", "spec.volumeClaimTemplates[0].spec.resourcez", "bar"}},
      {"a CRD's recursive schema is open below its first level", api::Kind::kCustomResourceDefinition,
       R"({"spec":{"versions":[{"schema":{"openAPIV3Schema":{"properties":{"a":{"anything":1}},"typo":1}}}]}})",
       {"spec.versions[0].schema.openAPIV3Schema.typo"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(openapi.UnknownFields(c.kind, json::parse(c.object)), c.unknown) << c.name;
  }
}

// Kubernetes' own objects, every field set (../shared/fixtures; a directory
// of kube's testdata/HEAD JSON files in BERTH_KUBE_TESTDATA checks more kinds):
// the schemas know every field of every kind they describe.
TEST(OpenApiTest, KubesOwnObjectsHaveNoUnknownFields) {
  namespace fs = std::filesystem;
  const char* more = std::getenv("BERTH_KUBE_TESTDATA");
  fs::path dir = more ? fs::path(more) : fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  ResourceRegistry registry;
  OpenApi openapi(registry);
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    json::value object = json::parse(text.str());
    const json::value* api_version = object.as_object().if_contains("apiVersion");
    const json::value* kind_name = object.as_object().if_contains("kind");
    if (!api_version || !kind_name || !api_version->is_string() || !kind_name->is_string()) continue;
    auto kind = api::KindFromApiVersion(api_version->as_string(), kind_name->as_string());
    if (!kind || !api::IsBuiltin(*kind)) continue;
    ++checked;
    EXPECT_EQ(openapi.UnknownFields(*kind, object), std::vector<std::string>{}) << entry.path().filename();
  }
  EXPECT_GE(checked, 12);
}

TEST(FieldValidationTest, DuplicateFieldsArePathsInDocumentOrder) {
  EXPECT_EQ(DuplicateFields(R"({"a":1,"b":{"c":1,"c":2},"l":[{"n":1,"n":2}],"a":3})"),
            (std::vector<std::string>{"b.c", "l[0].n", "a"}));
  EXPECT_TRUE(DuplicateFields(R"({"a":"x\"y","b":[1,2,{"a":1}]})").empty());
  EXPECT_EQ(DuplicateFields(R"({"\u0061":1,"a":2})"), (std::vector<std::string>{"a"}));
}

TEST(FieldValidationTest, WarningHeaderQuotesAsGoDoes) {
  EXPECT_EQ(WarningHeaderValue("unknown field \"spec.foo\""), R"(299 - "unknown field \"spec.foo\"")");
}

class FieldValidationServerTest : public testing::ApiFixture {
 protected:
  FieldValidationServerTest() : ApiFixture(7) {}

  static std::vector<std::string> Warnings(const Response& r) {
    std::vector<std::string> w;
    for (const auto& [k, v] : r.headers) {
      if (k == "Warning") w.push_back(v);
    }
    return w;
  }
};

constexpr const char* kBadConfigMap = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"},"dta":{}})";

TEST_F(FieldValidationServerTest, StrictRefusesUnknownFieldsWithKubesMessage) {
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", kBadConfigMap);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(json::parse(r.body).at("message"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"dta\"");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/configmaps/cm").status, 404);
}

TEST_F(FieldValidationServerTest, WarnIsTheDefaultAndAnswersWarningHeaders) {
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps",
                    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","name":"cm"},"dta":{}})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Warnings(r), (std::vector<std::string>{R"(299 - "unknown field \"dta\"")",
                                                   R"(299 - "duplicate field \"metadata.name\"")"}));
  Response ignored = Call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore",
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm2"},"dta":{}})");
  EXPECT_EQ(ignored.status, 201);
  EXPECT_TRUE(Warnings(ignored).empty());
}

TEST_F(FieldValidationServerTest, PatchIsJudgedByWhatItAdds) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Ignore", kBadConfigMap).status, 201);
  Response ok = Call("PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldValidation=Strict",
                     R"({"data":{"b":"2"}})", "application/merge-patch+json");
  EXPECT_EQ(ok.status, 200) << "the stored unknown field is not the patch's doing: " << ok.body;
  Response bad = Call("PATCH", "/api/v1/namespaces/default/configmaps/cm?fieldValidation=Strict",
                      R"({"metadata":{"labelz":{"a":"b"}}})", "application/strategic-merge-patch+json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body).at("message"), "strict decoding error: unknown field \"metadata.labelz\"");
  Response update = Call("PUT", "/api/v1/namespaces/default/configmaps/cm?fieldValidation=Warn",
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"binaryDat":{}})");
  EXPECT_EQ(update.status, 200) << update.body;
  EXPECT_EQ(Warnings(update), (std::vector<std::string>{R"(299 - "unknown field \"binaryDat\"")"}));
}

TEST_F(FieldValidationServerTest, InvalidDirectiveIsRefused) {
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Loose", kBadConfigMap);
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(json::parse(r.body).at("message"),
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Loose\": "
            "supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
}

TEST_F(FieldValidationServerTest, ServesTheDocuments) {
  Response index = Call("GET", "/openapi/v3");
  ASSERT_EQ(index.status, 200);
  std::string url(json::parse(index.body).at("paths").at("api/v1").at("serverRelativeURL").as_string());
  Response doc = Call("GET", url);
  EXPECT_EQ(doc.status, 200);
  EXPECT_TRUE(json::parse(doc.body).at("paths").as_object().contains("/api/v1/namespaces/{namespace}/pods/{name}"));
  Response stale = Call("GET", "/openapi/v3/api/v1?hash=ABC");
  EXPECT_EQ(stale.status, 301);
  Response missing = Call("GET", "/openapi/v3/apis/nope/v1");
  EXPECT_EQ(missing.status, 404);

  Request v2;
  v2.method = "GET";
  v2.path = "/openapi/v2";
  v2.accept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
  Response proto = api_->Handle(v2);
  EXPECT_EQ(proto.status, 200) << "kubectl validates a List against it";
  EXPECT_EQ(proto.content_type, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  v2.accept = "application/json";
  Response swagger = api_->Handle(v2);
  ASSERT_EQ(swagger.status, 200);
  json::object s = json::parse(swagger.body).as_object();
  EXPECT_EQ(s.at("swagger"), "2.0");
  EXPECT_TRUE(s.at("definitions").as_object().contains("io.k8s.api.apps.v1.Deployment"));
  EXPECT_EQ(swagger.body.find("#/components/schemas/"), std::string::npos);
}

}  // namespace
}  // namespace berth::apiserver
