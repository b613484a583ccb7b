#pragma once
// A Kubernetes API client over HTTP/1.1 or HTTPS (what the standalone
// scheduler, controller manager and `berth sim` use against berth's API
// server or kube-apiserver): requests on keep-alive connections, reconnecting
// when one drops, and watches on connections of their own, delivered line by
// line.
//
// From its RestConfig: TLS through OpenSSL (the chain verified against the
// configured CA, the certificate's DNS or IP SANs checked against the host or
// tls-server-name), a client certificate, a bearer token or basic auth; and
// client-go's limits: a token bucket on requests (watches excluded), a bound
// on requests in flight, and retries of 429 and 5xx answers with exponential
// backoff that honours Retry-After. Metrics (kube's names):
// rest_client_rate_limiter_duration_seconds{verb,host} and
// rest_client_requests_total{code,method,host}.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/status.h"
#include "client/rest_client.h"
#include "client/rest_config.h"
#include "client/token_bucket.h"

namespace boost::asio::ssl {
class context;
}
namespace berth::metrics {
class Registry;
class Counter;
template <typename T>
class Family;
class Histogram;
}  // namespace berth::metrics

namespace berth::client {

struct HttpResponse {
  int status = 0;
  std::string body;
  int retry_after_seconds = -1;  // the Retry-After header; -1: none
};

class HttpClient {
 public:
  // `server`: "http://HOST:PORT" or "https://HOST:PORT" with the system's
  // trusted roots and no credentials or rate limit. BadRequest for anything else.
  static Result<std::unique_ptr<HttpClient>> Connect(const std::string& server);
  // A client for `config` (certificates and keys are checked here), after one
  // GET /version shows the server answers. BadRequest for a bad server URL or
  // TLS material; Unavailable when the server cannot be reached or its
  // certificate is refused.
  static Result<std::unique_ptr<HttpClient>> Connect(RestConfig config);
  ~HttpClient();

  // One request, throttled by the token bucket and the in-flight bound,
  // retried once on a dropped keep-alive connection and (up to 10 times) on
  // 429 and retryable 5xx answers. Thread-safe: concurrent requests go out on
  // as many keep-alive connections (kept for reuse, up to kMaxIdle), so that
  // they are in flight together.
  Result<HttpResponse> Request(const std::string& method, const std::string& target,
                               const std::string& body = "",
                               const std::string& content_type = "application/json");
  // Streams a watch: calls on_line for every newline-terminated line of the
  // body until the server ends it, `stop` becomes true or an error occurs.
  // Returns the HTTP status (200 when the stream ran) or the error. Not
  // rate-limited (client-go does not throttle watches either).
  Result<int> Stream(const std::string& target,
                     const std::function<void(std::string_view)>& on_line,
                     const std::atomic<bool>& stop);
  // Ends every Stream in progress (from any thread): their sockets are shut down.
  void CancelStreams();

  // Registers the rest_client_* metrics in `registry` (instead of
  // RestConfig::metrics, for a registry made after the client). Once; any
  // thread. REQUIRES: `registry` outlives the client.
  void RegisterMetrics(metrics::Registry& registry);

  // "https://HOST:PORT", as configured.
  const std::string& server() const { return config_.server; }

  // The delay before retry number `retry` (0-based) of an answer that asked
  // for one: Retry-After when the server sent it, else 100ms * 2^retry up to
  // 2s (at most ~13s over kMaxRetries).
  static std::chrono::milliseconds RetryDelay(int retry, int retry_after_seconds);
  // Whether an answer `status` to `method` is retried: 429 always, 500–504
  // only with Retry-After (as client-go: a write may have happened, and an
  // unavailable server should fail fast).
  static bool Retryable(const std::string& method, int status, int retry_after_seconds);
  static constexpr int kMaxRetries = 10;  // client-go's default

 private:
  struct Connection;
  struct Metrics;
  explicit HttpClient(RestConfig config);
  Status Init();
  Result<std::unique_ptr<Connection>> Open();
  Result<HttpResponse> RoundTrip(const std::string& method, const std::string& target,
                                 const std::string& body, const std::string& content_type);
  std::string Authorization();

  RestConfig config_;
  bool tls_ = false;
  std::string host_, port_, host_header_;
  std::string verify_name_;  // tls-server-name or host
  std::shared_ptr<boost::asio::ssl::context> tls_context_;
  TokenBucket bucket_;
  std::unique_ptr<Metrics> metrics_owner_;
  std::atomic<Metrics*> metrics_{nullptr};

  std::mutex inflight_mu_;
  std::condition_variable inflight_cv_;
  int inflight_ = 0;  // guarded by inflight_mu_

  std::mutex token_mu_;
  std::string file_token_;                               // guarded by token_mu_
  std::chrono::steady_clock::time_point token_read_at_;  // guarded by token_mu_

  static constexpr size_t kMaxIdle = 64;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_: open, not in use
  std::mutex streams_mu_;
  std::vector<Connection*> streams_;  // guarded by streams_mu_
};

// A RestClient transport over `http` (which must outlive it).
inline Transport HttpTransport(HttpClient& http) {
  return [&http](const std::string& method, const std::string& target, const std::string& body,
                 const std::string& content_type) -> Result<RestResponse> {
    auto r = http.Request(method, target, body, content_type);
    if (!r.ok()) return r.status();
    return RestResponse{r.value().status, std::move(r.value().body)};
  };
}

}  // namespace berth::client
