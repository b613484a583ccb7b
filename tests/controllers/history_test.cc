// ControllerRevision data as kube writes it (controllers/history.h): kube's
// e2e DaemonSet specs compare the revision's bytes with the template's.

#include "controllers/history.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::controllers {
namespace {

namespace json = boost::json;

TEST(History, DataIsTheTemplateAsGoMarshalsItSortedWithANullCreationTimestamp) {
  auto owner = api::Object::Decode(R"({"apiVersion":"apps/v1","kind":"DaemonSet",
    "metadata":{"name":"ds","namespace":"default"},
    "spec":{"selector":{"matchLabels":{"app":"a"}},"template":{
      "spec":{"terminationGracePeriodSeconds":30,"containers":[{"name":"c","image":"httpd"}]},
      "metadata":{"labels":{"app":"a"}}}}})");
  ASSERT_TRUE(owner.ok()) << owner.status().message();
  EXPECT_EQ(json::serialize(HistoryData(*owner.value())),
            R"({"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"a"}},)"
            R"("spec":{"containers":[{"image":"httpd","name":"c"}],"terminationGracePeriodSeconds":30}}}})");
}

}  // namespace
}  // namespace berth::controllers
