#pragma once
// The HTTP(S) client of one scheduler extender: POST a JSON body to
// urlPrefix/verb, with a deadline for the whole call (connecting included).
// Connections are kept alive and reused (an extender is called once or twice
// per scheduling cycle, so a new TCP and TLS handshake each time would cost
// more than the call). A request that fails on a reused connection before any
// answer arrived (the server had closed it while idle) is sent once more on a
// new one.
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
#include "scheduler/framework/config.h"

namespace berth::scheduler {

class ExtenderClient {
 public:
  // `url_prefix`: http://HOST[:PORT][/PATH] or https://…; with https, `tls`
  // (and enable_https without a CA: no verification, as kube-scheduler) say
  // how to verify the server and which client certificate to present.
  // BadRequest for a URL it cannot use or TLS files it cannot read.
  static Result<std::unique_ptr<ExtenderClient>> Create(const std::string& url_prefix,
                                                        bool enable_https,
                                                        const std::optional<ExtenderTlsConfig>& tls,
                                                        std::chrono::milliseconds timeout);
  ~ExtenderClient();

  // POSTs `body` (application/json) to urlPrefix/verb. The answer's body when
  // the status is 200; Unavailable for a connection failure or a timeout,
  // Internal for another status, each saying which URL failed.
  Result<std::string> Post(std::string_view verb, std::string_view body);

  std::string Url(std::string_view verb) const;

 private:
  struct Connection;
  struct Tls;
  ExtenderClient() = default;
  Status Open(Connection& c, std::chrono::steady_clock::time_point deadline) const;

  static constexpr size_t kMaxIdle = 32;
  std::string url_prefix_;          // without a trailing '/'
  std::string host_, port_, path_;  // path_: the URL's path, without a trailing '/'
  std::chrono::milliseconds timeout_{};
  std::unique_ptr<Tls> tls_;  // nullptr: plain HTTP
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_: open, not in use
};

}  // namespace berth::scheduler
