// Concurrency of deferred answers: many connections whose requests are
// answered from another thread (as the store's log thread answers durable
// creates), some handled on the io threads, some on workers. Run under
// ThreadSanitizer in CI.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "apiserver/http_server.h"
#include "test_http_client.h"

namespace berth::apiserver {
namespace {

using testing::Client;

TEST(HttpServerStress, DeferredAnswersFromAnotherThread) {
  constexpr int kClients = 8, kRequestsEach = 150;
  std::mutex mu;
  std::vector<std::function<void()>> held;  // guarded by mu
  std::atomic<bool> done{false};

  HttpServer::Options options;
  options.port = 0;
  options.run_inline = [](const Request& r) { return r.path.ends_with("/inline"); };
  auto started = HttpServer::Start(options, [&](Request& r) {
    Response response;
    response.status = 201;
    response.body = r.body;
    if (r.body.back() % 3 != 0) {  // two in three answered later
      response.when_ready = [&](std::function<void()> ready) {
        std::lock_guard lk(mu);
        held.push_back(std::move(ready));
      };
    }
    return response;
  });
  ASSERT_TRUE(started.ok());
  auto& server = *started.value();

  // Releases held answers in batches, like group commit.
  std::thread releaser([&] {
    while (!done.load()) {
      std::vector<std::function<void()>> batch;
      {
        std::lock_guard lk(mu);
        batch.swap(held);
      }
      for (auto& ready : batch) ready();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });

  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      Client client(server.port());
      for (int i = 0; i < kRequestsEach; ++i) {
        const std::string body = std::to_string(c) + "-" + std::to_string(i);
        auto [status, answer] = client.Post(c % 2 ? "/x/inline" : "/x/worker", body);
        if (status != 201 || answer != body) failures++;
      }
    });
  }
  for (auto& t : clients) t.join();
  done = true;
  releaser.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(server.inflight(), 0);
  server.Stop();
}

}  // namespace
}  // namespace berth::apiserver
