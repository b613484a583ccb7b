// GET /openapi/v2: the Swagger 2.0 document in JSON and in gnostic's protobuf
// message (openapi.v2.Document), read back here with a small wire-format
// reader, and the Accept / If-None-Match handling around them.

#include "apiserver/openapi/openapi_v2.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api_fixture.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/openapi/openapi_v2_proto.h"
#include "apiserver/registry/registry.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

constexpr std::string_view kProtobufAccept =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr std::string_view kProtobufType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

// ---- A protobuf wire-format reader, enough to walk openapi.v2 messages ----

class Message {
 public:
  explicit Message(std::string_view data) {
    size_t pos = 0;
    while (pos < data.size()) {
      uint64_t key = 0;
      if (!Varint(data, pos, key)) {
        Malformed();
        return;
      }
      Field f;
      f.number = static_cast<int>(key >> 3);
      switch (key & 7) {
        case 0:
          if (!Varint(data, pos, f.varint)) {
            Malformed();
            return;
          }
          break;
        case 1:
          if (pos + 8 > data.size()) {
            Malformed();
            return;
          }
          for (int i = 0; i < 8; ++i)
            f.varint |= uint64_t{static_cast<unsigned char>(data[pos + i])} << (8 * i);
          pos += 8;
          break;
        case 2: {
          uint64_t size = 0;
          if (!Varint(data, pos, size) || size > data.size() - pos) {
            Malformed();
            return;
          }
          f.bytes = data.substr(pos, size);
          f.length_delimited = true;
          pos += size;
          break;
        }
        default: {
          Malformed();
          return;
        }
      }
      fields_.push_back(f);
    }
  }

  bool Has(int number) const {
    for (const auto& f : fields_) {
      if (f.number == number) return true;
    }
    return false;
  }
  // The last occurrence, as singular fields are read; "" / 0 when absent.
  std::string String(int number) const {
    std::string out;
    for (const auto& f : fields_) {
      if (f.number == number && f.length_delimited) out = std::string(f.bytes);
    }
    return out;
  }
  uint64_t Varint(int number) const {
    uint64_t out = 0;
    for (const auto& f : fields_) {
      if (f.number == number && !f.length_delimited) out = f.varint;
    }
    return out;
  }
  std::vector<std::string> Strings(int number) const {
    std::vector<std::string> out;
    for (const auto& f : fields_) {
      if (f.number == number && f.length_delimited) out.emplace_back(f.bytes);
    }
    return out;
  }
  std::vector<Message> Messages(int number) const {
    std::vector<Message> out;
    for (const auto& f : fields_) {
      if (f.number == number && f.length_delimited) out.emplace_back(f.bytes);
    }
    return out;
  }
  Message Sub(int number) const {
    auto all = Messages(number);
    EXPECT_EQ(all.size(), 1u) << "field " << number;
    return all.empty() ? Message("") : all.back();
  }
  // The entries of a repeated NamedX field (name 1, value 2), by name.
  std::map<std::string, Message> Named(int number) const {
    std::map<std::string, Message> out;
    for (const auto& m : Messages(number)) out.emplace(m.String(1), m.Sub(2));
    return out;
  }
  bool ok() const { return ok_; }

