#pragma once
// A small Kubernetes API client over plain HTTP/1.1 (what the standalone
// scheduler uses against berth's API server or kube-apiserver behind
// `kubectl proxy`): requests on one keep-alive connection, reconnecting when
// it drops, and watches on connections of their own, delivered line by line.
// TLS and kubeconfig credentials are not supported yet.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/status.h"
#include "client/rest_client.h"

namespace berth::client {

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  // `server`: "http://HOST:PORT". BadRequest for anything else.
  static Result<std::unique_ptr<HttpClient>> Connect(const std::string& server);
  ~HttpClient();

  // One request (retried once on a dropped keep-alive connection). Thread-safe:
  // concurrent requests go out on as many keep-alive connections (kept for
  // reuse, up to kMaxIdle), so that they are in flight together.
  Result<HttpResponse> Request(const std::string& method, const std::string& target, const std::string& body = "",
                               const std::string& content_type = "application/json");
  // Streams a watch: calls on_line for every newline-terminated line of the
  // body until the server ends it, `stop` becomes true or an error occurs.
  // Returns the HTTP status (200 when the stream ran) or the error.
  Result<int> Stream(const std::string& target, const std::function<void(std::string_view)>& on_line,
                     const std::atomic<bool>& stop);
  // Ends every Stream in progress (from any thread): their sockets are shut down.
  void CancelStreams();

 private:
  struct Connection;
  HttpClient(std::string host, std::string port);
  std::string host_, port_;
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
