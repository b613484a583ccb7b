#include "client/post_client.h"

#include <openssl/ssl.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>

namespace berth::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Deadline = std::chrono::steady_clock::time_point;

struct PostClient::Tls {
  ssl::context context{ssl::context::tls_client};
  std::string server_name;  // verified against the certificate, sent as SNI unless an address
  bool verify = true;
  bool send_sni = true;
};

struct PostClient::Connection {
  net::io_context ioc;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;

  beast::tcp_stream& tcp_layer() { return secure ? secure->next_layer() : *plain; }

  // Runs the operation `start` begins (given its completion handler) until it
  // completes or `deadline` passes; then `cancel` ends the operation (by
  // default the socket is closed) and the result is a timeout.
  template <typename Start>
  beast::error_code Await(Deadline deadline, Start&& start) {
    return Await(deadline, std::forward<Start>(start), [this] {
      beast::error_code ignored;
      tcp_layer().socket().close(ignored);
    });
  }
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
    ioc.run();  // the cancelled operation's handler
    return beast::error::timeout;
  }

  template <typename F>
  auto WithStream(F&& f) {
    return secure ? f(*secure) : f(*plain);
  }
};

PostClient::~PostClient() = default;

namespace {

std::string Seconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

}  // namespace

Result<std::unique_ptr<PostClient>> PostClient::Create(const std::string& url_text,
                                                      const std::optional<PostTls>& tls,
                                                      std::chrono::milliseconds timeout, std::string user_agent,
                                                      std::string_view field) {
  std::unique_ptr<PostClient> c(new PostClient());
  c->timeout_ = timeout;
  c->user_agent_ = std::move(user_agent);
  const std::string invalid = std::string(field) + ": Invalid value: \"" + url_text + "\"";
  std::string_view url = url_text;
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);  // kube trims them too
  c->url_ = std::string(url);
  bool https;
  if (url.rfind("http://", 0) == 0) {
    https = false;
    url.remove_prefix(7);
  } else if (url.rfind("https://", 0) == 0) {
    https = true;
    url.remove_prefix(8);
  } else {
    return Status::BadRequest(invalid + ": must start with http:// or https://");
  }
  size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  c->path_ = slash == std::string_view::npos ? "" : std::string(url.substr(slash));
  std::string_view host = authority, port = https ? "443" : "80";
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Status::BadRequest(invalid);
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Status::BadRequest(invalid);
      port = authority.substr(close + 2);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || port.empty()) return Status::BadRequest(invalid + ": no host");
  c->host_ = std::string(host);
  c->port_ = std::string(port);
  if (!https) return c;

  auto t = std::make_unique<Tls>();
  const PostTls config = tls.value_or(PostTls{});
  t->verify = config.verify;
  t->server_name = config.server_name.empty() ? c->host_ : config.server_name;
  beast::error_code ignored;
  net::ip::make_address(t->server_name, ignored);
  t->send_sni = static_cast<bool>(ignored);  // a name, not an address
  try {
    t->context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                           ssl::context::no_sslv3);
    if (t->verify) {
      t->context.set_verify_mode(ssl::verify_peer);
      if (!config.ca_pem.empty()) t->context.add_certificate_authority(net::buffer(config.ca_pem));
      if (!config.ca_file.empty()) t->context.load_verify_file(config.ca_file);
      if (config.ca_pem.empty() && config.ca_file.empty()) t->context.set_default_verify_paths();
    } else {
      t->context.set_verify_mode(ssl::verify_none);
    }
    if (!config.cert_pem.empty()) t->context.use_certificate_chain(net::buffer(config.cert_pem));
    if (!config.cert_file.empty()) t->context.use_certificate_chain_file(config.cert_file);
    if (!config.key_pem.empty()) t->context.use_private_key(net::buffer(config.key_pem), ssl::context::pem);
    if (!config.key_file.empty()) t->context.use_private_key_file(config.key_file, ssl::context::pem);
  } catch (const boost::system::system_error& e) {
    return Status::BadRequest(std::string(e.what()));
  }
  c->tls_ = std::move(t);
  return c;
}

