#include "cluster/component_http.h"

#include <gtest/gtest.h>

#include "apiserver/api_server.h"

namespace berth::cluster {
namespace {

apiserver::Response Get(const apiserver::Handler& handler, std::string path) {
  apiserver::Request request;
  request.method = "GET";
  request.path = std::move(path);
  return handler(request);
}

TEST(ComponentHttpTest, ServesHealthMetricsAndItsRoutesByPrefix) {
  ComponentHttpOptions options;
  options.metrics = [] { return std::string("up 1\n"); };
  options.routes.push_back({"/debug/a/", [](apiserver::Request& r) {
                              return apiserver::JsonResponse(200, "\"" + r.path + "\"");
                            }});
  apiserver::Handler handler = ComponentHandler(options);
  EXPECT_EQ(Get(handler, "/healthz").body, "ok");
  EXPECT_EQ(Get(handler, "/readyz").status, 200);
  apiserver::Response metrics = Get(handler, "/metrics");
  EXPECT_EQ(metrics.body, "up 1\n");
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  // A JSON answer ends with a newline, as kube's encoder writes it.
  EXPECT_EQ(Get(handler, "/debug/a/x/y").body, "\"/debug/a/x/y\"\n");
  apiserver::Response missing = Get(handler, "/debug/b");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("\"reason\":\"NotFound\""), std::string::npos) << missing.body;
}

TEST(ComponentHttpTest, WithoutMetricsThePathIsNotFound) {
  EXPECT_EQ(Get(ComponentHandler({}), "/metrics").status, 404);
}

TEST(ComponentHttpTest, RefusesAnAddressOffLoopback) {
  auto started = StartComponentHttp({.listen = "0.0.0.0:0"});
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().message().find("use a loopback address"), std::string::npos);
  EXPECT_FALSE(StartComponentHttp({.listen = "nonsense"}).ok());
}

TEST(ComponentHttpTest, ListensOnAFreePort) {
  auto started = StartComponentHttp({.listen = "127.0.0.1:0"});
  ASSERT_TRUE(started.ok()) << started.status().message();
  EXPECT_GT(started.value()->port(), 0);
  started.value()->Stop();
}

}  // namespace
}  // namespace berth::cluster
