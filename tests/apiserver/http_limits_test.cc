// The HTTP server's limits over real sockets on 127.0.0.1: request header
// size and field count (431), the header deadline (slowloris), the idle
// keep-alive timeout, the body limit (413, read by the client rather than a
// reset), and kube's max-in-flight limits with writers that cannot starve
// readers.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "apiserver/http_server.h"

namespace berth::apiserver {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

// One connection that sends raw bytes and reads answers, with a deadline.
class RawClient {
 public:
  explicit RawClient(uint16_t port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  }
  void Send(std::string_view bytes) { net::write(stream_.socket(), net::buffer(bytes)); }
  // The next response; status 0 when the connection closed (or the deadline passed) first.
  std::pair<int, http::response<http::string_body>> Read(std::chrono::seconds deadline = 20s) {
    http::response<http::string_body> res;
    beast::error_code ec;
    stream_.expires_after(deadline);
    http::read(stream_, buffer_, res, ec);
    return {ec ? 0 : res.result_int(), std::move(res)};
  }
  // Waits for the server to close the connection: true when it did within `deadline`.
  bool ClosedWithin(std::chrono::seconds deadline) {
    char byte;
    beast::error_code ec;
    stream_.expires_after(deadline);
    stream_.read_some(net::buffer(&byte, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
  }

 private:
  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

std::unique_ptr<HttpServer> Start(HttpServer::Options options, Handler handler) {
  options.port = 0;
  auto server = HttpServer::Start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

Response Ok(Request&) {
  Response r;
  r.body = "{}";
  return r;
}

constexpr std::string_view kGet = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n";

TEST(HttpLimits, HeaderOverTheLimitGets431AndTheConnectionCloses) {
  HttpServer::Options options;
  options.max_header_bytes = 4096;
  auto server = Start(options, Ok);
  ASSERT_NE(server, nullptr);
  RawClient client(server->port());
  client.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(8192, 'a') + "\r\n\r\n");
  auto [code, res] = client.Read();
  EXPECT_EQ(code, 431);
  EXPECT_EQ(res.body(), "431 Request Header Fields Too Large");
  EXPECT_TRUE(client.ClosedWithin(10s));
  // Within the limit, the same server answers.
  RawClient second(server->port());
  second.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(1024, 'a') + "\r\n\r\n");
  EXPECT_EQ(second.Read().first, 200);
}

TEST(HttpLimits, AFieldLongerThanTheParserHoldsGets431AndTheServerLives) {
  auto server = Start({}, Ok);  // 1 MiB of header allowed
  ASSERT_NE(server, nullptr);
  RawClient client(server->port());
  client.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Long: " + std::string(70000, 'a') + "\r\n\r\n");
  EXPECT_EQ(client.Read().first, 431);
  // Many fields of ordinary length add up to more than one field may hold.
  std::string wide = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 8; ++i) wide += "X-F" + std::to_string(i) + ": " + std::string(60000, 'b') + "\r\n";
  RawClient second(server->port());
  second.Send(wide + "\r\n");
  EXPECT_EQ(second.Read().first, 200);
}

TEST(HttpLimits, TooManyHeaderFieldsGet431) {
  HttpServer::Options options;
  options.max_header_fields = 20;
  auto server = Start(options, Ok);
  ASSERT_NE(server, nullptr);
  std::string many = "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 50; ++i) many += "X-F" + std::to_string(i) + ": v\r\n";
  RawClient client(server->port());
  client.Send(many + "\r\n");
  EXPECT_EQ(client.Read().first, 431);
  RawClient few(server->port());
  few.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n");
  EXPECT_EQ(few.Read().first, 200);
}

TEST(HttpLimits, AHeaderNotCompleteInTimeClosesTheConnection) {
  HttpServer::Options options;
  options.read_header_timeout = 500ms;
  auto server = Start(options, Ok);
  ASSERT_NE(server, nullptr);
  RawClient slow(server->port());
  slow.Send("GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n");  // never finished
  EXPECT_TRUE(slow.ClosedWithin(20s)) << "a slowloris connection stayed open";
  // A client that trickles its header but finishes in time is served.
  RawClient trickle(server->port());
  trickle.Send("GET /api/v1/namespaces HTTP/1.1\r\n");
  std::this_thread::sleep_for(100ms);
  trickle.Send("Host: x\r\n\r\n");
  EXPECT_EQ(trickle.Read().first, 200);
}

TEST(HttpLimits, AnIdleKeptAliveConnectionIsClosed) {
  HttpServer::Options options;
  options.idle_timeout = 500ms;
  auto server = Start(options, Ok);
  ASSERT_NE(server, nullptr);
  RawClient client(server->port());
  client.Send(kGet);
  EXPECT_EQ(client.Read().first, 200);
  client.Send(kGet);  // kept alive: a second request is served
  EXPECT_EQ(client.Read().first, 200);
  EXPECT_TRUE(client.ClosedWithin(20s)) << "an idle connection stayed open";
}

TEST(HttpLimits, ABodyOverTheLimitIsAnswered413NotReset) {
  HttpServer::Options options;
  options.max_body_bytes = 3 << 20;
  auto server = Start(options, Ok);
  ASSERT_NE(server, nullptr);
  RawClient client(server->port());
  const std::string body(8 << 20, 'x');
  // The whole body goes first, as a careless client sends it.
  auto sent = std::async(std::launch::async, [&] {
    client.Send("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
    try {
      client.Send(body);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  });
  EXPECT_TRUE(sent.get()) << "the server reset the connection while the body was sent";
  auto [code, res] = client.Read();
  EXPECT_EQ(code, 413);
  EXPECT_NE(res.body().find("Request entity too large: limit is 3145728"), std::string::npos) << res.body();
  EXPECT_NE(res.body().find("\"reason\":\"RequestEntityTooLarge\""), std::string::npos) << res.body();
}

// Writers that block in their handler (an fsync, a large delete) fill the
// mutating limit; reads go on being answered, and writers beyond the limit
// get 429 at once.
TEST(HttpLimits, SlowWritersAtTheirLimitCannotStarveReads) {
  constexpr int kMutatingLimit = 8;
  HttpServer::Options options;
  options.worker_threads = 4;  // fewer threads than admitted writers
  options.inflight_limits = {.read_only = 400, .mutating = kMutatingLimit};
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> writers_in{0};
  auto server = Start(options, [&](Request& r) {
    if (r.method == "POST") {
      writers_in++;
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return released; });
      Response created;
      created.status = 201;
      return created;
    }
    return Ok(r);
  });
  ASSERT_NE(server, nullptr);
  const std::string post =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
  constexpr int kWriters = 2 * kMutatingLimit;
  std::vector<std::future<int>> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.push_back(std::async(std::launch::async, [&] {
      RawClient client(server->port());
      client.Send(post);
      return client.Read(60s).first;
    }));
  }
  // The writers beyond the limit are refused without waiting; the others wait.
  auto answered = [&] {
    int n = 0;
    for (auto& w : writers) n += w.wait_for(0s) == std::future_status::ready;
    return n;
  };
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       answered() < kWriters - kMutatingLimit && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(100ms);  // time for a wrongly admitted writer to answer too
  EXPECT_EQ(answered(), kWriters - kMutatingLimit);
  for (auto& w : writers) {
    if (w.wait_for(0s) == std::future_status::ready) {
      EXPECT_EQ(w.get(), 429);
    }
  }
  EXPECT_EQ(server->max_inflight().InUse(RequestKind::kMutating), kMutatingLimit);
  // Reads are served while every writer's slot and every write thread is taken.
  for (int i = 0; i < 5; ++i) {
    RawClient reader(server->port());
    reader.Send(kGet);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(reader.Read(20s).first, 200) << "a read starved behind blocked writers";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  }
  {
    std::lock_guard lock(mu);
    released = true;
  }
  cv.notify_all();
  int created = 0;
  for (auto& w : writers) {
    if (w.valid()) created += w.get() == 201;
  }
  EXPECT_EQ(created, kMutatingLimit);
  EXPECT_EQ(writers_in.load(), kMutatingLimit);
  EXPECT_EQ(server->max_inflight().Dropped(RequestKind::kMutating), kWriters - kMutatingLimit);
}

}  // namespace
}  // namespace berth::apiserver
