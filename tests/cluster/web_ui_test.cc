#include "cluster/web_ui.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "apiserver/api_server.h"
#include "apiserver/http_server.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;

apiserver::Response Call(const apiserver::Route& route, std::string method, std::string path,
                         std::vector<std::pair<std::string, std::string>> query = {}) {
  apiserver::Request request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.query = std::move(query);
  return route.handler(request);
}

std::string Header(const apiserver::Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

std::string Reason(const apiserver::Response& r) {
  boost::system::error_code ec;
  json::value v = json::parse(r.body, ec);
  if (ec || !v.is_object() || !v.as_object().contains("reason")) return "";
  return std::string(v.at("reason").as_string());
}

TEST(WebUiTest, EmbedsThePageAndItsModulesSortedByPath) {
  auto assets = WebUiAssets();
  ASSERT_FALSE(assets.empty());
  for (size_t i = 1; i < assets.size(); ++i) EXPECT_LT(assets[i - 1].path, assets[i].path);
  bool index = false;
  for (const WebAsset& a : assets) {
    EXPECT_FALSE(a.body.empty()) << a.path;
    index = index || a.path == "index.html";
  }
  EXPECT_TRUE(index);
}

TEST(WebUiTest, ServesEachFileWithItsContentType) {
  apiserver::Route route = WebUiRoute();
  EXPECT_EQ(route.prefix, "/ui");
  apiserver::Response index = Call(route, "GET", "/ui/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_NE(index.body.find("<script type=\"module\" src=\"app.js\">"), std::string::npos);
  EXPECT_EQ(Header(index, "Cache-Control"), "no-cache");
  EXPECT_NE(Header(index, "Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(Call(route, "GET", "/ui/index.html").body, index.body);
  for (const WebAsset& a : WebUiAssets()) {
    apiserver::Response r = Call(route, "GET", "/ui/" + std::string(a.path));
    EXPECT_EQ(r.status, 200) << a.path;
    EXPECT_EQ(r.body, a.body) << a.path;
    EXPECT_EQ(r.content_type, WebAssetContentType(a.path)) << a.path;
    EXPECT_NE(r.content_type, "application/octet-stream") << a.path;
  }
  EXPECT_EQ(WebAssetContentType("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(WebAssetContentType("style.css"), "text/css; charset=utf-8");
}

TEST(WebUiTest, RedirectsTheBarePathAndRefusesTheRest) {
  apiserver::Route route = WebUiRoute();
  apiserver::Response bare = Call(route, "GET", "/ui");
  EXPECT_EQ(bare.status, 301);
  EXPECT_EQ(Header(bare, "Location"), "/ui/");
  apiserver::Response missing = Call(route, "GET", "/ui/nothing.js");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Reason(missing), "NotFound");
  EXPECT_EQ(Call(route, "GET", "/ui/../ui/index.html").status, 404);
  EXPECT_EQ(Call(route, "GET", "/uix").status, 404);
  apiserver::Response post = Call(route, "POST", "/ui/");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(Reason(post), "MethodNotAllowed");
}

// A stand-in API server: echoes what it was asked for, streams two watch
// events, and refuses a watch from resourceVersion 1 as too old.
class FixedStream : public apiserver::ResponseStream {
 public:
  explicit FixedStream(std::string data) : data_(std::move(data)) {}
  void Start(std::function<void()> wake) override { wake(); }
  Chunk Pump() override { return {std::exchange(data_, ""), true}; }
  void Cancel() override {}

 private:
  std::string data_;
};

class ReadThroughTest : public ::testing::Test {
 protected:
  void SetUp() override {
    apiserver::HttpServer::Options options;
    options.port = 0;
    options.worker_threads = 4;
    auto started = apiserver::HttpServer::Start(options, [](apiserver::Request& r) {
      if (r.QueryBool("watch")) {
        if (r.Query("resourceVersion") == "1") {
          return apiserver::ErrorResponse(Status::Expired("too old resource version: 1 (40)"));
        }
        apiserver::Response response;
        response.stream = std::make_shared<FixedStream>(
            R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"7"}}})"
            "\n"
            R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"8"}}})"
            "\n");
        return response;
      }
      json::object echo{{"path", r.path},
                        {"selector", std::string(r.Query("labelSelector").value_or(""))}};
      return apiserver::JsonResponse(200, json::serialize(echo));
    });
    ASSERT_TRUE(started.ok()) << started.status().message();
    upstream_ = std::move(started).value();
    route_ = ApiReadThroughRoute("http://127.0.0.1:" + std::to_string(upstream_->port()));
  }
  void TearDown() override {
    if (upstream_) upstream_->Stop();
  }

  // Everything the read-through streams until it ends (or 10 s pass).
  static std::string Drain(apiserver::ResponseStream& stream) {
    std::mutex mu;
    std::condition_variable woken;
    bool wake = false;
    stream.Start([&] {
      std::lock_guard lock(mu);
      wake = true;
      woken.notify_all();
    });
    std::string out;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::unique_lock lock(mu);
        woken.wait_for(lock, std::chrono::milliseconds(100), [&] { return wake; });
        wake = false;
      }
      auto chunk = stream.Pump();
      out += chunk.data;
      if (chunk.end) return out;
    }
    ADD_FAILURE() << "the stream did not end; so far: " << out;
    return out;
  }

  std::unique_ptr<apiserver::HttpServer> upstream_;
  apiserver::Route route_;
};