 private:
  struct Field {
    int number = 0;
    bool length_delimited = false;
    uint64_t varint = 0;
    std::string_view bytes;
  };
  static bool Varint(std::string_view data, size_t& pos, uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && pos < data.size(); shift += 7) {
      auto b = static_cast<unsigned char>(data[pos++]);
      v |= uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  void Malformed() {
    ok_ = false;
    ADD_FAILURE() << "malformed protobuf";
  }

  std::vector<Field> fields_;
  bool ok_ = true;
};

// openapi.v2 field numbers the tests read.
namespace doc {
constexpr int kSwagger = 1, kInfo = 2, kPaths = 8, kDefinitions = 9;
}  // namespace doc
namespace schema {
constexpr int kRef = 1, kFormat = 2, kDescription = 4, kRequired = 19, kEnum = 20,
              kAdditionalProperties = 21, kType = 22, kItems = 23, kProperties = 25,
              kVendorExtension = 31;
}  // namespace schema

Message Document(OpenApi& openapi) {
  auto d = openapi.V2Protobuf();
  EXPECT_NE(d, nullptr);
  return Message(d ? std::string_view(d->body) : std::string_view());
}

std::map<std::string, Message> Definitions(const Message& document) {
  return document.Sub(doc::kDefinitions).Named(1);
}

std::map<std::string, Message> Properties(const Message& schema) {
  return schema.Sub(schema::kProperties).Named(1);
}

// The YAML of a vendor extension (NamedAny: name 1, value 2 = Any: yaml 2).
std::optional<std::string> Extension(const Message& m, int field, std::string_view name) {
  for (const auto& named : m.Messages(field)) {
    if (named.String(1) == name) return named.Sub(2).String(2);
  }
  return std::nullopt;
}

std::vector<std::string> Types(const Message& s) {
  return s.Has(schema::kType) ? s.Sub(schema::kType).Strings(1) : std::vector<std::string>{};
}

TEST(OpenApiV2ProtobufTest, HoldsEveryDefinitionOfTheJsonDocument) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  Message document = Document(openapi);
  ASSERT_TRUE(document.ok());
  EXPECT_EQ(document.String(doc::kSwagger), "2.0");
  EXPECT_EQ(document.Sub(doc::kInfo).String(1), "Kubernetes");
  json::object swagger = json::parse(openapi.V2()->body).as_object();
  std::set<std::string> json_names, proto_names;
  for (const auto& d : swagger.at("definitions").as_object())
    json_names.insert(std::string(d.key()));
  for (const auto& [name, _] : Definitions(document)) proto_names.insert(name);
  EXPECT_EQ(proto_names, json_names);
  EXPECT_TRUE(proto_names.contains("io.k8s.api.apps.v1.Deployment"));
  EXPECT_EQ(openapi.V2Protobuf()->hash, openapi.V2()->hash) << "one ETag for both forms, as kube";
  EXPECT_EQ(openapi.V2Protobuf(), openapi.V2Protobuf()) << "encoded once per version";
}

TEST(OpenApiV2ProtobufTest, DeploymentKeepsItsRefsRequiredFieldsAndKind) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  auto defs = Definitions(Document(openapi));
  ASSERT_TRUE(defs.contains("io.k8s.api.apps.v1.Deployment"));
  const Message& deployment = defs.at("io.k8s.api.apps.v1.Deployment");
  auto properties = Properties(deployment);
  ASSERT_TRUE(properties.contains("spec"));
  EXPECT_EQ(properties.at("spec").String(schema::kRef),
            "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");
  EXPECT_EQ(properties.at("metadata").String(schema::kRef),
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(Types(deployment), std::vector<std::string>{"object"});
  EXPECT_EQ(Extension(deployment, schema::kVendorExtension, "x-kubernetes-group-version-kind"),
            "- group: apps\n  kind: Deployment\n  version: v1\n");
  EXPECT_EQ(Extension(defs.at("io.k8s.api.core.v1.Pod"), schema::kVendorExtension,
                      "x-kubernetes-group-version-kind"),
            "- group: \"\"\n  kind: Pod\n  version: v1\n")
      << "the core group is an empty string, quoted";

  const Message& spec = defs.at("io.k8s.api.apps.v1.DeploymentSpec");
  EXPECT_EQ(spec.Strings(schema::kRequired), (std::vector<std::string>{"selector", "template"}));
  auto spec_properties = Properties(spec);
  EXPECT_EQ(Types(spec_properties.at("replicas")), std::vector<std::string>{"integer"});
  EXPECT_EQ(spec_properties.at("replicas").String(schema::kFormat), "int32");
  EXPECT_FALSE(spec_properties.at("replicas").String(schema::kDescription).empty());

  // A map: additionalProperties holds a schema (oneof member 1).
  auto meta = Properties(defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  Message labels_values = meta.at("labels").Sub(schema::kAdditionalProperties).Sub(1);
  EXPECT_EQ(Types(labels_values), std::vector<std::string>{"string"});
  // An array: items holds exactly one schema.
  auto containers = Properties(defs.at("io.k8s.api.core.v1.PodSpec")).at("containers");
  EXPECT_EQ(Types(containers), std::vector<std::string>{"array"});
  auto items = containers.Sub(schema::kItems).Messages(1);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].String(schema::kRef), "#/definitions/io.k8s.api.core.v1.Container");
}

