// The HTTP server's own contract, over real sockets on 127.0.0.1: responses
// a handler answers later (Response::when_ready) are held until ready, in
// order on their connection, and not lost by Stop.

#include "apiserver/http_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "apiserver/request_info.h"
#include "test_http_client.h"

namespace berth::apiserver {
namespace {

using testing::Client;

// A handler that answers every request later: it hands its when_ready
// continuation to the test, which releases it.
class DeferringHandler {
 public:
  Response operator()(Request& r) {
    EXPECT_TRUE(r.may_defer);  // set for every request over HTTP
    Response response;
    response.status = 201;
    response.body = r.body;
    response.when_ready = [this](std::function<void()> ready) {
      std::lock_guard lk(mu_);
      pending_.push_back(std::move(ready));
      cv_.notify_all();
    };
    return response;
  }
  // Waits until `n` answers are held.
  bool WaitHeld(size_t n) {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, std::chrono::seconds(10), [&] { return pending_.size() >= n; });
  }
  void ReleaseAll() {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lk(mu_);
      ready.swap(pending_);
    }
    for (auto& r : ready) r();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void()>> pending_;
};

std::unique_ptr<HttpServer> StartServer(DeferringHandler& handler, bool inline_creates) {
  HttpServer::Options options;
  options.port = 0;
  if (inline_creates) options.run_inline = [](const Request& r) { return IsSmallCreate(r, 1024); };
  auto server = HttpServer::Start(options, [&handler](Request& r) { return handler(r); });
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

TEST(HttpServer, DeferredResponseIsSentOnlyOnceReady) {
  for (bool inline_creates : {true, false}) {
    SCOPED_TRACE(inline_creates ? "handled on the io thread" : "handled on a worker");
    DeferringHandler handler;
    auto server = StartServer(handler, inline_creates);
    ASSERT_NE(server, nullptr);
    Client client(server->port());
    auto answer = std::async(std::launch::async, [&] {
      return client.Post("/api/v1/namespaces/default/pods", "first");
    });
    ASSERT_TRUE(handler.WaitHeld(1));
    EXPECT_EQ(answer.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
        << "the response left before it was ready";
    EXPECT_EQ(server->inflight(), 1);  // still in flight while held
    handler.ReleaseAll();
    ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    auto [status, body] = answer.get();
    EXPECT_EQ(status, 201);
    EXPECT_EQ(body, "first");
    // The connection goes on: the next request on it is read and answered.
    auto next = std::async(std::launch::async, [&] {
      return client.Post("/api/v1/namespaces/default/pods", "second");
    });
    ASSERT_TRUE(handler.WaitHeld(1));
    handler.ReleaseAll();
    ASSERT_EQ(next.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(next.get().second, "second");
    for (int i = 0; i < 100 && server->inflight() != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(server->inflight(), 0);
    server->Stop();
  }
}

TEST(HttpServer, StopSendsResponsesStillWaitingToBeReady) {
  DeferringHandler handler;
  auto server = StartServer(handler, true);
  ASSERT_NE(server, nullptr);
  Client client(server->port());
  auto answer = std::async(std::launch::async,
                           [&] { return client.Post("/api/v1/namespaces/default/pods", "held"); });
  ASSERT_TRUE(handler.WaitHeld(1));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    handler.ReleaseAll();
  });
  server->Stop();  // returns only once the held answer went out
  releaser.join();
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto [status, body] = answer.get();
  EXPECT_EQ(status, 201);
  EXPECT_EQ(body, "held");
}

TEST(HttpServer, SmallCreatesAreTheOnlyWritesHandledInline) {
  auto request = [](std::string method, std::string path, size_t body) {
    Request r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body.assign(body, 'x');
    return r;
  };
  EXPECT_TRUE(IsSmallCreate(request("POST", "/api/v1/namespaces/default/pods", 100), 1024));
  EXPECT_TRUE(IsSmallCreate(request("POST", "/api/v1/nodes", 100), 1024));
  EXPECT_TRUE(
      IsSmallCreate(request("POST", "/apis/apps/v1/namespaces/default/deployments", 100), 1024));
  EXPECT_FALSE(IsSmallCreate(request("POST", "/api/v1/namespaces/default/pods", 2048), 1024));
  EXPECT_FALSE(
      IsSmallCreate(request("POST", "/api/v1/namespaces/default/pods/a/binding", 100), 1024));
  EXPECT_FALSE(IsSmallCreate(request("POST", "/api/v1/namespaces/default/bindings", 100), 1024));
  EXPECT_FALSE(IsSmallCreate(request("PUT", "/api/v1/namespaces/default/pods/a", 100), 1024));
  EXPECT_FALSE(IsSmallCreate(request("POST", "/rpc", 100), 1024));
  EXPECT_FALSE(IsSmallCreate(request("POST", "/api/v1/namespaces/default/widgets", 100), 1024));
}

}  // namespace
}  // namespace berth::apiserver
