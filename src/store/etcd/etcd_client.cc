#include "store/etcd/etcd_client.h"

#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "rpc.grpc.pb.h"

namespace berth::store::etcd {

namespace pb = etcdserverpb;
using Deadline = std::chrono::system_clock::time_point;

namespace {

std::string Seconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

Result<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) {
    return Status::BadRequest("etcd TLS: " + std::string(what) + " " + path + ": cannot read it");
  }
  return text.str();
}

}  // namespace

struct Client::Impl {
  struct Endpoint {
    std::string url;
    std::vector<std::unique_ptr<pb::KV::Stub>> kv;  // a client per channel (ClientOptions::channels)
    std::unique_ptr<pb::Lease::Stub> lease;
    std::unique_ptr<pb::Watch::Stub> watch;  // its channel is the watches' and leases' alone
  };
  std::vector<Endpoint> endpoints;
  std::atomic<size_t> current{0};   // the endpoint that answered last
  std::atomic<size_t> next_kv{0};   // round robin over an endpoint's channels
  std::chrono::milliseconds timeout{0};

  // TxnAsync calls in flight (~Client and WaitForCalls wait for none).
  std::mutex calls_mu;
  std::condition_variable calls_done;
  int64_t calls = 0;  // guarded by calls_mu

  // One TxnAsync call, across its attempts (one per endpoint tried).
  struct AsyncTxn {
    pb::TxnRequest request;
    pb::TxnResponse response;
    Deadline deadline;
    size_t start = 0;  // the endpoint tried first
    // Each attempt's context, kept until the call is over.
    std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
    std::function<void(Status, const pb::TxnResponse&)> done;
  };

  // Sends `call` to the endpoint after `attempt` others; on "not reached",
  // while time is left, to the next one (as Run does).
  void StartTxn(std::shared_ptr<AsyncTxn> call, size_t attempt) {
    const size_t index = (call->start + attempt) % endpoints.size();
    Endpoint& e = endpoints[index];
    call->contexts.push_back(std::make_unique<grpc::ClientContext>());
    grpc::ClientContext* context = call->contexts.back().get();
    context->set_deadline(call->deadline);
    call->response.Clear();
    Kv(e).async()->Txn(context, &call->request, &call->response, [this, call, attempt, index](grpc::Status s) {
      if (s.ok()) {
        if (attempt > 0) current.store(index, std::memory_order_relaxed);
        EndTxn(*call, Status::Ok());
        return;
      }
      if (s.error_code() == grpc::StatusCode::UNAVAILABLE && attempt + 1 < endpoints.size() &&
          std::chrono::system_clock::now() < call->deadline) {
        StartTxn(call, attempt + 1);
        return;
      }
      EndTxn(*call, FromGrpc(s, endpoints[index]));
    });
  }

  void EndTxn(AsyncTxn& call, Status status) {
    call.done(std::move(status), call.response);
    std::lock_guard lk(calls_mu);
    if (--calls == 0) calls_done.notify_all();
  }

  std::mutex watches_mu;
  bool watches_canceled = false;               // guarded by watches_mu
  std::set<grpc::ClientContext*> watches;      // guarded by watches_mu

  // A gRPC error as berth's Status.
  Status FromGrpc(const grpc::Status& s, const Endpoint& e) const {
    const std::string message = "etcd " + e.url + ": " + s.error_message();
    switch (s.error_code()) {
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        return Status(StatusCode::kTimeout,
                      "etcd " + e.url + ": no answer within " + Seconds(timeout));
      case grpc::StatusCode::OUT_OF_RANGE:  // "mvcc: required revision has been compacted"
        return Status::Expired(s.error_message());
      case grpc::StatusCode::UNAVAILABLE:
      case grpc::StatusCode::CANCELLED:
        return Status::Unavailable(message);
      case grpc::StatusCode::INVALID_ARGUMENT:
        return Status::BadRequest(message);
      default:
        return Status::Internal(message);
    }
  }