// kube-openapi's proto.NewOpenAPIData (what kubectl builds from this document
// before it validates anything) refuses a whole document for one schema it
// cannot read; these are its rules.
void ExpectReadableByKubectl(const Message& s, const std::set<std::string>& names,
                             const std::string& path) {
  std::vector<std::string> types = Types(s);
  const std::string ref = s.String(schema::kRef);
  if (!ref.empty()) {
    EXPECT_TRUE(types.empty()) << path << ": a reference can't have a type";
    EXPECT_FALSE(s.Has(schema::kProperties)) << path << ": unallowed embedded type definition";
    ASSERT_TRUE(ref.starts_with("#/definitions/")) << path << ": " << ref;
    EXPECT_TRUE(names.contains(ref.substr(14))) << path << ": unknown model in reference " << ref;
    return;
  }
  ASSERT_LE(types.size(), 1u) << path;
  const std::string type = types.empty() ? "" : types[0];
  static const std::set<std::string> kKnown = {"",        "object", "array",  "string",
                                               "integer", "number", "boolean"};
  EXPECT_TRUE(kKnown.contains(type)) << path << ": unknown primitive type " << type;
  if (type == "array") {
    ASSERT_TRUE(s.Has(schema::kItems)) << path << ": array without items";
    auto items = s.Sub(schema::kItems).Messages(1);
    ASSERT_EQ(items.size(), 1u) << path << ": array should have exactly one sub-item";
    ExpectReadableByKubectl(items[0], names, path + "[]");
  }
  if (s.Has(schema::kProperties)) {
    for (const auto& [name, field] : Properties(s))
      ExpectReadableByKubectl(field, names, path + "." + name);
  }
  if (s.Has(schema::kAdditionalProperties)) {
    for (const auto& sub : s.Sub(schema::kAdditionalProperties).Messages(1)) {
      ExpectReadableByKubectl(sub, names, path + "{}");
    }
  }
}

TEST(OpenApiV2ProtobufTest, EveryDefinitionIsOneKubectlCanRead) {
  auto kind = api::RegisterKind({.group = "stable.example.com",
                                 .version = "v1",
                                 .name = "CronTab",
                                 .resource = "crontabs",
                                 .singular = "crontab"});
  ASSERT_TRUE(kind.ok());
  ResourceRegistry registry;
  OpenApi openapi(registry);
  // A schema with what OpenAPI v3 allows and Swagger 2.0 does not.
  openapi.SetSchema(*kind, json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"cronSpec":{"type":"string","nullable":true},
                    "port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
                    "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
                             "properties":{"known":{"type":"string"}}},
                    "list":{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"string"}}},
      "required":["cronSpec","port"]}}})"));
  auto defs = Definitions(Document(openapi));
  std::set<std::string> names;
  for (const auto& [name, _] : defs) names.insert(name);
  for (const auto& [name, s] : defs) ExpectReadableByKubectl(s, names, name);

  // kube's conversion of a custom resource's schema for v2.
  auto spec = Properties(Properties(defs.at("com.example.stable.v1.CronTab")).at("spec"));
  EXPECT_TRUE(Types(spec.at("cronSpec")).empty()) << "nullable: untyped";
  EXPECT_TRUE(Types(spec.at("extra")).empty()) << "preserve-unknown-fields: open";
  EXPECT_FALSE(spec.at("extra").Has(schema::kProperties));
  EXPECT_TRUE(Types(spec.at("list")).empty()) << "an array without items is untyped";
  EXPECT_EQ(Extension(spec.at("port"), schema::kVendorExtension, "x-kubernetes-int-or-string"),
            "true\n");
  EXPECT_EQ(
      Properties(defs.at("com.example.stable.v1.CronTab")).at("spec").Strings(schema::kRequired),
      std::vector<std::string>{"port"})
      << "a nullable field is no longer required";
  json::object swagger = json::parse(openapi.V2()->body).as_object();
  EXPECT_FALSE(swagger.at("definitions")
                   .at("com.example.stable.v1.CronTab")
                   .at("properties")
                   .at("spec")
                   .at("properties")
                   .at("port")
                   .as_object()
                   .contains("anyOf"))
      << "the JSON is the same document";
  // berth's own partial schemas (x-kubernetes-preserve-unknown-fields below
  // the fields it lists) are opened the same way: kubectl must not refuse a
  // field the server keeps.
  EXPECT_FALSE(defs.at("io.k8s.api.core.v1.Probe").Has(schema::kProperties));
  api::UnregisterKind(*kind);
}

