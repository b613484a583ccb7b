#include "client/http_client.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstdio>
#include <optional>
#include <thread>

#include "api/codec/base64.h"
#include "metrics/metrics.h"

namespace berth::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

bool IsIpAddress(const std::string& host) {
  boost::system::error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

// The reason OpenSSL queued for the failed call `ec` reports.
std::string OpenSslError(const boost::system::error_code& ec) {
  unsigned long e = ERR_get_error();
  if (e == 0) return ec.message();
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

}  // namespace

struct HttpClient::Connection {
  net::io_context ioc;
  std::optional<tcp::socket> plain;
  std::optional<ssl::stream<tcp::socket>> tls;
  beast::flat_buffer buffer;

  tcp::socket& socket() { return tls ? tls->next_layer() : *plain; }
  // Calls f with the stream to read and write: TLS or the plain socket.
  template <typename F>
  auto With(F&& f) {
    if (tls) return f(*tls);
    return f(*plain);
  }
};

struct HttpClient::Metrics {
  metrics::Family<metrics::Histogram>& limiter;
  metrics::Family<metrics::Counter>& requests;
};

HttpClient::HttpClient(RestConfig config)
    : config_(std::move(config)), bucket_(config_.qps, config_.burst, api::RealClock::Instance()) {}
HttpClient::~HttpClient() = default;

Result<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& server) {
  RestConfig config;
  config.server = server;
  config.qps = 0;  // unlimited, as before client limits existed
  config.max_inflight = 0;
  return Connect(std::move(config));
}

Result<std::unique_ptr<HttpClient>> HttpClient::Connect(RestConfig config) {
  auto client = std::unique_ptr<HttpClient>(new HttpClient(std::move(config)));
  if (Status s = client->Init(); !s.ok()) return s;
  auto probe = client->Request("GET", "/version");
  if (!probe.ok()) return probe.status();
  return client;
}

Status HttpClient::Init() {
  const std::string& server = config_.server;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    tls_ = true;
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    rest = server.substr(7);
  } else {
    return Status::BadRequest("server " + server +
                              ": expected https://HOST[:PORT] or http://HOST[:PORT]");
  }
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) {
    return Status::BadRequest("server " + server + ": a path after HOST:PORT is not supported");
  }
  std::string host = rest, port = tls_ ? "443" : "80";
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:PORT
    auto close = rest.find(']');
    if (close == std::string::npos)
      return Status::BadRequest("server " + server + ": unclosed [ in the host");
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':')
        return Status::BadRequest("server " + server + ": expected :PORT after ]");
      port = rest.substr(close + 2);
    }
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty() || port.empty() || port.find_first_not_of("0123456789") != std::string::npos) {
    return Status::BadRequest("server " + server + ": expected " + (tls_ ? "https" : "http") +
                              "://HOST[:PORT]");
  }
  host_ = host;
  port_ = port;
  host_header_ = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  verify_name_ = config_.tls_server_name.empty() ? host_ : config_.tls_server_name;

  if (tls_) {
    tls_context_ = std::make_shared<ssl::context>(ssl::context::tls_client);
    auto& ctx = *tls_context_;
    ctx.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                    ssl::context::no_tlsv1_1);
    boost::system::error_code ec;
    if (config_.insecure_skip_tls_verify) {
      ctx.set_verify_mode(ssl::verify_none);
    } else {
      ctx.set_verify_mode(ssl::verify_peer);
      if (!config_.ca_pem.empty()) {
        ctx.add_certificate_authority(net::buffer(config_.ca_pem), ec);
        if (ec) {
          return Status::BadRequest("certificate authority " + config_.ca_source + ": " +
                                    OpenSslError(ec));
        }
      } else {
        ctx.set_default_verify_paths(ec);
      }
    }
    if (!config_.client_certificate_pem.empty()) {
      ctx.use_certificate_chain(net::buffer(config_.client_certificate_pem), ec);
      if (ec) return Status::BadRequest("client certificate: " + OpenSslError(ec));
      ctx.use_private_key(net::buffer(config_.client_key_pem), ssl::context::pem, ec);
      if (ec && ec.message().find("mismatch") != std::string::npos) {
        return Status::BadRequest("client key: does not match the client certificate");
      }
      if (ec) return Status::BadRequest("client key: " + OpenSslError(ec));
      if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
        ERR_clear_error();
        return Status::BadRequest("client key: does not match the client certificate");
      }
    }
  }  // plain http: the TLS settings do not apply (as in client-go)

  if (config_.metrics != nullptr) RegisterMetrics(*config_.metrics);
  return Status::Ok();
}

