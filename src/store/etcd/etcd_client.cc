#include "store/etcd/etcd_client.h"

#include <openssl/ssl.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <optional>
#include <variant>

#include "api/base64.h"

namespace berth::store::etcd {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
namespace json = boost::json;
using tcp = net::ip::tcp;
using Deadline = std::chrono::steady_clock::time_point;

std::string B64(std::string_view bytes) { return api::Base64Encode(bytes); }

std::string UnB64(std::string_view text) {
  auto decoded = api::Base64Decode(text);
  if (auto* s = std::get_if<std::string>(&decoded)) return std::move(*s);
  return "";
}

int64_t Int(const json::object& o, std::string_view field) {
  const json::value* v = o.if_contains(field);
  if (!v) return 0;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  if (v->is_string()) {
    const json::string& s = v->as_string();
    int64_t out = 0;
    std::from_chars(s.data(), s.data() + s.size(), out);
    return out;
  }
  return 0;
}

struct Client::Endpoint {
  std::string url;
  std::string host;
  std::string port;
  bool https = false;
};

struct Client::Tls {
  ssl::context context{ssl::context::tls_client};
};

struct Client::Connection {
  const Endpoint* endpoint = nullptr;
  net::io_context ioc;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;

  beast::tcp_stream& tcp_layer() { return secure ? secure->next_layer() : *plain; }

  // Runs the operation `start` begins until it completes or `deadline`
  // passes; then `cancel` ends it and the result is a timeout.
  template <typename Start, typename Cancel>
  beast::error_code Await(Deadline deadline, Start&& start, Cancel&& cancel) {
    beast::error_code result;
    bool done = false;
    start([&](beast::error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    ioc.restart();
    ioc.run_until(deadline);
    if (done) return result;
    cancel();
    ioc.restart();
    ioc.run();
    return beast::error::timeout;
  }
  template <typename Start>
  beast::error_code Await(Deadline deadline, Start&& start) {
    return Await(deadline, std::forward<Start>(start), [this] {
      beast::error_code ignored;
      tcp_layer().socket().close(ignored);
    });
  }
  template <typename F>
  auto WithStream(F&& f) {
    return secure ? f(*secure) : f(*plain);
  }
};

namespace {

constexpr size_t kMaxIdle = 64;

std::string Seconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

// etcd's gateway answers errors as {"error": ..., "message": ..., "code": <gRPC code>}.
Status FromGrpc(const json::object& body, int http_status) {
  std::string message;
  if (auto* m = body.if_contains("message"); m && m->is_string()) message = m->as_string();
  if (message.empty()) {
    if (auto* e = body.if_contains("error"); e && e->is_string()) message = e->as_string();
  }
  if (message.empty()) message = "etcd answered HTTP " + std::to_string(http_status);
  switch (Int(body, "code")) {
    case 4:  // DeadlineExceeded
      return Status(StatusCode::kTimeout, "etcd: " + message);
    case 11:  // OutOfRange: "mvcc: required revision has been compacted"
      return Status::Expired(message);
    case 14:  // Unavailable
      return Status::Unavailable("etcd: " + message);
    case 3:  // InvalidArgument
      return Status::BadRequest("etcd: " + message);
    default:
      if (http_status == 503) return Status::Unavailable("etcd: " + message);
      return Status::Internal("etcd: " + message);
  }
}

}  // namespace

Client::Client(ClientOptions options) : options_(std::move(options)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  if (options.endpoints.empty()) return Status::BadRequest("--etcd-servers: no server given");
  std::unique_ptr<Client> c(new Client(std::move(options)));
  bool any_https = false;
  for (const std::string& raw : c->options_.endpoints) {
    std::string_view url = raw;
    while (!url.empty() && url.back() == '/') url.remove_suffix(1);
    Endpoint e;
    e.url = std::string(url);
    if (url.starts_with("http://")) {
      url.remove_prefix(7);
    } else if (url.starts_with("https://")) {
      url.remove_prefix(8);
      e.https = true;
    } else {
      return Status::BadRequest("--etcd-servers: " + raw + ": expected http:// or https://");
    }
    size_t colon = url.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == url.size() ||
        url.find('/') != std::string_view::npos) {
      return Status::BadRequest("--etcd-servers: " + raw + ": expected scheme://host:port");
    }
    e.host = std::string(url.substr(0, colon));
    if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') {
      e.host = e.host.substr(1, e.host.size() - 2);
    }
    e.port = std::string(url.substr(colon + 1));
    any_https |= e.https;
    c->endpoints_.push_back(std::move(e));
  }
  if (any_https || !c->options_.ca_file.empty() || !c->options_.cert_file.empty()) {
    auto t = std::make_unique<Tls>();
    const ClientOptions& o = c->options_;
    try {
      t->context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                             ssl::context::no_sslv3);
      t->context.set_verify_mode(ssl::verify_peer);
      if (!o.ca_file.empty()) {
        t->context.load_verify_file(o.ca_file);
      } else {
        t->context.set_default_verify_paths();
      }
      if (!o.cert_file.empty()) t->context.use_certificate_chain_file(o.cert_file);
      if (!o.key_file.empty()) t->context.use_private_key_file(o.key_file, ssl::context::pem);
    } catch (const boost::system::system_error& e) {
      return Status::BadRequest("etcd TLS: " + std::string(e.what()));
    }
    c->tls_ = std::move(t);
  }
  return c;
}

