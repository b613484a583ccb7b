// HTTP/1.1 request parsing by berth's own server (apiserver/http_server.h)
// over a real loopback connection: the input is sent as the bytes of one
// connection, which is then half-closed, and the answer read until the server
// closes it. The server runs with its default options (header limit, keep-
// alive, inflight cap) except a 1 KiB body limit, so that the fuzzer's short
// inputs reach the 413 path. The handler parses what every API request's
// path and query go through (ParseResourcePath, the query, content types).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>

#include "apiserver/http_server.h"
#include "apiserver/patch/patch.h"
#include "apiserver/request_info.h"
#include "fuzz_util.h"

using namespace berth;

namespace {

apiserver::HttpServer& Server() {
  static std::unique_ptr<apiserver::HttpServer> server = [] {
    apiserver::HttpServer::Options options;
    options.port = 0;
    options.io_threads = 1;
    options.worker_threads = 2;
    options.max_body_bytes = 1024;
    options.run_inline = [](const apiserver::Request& r) { return apiserver::IsSingleObjectRead(r); };
    auto started = apiserver::HttpServer::Start(options, [](apiserver::Request& r) {
      apiserver::Response response;
      auto info = apiserver::ParseResourcePath(r.path);
      (void)apiserver::IsSmallCreate(r, 1024);
      (void)r.QueryBool("watch");
      (void)r.Query("labelSelector");
      (void)apiserver::PatchTypeFromContentType(r.content_type);
      (void)apiserver::IsJsonContentType(r.content_type);
      response.body = info ? info->resource + "/" + info->name : "{}";
      return response;
    });
    fuzz::Check(started.ok(), "the HTTP server did not start", started.ok() ? "" : started.status().message());
    return std::move(started).value();
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint16_t port = Server().port();
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  fuzz::Check(fd >= 0, "socket");
  timeval timeout{20, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  fuzz::Check(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0, "connect");
  size_t sent = 0;
  while (sent < size) {
    ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server closed early (an error answered)
    sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  char buffer[4096];
  while (recv(fd, buffer, sizeof(buffer), 0) > 0) {
  }
  close(fd);
  return 0;
}
