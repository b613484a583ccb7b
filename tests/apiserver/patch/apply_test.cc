// Server-side apply and managedFields (apiserver/patch/apply.h, apiserver/patch/field_set.h).

#include "apiserver/patch/apply.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/kinds.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

json::object Obj(std::string_view text) { return json::parse(text).as_object(); }

const FieldOwnership kDeployment{api::Kind::kDeployment, true};
const FieldOwnership kConfigMap{api::Kind::kConfigMap, false};

constexpr std::string_view kDeploymentConfig = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
  "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
           "template": {"metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "c", "image": "nginx",
                                                 "ports": [{"containerPort": 80}]}]}}}})";

ApplyOptions As(std::string manager, bool force = false) {
  return {std::move(manager), force, "2025-01-01T00:00:00Z"};
}

json::object Applied(const FieldOwnership& ownership, const json::object* live,
                     std::string_view config, const ApplyOptions& options) {
  auto result = ServerSideApply(ownership, live, Obj(config), options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? result->as_object() : json::object();
}

const ManagedFieldsEntry* Entry(const json::object& object, std::string_view manager,
                                std::string_view operation) {
  static std::vector<ManagedFieldsEntry> entries;
  entries = ReadManagedFields(object);
  for (const auto& e : entries) {
    if (e.manager == manager && e.operation == operation) return &e;
  }
  return nullptr;
}

TEST(FieldSetTest, EncodesFieldsKeyedItemsAndSetsAsFieldsV1) {
  json::object object = Obj(kDeploymentConfig);
  api::MutableObject(object, "metadata")["finalizers"] = json::array{"example.com/x"};
  FieldSet fields = FieldsOf(kDeployment, object);
  EXPECT_EQ(
      json::serialize(fields.ToFieldsV1()),
      R"({"f:metadata":{"f:finalizers":{"v:\"example.com/x\"":{}},"f:labels":{"f:app":{}}},)"
      R"("f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},)"
      R"("f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},)"
      R"("f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}})");
  // The encoding reads back as the same set.
  EXPECT_EQ(FieldSet::FromFieldsV1(fields.ToFieldsV1()), fields);
}

TEST(FieldSetTest, ServerOwnedFieldsAndSubresourceStatusAreNobodys) {
  json::object object =
      Obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d",
      "uid":"u","resourceVersion":"3","creationTimestamp":"t"},"status":{"phase":"Running"}})");
  EXPECT_TRUE(FieldsOf({api::Kind::kPod, true, {}}, object).empty());
  EXPECT_EQ(FieldsOf({api::Kind::kPod, false, {}}, object).size(), 1u);
}

TEST(FieldSetTest, PathsPrintAsKubePrintsThem) {
  EXPECT_EQ(PathString({"f:spec", "f:replicas"}), ".spec.replicas");
  EXPECT_EQ(PathString({"f:spec", "f:containers", R"(k:{"name":"c"})", "f:image"}),
            R"(.spec.containers[name="c"].image)");
  EXPECT_EQ(PathString({"f:metadata", "f:finalizers", R"(v:"x")"}),
            R"(.metadata.finalizers[="x"])");
}

TEST(ServerSideApplyTest, CreatesFromTheConfigurationWithAnApplyEntry) {
  json::object created = Applied(kDeployment, nullptr, kDeploymentConfig, As("kubectl"));
  EXPECT_EQ(created.at("spec").at("replicas"), 2);
  const ManagedFieldsEntry* entry = Entry(created, "kubectl", "Apply");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->api_version, "apps/v1");
  EXPECT_EQ(entry->time, "2025-01-01T00:00:00Z");
  EXPECT_TRUE(entry->fields.Contains({"f:spec", "f:replicas"}));
}

TEST(ServerSideApplyTest, MergesKeyedListsAndKeepsOtherFields) {
  json::object live = Applied(kDeployment, nullptr, kDeploymentConfig, As("kubectl"));
  json::object next = Applied(kDeployment, &live, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy"}]}}}})",
                              As("mesh"));
  const json::array& containers =
      next.at("spec").at("template").at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0].at("name"), "c");
  EXPECT_EQ(containers[1].at("name"), "sidecar");
  EXPECT_EQ(next.at("spec").at("replicas"), 2);
  ASSERT_NE(Entry(next, "kubectl", "Apply"), nullptr);
  ASSERT_NE(Entry(next, "mesh", "Apply"), nullptr);
}