void HttpClient::RegisterMetrics(metrics::Registry& registry) {
  if (metrics_.load() != nullptr) return;
  metrics_owner_ = std::make_unique<Metrics>(Metrics{
      registry.AddHistogram(
          "rest_client_rate_limiter_duration_seconds",
          "Client side rate limiter latency in seconds. Broken down by verb, and host.",
          {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0}, {"verb", "host"}),
      registry.AddCounter("rest_client_requests_total",
                          "Number of HTTP requests, partitioned by status code, method, and host.",
                          {"code", "method", "host"})});
  metrics_.store(metrics_owner_.get());
}

Result<std::unique_ptr<HttpClient::Connection>> HttpClient::Open() {
  auto c = std::make_unique<Connection>();
  beast::error_code ec;
  tcp::resolver resolver(c->ioc);
  auto results = resolver.resolve(host_, port_, ec);
  if (ec) return Status::Unavailable("resolving " + host_ + ": " + ec.message());
  if (tls_) {
    c->tls.emplace(c->ioc, *tls_context_);
  } else {
    c->plain.emplace(c->ioc);
  }
  net::connect(c->socket(), results, ec);
  if (ec) return Status::Unavailable("connecting to " + host_header_ + ": " + ec.message());
  c->socket().set_option(tcp::no_delay(true));
  if (tls_) {
    SSL* ssl_handle = c->tls->native_handle();
    if (!IsIpAddress(verify_name_)) SSL_set_tlsext_host_name(ssl_handle, verify_name_.c_str());
    if (!config_.insecure_skip_tls_verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl_handle);
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      int set = IsIpAddress(verify_name_)
                    ? X509_VERIFY_PARAM_set1_ip_asc(param, verify_name_.c_str())
                    : X509_VERIFY_PARAM_set1_host(param, verify_name_.c_str(), 0);
      if (set != 1)
        return Status::BadRequest("tls-server-name " + verify_name_ + ": not a usable name");
    }
    c->tls->handshake(ssl::stream_base::client, ec);
    if (ec) {
      long verify = SSL_get_verify_result(ssl_handle);
      std::string why = ec.message();
      if (verify != X509_V_OK) {
        why = std::string("tls: failed to verify certificate: ") +
              X509_verify_cert_error_string(verify);
        if (verify == X509_V_ERR_HOSTNAME_MISMATCH || verify == X509_V_ERR_IP_ADDRESS_MISMATCH) {
          why += " (the certificate is not valid for " + verify_name_ + ")";
        }
      }
      ERR_clear_error();
      return Status::Unavailable("TLS handshake with " + host_header_ + ": " + why);
    }
  }
  return c;
}

std::string HttpClient::Authorization() {
  if (!config_.bearer_token.empty()) return "Bearer " + config_.bearer_token;
  if (!config_.bearer_token_file.empty()) {
    // Re-read every minute (client-go's cached file token source), so that a
    // rotated service-account token is picked up.
    std::lock_guard lock(token_mu_);
    auto now = std::chrono::steady_clock::now();
    if (file_token_.empty() || now - token_read_at_ >= std::chrono::minutes(1)) {
      std::FILE* f = std::fopen(config_.bearer_token_file.c_str(), "rb");
      if (f != nullptr) {
        std::string token;
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) token.append(buf, n);
        std::fclose(f);
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
          token.pop_back();
        if (!token.empty()) file_token_ = std::move(token);
      }
      token_read_at_ = now;
    }
    if (!file_token_.empty()) return "Bearer " + file_token_;
  }
  if (!config_.username.empty() || !config_.password.empty()) {
    return "Basic " + api::Base64Encode(config_.username + ":" + config_.password);
  }
  return "";
}

namespace {

http::request<http::string_body> MakeRequest(const std::string& method, const std::string& target,
                                             const std::string& host, const std::string& body,
                                             const std::string& content_type,
                                             const std::string& authorization,
                                             const std::string& user_agent) {
  http::request<http::string_body> req(http::string_to_verb(method), target, 11);
  req.set(http::field::host, host);
  req.set(http::field::accept, "application/json");
  req.set(http::field::user_agent, user_agent);
  if (!authorization.empty()) req.set(http::field::authorization, authorization);
  if (!body.empty()) {
    req.set(http::field::content_type, content_type);
    req.body() = body;
  }
  req.keep_alive(true);
  req.prepare_payload();
  return req;
}

int ParseRetryAfter(std::string_view value) {
  // Seconds only (kube's servers send seconds; an HTTP date is ignored).
  if (value.empty() || value.size() > 6 ||
      value.find_first_not_of("0123456789") != std::string_view::npos)
    return -1;
  return std::stoi(std::string(value));
}

}  // namespace

std::chrono::milliseconds HttpClient::RetryDelay(int retry, int retry_after_seconds) {
  if (retry_after_seconds >= 0) return std::chrono::seconds(retry_after_seconds);
  constexpr auto kBase = std::chrono::milliseconds(100), kCap = std::chrono::milliseconds(2000);
  return retry >= 5 ? kCap : std::min(kCap, kBase * (1 << retry));
}

