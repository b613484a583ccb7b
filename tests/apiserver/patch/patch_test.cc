// The PATCH types (apiserver/patch/patch.h): RFC 6902 JSON Patch, RFC 7386
// JSON Merge Patch and the strategic merge patch with its directives.

#include "apiserver/patch/patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/kinds.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

json::value Patched(PatchType type, api::Kind kind, std::string_view original, std::string_view patch) {
  auto result = ApplyPatch(type, kind, json::parse(original), patch);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? result.value() : json::value();
}

Status Refused(PatchType type, api::Kind kind, std::string_view original, std::string_view patch) {
  auto result = ApplyPatch(type, kind, json::parse(original), patch);
  EXPECT_FALSE(result.ok()) << json::serialize(result.ok() ? result.value() : json::value());
  return result.status();
}

constexpr std::string_view kDoc =
    R"({"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"list":[1,2,3]}})";

constexpr std::string_view kPod = R"({
  "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}, "finalizers": ["a", "b"]},
  "spec": {"containers": [{"name": "app", "image": "app:1", "args": ["x", "y"],
                           "ports": [{"containerPort": 80, "name": "http"}]},
                          {"name": "log", "image": "log:1"}],
           "tolerations": [{"key": "k1"}],
           "nodeSelector": {"zone": "a", "disk": "ssd"}}})";

TEST(PatchTypeTest, ComesFromTheContentTypeWithoutItsParameters) {
  EXPECT_EQ(PatchTypeFromContentType("application/json-patch+json"), PatchType::kJson);
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json; charset=utf-8"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/strategic-merge-patch+json ; charset=utf-8"),
            PatchType::kStrategicMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/apply-patch+yaml"), PatchType::kApplyYaml);
  EXPECT_EQ(PatchTypeFromContentType("application/json"), std::nullopt);
  EXPECT_EQ(PatchTypeFromContentType(""), std::nullopt);
}

TEST(ListStrategyTest, KnownListsMergeByKubesPatchMergeKeys) {
  auto expect_key = [](api::Kind kind, std::string_view path, std::string_view key) {
    ListStrategy s = LookupListStrategy(kind, path);
    EXPECT_EQ(s.kind, ListStrategy::kMergeByKey) << path;
    EXPECT_EQ(s.key, key) << path;
  };
  expect_key(api::Kind::kPod, "spec.containers", "name");
  expect_key(api::Kind::kPod, "spec.initContainers.env", "name");
  expect_key(api::Kind::kDeployment, "spec.template.spec.containers.ports", "containerPort");
  expect_key(api::Kind::kCronJob, "spec.jobTemplate.spec.template.spec.volumes", "name");
  expect_key(api::Kind::kPodTemplate, "template.spec.containers.volumeMounts", "mountPath");
  expect_key(api::Kind::kService, "spec.ports", "port");
  expect_key(api::Kind::kPod, "status.podIPs", "ip");
  expect_key(api::Kind::kNode, "status.addresses", "type");
  expect_key(api::Kind::kPod, "metadata.ownerReferences", "uid");
  expect_key(api::Kind::kDeployment, "status.conditions", "type");

  EXPECT_EQ(LookupListStrategy(api::Kind::kPod, "metadata.finalizers").kind, ListStrategy::kMergePrimitive);
  EXPECT_EQ(LookupListStrategy(api::Kind::kNode, "spec.podCIDRs").kind, ListStrategy::kMergePrimitive);
}

TEST(ListStrategyTest, OtherListsAreReplaced) {
  EXPECT_EQ(LookupListStrategy(api::Kind::kPod, "spec.tolerations").kind, ListStrategy::kReplace);
  EXPECT_EQ(LookupListStrategy(api::Kind::kPod, "spec.containers.args").kind, ListStrategy::kReplace);
  // A pod spec's list only where the kind keeps its pod spec.
  EXPECT_EQ(LookupListStrategy(api::Kind::kDeployment, "spec.containers").kind, ListStrategy::kReplace);
  EXPECT_EQ(LookupListStrategy(api::Kind::kNode, "spec.ports").kind, ListStrategy::kReplace);
  EXPECT_EQ(LookupListStrategy(api::Kind::kService, "spec.podCIDRs").kind, ListStrategy::kReplace);

  auto kind = api::RegisterKind({.group = "example.com",
                                 .version = "v1",
                                 .name = "Gizmo",
                                 .resource = "gizmos",
                                 .singular = "gizmo",
                                 .namespaced = true});
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  EXPECT_EQ(LookupListStrategy(*kind, "spec.template.spec.containers").kind, ListStrategy::kReplace);
  EXPECT_EQ(json::serialize(Patched(PatchType::kStrategicMerge, *kind,
                                    R"({"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}})",
                                    R"({"spec":{"template":{"spec":{"containers":[{"name":"b"}]}}}})")),
            R"({"spec":{"template":{"spec":{"containers":[{"name":"b"}]}}}})");
  api::UnregisterKind(*kind);
}

