// Subresources written in protobuf, as client-go programs send them: a status
// update (a kubelet's or controller's PUT of pods/status) stores the status
// it carries; a Binding (a scheduler's POST of pods/binding) binds the pod.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "api_fixture.h"
#include "protobuf_wire.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using testing::Envelope;
using testing::Pb;

class ProtobufSubresourceTest : public testing::ApiFixture {};

TEST_F(ProtobufSubresourceTest, APodStatusUpdateInProtobufIsStored) {
  Response created = Call("POST", "/api/v1/namespaces/default/pods",
                          R"({"metadata":{"name":"web"},"spec":{"nodeName":"node-a",)"
                          R"("containers":[{"name":"c","image":"nginx"}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object pod = json::parse(created.body).as_object();
  std::string rv(pod.at("metadata").at("resourceVersion").as_string());

  // PodStatus {1 phase, 2 conditions {1 type, 2 status, 4 lastTransitionTime},
  // 5 hostIP, 6 podIP, 8 containerStatuses {1 name, 2 state {2 running {1 startedAt}},
  // 4 ready, 5 restartCount, 6 image, 7 imageID, 9 started}}.
  Pb status = Pb().Str(1, "Running")
                  .Msg(2, Pb().Str(1, "Ready").Str(2, "True").Time(3, 0).Time(4, 1700000000))
                  .Str(5, "10.0.0.1")
                  .Str(6, "10.1.0.7")
                  .Msg(8, Pb().Str(1, "c")
                              .Msg(2, Pb().Msg(2, Pb().Time(1, 1700000000)))
                              .Bool(4, true)
                              .Int(5, 0)
                              .Str(6, "nginx")
                              .Str(7, "")
                              .Bool(9, true));
  Pb body = Pb().Msg(1, Pb().Str(1, "web").Str(3, "default").Str(6, rv))
                .Msg(2, Pb().Msg(2, Pb().Str(1, "c").Str(2, "nginx")).Str(10, "node-a"))
                .Msg(3, status);
  Response r = Call("PUT", "/api/v1/namespaces/default/pods/web/status",
                    Envelope("v1", "Pod", body), "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 200) << r.body;

  json::object stored =
      json::parse(Call("GET", "/api/v1/namespaces/default/pods/web").body).as_object();
  const json::object& s = stored.at("status").as_object();
  EXPECT_EQ(s.at("phase"), "Running");
  EXPECT_EQ(s.at("podIP"), "10.1.0.7");
  EXPECT_EQ(s.at("conditions").at(0).at("type"), "Ready");
  EXPECT_EQ(s.at("conditions").at(0).at("lastTransitionTime"), "2023-11-14T22:13:20Z");
  const json::value& container = s.at("containerStatuses").at(0);
  EXPECT_EQ(container.at("ready"), true);
  EXPECT_EQ(container.at("restartCount"), 0);
  EXPECT_EQ(container.at("state").at("running").at("startedAt"), "2023-11-14T22:13:20Z");
}

TEST_F(ProtobufSubresourceTest, ABindingInProtobufBindsThePod) {
  Response created =
      Call("POST", "/api/v1/namespaces/default/pods",
           R"({"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  // Binding {1 metadata {1 name, 3 namespace}, 2 target {1 kind, 3 name}}.
  Pb binding = Pb().Msg(1, Pb().Str(1, "web").Str(3, "default"))
                   .Msg(2, Pb().Str(1, "Node").Str(3, "node-a"));
  Response r = Call("POST", "/api/v1/namespaces/default/pods/web/binding",
                    Envelope("v1", "Binding", binding), "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod =
      json::parse(Call("GET", "/api/v1/namespaces/default/pods/web").body).as_object();
  EXPECT_EQ(pod.at("spec").at("nodeName"), "node-a");

  Response bad = Call("POST", "/api/v1/namespaces/default/pods/web/binding", "k8s",
                      "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(bad.status, 400) << bad.body;
}

// client-go <= 1.24 writes ObjectMeta's clusterName (field 15, removed in
// kube 1.25) in every object: kube skips it, and so does berth.
TEST_F(ProtobufSubresourceTest, AnObjectFromAnOldClientGoIsCreated) {
  // ConfigMap {1 metadata {1 name, 15 clusterName}, 2 data {1 key, 2 value}}.
  Pb config_map = Pb().Msg(1, Pb().Str(1, "old-client").Str(15, ""))
                      .Msg(2, Pb().Str(1, "k").Str(2, "v"));
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps", Envelope("v1", "ConfigMap", config_map),
                    "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object stored = json::parse(Call("GET", "/api/v1/namespaces/default/configmaps/old-client").body).as_object();
  EXPECT_EQ(stored.at("data"), json::parse(R"({"k":"v"})"));
  EXPECT_FALSE(stored.at("metadata").as_object().contains("clusterName"));
}

}  // namespace
}  // namespace berth::apiserver