bool HttpClient::Retryable(const std::string& method, int status, int retry_after_seconds) {
  if (status == 429) return true;
  // A 5xx is retried only when the server asked for it (client-go's rule):
  // a write may have happened, and a server that is down should fail fast.
  return status >= 500 && status <= 504 && retry_after_seconds >= 0;
}

Result<HttpResponse> HttpClient::Request(const std::string& method, const std::string& target,
                                         const std::string& body, const std::string& content_type) {
  for (int retry = 0;; ++retry) {
    auto waited = bucket_.Accept();
    Metrics* metrics = metrics_.load();
    if (metrics) {
      metrics->limiter.WithLabels({method, host_header_})
          .Observe(std::chrono::duration<double>(waited).count());
    }
    if (config_.max_inflight > 0) {
      std::unique_lock lock(inflight_mu_);
      inflight_cv_.wait(lock, [&] { return inflight_ < config_.max_inflight; });
      ++inflight_;
    }
    auto response = RoundTrip(method, target, body, content_type);
    if (config_.max_inflight > 0) {
      {
        std::lock_guard lock(inflight_mu_);
        --inflight_;
      }
      inflight_cv_.notify_one();
    }
    if (metrics) {
      std::string code = response.ok() ? std::to_string(response->status) : "<error>";
      metrics->requests.WithLabels({code, method, host_header_}).Increment();
    }
    if (!response.ok()) return response;
    if (retry >= kMaxRetries ||
        !Retryable(method, response->status, response->retry_after_seconds)) {
      return response;
    }
    std::this_thread::sleep_for(RetryDelay(retry, response->retry_after_seconds));
  }
}

Result<HttpResponse> HttpClient::RoundTrip(const std::string& method, const std::string& target,
                                           const std::string& body,
                                           const std::string& content_type) {
  const std::string authorization = Authorization();
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
      auto opened = Open();
      if (!opened.ok()) return opened.status();
      connection = std::move(opened).value();
    }
    beast::error_code ec;
    auto req = MakeRequest(method, target, host_header_, body, content_type, authorization,
                           config_.user_agent);
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    connection->With([&](auto& stream) {
      http::write(stream, req, ec);
      if (!ec) http::read(stream, connection->buffer, parser, ec);
    });
    if (ec) {
      // Dropped (a kept-alive connection the server closed): once more.
      if (attempt == 1) return Status::Unavailable(method + " " + target + ": " + ec.message());
      continue;
    }
    auto& res = parser.get();
    HttpResponse out{static_cast<int>(res.result_int()), std::move(res.body()),
                     ParseRetryAfter(res[http::field::retry_after])};
    if (res.keep_alive()) {
      std::lock_guard lock(mu_);
      if (idle_.size() < kMaxIdle) idle_.push_back(std::move(connection));
    }
    return out;
  }
  return Status::Unavailable(method + " " + target + ": no connection");
}

Result<int> HttpClient::Stream(const std::string& target,
                               const std::function<void(std::string_view)>& on_line,
                               const std::atomic<bool>& stop) {
  auto opened = Open();
  if (!opened.ok()) return opened.status();
  Connection& c = *opened.value();
  {
    std::lock_guard lock(streams_mu_);
    streams_.push_back(&c);
  }
  struct Unregister {
    HttpClient* self;
    Connection* c;
    ~Unregister() {
      std::lock_guard lock(self->streams_mu_);
      self->streams_.erase(std::remove(self->streams_.begin(), self->streams_.end(), c),
                           self->streams_.end());
    }
  } unregister{this, &c};
  if (stop.load()) return 200;
  auto req = MakeRequest("GET", target, host_header_, "", "", Authorization(), config_.user_agent);
  return c.With([&](auto& stream) -> Result<int> {
    beast::error_code ec;
    http::write(stream, req, ec);
    if (ec) return Status::Unavailable("watch " + target + ": " + ec.message());
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    http::read_header(stream, c.buffer, parser, ec);
    if (ec) return Status::Unavailable("watch " + target + ": " + ec.message());
    int status = static_cast<int>(parser.get().result_int());
    std::string pending;
    char chunk[64 * 1024];
    while (!parser.is_done() && !stop.load()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      // read_some returns as soon as some of the body arrived (read would wait
      // for the whole buffer or the end of the stream).
      http::read_some(stream, c.buffer, parser, ec);
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
  });
}

void HttpClient::CancelStreams() {
  std::lock_guard lock(streams_mu_);
  for (Connection* c : streams_) {
    beast::error_code ec;
    c->socket().shutdown(tcp::socket::shutdown_both, ec);
  }
}

}  // namespace berth::client