TEST(JsonPatchTest, AppliesAddReplaceRemoveAndTestInOrder) {
  json::value out = Patched(PatchType::kJson, api::Kind::kConfigMap, kDoc, R"([
      {"op": "test", "path": "/metadata/name", "value": "a"},
      {"op": "add", "path": "/metadata/labels/y", "value": "2"},
      {"op": "replace", "path": "/metadata/labels/x", "value": "3"},
      {"op": "remove", "path": "/spec/list/0"},
      {"op": "add", "path": "/spec/list/-", "value": 4},
      {"op": "add", "path": "/spec/list/1", "value": 9}])");
  EXPECT_EQ(out, json::parse(R"({"metadata":{"name":"a","labels":{"x":"3","y":"2"}},"spec":{"list":[2,9,3,4]}})"));
}

TEST(JsonPatchTest, MovesAndCopiesThroughEscapedPointers) {
  json::value out = Patched(PatchType::kJson, api::Kind::kConfigMap,
                            R"({"metadata":{"annotations":{"a/b":"1","c~d":"2"}},"spec":{}})", R"([
      {"op": "copy", "from": "/metadata/annotations/a~1b", "path": "/spec/copied"},
      {"op": "move", "from": "/metadata/annotations/c~0d", "path": "/spec/moved"}])");
  EXPECT_EQ(out, json::parse(R"({"metadata":{"annotations":{"a/b":"1"}},"spec":{"copied":"1","moved":"2"}})"));
}

TEST(JsonPatchTest, AnOperationThatCannotApplyIsInvalid) {
  const std::string prefix = "the server rejected our request due to an error in our request: ";
  auto refused = [&](std::string_view patch) { return Refused(PatchType::kJson, api::Kind::kConfigMap, kDoc, patch); };

  Status s = refused(R"([{"op":"remove","path":"/spec/missing"}])");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.HttpCode(), 422);
  EXPECT_EQ(s.message(), prefix + "remove operation does not apply: doc is missing path: \"/spec/missing\"");

  EXPECT_EQ(refused(R"([{"op":"replace","path":"/metadata/labels/none","value":"v"}])").message(),
            prefix + "replace operation does not apply: doc is missing path: \"/metadata/labels/none\"");
  EXPECT_EQ(refused(R"([{"op":"add","path":"/no/such","value":1}])").message(),
            prefix + "add operation does not apply: doc is missing path: \"/no/such\"");
  // Past the end of the list, and an index with a leading zero.
  EXPECT_EQ(refused(R"([{"op":"add","path":"/spec/list/5","value":1}])").message(),
            prefix + "add operation does not apply: doc is missing path: \"/spec/list/5\"");
  EXPECT_EQ(refused(R"([{"op":"move","from":"/spec/missing","path":"/x"}])").message(),
            prefix + "move operation does not apply: doc is missing from path: /spec/missing");
  EXPECT_EQ(refused(R"([{"op":"copy","from":"/spec/missing","path":"/x"}])").message(),
            prefix + "copy operation does not apply: doc is missing from path: /spec/missing");
  EXPECT_EQ(refused(R"([{"op":"move","from":"/metadata","path":"/no/such"}])").message(),
            prefix + "move operation does not apply: doc is missing destination path: /no/such");
  EXPECT_EQ(refused(R"([{"op":"add","path":"/spec/list/01","value":1}])").code(), StatusCode::kInvalid);

  s = refused(R"([{"op":"add","path":"/metadata/labels/y","value":"2"},
                  {"op":"test","path":"/metadata/name","value":"b"}])");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.message(), prefix + "testing value /metadata/name failed");
}

