#pragma once
// A client of etcd v3's JSON gateway (the grpc-gateway etcd serves on its
// client URLs): POST /v3/kv/range, /v3/kv/txn, /v3/kv/compaction,
// /v3/lease/grant ... with JSON bodies (keys and values base64, int64 fields
// as strings in answers), and /v3/watch, which streams one JSON object a line.
// Keep-alive HTTP/1.1 over Boost.Beast, TLS through OpenSSL; several
// endpoints: a request that cannot reach one tries the next.
//
// Every call is bounded by the client's timeout: an etcd that is down gives
// Unavailable (503) at once, one that does not answer Timeout (504) once the
// timeout passes. Thread-safe; each call uses a connection of its own.

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/status.h"

namespace berth::store::etcd {

struct ClientOptions {
  // http://host:port or https://host:port (kube's --etcd-servers).
  std::vector<std::string> endpoints;
  // TLS (https endpoints): the CA that signed etcd's certificate (else the
  // system's), and a client certificate and key when etcd asks for one.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // Each request (connect, send, answer).
  std::chrono::milliseconds timeout{5000};
};

class Client {
 public:
  static Result<std::unique_ptr<Client>> Create(ClientOptions options);
  ~Client();

  // POSTs `body` to `path` and returns etcd's answer. An error answer of
  // etcd's ({"error": ..., "code": N}) becomes a Status by its gRPC code.
  Result<boost::json::object> Call(std::string_view path, const boost::json::object& body);

  // POSTs `body` to `path` and hands each streamed message to `on_message`
  // until it returns false, `stop` is set (looked at every `poll`) or the
  // stream breaks (the Status says why). The connection is the call's own.
  Status Stream(std::string_view path, const boost::json::object& body,
                const std::function<bool(boost::json::object&)>& on_message,
                const std::atomic<bool>& stop,
                std::chrono::milliseconds poll = std::chrono::milliseconds(200));

  const ClientOptions& options() const { return options_; }

 private:
  struct Endpoint;
  struct Connection;
  explicit Client(ClientOptions options);
  Status Open(Connection& c, const Endpoint& endpoint,
              std::chrono::steady_clock::time_point deadline);
  // An idle connection to the current endpoint, or a new one (trying the
  // endpoints in turn).
  Result<std::unique_ptr<Connection>> Take(std::chrono::steady_clock::time_point deadline,
                                           bool fresh);
  void Give(std::unique_ptr<Connection> c);

  const ClientOptions options_;
  struct Tls;
  std::unique_ptr<Tls> tls_;
  std::vector<Endpoint> endpoints_;
  std::atomic<size_t> current_{0};  // the endpoint that answered last
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_
};

// Base64 of `bytes`, as etcd's JSON gateway carries keys and values.
std::string B64(std::string_view bytes);
// The bytes of base64 `text` ("" when it is not base64).
std::string UnB64(std::string_view text);
// An int64 field of an answer (grpc-gateway writes them as strings); 0 when absent.
int64_t Int(const boost::json::object& o, std::string_view field);

}  // namespace berth::store::etcd