Status Client::Open(Connection& c, const Endpoint& endpoint, Deadline deadline) {
  c.endpoint = &endpoint;
  if (endpoint.https) {
    c.secure.emplace(c.ioc, tls_->context);
  } else {
    c.plain.emplace(c.ioc);
  }
  tcp::resolver resolver(c.ioc);
  tcp::resolver::results_type addresses;
  beast::error_code ec = c.Await(
      deadline,
      [&](auto handler) {
        resolver.async_resolve(
            endpoint.host, endpoint.port,
            [&, handler](beast::error_code e, tcp::resolver::results_type r) mutable {
              addresses = std::move(r);
              handler(e);
            });
      },
      [&] { resolver.cancel(); });
  if (ec) return Status::Unavailable("etcd " + endpoint.url + ": resolving: " + ec.message());
  ec = beast::error::timeout;
  for (auto it = addresses.begin(); it != addresses.end(); ++it) {
    beast::error_code ignored;
    c.tcp_layer().socket().close(ignored);
    ec = c.Await(deadline,
                 [&](auto handler) { c.tcp_layer().socket().async_connect(*it, handler); });
    if (!ec || ec == beast::error::timeout) break;
  }
  if (ec) return Status::Unavailable("etcd " + endpoint.url + ": " + ec.message());
  beast::error_code ignored;
  c.tcp_layer().socket().set_option(tcp::no_delay(true), ignored);
  if (endpoint.https) {
    beast::error_code is_address;
    net::ip::make_address(endpoint.host, is_address);
    if (is_address) SSL_set_tlsext_host_name(c.secure->native_handle(), endpoint.host.c_str());
    c.secure->set_verify_callback(ssl::host_name_verification(endpoint.host));
    ec = c.Await(deadline, [&](auto handler) {
      c.secure->async_handshake(ssl::stream_base::client, handler);
    });
    if (ec) return Status::Unavailable("etcd " + endpoint.url + ": tls handshake: " + ec.message());
  }
  return Status::Ok();
}