TEST(JsonPatchTest, AMalformedPatchIsBadRequest) {
  auto refused = [&](std::string_view patch) { return Refused(PatchType::kJson, api::Kind::kConfigMap, kDoc, patch); };
  Status s = refused(R"({"op":"add"})");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.HttpCode(), 400);
  EXPECT_EQ(s.message(), "json: cannot unmarshal the patch into a JSON Patch operation list");
  EXPECT_EQ(refused("not json").message(), "json: cannot unmarshal the patch into a JSON Patch operation list");
  EXPECT_EQ(refused("[1]").message(), "a JSON Patch operation must be an object");
  EXPECT_EQ(refused(R"([{"op":"add","value":1}])").message(), R"(JSON Patch operation "add" is missing "path")");
  EXPECT_EQ(refused(R"([{"op":"replace","path":"/a"}])").message(),
            R"(JSON Patch operation "replace" is missing "value")");
  EXPECT_EQ(refused(R"([{"op":"frob","path":"/a"}])").message(), "Unexpected kind: frob");
  s = refused(R"([{"op":"add","path":"metadata","value":1}])");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), R"(invalid JSON pointer "metadata")");
}

TEST(MergePatchTest, MergesObjectsDeletesNullsAndReplacesEverythingElse) {
  json::value out = Patched(PatchType::kMerge, api::Kind::kConfigMap,
                            R"({"metadata":{"labels":{"a":"1","c":"3"}},"spec":{"list":[1,2],"keep":true,"s":1}})",
                            R"({"metadata":{"labels":{"a":null,"b":"2"}},
                                "spec":{"list":[9],"s":{"t":1},"new":{"x":null,"y":1}},"gone":null})");
  EXPECT_EQ(out, json::parse(R"({"metadata":{"labels":{"c":"3","b":"2"}},
                                 "spec":{"list":[9],"keep":true,"s":{"t":1},"new":{"y":1}}})"));
  EXPECT_EQ(Patched(PatchType::kMerge, api::Kind::kConfigMap, R"({"spec":{"a":1}})", R"({"spec":"x"})"),
            json::parse(R"({"spec":"x"})"));
}

TEST(MergePatchTest, ReplacesListsKubeWouldMergeStrategically) {
  constexpr std::string_view patch = R"({"spec":{"containers":[{"name":"new","image":"new:1"}]}})";
  json::value merged = Patched(PatchType::kMerge, api::Kind::kPod, kPod, patch);
  EXPECT_EQ(merged.at("spec").at("containers"), json::parse(R"([{"name":"new","image":"new:1"}])"));
  json::value strategic = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod, patch);
  EXPECT_EQ(strategic.at("spec").at("containers").as_array().size(), 3u);
}

TEST(MergePatchTest, TheBodyMustBeAJsonObject) {
  for (PatchType type : {PatchType::kMerge, PatchType::kStrategicMerge}) {
    Status s = Refused(type, api::Kind::kPod, kPod, "[1]");
    EXPECT_EQ(s.code(), StatusCode::kBadRequest);
    EXPECT_EQ(s.message(), "the patch must be a JSON object");
    s = Refused(type, api::Kind::kPod, kPod, R"({"spec":)");
    EXPECT_EQ(s.code(), StatusCode::kBadRequest);
    EXPECT_TRUE(s.message().starts_with("error decoding patch: ")) << s.message();
  }
}

TEST(ApplyPatchTest, ServerSideApplyIsNotServedHere) {
  Status s = Refused(PatchType::kApplyYaml, api::Kind::kPod, kPod, "metadata:\n  name: p\n");
  EXPECT_EQ(s.code(), StatusCode::kUnsupportedMediaType);
  EXPECT_EQ(s.HttpCode(), 415);
}

TEST(StrategicMergePatchTest, MergesContainersAndPortsByKeyAndReplacesOtherLists) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod, R"({"spec":{
      "containers": [{"name": "app", "image": "app:2", "args": ["z"],
                      "ports": [{"containerPort": 443, "name": "https"}]},
                     {"name": "side", "image": "side:1"}],
      "tolerations": [{"key": "k2"}]}})");
  EXPECT_EQ(out.at("spec").at("containers"), json::parse(R"([
      {"name": "app", "image": "app:2", "args": ["z"],
       "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443, "name": "https"}]},
      {"name": "log", "image": "log:1"},
      {"name": "side", "image": "side:1"}])"));
  EXPECT_EQ(out.at("spec").at("tolerations"), json::parse(R"([{"key":"k2"}])"));
  EXPECT_EQ(out.at("spec").at("nodeSelector"), json::parse(R"({"zone":"a","disk":"ssd"})"));
  EXPECT_EQ(out.at("metadata").at("name"), "p");
}

