#include "apiserver/http_server.h"

#include <pthread.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/serialize.hpp>
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <list>
#include <mutex>
#include <thread>

#include "apiserver/status_json.h"
#include "apiserver/websocket_answer.h"
#include "log/log.h"

namespace berth::apiserver {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

namespace {

// A watch client that does not take a chunk within this long is cut off.
constexpr auto kStreamWriteTimeout = std::chrono::seconds(30);
// After refusing a request it has not read (413, 431), the server discards
// what the client still sends for up to this long before closing, so that
// the client reads the answer instead of a connection reset.
constexpr auto kLingerTimeout = std::chrono::seconds(2);
constexpr size_t kLingerMaxBytes = 64 << 20;
// The longest request line or header field line: Beast keeps a field's
// length in 16 bits (Go has no such limit below its 1 MiB for the header).
constexpr size_t kMaxHeaderLine = 65'000;

std::string StatusBody(const Status& status) { return boost::json::serialize(StatusToJson(status)); }

class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void Close() = 0;
};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(Options options, Handler handler)
      : options(std::move(options)),
        handler(std::move(handler)),
        loops(MakeLoops(std::max(1, this->options.io_threads))),
        acceptor(loops.front()->ioc),
        workers(static_cast<size_t>(this->options.worker_threads)),
        mutating_workers(static_cast<size_t>(this->options.worker_threads)),
        limiter(this->options.inflight_limits) {}

  Status Listen() {
    beast::error_code ec;
    auto address = net::ip::make_address(options.address, ec);
    if (ec) return Status::BadRequest("invalid listen address \"" + options.address + "\"");
    tcp::endpoint endpoint(address, options.port);
    std::string where = "listen tcp " + options.address + ":" + std::to_string(options.port);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return Status(StatusCode::kUnavailable, where + ": " + ec.message());
    port = acceptor.local_endpoint().port();
    return Status::Ok();
  }

  void Run() {
    Accept();
    for (auto& loop : loops) {
      threads.emplace_back([io = &loop->ioc] {
        pthread_setname_np(pthread_self(), "http-io");
        // A handler that throws ends its connection, not the server.
        for (;;) {
          try {
            io->run();
            return;
          } catch (const std::exception& e) {
            BERTH_LOG_ERROR(std::string(e.what()), "Connection handler failed");
          }
        }
      });
    }
  }

  // Connections are dealt to the loops in turn; each stays on its loop.
  void Accept() {
    auto& loop = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(loop.ioc, [this](beast::error_code ec, tcp::socket socket) {
      if (stopping.load()) return;
      if (!ec) StartSession(std::move(socket));
      Accept();
    });
  }

  void StartSession(tcp::socket socket);

  void Register(const std::shared_ptr<SessionBase>& session) {
    std::lock_guard lk(sessions_mu);
    for (auto it = sessions.begin(); it != sessions.end();) {
      it = it->expired() ? sessions.erase(it) : std::next(it);
    }
    sessions.push_back(session);
  }

  void Stop() {
    if (stopping.exchange(true)) return;
    net::post(acceptor.get_executor(), [this] {
      beast::error_code ec;
      acceptor.close(ec);
    });
    workers.join();  // requests being handled finish
    mutating_workers.join();
    // Answers waiting for their writes to be durable are sent (the store is
    // still open: it closes after the server).
    {
      std::unique_lock lk(deferred_mu);
      deferred_done.wait_for(lk, std::chrono::seconds(10), [this] { return deferred.load() == 0; });
    }
    std::vector<std::shared_ptr<SessionBase>> live;
    {
      std::lock_guard lk(sessions_mu);
      for (auto& w : sessions) {
        if (auto s = w.lock()) live.push_back(std::move(s));
      }
    }
    for (auto& s : live) s->Close();
    live.clear();
    // Give the closes a moment to run, then stop the loop.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline) {
      bool any = false;
      {
        std::lock_guard lk(sessions_mu);
        for (auto& w : sessions) any |= !w.expired();
      }
      if (!any) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (auto& loop : loops) loop->ioc.stop();
    for (auto& t : threads) t.join();
  }