// kube's buildKubeNative: a custom resource that keeps unknown fields at
// its root is, in Swagger 2.0, an object and nothing more (kube's e2e
// "works for CRD without validation schema" expects exactly that).
TEST(OpenApiV2ProtobufTest, ACustomRootKeepingUnknownFieldsIsAnObjectWithoutProperties) {
  auto kind = api::RegisterKind({.group = "open.example.com",
                                 .version = "v1",
                                 .name = "Open",
                                 .resource = "opens",
                                 .singular = "open"});
  ASSERT_TRUE(kind.ok());
  ResourceRegistry registry;
  OpenApi openapi(registry);
  openapi.SetSchema(*kind, json::parse(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"));
  json::object swagger = json::parse(openapi.V2()->body).as_object();
  const json::object& def = swagger.at("definitions").at("com.example.open.v1.Open").as_object();
  EXPECT_EQ(def.at("type"), "object");
  EXPECT_FALSE(def.contains("properties"));
  EXPECT_FALSE(def.contains("x-kubernetes-preserve-unknown-fields"));
  EXPECT_EQ(def.at("x-kubernetes-group-version-kind").at(0).at("kind"), "Open");
  api::UnregisterKind(*kind);
}

TEST(OpenApiV2ProtobufTest, PathsCarryOperationsParametersAndResponses) {
  ResourceRegistry registry;
  OpenApi openapi(registry);
  auto paths = Document(openapi).Sub(doc::kPaths).Named(2);
  const std::string item_path = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}";
  ASSERT_TRUE(paths.contains(item_path));
  const Message& item = paths.at(item_path);
  // PathItem.parameters: the path parameters (ParametersItem.parameter →
  // Parameter.non_body_parameter → NonBodyParameter.path_parameter_sub_schema).
  std::map<std::string, Message> path_params;
  for (const auto& p : item.Messages(9)) {
    for (const auto& nb : p.Sub(1).Messages(2)) {
      for (const auto& sub : nb.Messages(4)) path_params.emplace(sub.String(4), sub);
    }
  }
  ASSERT_TRUE(path_params.contains("name"));
  EXPECT_EQ(path_params.at("name").Varint(1), 1u) << "required";
  EXPECT_EQ(path_params.at("name").String(2), "path");
  EXPECT_EQ(path_params.at("name").String(5), "string") << "type";

  Message patch = item.Sub(8);
  EXPECT_EQ(patch.String(5), "patchAppsV1NamespacedDeployment");
  std::vector<std::string> consumes = patch.Strings(7);
  EXPECT_NE(std::find(consumes.begin(), consumes.end(), "application/apply-patch+yaml"),
            consumes.end());
  EXPECT_EQ(Extension(patch, 13, "x-kubernetes-action"), "patch\n");
  EXPECT_EQ(Extension(patch, 13, "x-kubernetes-group-version-kind"),
            "group: apps\nkind: Deployment\nversion: v1\n");
  std::set<std::string> query;
  std::string body_ref;
  for (const auto& p : patch.Messages(8)) {
    Message parameter = p.Sub(1);
    if (parameter.Has(1)) body_ref = parameter.Sub(1).Sub(5).String(schema::kRef);
    for (const auto& nb : parameter.Messages(2)) {
      for (const auto& sub : nb.Messages(3)) query.insert(sub.String(4));
    }
  }
  EXPECT_EQ(body_ref, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
  EXPECT_TRUE(query.contains("fieldValidation"));
  auto responses = patch.Sub(9).Named(1);
  ASSERT_TRUE(responses.contains("200"));
  Message ok = responses.at("200").Sub(1);
  EXPECT_EQ(ok.String(1), "OK");
  EXPECT_EQ(ok.Sub(2).Sub(1).String(schema::kRef), "#/definitions/io.k8s.api.apps.v1.Deployment");
}

TEST(OpenApiV2ProtobufTest, FollowsSchemaChanges) {
  auto kind = api::RegisterKind({.group = "stable.example.com",
                                 .version = "v1",
                                 .name = "CronTab",
                                 .resource = "crontabs",
                                 .singular = "crontab"});
  ASSERT_TRUE(kind.ok());
  ResourceRegistry registry;
  OpenApi openapi(registry);
  auto before = openapi.V2Protobuf();
  openapi.SetSchema(*kind, json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"cronSpec":{"type":"string","enum":["@daily","@hourly"]}}}}})"));
  auto after = openapi.V2Protobuf();
  EXPECT_NE(after->hash, before->hash);
  EXPECT_EQ(after->hash, openapi.V2()->hash);
  auto spec = Properties(
      Properties(Definitions(Message(after->body)).at("com.example.stable.v1.CronTab")).at("spec"));
  ASSERT_TRUE(spec.contains("cronSpec"));
  std::vector<std::string> values;
  for (const auto& any : spec.at("cronSpec").Messages(schema::kEnum))
    values.push_back(any.String(2));
  EXPECT_EQ(values, (std::vector<std::string>{"\"@daily\"\n", "\"@hourly\"\n"}));
  api::UnregisterKind(*kind);
  EXPECT_NE(openapi.V2Protobuf()->hash, after->hash) << "the kind table changed";
}

