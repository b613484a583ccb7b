// Field sets of managedFields (apiserver/patch/field_set.h): the f:/k:/v:
// paths of an object, set algebra, the fieldsV1 encoding, values at paths.

#include "apiserver/patch/field_set.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/kinds.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

constexpr std::string_view kContainer = R"(k:{"name":"c"})";
constexpr std::string_view kTcp80 = R"(k:{"containerPort":80,"protocol":"TCP"})";
constexpr std::string_view kUdp53 = R"(k:{"containerPort":53,"protocol":"UDP"})";

constexpr std::string_view kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "p", "namespace": "d", "uid": "u", "resourceVersion": "1",
               "creationTimestamp": "2025-01-01T00:00:00Z",
               "labels": {"app": "web"}, "finalizers": ["example.com/a"], "annotations": {}},
  "spec": {"containers": [{"name": "c", "image": "i", "args": ["a", "b"],
                           "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
                           "env": [{"name": "E", "value": "1"}]}],
           "nodeSelector": null,
           "topologySpreadConstraints": [{"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                          "maxSkew": 1}]},
  "status": {"phase": "Running"}})";

json::object Obj(std::string_view text) { return json::parse(text).as_object(); }

FieldPath P(std::initializer_list<std::string_view> elements) {
  FieldPath path;
  for (auto e : elements) path.emplace_back(e);
  return path;
}

FieldSet Set(std::initializer_list<FieldPath> paths) {
  FieldSet set;
  for (const auto& p : paths) set.Insert(p);
  return set;
}

TEST(FieldsOfTest, APodsFieldsWithKeyedItemsSetsAndAtomicLists) {
  FieldSet fields = FieldsOf({api::Kind::kPod, true, {}}, Obj(kPod));
  EXPECT_EQ(fields.ToFieldsV1(), json::parse(R"({
    "f:metadata": {"f:annotations": {}, "f:finalizers": {"v:\"example.com/a\"": {}}, "f:labels": {"f:app": {}}},
    "f:spec": {
      "f:containers": {"k:{\"name\":\"c\"}": {
        ".": {}, "f:args": {}, "f:image": {}, "f:name": {},
        "f:env": {"k:{\"name\":\"E\"}": {".": {}, "f:name": {}, "f:value": {}}},
        "f:ports": {"k:{\"containerPort\":53,\"protocol\":\"UDP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}},
                    "k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}}}},
      "f:topologySpreadConstraints": {
        "k:{\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"DoNotSchedule\"}": {
          ".": {}, "f:maxSkew": {}, "f:topologyKey": {}, "f:whenUnsatisfiable": {}}}}})"));
  EXPECT_TRUE(fields.Contains(P({"f:spec", "f:containers", kContainer, "f:ports", kTcp80})));
  EXPECT_FALSE(fields.Contains(P({"f:spec", "f:nodeSelector"})));  // null sets nothing
  EXPECT_FALSE(fields.ContainsPrefix(P({"f:status"})));
  // The encoding reads back as the same set.
  EXPECT_EQ(FieldSet::FromFieldsV1(fields.ToFieldsV1()), fields);
}

TEST(FieldsOfTest, StatusIsOwnedWhenItIsNoSubresourceAndServerFieldsNever) {
  FieldSet fields = FieldsOf({api::Kind::kPod, false, {}}, Obj(kPod));
  EXPECT_TRUE(fields.Contains(P({"f:status", "f:phase"})));
  for (std::string_view server : {"f:name", "f:namespace", "f:uid", "f:resourceVersion", "f:creationTimestamp"}) {
    EXPECT_FALSE(fields.ContainsPrefix(P({"f:metadata", server}))) << server;
  }
  EXPECT_FALSE(fields.ContainsPrefix(P({"f:apiVersion"})));
  EXPECT_FALSE(fields.ContainsPrefix(P({"f:kind"})));
}

TEST(FieldsOfTest, WorkloadSelectorsAreAtomicAndServicePortsKeyedByPortAndProtocol) {
  FieldSet rc = FieldsOf({api::Kind::kReplicationController, true, {}},
                         Obj(R"({"spec":{"selector":{"app":"web"},"replicas":1}})"));
  EXPECT_EQ(rc, Set({P({"f:spec", "f:selector"}), P({"f:spec", "f:replicas"})}));

  FieldSet service = FieldsOf({api::Kind::kService, true, {}},
                              Obj(R"({"spec":{"selector":{"app":"web"},"ports":[{"port":80,"targetPort":8080}]}})"));
  constexpr std::string_view port = R"(k:{"port":80,"protocol":"TCP"})";
  EXPECT_EQ(service, Set({P({"f:spec", "f:selector", "f:app"}), P({"f:spec", "f:ports", port}),
                          P({"f:spec", "f:ports", port, "f:port"}), P({"f:spec", "f:ports", port, "f:targetPort"})}));
}

TEST(FieldsOfTest, EmptyListsAndListsWithKeylessItemsAreOneValue) {
  const FieldOwnership pod{api::Kind::kPod, true, {}};
  EXPECT_EQ(FieldsOf(pod, Obj(R"({"spec":{"containers":[]}})")), Set({P({"f:spec", "f:containers"})}));
  EXPECT_EQ(FieldsOf(pod, Obj(R"({"spec":{"containers":[{"name":"a"},{"image":"x"}]}})")),
            Set({P({"f:spec", "f:containers"})}));
}

TEST(FieldsOfTest, ACustomResourcesSchemaDecidesItsListTypes) {
  auto kind = api::RegisterKind({.group = "example.com",
                                 .version = "v1",
                                 .name = "Sprocket",
                                 .resource = "sprockets",
                                 .singular = "sprocket",
                                 .namespaced = true});
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  FieldOwnership sprocket{*kind, true, [](std::string_view path) {
                            using Type = std::pair<std::string, std::vector<std::string>>;
                            if (path == "spec.tags") return Type{"set", {}};
                            if (path == "spec.routes") return Type{"map", {"port", "host"}};
                            return Type{};
                          }};
  FieldSet fields = FieldsOf(sprocket, Obj(R"({"apiVersion":"example.com/v1","kind":"Sprocket",
      "spec":{"tags":["a",1],"routes":[{"port":1,"host":"h","weight":2}],"other":[{"name":"x"}]}})"));
  constexpr std::string_view route = R"(k:{"host":"h","port":1})";
  EXPECT_EQ(fields, Set({P({"f:spec", "f:tags", R"(v:"a")"}), P({"f:spec", "f:tags", "v:1"}),
                         P({"f:spec", "f:routes", route}), P({"f:spec", "f:routes", route, "f:host"}),
                         P({"f:spec", "f:routes", route, "f:port"}), P({"f:spec", "f:routes", route, "f:weight"}),
                         P({"f:spec", "f:other"})}));
  api::UnregisterKind(*kind);
}

TEST(ListKeysTest, BuiltinListsUseKubesServerSideApplyKeys) {
  const FieldOwnership pod{api::Kind::kPod, true, {}};
  auto keys = [](const FieldOwnership& o, std::string_view path) { return o.ListKeysAt(path); };
  EXPECT_EQ(keys(pod, "spec.containers").type, ListKeys::kMap);
  EXPECT_EQ(keys(pod, "spec.containers").keys, std::vector<std::string>{"name"});
  EXPECT_EQ(keys(pod, "spec.initContainers.ports").keys, (std::vector<std::string>{"containerPort", "protocol"}));
  EXPECT_EQ(keys(pod, "spec.topologySpreadConstraints").keys,
            (std::vector<std::string>{"topologyKey", "whenUnsatisfiable"}));
  EXPECT_EQ(keys({api::Kind::kService, true, {}}, "spec.ports").keys, (std::vector<std::string>{"port", "protocol"}));
  EXPECT_EQ(keys({api::Kind::kDeployment, true, {}}, "spec.template.spec.volumes").keys,
            std::vector<std::string>{"name"});
  EXPECT_EQ(keys(pod, "metadata.finalizers").type, ListKeys::kSet);
  EXPECT_EQ(keys(pod, "spec.tolerations").type, ListKeys::kAtomic);

  // A schema's answer comes first; a map without keys is no answer.
  const FieldOwnership schema{api::Kind::kPod, true, [](std::string_view path) {
                                using Type = std::pair<std::string, std::vector<std::string>>;
                                if (path == "spec.containers") return Type{"atomic", {}};
                                if (path == "spec.volumes") return Type{"map", {}};
                                return Type{};
                              }};
  EXPECT_EQ(keys(schema, "spec.containers").type, ListKeys::kAtomic);
  EXPECT_EQ(keys(schema, "spec.volumes").type, ListKeys::kMap);
  EXPECT_EQ(keys(schema, "spec.volumes").keys, std::vector<std::string>{"name"});
}

TEST(FieldSetTest, ContainsPrefixMatchesWholeElements) {
  FieldSet set = Set({P({"f:spec", "f:replicas"}), P({"f:metadata", "f:labels", "f:app"})});
  EXPECT_EQ(set.size(), 2u);
  EXPECT_TRUE(set.ContainsPrefix(P({"f:metadata"})));
  EXPECT_TRUE(set.ContainsPrefix(P({"f:metadata", "f:labels"})));
  EXPECT_TRUE(set.ContainsPrefix(P({"f:spec", "f:replicas"})));
  EXPECT_FALSE(set.ContainsPrefix(P({"f:metadata", "f:label"})));
  EXPECT_FALSE(set.ContainsPrefix(P({"f:spec", "f:replicas", "f:x"})));
  EXPECT_FALSE(set.ContainsPrefix(P({"f:status"})));
  EXPECT_FALSE(set.Contains(P({"f:metadata", "f:labels"})));  // only the way to a leaf
  set.Erase(P({"f:spec", "f:replicas"}));
  EXPECT_FALSE(set.ContainsPrefix(P({"f:spec"})));
  set.Erase(P({"f:metadata", "f:labels", "f:app"}));
  EXPECT_TRUE(set.empty());
}

TEST(FieldSetTest, UnionIntersectionAndDifferenceOfPaths) {
  const FieldPath x = P({"f:spec", "f:x"}), y = P({"f:spec", "f:y"}), z = P({"f:spec", "f:z"});
  const FieldSet a = Set({x, y}), b = Set({y, z});
  EXPECT_EQ(a.Union(b), Set({x, y, z}));
  EXPECT_EQ(a.Intersection(b), Set({y}));
  EXPECT_EQ(a.Difference(b), Set({x}));
  EXPECT_EQ(b.Difference(a), Set({z}));
  // Paths are members: one below another is a different path.
  const FieldSet parent = Set({P({"f:spec"})});
  EXPECT_EQ(parent.Difference(Set({x})), parent);
  EXPECT_TRUE(parent.Intersection(Set({x})).empty());
}

TEST(FieldSetTest, FieldsV1MarksMembersWithChildrenWithADot) {
  const FieldPath item = P({"f:spec", "f:containers", kContainer});
  FieldSet set = Set({item, P({"f:spec", "f:containers", kContainer, "f:image"}), P({"f:spec", "f:replicas"})});
  EXPECT_EQ(json::serialize(set.ToFieldsV1()),
            R"({"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}},"f:replicas":{}}})");
  EXPECT_EQ(FieldSet::FromFieldsV1(set.ToFieldsV1()), set);
  EXPECT_EQ(json::serialize(FieldSet().ToFieldsV1()), "{}");
}