TEST(StrategicMergePatchTest, MergesThePodTemplateOfWorkloadsAndServicePortsByPort) {
  json::value deployment = Patched(
      PatchType::kStrategicMerge, api::Kind::kDeployment,
      R"({"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"}]}}}})",
      R"({"spec":{"template":{"spec":{"containers":[{"name":"b","image":"b:1"}]}}}})");
  EXPECT_EQ(deployment.at("spec").at("template").at("spec").at("containers"),
            json::parse(R"([{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}])"));

  json::value service = Patched(PatchType::kStrategicMerge, api::Kind::kService,
                                R"({"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}})",
                                R"({"spec":{"ports":[{"port":80,"targetPort":9090}]}})");
  EXPECT_EQ(service.at("spec").at("ports"), json::parse(R"([{"port":80,"targetPort":9090},{"port":443}])"));
}

TEST(StrategicMergePatchTest, FinalizersMergeAsASetAndDeleteFromPrimitiveListRemoves) {
  json::value merged = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod,
                               R"({"metadata":{"finalizers":["b","c"]}})");
  EXPECT_EQ(merged.at("metadata").at("finalizers"), json::parse(R"(["a","b","c"])"));
  json::value removed = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod,
                                R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a","x"]}})");
  EXPECT_EQ(removed.at("metadata").at("finalizers"), json::parse(R"(["b"])"));
}

TEST(StrategicMergePatchTest, PatchDeleteRemovesAListItemOrAMap) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod, R"({"spec":{
      "containers": [{"name": "log", "$patch": "delete"}, {"name": "absent", "$patch": "delete"}],
      "nodeSelector": {"$patch": "delete"}}})");
  const json::array& containers = out.at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0].at("name"), "app");
  EXPECT_FALSE(out.at("spec").as_object().contains("nodeSelector"));
}

TEST(StrategicMergePatchTest, PatchReplaceReplacesAListOrAMapWhole) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod, R"({
      "metadata": {"labels": {"$patch": "replace", "c": "3"}},
      "spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "only:1"}],
               "nodeSelector": {"zone": "b"}}})");
  EXPECT_EQ(out.at("metadata").at("labels"), json::parse(R"({"c":"3"})"));
  EXPECT_EQ(out.at("spec").at("containers"), json::parse(R"([{"name":"only","image":"only:1"}])"));
  // Without the directive a map merges.
  EXPECT_EQ(out.at("spec").at("nodeSelector"), json::parse(R"({"zone":"b","disk":"ssd"})"));
}

TEST(StrategicMergePatchTest, SetElementOrderOrdersTheMergedList) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod, R"({"spec":{
      "$setElementOrder/containers": [{"name": "log"}, {"name": "app"}],
      "containers": [{"name": "app", "image": "app:3"}]}})");
  const json::array& containers = out.at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0].at("name"), "log");
  EXPECT_EQ(containers[1].at("name"), "app");
  EXPECT_EQ(containers[1].at("image"), "app:3");
  EXPECT_EQ(containers[1].at("args"), json::parse(R"(["x","y"])"));
}

TEST(StrategicMergePatchTest, RetainKeysDropsTheFieldsItDoesNotName) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kDeployment,
                            R"({"spec":{"replicas":2,"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
                            R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})");
  EXPECT_EQ(out, json::parse(R"({"spec":{"replicas":2,"strategy":{"type":"Recreate"}}})"));
}

TEST(StrategicMergePatchTest, NullDeletesAField) {
  json::value out = Patched(PatchType::kStrategicMerge, api::Kind::kPod, kPod,
                            R"({"spec":{"nodeSelector":null},"metadata":{"labels":{"a":null}}})");
  EXPECT_FALSE(out.at("spec").as_object().contains("nodeSelector"));
  EXPECT_EQ(out.at("metadata").at("labels"), json::parse(R"({"b":"2"})"));
}

TEST(StrategicMergePatchTest, MalformedDirectivesAndKeylessItemsAreBadRequest) {
  auto refused = [&](std::string_view patch) {
    return Refused(PatchType::kStrategicMerge, api::Kind::kPod, kPod, patch);
  };
  Status s = refused(R"({"spec":{"containers":[{"image":"x"}]}})");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), R"(map: {"image":"x"} does not contain declared merge key: name)");
  s = refused(R"({"spec":{"containers":["x"]}})");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), R"(a list merged by key "name" must hold objects (at spec.containers))");
  s = refused(R"({"metadata":{"labels":{"$patch":"frob"}}})");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), R"(unknown patch type: "frob" in map: {"$patch":"frob"})");
  s = refused(R"({"metadata":{"$frob":1}})");
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), R"(unknown strategic merge patch directive "$frob")");
}

}  // namespace
}  // namespace berth::apiserver