  // One io_context run by one thread: a connection's handlers never run
  // concurrently (no strand needed), and a request read and answered on the
  // same loop involves no other thread. Separate loops rather than one
  // io_context shared by the io threads: a shared one hands ready sockets
  // between its threads, a futex wake-up per request or so.
  struct Loop {
    net::io_context ioc{1};
    // Keeps the thread running while no socket has an operation pending
    // (every connection waiting for a deferred answer, and the acceptor
    // closed by Stop): Stop ends it with ioc.stop().
    net::executor_work_guard<net::io_context::executor_type> keep_running{ioc.get_executor()};
  };
  static std::vector<std::unique_ptr<Loop>> MakeLoops(int n) {
    std::vector<std::unique_ptr<Loop>> loops;
    for (int i = 0; i < n; ++i) loops.push_back(std::make_unique<Loop>());
    return loops;
  }

  Options options;
  Handler handler;
  std::vector<std::unique_ptr<Loop>> loops;
  size_t next_loop = 0;  // on the acceptor's loop only
  tcp::acceptor acceptor;
  net::thread_pool workers;           // read-only and long-running requests
  net::thread_pool mutating_workers;  // mutating requests
  MaxInflight limiter;
  std::vector<std::thread> threads;
  uint16_t port = 0;
  std::atomic<int64_t> inflight{0};
  std::atomic<int64_t> streams{0};
  std::atomic<int64_t> deferred{0};  // responses waiting for when_ready
  std::mutex deferred_mu;            // with deferred_done: Stop waits for deferred == 0
  std::condition_variable deferred_done;
  std::atomic<bool> stopping{false};
  std::mutex sessions_mu;
  std::list<std::weak_ptr<SessionBase>> sessions;  // guarded by sessions_mu
};

namespace {

template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  template <class... Args>
  Session(HttpServer::Impl* server, Args&&... args)
      : server_(server),
        stream_(std::forward<Args>(args)...),
        poll_timer_(stream_.get_executor()) {}

  ~Session() override {
    if (rs_) {
      rs_->Cancel();
      server_->streams--;
    }
  }