TEST(FieldSetTest, FromFieldsV1SkipsWhatIsMalformed) {
  EXPECT_EQ(FieldSet::FromFieldsV1(json::parse(R"({".":{},"f:a":{},"f:b":1,"f:c":{"f:d":{}}})")),
            Set({P({"f:a"}), P({"f:c", "f:d"})}));
  EXPECT_TRUE(FieldSet::FromFieldsV1(json::parse(R"(["f:a"])")).empty());
  EXPECT_TRUE(FieldSet::FromFieldsV1(json::parse("{}")).empty());
}

TEST(ValueAtTest, FollowsFieldsKeyedItemsAndSetItems) {
  const json::object pod = Obj(kPod);
  const json::value* image = ValueAt(pod, P({"f:spec", "f:containers", kContainer, "f:image"}));
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(*image, "i");
  // A port without a protocol is the TCP one.
  const json::value* port = ValueAt(pod, P({"f:spec", "f:containers", kContainer, "f:ports", kTcp80}));
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(*port, json::parse(R"({"containerPort":80})"));
  const json::value* finalizer = ValueAt(pod, P({"f:metadata", "f:finalizers", R"(v:"example.com/a")"}));
  ASSERT_NE(finalizer, nullptr);
  EXPECT_EQ(*finalizer, "example.com/a");

  EXPECT_EQ(ValueAt(pod, P({"f:spec", "f:containers", R"(k:{"name":"other"})"})), nullptr);
  EXPECT_EQ(ValueAt(pod, P({"f:spec", "f:containers", "k:{"})), nullptr);
  EXPECT_EQ(ValueAt(pod, P({"f:metadata", kContainer})), nullptr);  // not a list
  EXPECT_EQ(ValueAt(pod, P({"f:spec", "f:missing"})), nullptr);
  EXPECT_EQ(ValueAt(pod, FieldPath{}), nullptr);
  const json::value whole(pod);
  EXPECT_EQ(ValueAt(whole, FieldPath{}), &whole);
}