TEST(ServerSideApplyTest, RemovesWhatTheManagerStopsApplyingUnlessSomeoneElseOwnsIt) {
  json::object live = Applied(kConfigMap, nullptr,
                              R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
                                  "data":{"a":"1","b":"2","c":"3"}})",
                              As("one"));
  live =
      Applied(kConfigMap, &live, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
                                        "data":{"c":"3"}})",
              As("two"));
  json::object next =
      Applied(kConfigMap, &live, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
                                                    "data":{"a":"1"}})",
              As("one"));
  EXPECT_EQ(json::serialize(next.at("data")), R"({"a":"1","c":"3"})");
}

TEST(ServerSideApplyTest, ConflictsWithAnotherManagersValueUnlessForced) {
  json::object live = Applied(kDeployment, nullptr, kDeploymentConfig, As("kubectl"));
  std::string three(kDeploymentConfig);
  three.replace(three.find("\"replicas\": 2"), 13, "\"replicas\": 3");
  auto refused = ServerSideApply(kDeployment, &live, Obj(three), As("other"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict);
  EXPECT_EQ(refused.status().message(),
            "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
  ASSERT_EQ(refused.status().causes().size(), 1u);
  EXPECT_EQ(refused.status().causes()[0],
            (StatusCause{"FieldManagerConflict", "conflict with \"kubectl\"", ".spec.replicas"}));

  json::object forced = Applied(kDeployment, &live, three, As("other", true));
  EXPECT_EQ(forced.at("spec").at("replicas"), 3);
  EXPECT_FALSE(Entry(forced, "kubectl", "Apply")->fields.Contains({"f:spec", "f:replicas"}));
  EXPECT_TRUE(Entry(forced, "other", "Apply")->fields.Contains({"f:spec", "f:replicas"}));
  // Fields applied with the same value are shared, not taken.
  EXPECT_TRUE(Entry(forced, "kubectl", "Apply")
                  ->fields.Contains({"f:spec", "f:template", "f:spec", "f:containers",
                                     R"(k:{"name":"c"})", "f:image"}));
}

TEST(ServerSideApplyTest, ListsSeveralConflictsByManagerWithTheUpdatersVersion) {
  // Applied by m0, then replicas and image changed by an update: they move
  // to the updater, whose values m1's apply then conflicts with.
  json::object applied = Applied(kDeployment, nullptr, kDeploymentConfig, As("m0"));
  json::object live = applied;
  live["apiVersion"] = "apps/v1";
  live["spec"].as_object()["replicas"] = 5;
  live["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] =
      "apache";
  RecordUpdate(kDeployment, &applied, live, "kubectl-client-side-apply", "2025-01-01T00:00:00Z");
  std::string changed(kDeploymentConfig);
  changed.replace(changed.find("\"replicas\": 2"), 13, "\"replicas\": 3");
  changed.replace(changed.find("\"nginx\""), 7, "\"httpd\"");
  auto refused = ServerSideApply(kDeployment, &live, Obj(changed), As("m1"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(
      refused.status().message(),
      "Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using apps/v1:\n"
      "- .spec.replicas\n"
      "- .spec.template.spec.containers[name=\"c\"].image");
  EXPECT_EQ(refused.status().causes()[0].message,
            "conflict with \"kubectl-client-side-apply\" using apps/v1");
}

TEST(ServerSideApplyTest, ApplyingTheSameConfigurationAgainChangesNothing) {
  json::object live = Applied(kDeployment, nullptr, kDeploymentConfig, As("kubectl"));
  ApplyOptions later = As("kubectl");
  later.now = "2025-06-01T00:00:00Z";
  json::object again = Applied(kDeployment, &live, kDeploymentConfig, later);
  EXPECT_EQ(again, live);  // not even the time
}

TEST(ServerSideApplyTest, AppliesToCustomResources) {
  auto kind = api::RegisterKind({.group = "example.com",
                                 .version = "v1",
                                 .name = "Widget",
                                 .resource = "widgets",
                                 .singular = "widget",
                                 .namespaced = true});
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  const FieldOwnership widget{*kind, true};
  json::object live = Applied(widget, nullptr, R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w"},"spec":{"size":3,"tags":["a","b"]}})",
                              As("kubectl"));
  EXPECT_EQ(json::serialize(Entry(live, "kubectl", "Apply")->fields.ToFieldsV1()),
            R"({"f:spec":{"f:size":{},"f:tags":{}}})");
  json::object next = Applied(widget, &live, R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w"},"spec":{"tags":["c"]}})",
                              As("kubectl"));
  EXPECT_EQ(json::serialize(next.at("spec")),
            R"({"tags":["c"]})");  // atomic list replaced, size dropped
  api::UnregisterKind(*kind);
}

TEST(ServerSideApplyTest, MergesCustomResourceListsAsTheirSchemaSays) {
  auto kind = api::RegisterKind({.group = "example.com",
                                 .version = "v1",
                                 .name = "Gadget",
                                 .resource = "gadgets",
                                 .singular = "gadget",
                                 .namespaced = true});
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  FieldOwnership gadget{
      *kind, true, [](std::string_view path) {
        if (path == "spec.parts")
          return std::pair<std::string, std::vector<std::string>>{"map", {"name"}};
        return std::pair<std::string, std::vector<std::string>>{};
      }};
  json::object live = Applied(gadget, nullptr, R"({"apiVersion":"example.com/v1","kind":"Gadget",
      "metadata":{"name":"g"},"spec":{"parts":[{"name":"a","size":1}]}})",
                              As("one"));
  json::object next = Applied(gadget, &live, R"({"apiVersion":"example.com/v1","kind":"Gadget",
      "metadata":{"name":"g"},"spec":{"parts":[{"name":"b","size":2}]}})",
                              As("two"));
  EXPECT_EQ(json::serialize(next.at("spec")),
            R"({"parts":[{"name":"a","size":1},{"name":"b","size":2}]})");
  EXPECT_EQ(json::serialize(Entry(next, "two", "Apply")->fields.ToFieldsV1()),
            R"({"f:spec":{"f:parts":{"k:{\"name\":\"b\"}":{".":{},"f:name":{},"f:size":{}}}}})");
  api::UnregisterKind(*kind);
}