  // Runs `call(endpoint, context)` on the current endpoint and, while etcd
  // cannot be reached there and time is left, on the others in turn.
  template <typename Call>
  Status Run(Call&& call) {
    const Deadline deadline = std::chrono::system_clock::now() + timeout;
    const size_t start = current.load(std::memory_order_relaxed);
    Status last = Status::Unavailable("etcd: no server");
    for (size_t i = 0; i < endpoints.size(); ++i) {
      const size_t index = (start + i) % endpoints.size();
      Endpoint& e = endpoints[index];
      grpc::ClientContext context;
      context.set_deadline(deadline);
      grpc::Status s = call(e, context);
      if (s.ok()) {
        if (i > 0) current.store(index, std::memory_order_relaxed);
        return Status::Ok();
      }
      last = FromGrpc(s, e);
      // Only "not reached" moves on: any other answer is etcd's.
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE) return last;
      if (std::chrono::system_clock::now() >= deadline) break;
    }
    return last;
  }

  pb::KV::Stub& Kv(Endpoint& e) {
    return *e.kv[next_kv.fetch_add(1, std::memory_order_relaxed) % e.kv.size()];
  }
};

Client::Client(ClientOptions options) : options_(std::move(options)), impl_(new Impl) {}

Client::~Client() { WaitForCalls(); }

Result<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  if (options.endpoints.empty()) return Status::BadRequest("--etcd-servers: no server given");
  // gRPC's locks are Abseil's, built (as Debian builds them) with deadlock
  // detection on: a lock taken while holding another is checked against one
  // process-wide lock graph. Under etcd's write load that was ~1 % of the
  // server's CPU (perf: absl's GraphCycles), spent checking gRPC's own
  // locks; it is off.
  static std::once_flag once;
  std::call_once(once, [] { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); });
  if (options.channels < 1) options.channels = 1;
  std::unique_ptr<Client> c(new Client(std::move(options)));
  const ClientOptions& o = c->options_;
  c->impl_->timeout = o.timeout;

  std::shared_ptr<grpc::ChannelCredentials> tls;
  auto tls_credentials = [&]() -> Result<std::shared_ptr<grpc::ChannelCredentials>> {
    grpc::SslCredentialsOptions ssl;
    if (!o.ca_file.empty()) {
      auto ca = ReadFile(o.ca_file, "CA file");
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = std::move(ca).value();
    }
    if (!o.cert_file.empty() || !o.key_file.empty()) {
      if (o.cert_file.empty() || o.key_file.empty()) {
        return Status::BadRequest("etcd TLS: a client certificate needs its key, and a key its "
                                  "certificate (--etcd-certfile, --etcd-keyfile)");
      }
      auto cert = ReadFile(o.cert_file, "certificate file");
      if (!cert.ok()) return cert.status();
      auto key = ReadFile(o.key_file, "key file");
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = std::move(cert).value();
      ssl.pem_private_key = std::move(key).value();
    }
    return grpc::SslCredentials(ssl);
  };

  for (const std::string& raw : o.endpoints) {
    std::string_view url = raw;
    while (!url.empty() && url.back() == '/') url.remove_suffix(1);
    bool https = false;
    if (url.starts_with("http://")) {
      url.remove_prefix(7);
    } else if (url.starts_with("https://")) {
      url.remove_prefix(8);
      https = true;
    } else {
      return Status::BadRequest("--etcd-servers: " + raw + ": expected http:// or https://");
    }
    const size_t colon = url.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == url.size() ||
        url.find('/') != std::string_view::npos) {
      return Status::BadRequest("--etcd-servers: " + raw + ": expected scheme://host:port");
    }
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (https) {
      if (!tls) {
        auto made = tls_credentials();
        if (!made.ok()) return made.status();
        tls = std::move(made).value();
      }
      credentials = tls;
    } else {
      credentials = grpc::InsecureChannelCredentials();
    }
    auto channel = [&] {
      grpc::ChannelArguments args;
      // Each channel its own connection (subchannels are shared otherwise).
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      // An etcd back after a restart is found within a second, not after
      // gRPC's default backoff (up to two minutes). (The minimum
      // "backoff" is gRPC's connect timeout, 20 s: left as it is.)
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      // A connection that died silently (the watch's) is noticed; etcd
      // accepts pings every 5 s while a stream is open (its
      // --grpc-keepalive-min-time).
      args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10'000);
      args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10'000);
      args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
      // A list of the whole prefix is bounded by its page limit, not by
      // gRPC's 4 MiB default.
      args.SetMaxReceiveMessageSize(-1);
      return grpc::CreateCustomChannel(std::string(url), credentials, args);
    };
    Impl::Endpoint e;
    e.url = std::string(raw);
    for (int i = 0; i < o.channels; ++i) e.kv.push_back(pb::KV::NewStub(channel()));
    auto watch_channel = channel();
    e.watch = pb::Watch::NewStub(watch_channel);
    e.lease = pb::Lease::NewStub(watch_channel);
    c->impl_->endpoints.push_back(std::move(e));
  }
  return c;
}