TEST_F(ReadThroughTest, PassesReadsOfNodesPodsAndEventsWithTheirQuery) {
  EXPECT_EQ(route_.prefix, "/api");
  apiserver::Response r =
      Call(route_, "GET", "/api/v1/nodes", {{"labelSelector", "zone in (a, b),x=y&z"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body),
            json::parse(R"({"path":"/api/v1/nodes","selector":"zone in (a, b),x=y&z"})"));
  for (std::string path :
       {"/api/v1/pods", "/api/v1/events", "/api/v1/namespaces/default/pods",
        "/api/v1/namespaces/default/pods/web-1", "/api/v1/nodes/n1", "/api", "/apis", "/api/v1"}) {
    apiserver::Response ok = Call(route_, "GET", path);
    EXPECT_EQ(ok.status, 200) << path;
    EXPECT_EQ(json::parse(ok.body).at("path"), json::value(path)) << path;
  }
}

TEST_F(ReadThroughTest, RefusesWritesAndOtherResources) {
  apiserver::Response post = Call(route_, "POST", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(Reason(post), "MethodNotAllowed");
  for (std::string path : {"/api/v1/secrets", "/api/v1/namespaces/default/secrets/token",
                           "/api/v1/namespaces/default/pods/web-1/log", "/apis/apps/v1/deployments",
                           "/api/v1/namespaces", "/api/v1//pods", "/apix"}) {
    apiserver::Response r = Call(route_, "GET", path);
    EXPECT_EQ(r.status, 403) << path;
    EXPECT_EQ(Reason(r), "Forbidden") << path;
  }
}

TEST_F(ReadThroughTest, StreamsAWatchLineByLine) {
  apiserver::Response r =
      Call(route_, "GET", "/api/v1/pods", {{"watch", "1"}, {"resourceVersion", "5"}});
  ASSERT_TRUE(r.stream);
  std::string out = Drain(*r.stream);
  EXPECT_NE(out.find(R"({"type":"ADDED")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"({"type":"DELETED")"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
}

TEST_F(ReadThroughTest, ARefusedWatchBecomesAnErrorEvent) {
  apiserver::Response r =
      Call(route_, "GET", "/api/v1/pods", {{"watch", "true"}, {"resourceVersion", "1"}});
  ASSERT_TRUE(r.stream);
  std::string out = Drain(*r.stream);
  json::value event = json::parse(out);
  EXPECT_EQ(event.at("type"), "ERROR");
  EXPECT_EQ(event.at("object").at("code"), 410);
  EXPECT_EQ(event.at("object").at("reason"), "Expired");
  EXPECT_NE(
      std::string(event.at("object").at("message").as_string()).find("refused the watch (410)"),
      std::string::npos);
}

TEST(ReadThroughWithoutServerTest, AnswersUnavailable) {
  apiserver::Route route = ApiReadThroughRoute("http://127.0.0.1:1");
  apiserver::Response r = Call(route, "GET", "/api/v1/nodes");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(Reason(r), "ServiceUnavailable");
  apiserver::Response bad = Call(ApiReadThroughRoute("nonsense"), "GET", "/api/v1/nodes");
  EXPECT_EQ(bad.status, 503);
  EXPECT_NE(bad.body.find("--server nonsense"), std::string::npos) << bad.body;
}

}  // namespace
}  // namespace berth::cluster