// Ownership is tracked from an object's first apply on: a create (or an
// update of an object never applied) records nothing; afterwards updates
// take the fields they change.
TEST(RecordUpdateTest, TrackedFromTheFirstApplyAndUpdatesTakeWhatTheyChange) {
  json::object created =
      Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})");
  const json::object untouched = created;
  RecordUpdate(kConfigMap, nullptr, created, "kubectl-create", "t1");
  EXPECT_EQ(created, untouched);

  json::object applied = Applied(kConfigMap, nullptr, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})",
                                 As("applier"));
  ASSERT_NE(Entry(applied, "applier", "Apply"), nullptr);
  // A PUT without managedFields keeps them; the changed field moves.
  json::object put =
      Obj(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"2"}})");
  RecordUpdate(kConfigMap, &applied, put, "editor", "t2");
  EXPECT_EQ(Entry(put, "applier", "Apply"), nullptr);  // nothing left: the entry goes
  EXPECT_TRUE(Entry(put, "editor", "Update")->fields.Contains({"f:data", "f:a"}));

  // A write that changes nothing leaves managedFields alone.
  json::object same = put;
  RecordUpdate(kConfigMap, &put, same, "someone", "t3");
  EXPECT_EQ(same, put);
}

TEST(DecodeApplyConfigurationTest, ReadsYamlAndJson) {
  auto yaml = DecodeApplyConfiguration(
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  n: \"1\"\n  on: true\nx: 2\n");
  ASSERT_TRUE(yaml.ok());
  EXPECT_EQ(json::serialize(*yaml),
            R"({"apiVersion":"v1","kind":"ConfigMap","data":{"n":"1","on":true},"x":2})");
  EXPECT_TRUE(DecodeApplyConfiguration(R"({"apiVersion":"v1"})").ok());
  EXPECT_FALSE(DecodeApplyConfiguration("- a\n- b\n").ok());
}

}  // namespace
}  // namespace berth::apiserver