TEST(RemoveAtTest, RemovesAFieldOrAListItemAndIgnoresWhatIsAbsent) {
  json::value pod = json::parse(kPod);
  RemoveAt(pod, P({"f:spec", "f:containers", kContainer, "f:ports", kUdp53}));
  EXPECT_EQ(pod.at("spec").at("containers").at(0).at("ports"), json::parse(R"([{"containerPort":80}])"));
  RemoveAt(pod, P({"f:metadata", "f:finalizers", R"(v:"example.com/a")"}));
  EXPECT_TRUE(pod.at("metadata").at("finalizers").as_array().empty());
  RemoveAt(pod, P({"f:metadata", "f:labels"}));
  EXPECT_FALSE(pod.at("metadata").as_object().contains("labels"));

  const json::value before = pod;
  RemoveAt(pod, P({"f:spec", "f:containers", R"(k:{"name":"other"})"}));
  RemoveAt(pod, P({"f:spec", "f:missing", "f:deeper"}));
  RemoveAt(pod, FieldPath{});
  EXPECT_EQ(pod, before);
}

TEST(PathStringTest, PrintsEveryKeyOfAMultiKeyItem) {
  EXPECT_EQ(PathString(P({"f:spec", "f:ports", R"(k:{"port":80,"protocol":"TCP"})", "f:targetPort"})),
            R"(.spec.ports[port=80,protocol="TCP"].targetPort)");
  EXPECT_EQ(PathString(P({"f:spec", "f:tags", "v:1"})), ".spec.tags[=1]");
}

}  // namespace
}  // namespace berth::apiserver