  // Any thread: the session starts on its connection's loop.
  void Begin() {
    net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->Open(); });
  }

  void Close() override {
    net::post(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->rs_) self->rs_->Cancel();
      self->poll_timer_.cancel();
      beast::error_code ec;
      beast::get_lowest_layer(self->stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
      beast::get_lowest_layer(self->stream_).close();
    });
  }

 private:
  void Open() {
    beast::error_code ec;
    auto endpoint = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (!ec) remote_address_ = endpoint.address().to_string();
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      DoRead();
    } else {
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return;
                                self->ReadClientCertificate();
                                self->DoRead();
                              });
    }
  }

  // The identity of a client certificate that verified against the client
  // CA (an unverified one is ignored: the request stays anonymous, and the
  // API answers 401 as kube-apiserver does).
  void ReadClientCertificate() {
    if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
      SSL* handle = stream_.native_handle();
      X509* cert = SSL_get1_peer_certificate(handle);
      if (cert == nullptr) return;
      if (SSL_get_verify_result(handle) == X509_V_OK) {
        X509_NAME* subject = X509_get_subject_name(cert);
        auto entries = [&](int nid) {
          std::vector<std::string> out;
          for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, nid, i)) >= 0;) {
            ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
            unsigned char* utf8 = nullptr;
            int n = ASN1_STRING_to_UTF8(&utf8, data);
            if (n >= 0) out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
            OPENSSL_free(utf8);
          }
          return out;
        };
        auto common_names = entries(NID_commonName);
        if (!common_names.empty()) {
          client_user_ = common_names.front();
          client_groups_ = entries(NID_organizationName);
        }
      }
      X509_free(cert);
    }
  }

  // The next request: on a kept-alive connection, its first byte within the
  // idle timeout; then its header within read_header_timeout, then its body
  // within read_body_timeout.
  void DoRead() {
    const auto& o = server_->options;
    parser_.emplace();
    parser_->body_limit(o.max_body_bytes);
    parser_->header_limit(static_cast<uint32_t>(std::min<size_t>(o.max_header_bytes + 4, UINT32_MAX)));
    if (requests_++ == 0 || buffer_.size() > 0) return ReadHeader();
    beast::get_lowest_layer(stream_).expires_after(o.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Shutdown();  // idle, or the client went away
                              self->buffer_.commit(n);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    beast::get_lowest_layer(stream_).expires_after(server_->options.read_header_timeout);
    header_scanned_ = 0;
    ContinueHeader();
  }

  // Reads until the header is complete in buffer_ and checks it before the
  // parser stores it: its size, its number of fields, and no line longer
  // than a field the parser can hold (Beast's fields keep 16-bit lengths and
  // throw beyond them). Then parses it from the buffer.
  void ContinueHeader() {
    std::string_view data(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    const size_t end = data.find("\r\n\r\n", header_scanned_ >= 3 ? header_scanned_ - 3 : 0);
    if (end == std::string_view::npos) {
      if (data.size() > server_->options.max_header_bytes) return RefuseHeader();
      header_scanned_ = data.size();
      stream_.async_read_some(buffer_.prepare(64 * 1024),
                              [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                                if (ec) return self->Shutdown();  // closed, or the deadline passed
                                self->buffer_.commit(n);
                                self->ContinueHeader();
                              });
      return;
    }
    if (end + 4 > server_->options.max_header_bytes) return RefuseHeader();
    size_t lines = 0;
    for (size_t at = 0; at <= end;) {
      size_t next = data.find("\r\n", at);
      if (next == std::string_view::npos || next > end) next = end;
      if (next - at > kMaxHeaderLine) return RefuseHeader();
      ++lines;
      at = next + 2;
    }
    if (lines - 1 > server_->options.max_header_fields) return RefuseHeader();
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHeader(ec);
                            });
  }

  void OnHeader(beast::error_code ec) {
    if (ec == http::error::header_limit) return RefuseHeader();
    if (ec == http::error::body_limit) return RefuseBody();
    // A timeout closes the connection without an answer, as Go's server does.
    if (ec) return Shutdown();
    if (parser_->is_done()) return OnRead({});
    beast::get_lowest_layer(stream_).expires_after(server_->options.read_body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  // Go's answer to a request header over the limit: plain text, then close.
  void RefuseHeader() {
    keep_alive_ = false;
    Response r;
    r.status = 431;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "431 Request Header Fields Too Large";
    refused_ = true;
    Write(std::move(r));
  }

  // kube's answer to a body over the limit (its message names the limit).
  void RefuseBody() {
    keep_alive_ = false;
    Response r;
    r.status = 413;
    r.body = StatusBody(Status(StatusCode::kRequestEntityTooLarge,
                               "Request entity too large: limit is " + std::to_string(server_->options.max_body_bytes)));
    refused_ = true;
    Write(std::move(r));
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::body_limit) return RefuseBody();
    if (ec) return Shutdown();
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();

    Request r;
    r.method = std::string(req.method_string());
    std::string_view target = req.target();
    auto q = target.find('?');
    r.path = PercentDecode(target.substr(0, q), false);
    if (q != std::string_view::npos) r.query = ParseQuery(target.substr(q + 1));
    r.accept = std::string(req[http::field::accept]);
    r.content_type = std::string(req[http::field::content_type]);
    r.authorization = std::string(req[http::field::authorization]);
    r.client_certificate_user = client_user_;
    r.client_certificate_groups = client_groups_;
    r.user_agent = std::string(req[http::field::user_agent]);
    r.if_none_match = std::string(req[http::field::if_none_match]);
    r.request_uri = std::string(target);
    r.forwarded_for = std::string(req["X-Forwarded-For"]);
    r.audit_id = std::string(req["Audit-ID"]);
    r.remote_address = remote_address_;
    if (beast::websocket::is_upgrade(req)) r.websocket_protocols = std::string(req[http::field::sec_websocket_protocol]);
    r.body = std::move(req.body());

    const RequestKind kind = ClassifyRequest(r);
    const bool acquired = server_->limiter.TryAcquire(kind);
    if (!acquired && !(server_->options.exempt_from_limits && server_->options.exempt_from_limits(r))) {
      server_->limiter.CountDropped(kind);
      if (server_->options.on_dropped) server_->options.on_dropped(r, kind);
      Write(TooManyRequests());
      return;
    }
    // The slot the request holds until answered (kLongRunning: none, as for
    // an exempt request beyond the limits).
    const RequestKind slot = acquired ? kind : RequestKind::kLongRunning;
    server_->inflight++;
    r.may_defer = true;
    const auto start = std::chrono::steady_clock::now();
    // Quick requests (the server's run_inline: reads of one object, creates
    // that answer once durable without waiting for it) are handled here,
    // without a hand-off; everything else may block (an fsync, a large LIST)
    // and goes to the worker pool.
    if (server_->options.run_inline && server_->options.run_inline(r)) {
      Response response = Handle(server_, r);
      Finish(std::move(r), slot, std::move(response), start);
      return;
    }
    auto& pool = kind == RequestKind::kMutating ? server_->mutating_workers : server_->workers;
    net::post(pool, [self = this->shared_from_this(), r = std::move(r), slot, start]() mutable {
      Response response = Handle(self->server_, r);
      self->Finish(std::move(r), slot, std::move(response), start);
    });
  }

  // Runs the handler; a throw becomes a 500.
  static Response Handle(HttpServer::Impl* server, Request& r) {
    try {
      return server->handler(r);
    } catch (const std::exception& e) {
      Response response;
      response.status = 500;
      response.body = StatusBody(Status(StatusCode::kInternal, "internal error"));
      return response;
    }
  }

  // Sends `response` on this connection's loop once it is ready (see
  // Response::when_ready), and accounts for the request then. Any thread.
  void Finish(Request r, RequestKind slot, Response response, std::chrono::steady_clock::time_point start) {
    auto send = [self = this->shared_from_this(), r = std::move(r), slot,
                 start](Response response) mutable {
      net::dispatch(self->stream_.get_executor(),
                    [self, r = std::move(r), slot, start, response = std::move(response)]() mutable {
                      Account(self->server_, r, slot, response, start);
                      self->Write(std::move(response));
                    });
    };
    if (!response.when_ready) return send(std::move(response));
    auto when_ready = std::move(response.when_ready);
    response.when_ready = nullptr;
    server_->deferred++;
    // std::function needs a copyable callable: the response waits in a shared box.
    auto box =
        std::make_shared<std::pair<decltype(send), Response>>(std::move(send), std::move(response));
    when_ready([this, box] {
      auto& [send, response] = *box;
      if (auto finalize = std::move(response.finalize)) finalize(response);
      send(std::move(response));
      // The last held answer while stopping wakes Stop. stopping is set before
      // Stop checks the count: a decrement that reads it false came first, and
      // Stop's check sees it.
      if (server_->deferred.fetch_sub(1) == 1 && server_->stopping.load()) {
        std::lock_guard lk(server_->deferred_mu);
        server_->deferred_done.notify_all();
      }
    });
  }

  // The request is answered (a stream has started): its in-flight slot is free.
  static void Account(HttpServer::Impl* server, const Request& r, RequestKind slot, const Response& response,
                      std::chrono::steady_clock::time_point start) {
    server->inflight--;
    server->limiter.Release(slot);
    // kube-apiserver's request log (httplog), at the same verbosity.
    if (log::V(3)) {
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      char latency[32];
      if (us < 1000) {
        std::snprintf(latency, sizeof latency, "%.3fµs", us);
      } else if (us < 1e6) {
        std::snprintf(latency, sizeof latency, "%.6fms", us / 1e3);
      } else {
        std::snprintf(latency, sizeof latency, "%.6fs", us / 1e6);
      }
      BERTH_VLOG(3, "HTTP", {"verb", r.method}, {"URI", r.path}, {"latency", latency}, {"userAgent", r.user_agent},
                 {"resp", response.status});
    }
    if (server->options.on_response && !response.stream) {
      server->options.on_response(
          r, response.status,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }

  void Write(Response response) {
    if (response.stream) return StartStream(std::move(response));
    if (response.websocket) {  // the request is still the parser's; the connection ends with it
      return AnswerWebSocket(stream_, parser_->get(), std::move(response.websocket),
                             [self = this->shared_from_this()] { self->Shutdown(); });
    }
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(response.status), 11);
    res->set(http::field::server, "berth");
    res->set(http::field::content_type, response.content_type);
    for (auto& [k, v] : response.headers) res->insert(k, v);
    res->body() = std::move(response.body);
    res->keep_alive(keep_alive_);
    res->prepare_payload();
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (!ec && self->refused_) return self->Linger();
                        if (ec || !res->keep_alive()) return self->Shutdown();
                        self->DoRead();
                      });
  }

  void StartStream(Response response) {
    rs_ = std::move(response.stream);
    server_->streams++;
    stream_header_ = std::make_shared<http::response<http::empty_body>>(
        static_cast<http::status>(response.status), 11);
    stream_header_->set(http::field::server, "berth");
    stream_header_->set(http::field::content_type, response.content_type);
    for (auto& [k, v] : response.headers) stream_header_->insert(k, v);
    stream_header_->chunked(true);
    stream_header_->keep_alive(keep_alive_);
    serializer_ = std::make_shared<http::response_serializer<http::empty_body>>(*stream_header_);
    beast::get_lowest_layer(stream_).expires_after(kStreamWriteTimeout);
    http::async_write_header(stream_, *serializer_,
                             [self = this->shared_from_this()](beast::error_code ec, size_t) {
                               if (ec) return self->AbortStream();
                               beast::get_lowest_layer(self->stream_).expires_never();
                               std::weak_ptr<Session> weak = self;
                               auto executor = self->stream_.get_executor();
                               self->rs_->Start([weak, executor] {
                                 net::post(executor, [weak] {
                                   if (auto s = weak.lock()) s->Pump();
                                 });
                               });
                               self->WatchForDisconnect();
                               self->ArmTimer();
                               self->Pump();
                             });
  }

  // A streaming client sends nothing; a read completing means it went away.
  void WatchForDisconnect() {
    stream_.async_read_some(net::buffer(probe_),
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              if (self->rs_ && ec) self->AbortStream();
                              // Data from a streaming client is ignored; keep watching.
                              else if (self->rs_) self->WatchForDisconnect();
                            });
  }

  void ArmTimer() {
    if (!rs_) return;
    poll_timer_.expires_after(rs_->PollInterval());
    poll_timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec || !self->rs_) return;
      self->Pump();
      self->ArmTimer();
    });
  }

  void Pump() {
    if (writing_ || !rs_) return;
    ResponseStream::Chunk chunk = rs_->Pump();
    if (chunk.data.empty()) {
      if (chunk.end) FinishStream();
      return;
    }
    writing_ = true;
    chunk_ = std::move(chunk.data);
    bool end = chunk.end;
    beast::get_lowest_layer(stream_).expires_after(kStreamWriteTimeout);
    net::async_write(stream_, http::make_chunk(net::buffer(chunk_)),
                     [self = this->shared_from_this(), end](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->AbortStream();
                       beast::get_lowest_layer(self->stream_).expires_never();
                       if (end) return self->FinishStream();
                       self->Pump();
                     });
  }

  void FinishStream() {
    if (!rs_) return;
    rs_->Cancel();
    rs_.reset();
    server_->streams--;
    poll_timer_.cancel();
    beast::get_lowest_layer(stream_).expires_after(kStreamWriteTimeout);
    net::async_write(stream_, http::make_chunk_last(),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       // The disconnect probe still holds a read; end the connection.
                       self->Shutdown();
                     });
  }

  void AbortStream() {
    if (rs_) {
      rs_->Cancel();
      rs_.reset();
      server_->streams--;
    }
    poll_timer_.cancel();
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
  }

  void Shutdown() {
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ec);
    beast::get_lowest_layer(stream_).close();
  }

  // After answering a request whose rest was not read: stops sending, and
  // discards what the client still sends (bounded in time and bytes) before
  // closing. Closing at once with unread data would reset the connection,
  // and the client might never read the answer.
  void Linger() {
    auto& lowest = beast::get_lowest_layer(stream_);
    if (lingered_ == 0) {
      beast::error_code ec;
      lowest.socket().shutdown(tcp::socket::shutdown_send, ec);
      lowest.expires_after(kLingerTimeout);
    }
    if (!discard_) discard_ = std::make_unique<char[]>(kDiscardBytes);
    lowest.async_read_some(net::buffer(discard_.get(), kDiscardBytes), [self = this->shared_from_this()](beast::error_code ec, size_t n) {
      self->lingered_ += n;
      if (ec || self->lingered_ > kLingerMaxBytes) return beast::get_lowest_layer(self->stream_).close();
      self->Linger();
    });
  }

  HttpServer::Impl* server_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  std::string remote_address_;  // the client's IP address
  uint64_t requests_ = 0;  // requests begun on this connection
  size_t header_scanned_ = 0;  // bytes of buffer_ searched for the header's end
  bool refused_ = false;   // answered 413 or 431: the request was not read to its end
  size_t lingered_ = 0;    // bytes discarded by Linger
  static constexpr size_t kDiscardBytes = 64 * 1024;
  std::unique_ptr<char[]> discard_;  // Linger's buffer
  // The verified client certificate's CN and O values (TLS only; set once
  // after the handshake).
  std::string client_user_;
  std::vector<std::string> client_groups_;
  // Streaming state (on the connection's loop only).
  std::shared_ptr<ResponseStream> rs_;
  std::shared_ptr<http::response<http::empty_body>> stream_header_;
  std::shared_ptr<http::response_serializer<http::empty_body>> serializer_;
  net::steady_timer poll_timer_;
  std::string chunk_;
  bool writing_ = false;
  char probe_[256];
};

}  // namespace

void HttpServer::Impl::StartSession(tcp::socket socket) {
  socket.set_option(tcp::no_delay(true));
  if (options.tls) {
    auto s = std::make_shared<Session<ssl::stream<beast::tcp_stream>>>(this, std::move(socket),
                                                                       *options.tls);
    Register(s);
    s->Begin();
  } else {
    auto s = std::make_shared<Session<beast::tcp_stream>>(this, std::move(socket));
    Register(s);
    s->Begin();
  }
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(Options options, Handler handler) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  Status s = impl->Listen();
  if (!s.ok()) return s;
  impl->Run();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

uint16_t HttpServer::port() const { return impl_->port; }
int64_t HttpServer::inflight() const { return impl_->inflight.load(); }
const MaxInflight& HttpServer::max_inflight() const { return impl_->limiter; }
int64_t HttpServer::open_streams() const { return impl_->streams.load(); }
void HttpServer::Stop() {
  if (impl_) impl_->Stop();
}

}  // namespace berth::apiserver