Status Client::Range(const pb::RangeRequest& request, pb::RangeResponse* response) {
  return impl_->Run([&](Impl::Endpoint& e, grpc::ClientContext& context) {
    return impl_->Kv(e).Range(&context, request, response);
  });
}

Status Client::Txn(const pb::TxnRequest& request, pb::TxnResponse* response) {
  return impl_->Run([&](Impl::Endpoint& e, grpc::ClientContext& context) {
    return impl_->Kv(e).Txn(&context, request, response);
  });
}

void Client::TxnAsync(pb::TxnRequest request, std::function<void(Status, const pb::TxnResponse&)> done) {
  auto call = std::make_shared<Impl::AsyncTxn>();
  call->request = std::move(request);
  call->deadline = std::chrono::system_clock::now() + impl_->timeout;
  call->start = impl_->current.load(std::memory_order_relaxed);
  call->done = std::move(done);
  {
    std::lock_guard lk(impl_->calls_mu);
    ++impl_->calls;
  }
  impl_->StartTxn(std::move(call), 0);
}

void Client::WaitForCalls() {
  std::unique_lock lk(impl_->calls_mu);
  impl_->calls_done.wait(lk, [&] { return impl_->calls == 0; });
}

Status Client::Compact(int64_t revision) {
  pb::CompactionRequest request;
  request.set_revision(revision);
  pb::CompactionResponse response;
  return impl_->Run([&](Impl::Endpoint& e, grpc::ClientContext& context) {
    return impl_->Kv(e).Compact(&context, request, &response);
  });
}

Result<int64_t> Client::LeaseGrant(int64_t ttl_seconds) {
  pb::LeaseGrantRequest request;
  request.set_ttl(ttl_seconds);
  pb::LeaseGrantResponse response;
  Status s = impl_->Run([&](Impl::Endpoint& e, grpc::ClientContext& context) {
    return e.lease->LeaseGrant(&context, request, &response);
  });
  if (!s.ok()) return s;
  if (!response.error().empty()) return Status::Internal("etcd: lease: " + response.error());
  return static_cast<int64_t>(response.id());
}

Status Client::Watch(const pb::WatchCreateRequest& create,
                     const std::function<bool(pb::WatchResponse&)>& on_message) {
  const size_t index = impl_->current.load(std::memory_order_relaxed);
  Impl::Endpoint& e = impl_->endpoints[index];
  grpc::ClientContext context;
  {
    std::lock_guard lk(impl_->watches_mu);
    if (impl_->watches_canceled) return Status::Ok();
    impl_->watches.insert(&context);
  }
  bool stopped = false;  // by on_message
  bool got_any = false;
  grpc::Status finished;
  {
    auto stream = e.watch->Watch(&context);
    pb::WatchRequest request;
    *request.mutable_create_request() = create;
    if (stream->Write(request)) {
      pb::WatchResponse response;
      while (stream->Read(&response)) {
        got_any = true;
        if (!on_message(response)) {
          stopped = true;
          context.TryCancel();
          break;
        }
      }
    }
    finished = stream->Finish();
  }
  bool canceled;
  {
    std::lock_guard lk(impl_->watches_mu);
    impl_->watches.erase(&context);
    canceled = impl_->watches_canceled;
  }
  if (stopped || canceled) return Status::Ok();
  if (!got_any && impl_->endpoints.size() > 1 &&
      finished.error_code() == grpc::StatusCode::UNAVAILABLE) {
    // Not reached: the next attempt (the caller's) goes to the next endpoint.
    size_t expected = index;
    impl_->current.compare_exchange_strong(expected, (index + 1) % impl_->endpoints.size());
  }
  if (finished.ok()) return Status::Unavailable("etcd " + e.url + ": watch ended");
  return impl_->FromGrpc(finished, e);
}

void Client::CancelWatches() {
  std::lock_guard lk(impl_->watches_mu);
  impl_->watches_canceled = true;
  for (grpc::ClientContext* c : impl_->watches) c->TryCancel();
}

}  // namespace berth::store::etcd
