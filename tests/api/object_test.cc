// Object: lazily edited versions (EditLazily), whose JSON is made on first read.

#include "api/object.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>

#include <boost/json.hpp>

#include "api/pod_view.h"

namespace berth::api {
namespace {

namespace json = boost::json;

ObjectPtr Pod() {
  auto pod = Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u1",)"
      R"("labels":{"app":"web"},"resourceVersion":"7"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  EXPECT_TRUE(pod.ok()) << pod.status().message();
  return pod.value();
}

// What BindPod does: the view updated by hand, the JSON by the edit.
ObjectPtr Bind(const ObjectPtr& pod, std::atomic<int>* edits) {
  auto view = std::make_shared<PodView>(*pod->As<PodView>());
  view->node_name = "n1";
  return Object::EditLazily(
      pod,
      [edits](json::object& p) {
        if (edits) edits->fetch_add(1);
        p["spec"].get_object()["nodeName"] = "n1";
      },
      std::move(view));
}

TEST(ObjectEditLazily, KeepsIdentityAndTakesTheGivenView) {
  ObjectPtr pod = Pod();
  std::atomic<int> edits{0};
  ObjectPtr bound = Bind(pod, &edits);
  EXPECT_EQ(bound->name(), "p");
  EXPECT_EQ(bound->namespace_name(), "default");
  EXPECT_EQ(bound->uid(), "u1");
  EXPECT_EQ(bound->labels(), pod->labels());
  EXPECT_EQ(bound->StorageKey(), pod->StorageKey());
  EXPECT_EQ(bound->kind(), Kind::kPod);
  EXPECT_EQ(bound->resource_version(), 0);
  EXPECT_EQ(bound->As<PodView>()->node_name, "n1");
  EXPECT_EQ(pod->As<PodView>()->node_name, "");
  // None of that needed the JSON.
  EXPECT_EQ(edits.load(), 0);
}

TEST(ObjectEditLazily, MakesTheJsonOnceOnFirstReadAndLetsTheBaseGo) {
  ObjectPtr pod = Pod();
  std::weak_ptr<const Object> base = pod;
  std::atomic<int> edits{0};
  ObjectPtr bound = Bind(pod, &edits);
  pod.reset();
  EXPECT_FALSE(base.expired());  // the bound version still needs it

  ObjectPtr stored = bound->WithResourceVersion(9);  // shares the lazy JSON
  EXPECT_EQ(stored->FieldValue("spec.nodeName"), "n1");
  EXPECT_EQ(edits.load(), 1);
  EXPECT_TRUE(base.expired());
  EXPECT_EQ(bound->json().at("spec").at("nodeName"), "n1");
  EXPECT_EQ(edits.load(), 1);

  // The same text an eager edit gives.
  auto eager = Pod()->Edit([](json::object& p) { p["spec"].get_object()["nodeName"] = "n1"; });
  ASSERT_TRUE(eager.ok());
  EXPECT_EQ(stored->Encoded(), eager.value()->WithResourceVersion(9)->Encoded());
}

TEST(ObjectEditLazily, EncodingForAStoreMakesTheJson) {
  ObjectPtr bound = Bind(Pod(), nullptr);
  Object::EncodedTemplate t = bound->EncodeForRevision();
  std::string text = t.At(12);
  EXPECT_NE(text.find(R"("nodeName":"n1")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("resourceVersion":"12")"), std::string::npos) << text;
}

TEST(ObjectEditLazily, AnEditOfALazyObjectSeesItsEdit) {
  ObjectPtr bound = Bind(Pod(), nullptr);
  auto relabelled = bound->Edit(
      [](json::object& p) { p["metadata"].get_object()["labels"].get_object()["tier"] = "front"; });
  ASSERT_TRUE(relabelled.ok());
  EXPECT_EQ(relabelled.value()->As<PodView>()->node_name, "n1");
  EXPECT_EQ(relabelled.value()->labels().Get("tier"), std::optional<std::string_view>("front"));
}

// Found by fuzz_storage_view: Boost.JSON reads 1e2222 as infinity and writes
// it as "Infinity", so the object was accepted and its text could never be
// parsed again (a stored object that does not read back).
TEST(Object, NumbersBeyondADoubleAreRefused) {
  auto decoded = Object::Decode(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":[1,{"y":-26222E2222}]})");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(decoded.status().message(), "invalid JSON: number out of range at x[1].y");
  json::object built{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"v", std::numeric_limits<double>::infinity()}};
  EXPECT_FALSE(Object::FromJson(json::value(std::move(built))).ok());

  auto big = Object::Decode(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":1.5e308})");
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_TRUE(Object::Decode((*big)->Encoded()).ok());
}

}  // namespace
}  // namespace berth::api
