#pragma once
// The HTTP/1.1 server: keep-alive, chunked streaming for watches, optional
// TLS, and the limits of Go's http.Server as kube-apiserver configures it
// (1 MiB of request header, else 431; the header within 32 s of the request's
// first byte, else the connection is closed; kept-alive connections idle for
// 90 s are closed), the request body limit (413) and kube's max-in-flight
// limits (max_inflight.h: 429 beyond them).
//
// Threads: `io_threads` run the sockets and the handlers of requests that
// `run_inline` accepts (quick reads that never wait for the disk, such as a GET
// of one object); other handlers run on a pool of `worker_threads` because they
// may block (a durable write waits for its fsync, and concurrent writes then
// share one; a large LIST would stall every connection on its io thread).
// Mutating requests have a pool of their own, of the same size, so that
// writers that block cannot hold every thread reads need. Long-running streams hold
// no thread: they are pumped on their connection's loop when woken. Each io thread runs its own
// loop (io_context); a connection stays on the loop it was dealt to.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/status.h"
#include "apiserver/authz/max_inflight.h"
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
    size_t max_body_bytes = 3 * 1024 * 1024;  // kube's limit; beyond: 413
    // Request line and header fields together (Go's DefaultMaxHeaderBytes,
    // which kube-apiserver sets); beyond: 431 and the connection is closed.
    size_t max_header_bytes = 1 << 20;
    // Header fields in one request; beyond: 431. (Go counts only bytes; a
    // cap on the number bounds the memory one request's fields take.)
    size_t max_header_fields = 1000;
    // kube-apiserver's ReadHeaderTimeout: a request's header must be complete
    // within this long of its first byte, or the connection is closed
    // without an answer (slowloris).
    std::chrono::milliseconds read_header_timeout{32'000};
    // kube-apiserver's IdleTimeout: a kept-alive connection with no next
    // request for this long is closed.
    std::chrono::milliseconds idle_timeout{90'000};
    // The body must arrive within this long after the header (kube's
    // default --request-timeout, which bounds a handler reading it).
    std::chrono::milliseconds read_body_timeout{60'000};
    int io_threads = 2;
    int worker_threads = 64;
    // kube's --max-requests-inflight and --max-mutating-requests-inflight
    // (max_inflight.h; 0: no limit).
    MaxInflight::Limits inflight_limits;
    // Set: every connection is TLS.
    std::shared_ptr<boost::asio::ssl::context> tls;
    // True: handle the request on its io thread, without a hand-off. Unset: never.
    std::function<bool(const Request&)> run_inline;
    // Called with (method, status, seconds) after each non-streaming response.
    std::function<void(const Request&, int status, double seconds)> on_response;
    // Called for each request refused by the in-flight limits (answered 429).
    std::function<void(const Request&, RequestKind)> on_dropped;
    // True: a request beyond the in-flight limits is served all the same,
    // holding no slot (kube's exemption of system:masters). Asked only of
    // requests the limits would refuse.
    std::function<bool(const Request&)> exempt_from_limits;
  };

  // Binds and starts serving. Unavailable when the address cannot be bound
  // (the message names it: "listen tcp 127.0.0.1:8080: address already in use").
  static Result<std::unique_ptr<HttpServer>> Start(Options options, Handler handler);
  ~HttpServer();

  uint16_t port() const;
  // Requests being handled (streams excluded).
  int64_t inflight() const;
  const MaxInflight& max_inflight() const;
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