Status PostClient::Open(Connection& c, Deadline deadline) const {
  if (tls_) {
    c.secure.emplace(c.ioc, tls_->context);
  } else {
    c.plain.emplace(c.ioc);
  }
  tcp::resolver resolver(c.ioc);
  tcp::resolver::results_type endpoints;
  // A name lookup cannot be interrupted: past the deadline it is cancelled,
  // but its answer is still waited for (numeric hosts need none).
  beast::error_code ec = c.Await(
      deadline,
      [&](auto handler) {
        resolver.async_resolve(
            host_, port_, [&, handler](beast::error_code e, tcp::resolver::results_type r) mutable {
              endpoints = std::move(r);
              handler(e);
            });
      },
      [&] { resolver.cancel(); });
  if (ec) return Status::Unavailable("resolving " + host_ + ": " + ec.message());
  ec = c.Await(deadline, [&](auto handler) {
    c.tcp_layer().socket().async_connect(*endpoints.begin(), handler);
  });
  if (ec) {
    // Try the other addresses (the first may be IPv6 where the server listens on IPv4).
    for (auto it = std::next(endpoints.begin());
         ec && ec != beast::error::timeout && it != endpoints.end(); ++it) {
      beast::error_code ignored;
      c.tcp_layer().socket().close(ignored);
      ec = c.Await(deadline,
                   [&](auto handler) { c.tcp_layer().socket().async_connect(*it, handler); });
    }
  }
  if (ec) return Status::Unavailable("dial tcp " + host_ + ":" + port_ + ": " + ec.message());
  beast::error_code ignored;
  c.tcp_layer().socket().set_option(tcp::no_delay(true), ignored);
  if (tls_) {
    if (tls_->send_sni)
      SSL_set_tlsext_host_name(c.secure->native_handle(), tls_->server_name.c_str());
    if (tls_->verify) c.secure->set_verify_callback(ssl::host_name_verification(tls_->server_name));
    ec = c.Await(deadline, [&](auto handler) {
      c.secure->async_handshake(ssl::stream_base::client, handler);
    });
    if (ec)
      return Status::Unavailable("tls handshake with " + host_ + ":" + port_ + ": " + ec.message());
  }
  return Status::Ok();
}

Result<PostAnswer> PostClient::Post(std::string_view suffix, std::string_view body,
                                    std::string_view content_type) {
  const Deadline deadline = std::chrono::steady_clock::now() + timeout_;
  const std::string prefix = "Post \"" + Url(suffix) + "\": ";
  const std::string timed_out = prefix + "context deadline exceeded (no answer within " + Seconds(timeout_) + ")";
  std::string target = path_ + std::string(suffix);
  if (!target.starts_with('/')) target.insert(0, "/");  // a bare host with a query ("?timeout=10s")
  http::request<http::string_body> req(http::verb::post, target, 11);
  req.set(http::field::host,
          (host_.find(':') == std::string::npos ? host_ : "[" + host_ + "]") + ":" + port_);
  req.set(http::field::user_agent, user_agent_);
  req.set(http::field::content_type, content_type);
  req.set(http::field::accept, "application/json, */*");
  req.body() = std::string(body);
  req.keep_alive(true);
  req.prepare_payload();

  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Connection> c;
    if (attempt == 0) {  // a retry takes a new connection: idle ones may be as stale
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        c = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    const bool reused = c != nullptr;
    if (!c) {
      c = std::make_unique<Connection>();
      if (Status s = Open(*c, deadline); !s.ok()) {
        if (std::chrono::steady_clock::now() >= deadline) return Status::Unavailable(timed_out);
        return Status::Unavailable(prefix + s.message());
      }
    }
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
    if (ec == beast::error::timeout) return Status::Unavailable(timed_out);
    if (ec) {
      // A kept-alive connection the server had closed: once more, on a new one.
      if (reused && attempt == 0 && !parser.got_some()) continue;
      return Status::Unavailable(prefix + ec.message());
    }
    auto& res = parser.get();
    if (res.keep_alive()) {
      std::lock_guard lock(mu_);
      if (idle_.size() < kMaxIdle) idle_.push_back(std::move(c));
    }
    return PostAnswer{static_cast<int>(res.result_int()), std::move(res.body())};
  }
  return Status::Unavailable(prefix + "no connection");
}

}  // namespace berth::client
