// The HTTP client's contract with many callers: concurrent requests are in
// flight together (a binding worker per pod must not queue behind another's
// round trip), and connections are kept for reuse but replaced once dead.

#include "client/http_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/http_server.h"

namespace berth::client {
namespace {

TEST(HttpClient, ConcurrentRequestsAreInFlightTogetherAndDeadConnectionsAreReplaced) {
  std::atomic<int> inflight{0}, most{0}, handled{0};
  apiserver::HttpServer::Options options;
  options.port = 0;
  auto server = apiserver::HttpServer::Start(options, [&](apiserver::Request& r) {
    const int now = ++inflight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    --inflight;
    ++handled;
    apiserver::Response response;
    response.status = 200;
    response.body = r.path;
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto client = HttpClient::Connect("http://127.0.0.1:" + std::to_string((*server)->port()));
  ASSERT_TRUE(client.ok());
  handled = 0;  // Connect's GET /version probe
  most = 0;

  constexpr int kThreads = 8, kEach = 3;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string path = "/t" + std::to_string(t) + "/" + std::to_string(i);
        auto r = (*client)->Request("GET", path);
        if (r.ok() && r->status == 200 && r->body == path) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kThreads * kEach);
  EXPECT_EQ(handled.load(), kThreads * kEach);
  // One shared connection would have served them one at a time.
  EXPECT_GE(most.load(), 4);

  // Sequential requests reuse a kept-alive connection: still answered after
  // the burst (the idle connections are valid).
  for (int i = 0; i < 3; ++i) {
    auto r = (*client)->Request("GET", "/after");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->body, "/after");
  }
  const uint16_t port = (*server)->port();
  (*server)->Stop();

  // A new server on the same port: every kept connection is now dead, and
  // each request still gets through (its retry opens a new connection).
  options.port = port;
  auto again = apiserver::HttpServer::Start(options, [](apiserver::Request& r) {
    apiserver::Response response;
    response.status = 200;
    response.body = "again " + r.path;
    return response;
  });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (int i = 0; i < 3; ++i) {
    auto r = (*client)->Request("GET", "/x");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->body, "again /x");
  }
  (*again)->Stop();
}

}  // namespace
}  // namespace berth::client