Result<std::unique_ptr<Client::Connection>> Client::Take(Deadline deadline, bool fresh) {
  if (!fresh) {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  Status last = Status::Unavailable("etcd: no server");
  const size_t start = current_.load();
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    const size_t index = (start + i) % endpoints_.size();
    auto c = std::make_unique<Connection>();
    last = Open(*c, endpoints_[index], deadline);
    if (last.ok()) {
      current_.store(index);
      return c;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
  }
  return last;
}

void Client::Give(std::unique_ptr<Connection> c) {
  std::lock_guard lock(mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(c));
}

Result<json::object> Client::Call(std::string_view path, const json::object& body) {
  const Deadline deadline = std::chrono::steady_clock::now() + options_.timeout;
  const std::string text = json::serialize(body);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto taken = Take(deadline, attempt > 0);
    if (!taken.ok()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return Status(StatusCode::kTimeout, "etcd: no answer within " + Seconds(options_.timeout) +
                                                ": " + taken.status().message());
      }
      return taken.status();
    }
    std::unique_ptr<Connection> c = std::move(taken).value();
    http::request<http::string_body> req(http::verb::post, std::string(path), 11);
    req.set(http::field::host, c->endpoint->host + ":" + c->endpoint->port);
    req.set(http::field::content_type, "application/json");
    req.body() = text;
    req.keep_alive(true);
    req.prepare_payload();
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    beast::error_code ec = c->WithStream([&](auto& stream) {
      return c->Await(deadline, [&](auto handler) { http::async_write(stream, req, handler); });
    });
    if (!ec) {
      ec = c->WithStream([&](auto& stream) {
        return c->Await(
            deadline, [&](auto handler) { http::async_read(stream, c->buffer, parser, handler); });
      });
    }
    if (ec == beast::error::timeout) {
      return Status(StatusCode::kTimeout,
                    "etcd " + c->endpoint->url + ": no answer within " + Seconds(options_.timeout));
    }
    if (ec) {
      // A kept-alive connection etcd has closed (or an etcd gone): once more,
      // on a new connection (which tries the other endpoints).
      if (attempt == 0 && !parser.got_some()) continue;
      return Status::Unavailable("etcd " + c->endpoint->url + ": " + ec.message());
    }
    auto& res = parser.get();
    boost::system::error_code parse_error;
    json::value answer = json::parse(res.body(), parse_error);
    if (parse_error || !answer.is_object()) {
      return Status::Internal("etcd " + c->endpoint->url + ": unreadable answer (HTTP " +
                              std::to_string(res.result_int()) + ")");
    }
    const bool keep = res.keep_alive();
    const int code = static_cast<int>(res.result_int());
    if (keep) Give(std::move(c));
    if (code != 200 || answer.as_object().contains("error")) {
      return FromGrpc(answer.as_object(), code);
    }
    return std::move(answer.as_object());
  }
  return Status::Unavailable("etcd: no connection");
}

Status Client::Stream(std::string_view path, const json::object& body,
                      const std::function<bool(json::object&)>& on_message,
                      const std::atomic<bool>& stop, std::chrono::milliseconds poll) {
  const Deadline open_deadline = std::chrono::steady_clock::now() + options_.timeout;
  auto taken = Take(open_deadline, true);
  if (!taken.ok()) return taken.status();
  std::unique_ptr<Connection> c = std::move(taken).value();
  http::request<http::string_body> req(http::verb::post, std::string(path), 11);
  req.set(http::field::host, c->endpoint->host + ":" + c->endpoint->port);
  req.set(http::field::content_type, "application/json");
  req.body() = json::serialize(body);
  req.prepare_payload();
  beast::error_code ec = c->WithStream([&](auto& stream) {
    return c->Await(open_deadline, [&](auto handler) { http::async_write(stream, req, handler); });
  });
  if (ec) return Status::Unavailable("etcd " + c->endpoint->url + ": " + ec.message());

  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  ec = c->WithStream([&](auto& stream) {
    return c->Await(open_deadline, [&](auto handler) {
      http::async_read_header(stream, c->buffer, parser, handler);
    });
  });
  if (ec) return Status::Unavailable("etcd " + c->endpoint->url + ": " + ec.message());
  if (parser.get().result_int() != 200) {
    return Status::Unavailable("etcd " + c->endpoint->url + ": watch answered HTTP " +
                               std::to_string(parser.get().result_int()));
  }

  std::string pending;  // bytes of a message not yet complete
  char chunk[64 * 1024];
  while (!stop.load()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof(chunk);
    // Reads until some bytes came or `poll` passed (then looks at `stop`).
    bool done = false;
    beast::error_code result;
    c->WithStream([&](auto& stream) {
      http::async_read_some(stream, c->buffer, parser, [&](beast::error_code e, size_t) {
        result = e;
        done = true;
      });
      return 0;
    });
    while (!done) {
      c->ioc.restart();
      c->ioc.run_for(poll);
      if (!done && stop.load()) {
        beast::error_code ignored;
        c->tcp_layer().socket().close(ignored);
        c->ioc.restart();
        c->ioc.run();
        return Status::Ok();
      }
    }
    if (result == http::error::need_buffer) result = {};
    if (result)
      return Status::Unavailable("etcd " + c->endpoint->url + ": watch: " + result.message());
    pending.append(chunk, sizeof(chunk) - parser.get().body().size);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
      boost::system::error_code parse_error;
      json::value message = json::parse(line, parse_error);
      if (parse_error || !message.is_object()) {
        return Status::Internal("etcd " + c->endpoint->url + ": unreadable watch message");
      }
      if (!on_message(message.as_object())) return Status::Ok();
    }
    pending.erase(0, start);
    if (parser.is_done()) return Status::Unavailable("etcd " + c->endpoint->url + ": watch ended");
  }
  return Status::Ok();
}

}  // namespace berth::store::etcd
