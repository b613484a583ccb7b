#pragma once
// A client of etcd v3's gRPC API (the services KV, Watch and Lease of
// etcdserverpb, proto/rpc.proto): the calls the etcd store makes, on gRPC's
// C++ library over HTTP/2, plain or TLS (client certificates too).
//
// Several endpoints: each has channels of its own; a call etcd cannot be
// reached for on one tries the next, and the one that answered is used
// first from then on. Unary calls may be spread over several channels per
// endpoint (each an HTTP/2 connection); one is the default: four measured
// no faster and cost more CPU (BENCHMARKS.md, "The etcd backend").
//
// Every call is bounded by the client's timeout: an etcd that is down gives
// Unavailable (503) at once, one that does not answer Timeout (504) once the
// timeout passes. Thread-safe.
//
// The messages are protobuf's generated classes; only the etcd store's own
// sources include their headers (rpc.pb.h, generated into the build
// directory), so they are only declared here.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"

namespace etcdserverpb {
class RangeRequest;
class RangeResponse;
class TxnRequest;
class TxnResponse;
class WatchCreateRequest;
class WatchResponse;
}  // namespace etcdserverpb

namespace berth::store::etcd {

struct ClientOptions {
  // http://host:port or https://host:port (kube's --etcd-servers).
  std::vector<std::string> endpoints;
  // TLS (https endpoints): the CA that signed etcd's certificate (else the
  // system's), and a client certificate and key when etcd asks for one.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // Each call (connect, send, answer).
  std::chrono::milliseconds timeout{5000};
  // HTTP/2 connections per endpoint that unary calls are spread over.
  int channels = 1;
};

class Client {
 public:
  static Result<std::unique_ptr<Client>> Create(ClientOptions options);
  ~Client();

  // KV.Range, KV.Txn: etcd's answer in `response`. An error of etcd's
  // becomes a Status by its gRPC code (OutOfRange, a compacted revision:
  // Expired).
  Status Range(const etcdserverpb::RangeRequest& request, etcdserverpb::RangeResponse* response);
  Status Txn(const etcdserverpb::TxnRequest& request, etcdserverpb::TxnResponse* response);
  // KV.Txn without holding the calling thread: `done` runs once with what
  // Txn would return and etcd's answer, on a thread of gRPC's (it must not
  // wait for anything but locks). Endpoints and the timeout as for Txn.
  void TxnAsync(etcdserverpb::TxnRequest request,
                std::function<void(Status, const etcdserverpb::TxnResponse&)> done);
  // Returns once no TxnAsync call is in flight (each ends within the timeout).
  void WaitForCalls();
  // KV.Compact: etcd's history up to `revision` is dropped.
  Status Compact(int64_t revision);
  // Lease.LeaseGrant: a new lease of `ttl_seconds`; its ID.
  Result<int64_t> LeaseGrant(int64_t ttl_seconds);

  // Watch.Watch: opens a stream with `create` and hands each response to
  // `on_message` until it returns false (then Ok), CancelWatches is called
  // (Ok) or the stream breaks (the Status says why).
  Status Watch(const etcdserverpb::WatchCreateRequest& create,
               const std::function<bool(etcdserverpb::WatchResponse&)>& on_message);
  // Ends every Watch in progress, and makes later ones return at once.
  void CancelWatches();

  const ClientOptions& options() const { return options_; }

 private:
  struct Impl;
  explicit Client(ClientOptions options);

  const ClientOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::store::etcd