// ---- YAML of an Any ----

TEST(OpenApiV2AnyYamlTest, WritesBlockYamlThatReadsBackAsTheSameValue) {
  struct Case {
    const char* json;
    const char* yaml;
  };
  const Case cases[] = {
      {R"(true)", "true\n"},
      {R"("true")", "\"true\"\n"},
      {R"("Yes")", "\"Yes\"\n"},
      {R"("")", "\"\"\n"},
      {R"("apps")", "apps\n"},
      {R"("10")", "\"10\"\n"},
      {R"(10)", "10\n"},
      {R"(0.5)", "0.5\n"},
      {R"(null)", "null\n"},
      {R"("a: b # c")", "\"a: b # c\"\n"},
      {R"("self.x == 'y'\n")", "\"self.x == 'y'\\n\"\n"},
      {R"({})", "{}\n"},
      {R"([])", "[]\n"},
      {R"([{"group":"","kind":"Pod","version":"v1"}])",
       "- group: \"\"\n  kind: Pod\n  version: v1\n"},
      {R"({"a":[1,{"b":"c","d":{"e":[]}}],"f":{"g":"h"}})",
       "a:\n    - 1\n    - b: c\n      d:\n          e: []\nf:\n    g: h\n"},
      {R"([[1,2],"x"])", "- - 1\n  - 2\n- x\n"},
  };
  for (const auto& c : cases) {
    json::value v = json::parse(c.json);
    const std::string yaml = OpenApiV2AnyYaml(v);
    EXPECT_EQ(yaml, c.yaml) << c.json;
    // Read back: strings stay strings (quoted when they would not), the rest keeps its shape.
    YAML::Node node = YAML::Load(yaml);
    if (v.is_string()) {
      EXPECT_EQ(node.as<std::string>(), std::string(v.get_string())) << c.json;
    } else if (v.is_object()) {
      EXPECT_TRUE(node.IsMap()) << c.json;
      EXPECT_EQ(node.size(), v.get_object().size()) << c.json;
    } else if (v.is_array()) {
      EXPECT_TRUE(node.IsSequence()) << c.json;
      EXPECT_EQ(node.size(), v.get_array().size()) << c.json;
    }
  }
}

// ---- Serving ----

class OpenApiV2ServingTest : public testing::ApiFixture {
 protected:
  Response Get(std::string_view accept, std::string_view if_none_match = "") {
    Request r;
    r.method = "GET";
    r.path = "/openapi/v2";
    r.accept = accept;
    r.if_none_match = if_none_match;
    return api_->Handle(r);
  }
  static std::string Header(const Response& r, std::string_view name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }
};

TEST_F(OpenApiV2ServingTest, ServesProtobufWhenAskedAndJsonOtherwise) {
  Response json_answer = Get("application/json");
  ASSERT_EQ(json_answer.status, 200);
  EXPECT_EQ(json_answer.content_type, "application/json");
  const std::string etag = Header(json_answer, "ETag");
  EXPECT_EQ(etag.size(), 130u) << "quoted SHA-512";

  for (std::string_view accept : {kProtobufAccept, kProtobufType}) {
    Response proto = Get(accept);
    ASSERT_EQ(proto.status, 200) << accept;
    EXPECT_EQ(proto.content_type, kProtobufType) << accept;
    EXPECT_EQ(Header(proto, "ETag"), etag) << "the JSON's ETag";
    EXPECT_EQ(Header(proto, "Vary"), "Accept");
    Message document(proto.body);
    EXPECT_TRUE(document.ok());
    EXPECT_EQ(document.String(doc::kSwagger), "2.0");
  }

  struct Case {
    std::string_view accept;
    int status;
    std::string_view type;
  };
  const Case cases[] = {
      {"", 200, "application/json"},
      {"*/*", 200, "application/json"},
      {"application/*", 200, "application/json"},
      {"application/json, */*", 200, "application/json"},
      {"application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf", 200,
       kProtobufType},
      {"*/*;q=0.1, application/com.github.proto-openapi.spec.v2.v1.0+protobuf", 200, kProtobufType},
      {"text/html", 406, ""},
      {"application/yaml", 406, ""},
      {"application/vnd.kubernetes.protobuf", 406, ""},
  };
  for (const auto& c : cases) {
    Response r = Get(c.accept);
    EXPECT_EQ(r.status, c.status) << c.accept;
    if (c.status == 200) {
      EXPECT_EQ(r.content_type, c.type) << c.accept;
    } else {
      EXPECT_TRUE(r.body.empty()) << c.accept;
    }
  }
}

TEST_F(OpenApiV2ServingTest, AnswersNotModifiedToItsOwnETag) {
  const std::string etag = Header(Get(kProtobufAccept), "ETag");
  ASSERT_FALSE(etag.empty());
  for (const std::string& inm : {etag, std::string("*"), "\"old\", W/" + etag}) {
    Response r = Get(kProtobufAccept, inm);
    EXPECT_EQ(r.status, 304) << inm;
    EXPECT_TRUE(r.body.empty());
    EXPECT_EQ(Header(r, "ETag"), etag);
  }
  EXPECT_EQ(Get("application/json", etag).status, 304);
  Response changed = Get(kProtobufAccept, "\"0123\"");
  EXPECT_EQ(changed.status, 200);
  EXPECT_FALSE(changed.body.empty());
}

TEST(OpenApiV2NegotiationTest, IfNoneMatchListsAndWeakTags) {
  EXPECT_TRUE(IfNoneMatchHits("\"a\"", "\"a\""));
  EXPECT_TRUE(IfNoneMatchHits(" \"b\" , W/\"a\"", "\"a\""));
  EXPECT_TRUE(IfNoneMatchHits("*", "\"a\""));
  EXPECT_FALSE(IfNoneMatchHits("", "\"a\""));
  EXPECT_FALSE(IfNoneMatchHits("\"ab\"", "\"a\""));
  EXPECT_FALSE(IfNoneMatchHits("a", "\"a\"")) << "unquoted is no entity tag";
}

}  // namespace
}  // namespace berth::apiserver
