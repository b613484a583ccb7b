#include "client/http_client.h"

#include <algorithm>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace berth::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct HttpClient::Connection {
  net::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;

  Status Open(const std::string& host, const std::string& port) {
    beast::error_code ec;
    tcp::resolver resolver(ioc);
    auto results = resolver.resolve(host, port, ec);
    if (ec) return Status::Unavailable("resolving " + host + ": " + ec.message());
    stream.connect(results, ec);
    if (ec) return Status::Unavailable("connecting to " + host + ":" + port + ": " + ec.message());
    stream.socket().set_option(tcp::no_delay(true));
    return Status::Ok();
  }
};

HttpClient::HttpClient(std::string host, std::string port) : host_(std::move(host)), port_(std::move(port)) {}
HttpClient::~HttpClient() = default;

Result<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& server) {
  const std::string scheme = "http://";
  if (server.rfind(scheme, 0) != 0) {
    return Status::BadRequest("--server " + server + ": only http://HOST:PORT is supported");
  }
  std::string rest = server.substr(scheme.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    return Status::BadRequest("--server " + server + ": expected http://HOST:PORT");
  }
  auto client = std::unique_ptr<HttpClient>(new HttpClient(rest.substr(0, colon), rest.substr(colon + 1)));
  auto probe = client->Request("GET", "/version");
  if (!probe.ok()) return probe.status();
  return client;
}

namespace {

http::request<http::string_body> MakeRequest(const std::string& method, const std::string& target,
                                             const std::string& host, const std::string& body,
                                             const std::string& content_type) {
  http::request<http::string_body> req(http::string_to_verb(method), target, 11);
  req.set(http::field::host, host);
  req.set(http::field::accept, "application/json");
  req.set(http::field::user_agent, "berth-scheduler");
  if (!body.empty()) {
    req.set(http::field::content_type, content_type);
    req.body() = body;
  }
  req.keep_alive(true);
  req.prepare_payload();
  return req;
}

}  // namespace

Result<HttpResponse> HttpClient::Request(const std::string& method, const std::string& target,
                                         const std::string& body, const std::string& content_type) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Connection> connection;
    if (attempt == 0) {  // the retry opens a new connection: the idle ones may be as stale
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        connection = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!connection) {
      connection = std::make_unique<Connection>();
      Status s = connection->Open(host_, port_);
      if (!s.ok()) return s;
    }
    beast::error_code ec;
    auto req = MakeRequest(method, target, host_, body, content_type);
    http::write(connection->stream, req, ec);
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    if (!ec) http::read(connection->stream, connection->buffer, parser, ec);
    if (ec) {
      // Dropped (a kept-alive connection the server closed): once more.
      if (attempt == 1) return Status::Unavailable(method + " " + target + ": " + ec.message());
      continue;
    }
    auto& res = parser.get();
    if (res.keep_alive()) {
      std::lock_guard lock(mu_);
      if (idle_.size() < kMaxIdle) idle_.push_back(std::move(connection));
    }
    return HttpResponse{static_cast<int>(res.result_int()), std::move(res.body())};
  }
  return Status::Unavailable(method + " " + target + ": no connection");
}

Result<int> HttpClient::Stream(const std::string& target, const std::function<void(std::string_view)>& on_line,
                               const std::atomic<bool>& stop) {
  Connection c;
  Status s = c.Open(host_, port_);
  if (!s.ok()) return s;
  {
    std::lock_guard lock(streams_mu_);
    streams_.push_back(&c);
  }
  struct Unregister {
    HttpClient* self;
    Connection* c;
    ~Unregister() {
      std::lock_guard lock(self->streams_mu_);
      self->streams_.erase(std::remove(self->streams_.begin(), self->streams_.end(), c), self->streams_.end());
    }
  } unregister{this, &c};
  if (stop.load()) return 200;
  auto req = MakeRequest("GET", target, host_, "", "");
  beast::error_code ec;
  http::write(c.stream, req, ec);
  if (ec) return Status::Unavailable("watch " + target + ": " + ec.message());
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  http::read_header(c.stream, c.buffer, parser, ec);
  if (ec) return Status::Unavailable("watch " + target + ": " + ec.message());
  int status = static_cast<int>(parser.get().result_int());
  std::string pending;
  char chunk[64 * 1024];
  while (!parser.is_done() && !stop.load()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    // read_some returns as soon as some of the body arrived (read would wait
    // for the whole buffer or the end of the stream).
    http::read_some(c.stream, c.buffer, parser, ec);
    if (ec == http::error::need_buffer) ec = {};
    if (ec && stop.load()) return status;  // CancelStreams shut the socket
    if (ec) return Status::Unavailable("watch " + target + ": " + ec.message());
    size_t n = sizeof chunk - parser.get().body().size;
    pending.append(chunk, n);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (nl > start) on_line(std::string_view(pending).substr(start, nl - start));
    }
    pending.erase(0, start);
  }
  return status;
}

void HttpClient::CancelStreams() {
  std::lock_guard lock(streams_mu_);
  for (Connection* c : streams_) {
    beast::error_code ec;
    c->stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  }
}

}  // namespace berth::client
