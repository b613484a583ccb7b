#pragma once
// The HTTP/1.1 server: keep-alive, request body limit, chunked streaming for
// watches, optional TLS and a cap on requests in flight (429 beyond it).
//
// Threads: `io_threads` run the sockets and the handlers of requests that
// `run_inline` accepts (quick reads that never wait for the disk, such as a GET
// of one object); other handlers run on a pool of `worker_threads` because they
// may block (a durable write waits for its fsync, and concurrent writes then
// share one; a large LIST would stall every connection on its io thread). Long-running streams hold
// no thread: they are pumped on their connection's loop when woken. Each io thread runs its own
// loop (io_context); a connection stays on the loop it was dealt to.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "api/status.h"
#include "apiserver/http.h"

namespace boost::asio::ssl {
class context;
}

namespace berth::apiserver {

class HttpServer {
 public:
  struct Options {
    std::string address = "127.0.0.1";
    uint16_t port = 8080;  // 0: any free port (see port())
    size_t max_body_bytes = 3 * 1024 * 1024;
    int io_threads = 2;
    int worker_threads = 64;
    // Requests being handled at once (streams excluded); beyond it: 429.
    int max_inflight = 400;
    // Set: every connection is TLS.
    std::shared_ptr<boost::asio::ssl::context> tls;
    // True: handle the request on its io thread, without a hand-off. Unset: never.
    std::function<bool(const Request&)> run_inline;
    // Called with (method, status, seconds) after each non-streaming response.
    std::function<void(const Request&, int status, double seconds)> on_response;
  };

  // Binds and starts serving. Unavailable when the address cannot be bound
  // (the message names it: "listen tcp 127.0.0.1:8080: address already in use").
  static Result<std::unique_ptr<HttpServer>> Start(Options options, Handler handler);
  ~HttpServer();

  uint16_t port() const;
  int64_t inflight() const;
  int64_t open_streams() const;
  // Stops accepting, cancels streams, closes connections and joins threads.
  // Requests being handled finish first. Idempotent.
  void Stop();

  class Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::apiserver
