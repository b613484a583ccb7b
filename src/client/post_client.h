#pragma once
// A client that POSTs request bodies to one HTTP(S) endpoint and waits for
// the answer within a deadline for the whole call (connecting included): what
// kube-scheduler's extenders and kube-apiserver's admission webhooks are
// called with. Connections are kept alive and reused (a new TCP and TLS
// handshake per call would cost more than the call). A request that fails on
// a reused connection before any answer arrived (the server had closed it
// while idle) is sent once more on a new one.
//
// Thread-safe: concurrent calls use as many connections (kept for reuse up to
// kMaxIdle). Each call runs on its caller's thread.

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::client {

// How an https endpoint is trusted and whom the client presents.
struct PostTls {
  bool verify = true;       // false: the server's certificate is not checked
  std::string server_name;  // for SNI and verification; empty: the URL's host
  // The CA the server's chain must verify against, as PEM text and/or a
  // file; neither: the system's trusted roots.
  std::string ca_pem, ca_file;
  // A client certificate and key (PEM text or files); optional.
  std::string cert_pem, cert_file, key_pem, key_file;
};

struct PostAnswer {
  int status = 0;
  std::string body;
};

class PostClient {
 public:
  // `url`: http://HOST[:PORT][/PATH] or https://… (`tls` then says how the
  // server is trusted; nullopt: verified against the system's roots).
  // `field` names the URL in errors ("urlPrefix"). BadRequest for a URL it
  // cannot use or TLS material it cannot read.
  static Result<std::unique_ptr<PostClient>> Create(const std::string& url, const std::optional<PostTls>& tls,
                                                    std::chrono::milliseconds timeout, std::string user_agent,
                                                    std::string_view field = "url");
  ~PostClient();

  // POSTs `body` to the URL followed by `suffix` ("/filter", "?timeout=10s").
  // The answer, whatever its status; Unavailable for a connection failure or
  // a timeout, in Go's words: `Post "<url>": dial tcp …` or `Post "<url>":
  // context deadline exceeded` (kube's client error text).
  Result<PostAnswer> Post(std::string_view suffix, std::string_view body,
                          std::string_view content_type = "application/json");

  std::string Url(std::string_view suffix) const { return url_ + std::string(suffix); }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Connection;
  struct Tls;
  PostClient() = default;
  Status Open(Connection& c, std::chrono::steady_clock::time_point deadline) const;

  static constexpr size_t kMaxIdle = 32;
  std::string url_;                 // without a trailing '/'
  std::string host_, port_, path_;  // path_: the URL's path, without a trailing '/'
  std::string user_agent_;
  std::chrono::milliseconds timeout_{};
  std::unique_ptr<Tls> tls_;  // nullptr: plain HTTP
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_: open, not in use
};

}  // namespace berth::client
