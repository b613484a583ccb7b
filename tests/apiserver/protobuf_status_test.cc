// A status update in protobuf (what a kubelet or controller built on
// client-go sends to pods/status): the status it carries is stored.

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

class ProtobufStatusTest : public testing::ApiFixture {};

TEST_F(ProtobufStatusTest, APodStatusUpdateInProtobufIsStored) {
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

}  // namespace
}  // namespace berth::apiserver
