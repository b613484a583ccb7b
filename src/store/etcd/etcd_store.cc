#include "store/etcd/etcd_store.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "api/kinds.h"
#include "rpc.pb.h"

namespace berth::store {

namespace pb = etcdserverpb;
using namespace std::chrono_literals;

namespace {

// kube's lease reuse: Events written within this long (at most) share one lease.
constexpr auto kLeaseReuse = 60s;
// kube's cacher waits this long for its cache to reach a revision a client names.
constexpr auto kWaitFresh = 3s;

// An object from an etcd value, at `revision`; nullptr when it does not decode.
ObjectPtr DecodeValue(const std::string& value, int64_t revision, std::string_view etcd_key) {
  auto decoded = api::Object::Decode(value);
  if (!decoded.ok()) {
    std::fprintf(stderr, "berth: etcd: %.*s at revision %lld does not decode: %s\n",
                 static_cast<int>(etcd_key.size()), etcd_key.data(),
                 static_cast<long long>(revision), decoded.status().message().c_str());
    return nullptr;
  }
  return decoded.value()->WithResourceVersion(revision);
}

std::string Conflict() {
  return "the object has been modified; please apply your changes to the latest version and "
         "try again";
}

}  // namespace

EtcdStore::EtcdStore(Options options) : options_(std::move(options)) {
  std::string prefix = options_.prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  range_start_ = prefix + "/";
  range_end_ = prefix + "0";  // '/' + 1
  event_prefix_ = api::StoragePrefix(api::Kind::kEvent);
}

EtcdStore::~EtcdStore() { Close(); }

std::string EtcdStore::EtcdKey(std::string_view storage_key) const {
  // "/core/<resource>/..." → "<prefix>/<resource>/..."; other groups keep theirs.
  std::string out = range_start_;
  out.pop_back();
  if (storage_key.starts_with("/core/")) storage_key.remove_prefix(5);
  out += storage_key;
  return out;
}

std::string EtcdStore::StorageKeyOf(std::string_view etcd_key) {
  std::string_view rest = etcd_key.substr(range_start_.size() - 1);  // "/<resource or group>/..."
  std::string core = "/core" + std::string(rest);
  if (cache_->Get(core).ok()) return core;
  return std::string(rest);
}

Result<std::unique_ptr<EtcdStore>> EtcdStore::Open(Options options) {
  if (options.history < 1) return Status::BadRequest("history must be at least 1 revision");
  std::unique_ptr<EtcdStore> store(new EtcdStore(std::move(options)));
  auto client = etcd::Client::Create(store->options_.client);
  if (!client.ok()) return client.status();
  store->client_ = std::move(client).value();
  MemoryStore::Options cache_options;
  cache_options.history = store->options_.history;
  auto cache = MemoryStore::Open(cache_options);
  if (!cache.ok()) return cache.status();
  store->cache_ = std::move(cache).value();
  if (auto loaded = store->Load(); !loaded.ok()) return loaded.status();
  store->feeder_ = std::thread([s = store.get()] { s->Feed(); });
  if (store->options_.compaction_interval.count() > 0) {
    store->compactor_ = std::thread([s = store.get()] { s->Compactor(); });
  }
  store->overdue_ = std::thread([s = store.get()] { s->Overdue(); });
  return store;
}

void EtcdStore::Close() {
  if (closed_.exchange(true)) return;
  { std::lock_guard lk(stop_mu_); }
  stop_cv_.notify_all();
  if (client_) client_->CancelWatches();
  // Asynchronous writes still in flight end (each within the client's
  // timeout) before what their answers touch goes.
  if (client_) client_->WaitForCalls();
  if (feeder_.joinable()) feeder_.join();
  if (compactor_.joinable()) compactor_.join();
  if (overdue_.joinable()) overdue_.join();
  { std::lock_guard lk(applied_mu_); }
  applied_cv_.notify_all();
  if (cache_) cache_->Close();
}

Result<int64_t> EtcdStore::Load() {
  // One range of the prefix, paged by key so no answer grows without bound,
  // every page at the first page's revision.
  std::vector<ObjectPtr> objects;
  int64_t revision = 0;
  std::string from = range_start_;
  while (true) {
    pb::RangeRequest request;
    request.set_key(from);
    request.set_range_end(range_end_);
    request.set_limit(10000);
    if (revision > 0) request.set_revision(revision);
    pb::RangeResponse answer;
    if (Status s = client_->Range(request, &answer); !s.ok()) return s;
    if (revision == 0) revision = answer.header().revision();
    std::string last;
    for (const mvccpb::KeyValue& kv : answer.kvs()) {
      last = kv.key();
      if (ObjectPtr o = DecodeValue(kv.value(), kv.mod_revision(), kv.key())) {
        objects.push_back(std::move(o));
      }
    }
    if (!answer.more() || last.empty()) break;
    from = last + '\0';
  }
  cache_->ResetReplica(objects, revision);
  {
    std::lock_guard lk(applied_mu_);
    applied_ = std::max(applied_, revision);
  }
  applied_cv_.notify_all();
  return revision;
}

void EtcdStore::Feed() {
  auto backoff = 100ms;
  bool reload = false;
  while (!closed_.load()) {
    if (reload) {
      auto loaded = Load();
      if (!loaded.ok()) {
        std::unique_lock lk(stop_mu_);
        stop_cv_.wait_for(lk, backoff, [&] { return closed_.load(); });
        backoff = std::min<std::chrono::milliseconds>(backoff * 2, 2s);
        continue;
      }
      reload = false;
    }
    pb::WatchCreateRequest create;
    create.set_key(range_start_);
    create.set_range_end(range_end_);
    create.set_start_revision(cache_->CurrentRevision() + 1);
    create.set_progress_notify(true);
    std::vector<MemoryStore::ReplicaChange> changes;
    Status ended = client_->Watch(create, [&](pb::WatchResponse& result) {
      backoff = 100ms;
      if (result.compact_revision() > 0) {
        reload = true;  // our revision is gone: list again
        return false;
      }
      if (result.canceled()) return false;
      changes.clear();
      int64_t through = 0;
      if (result.events_size() > 0) {
        for (mvccpb::Event& event : *result.mutable_events()) {
          if (!event.has_kv()) continue;
          const mvccpb::KeyValue& kv = event.kv();
          const int64_t revision = kv.mod_revision();
          through = std::max(through, revision);
          {
            std::lock_guard lk(pending_mu_);
            auto it = pending_.find(revision);
            if (it != pending_.end()) {
              changes.push_back(std::move(it->second));
              pending_.erase(pending_.begin(), std::next(it));
              continue;
            }
          }
          MemoryStore::ReplicaChange change;
          change.revision = revision;
          if (event.type() == mvccpb::Event::DELETE) {
            // The watch asks for no previous values (etcd would read one
            // per event): the cache knows the key.
            change.key = StorageKeyOf(kv.key());
          } else {
            change.object = DecodeValue(kv.value(), revision, kv.key());
            if (!change.object) continue;
            change.key = change.object->StorageKey();
          }
          changes.push_back(std::move(change));
        }
      } else if (!result.created()) {
        // A progress notification: nothing of ours changed up to its revision.
        through = result.header().revision();
      }
      if (changes.empty() && through == 0) return true;
      cache_->ApplyReplicated(changes, through);
      {
        std::lock_guard lk(applied_mu_);
        applied_ = std::max(applied_, cache_->CurrentRevision());
      }
      applied_cv_.notify_all();
      return !closed_.load();
    });
    if (closed_.load()) break;
    if (!ended.ok() || !reload) {
      if (!ended.ok()) {
        std::fprintf(stderr, "berth: etcd: cache watch: %s (resuming)\n", ended.message().c_str());
      }
      std::unique_lock lk(stop_mu_);
      stop_cv_.wait_for(lk, backoff, [&] { return closed_.load(); });
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, 2s);
    }
  }
}

void EtcdStore::Compactor() {
  int64_t previous = 0;
  while (true) {
    {
      std::unique_lock lk(stop_mu_);
      if (stop_cv_.wait_for(lk, options_.compaction_interval, [&] { return closed_.load(); }))
        return;
    }
    // kube's compactor: compact at what was current one interval ago, so a
    // whole interval of history stays for watches to resume in.
    if (previous > 0) {
      Status s = Compact(previous);
      if (!s.ok() && s.code() != StatusCode::kExpired) {
        std::fprintf(stderr, "berth: etcd: compaction at %lld: %s\n",
                     static_cast<long long>(previous), s.message().c_str());
      }
    }
    pb::RangeRequest request;
    request.set_key(range_start_);
    request.set_limit(1);
    request.set_keys_only(true);
    pb::RangeResponse answer;
    if (client_->Range(request, &answer).ok()) previous = answer.header().revision();
  }
}

Status EtcdStore::Compact(int64_t revision) {
  return client_->Compact(revision);
}

int64_t EtcdStore::EventLease() {
  if (options_.event_ttl.count() <= 0) return 0;
  std::lock_guard lk(lease_mu_);
  const auto now = std::chrono::steady_clock::now();
  // kube's lease manager: a lease is shared for 5% of the TTL, at most a minute.
  const int64_t reuse =
      std::min<int64_t>(options_.event_ttl.count() / 20, std::chrono::seconds(kLeaseReuse).count());
  if (lease_id_ != 0 && now - lease_granted_ < std::chrono::seconds(reuse)) return lease_id_;
  // Granted for the TTL plus the reuse window, so the last Event to share
  // it still lives out its TTL.
  const int64_t ttl = options_.event_ttl.count() + reuse;
  auto granted = client_->LeaseGrant(ttl);
  if (!granted.ok()) return 0;
  lease_id_ = granted.value();
  lease_granted_ = now;
  return lease_id_;
}

void EtcdStore::WhenVisible(int64_t revision, std::function<void()> done) {
  if (cache_->CurrentRevision() >= revision) {
    done();
    return;
  }
  auto called = std::make_shared<std::atomic<bool>>(false);
  auto shared = std::make_shared<std::function<void()>>(std::move(done));
  {
    std::unique_lock lk(callbacks_mu_);
    if (callbacks_closed_) {
      // Closed: nothing will call it later (an asynchronous write answered
      // while the store closed).
      lk.unlock();
      (*shared)();
      return;
    }
    callbacks_.push_back({std::chrono::steady_clock::now() + options_.client.timeout, called,
                          [shared] { (*shared)(); }});
  }
  cache_->WhenVisible(revision, [called, shared] {
    if (!called->exchange(true)) (*shared)();
  });
}

void EtcdStore::Overdue() {
  while (true) {
    {
      std::unique_lock lk(stop_mu_);
      if (stop_cv_.wait_for(lk, 200ms, [&] { return closed_.load(); })) break;
    }
    const auto now = std::chrono::steady_clock::now();
    std::vector<Callback> due;
    {
      std::lock_guard lk(callbacks_mu_);
      auto late = std::partition(callbacks_.begin(), callbacks_.end(), [&](const Callback& c) {
        return !c.called->load() && c.deadline > now;
      });
      std::move(late, callbacks_.end(), std::back_inserter(due));
      callbacks_.erase(late, callbacks_.end());
    }
    for (Callback& c : due) {
      if (!c.called->exchange(true)) c.done();
    }
  }
  // Closing: nobody waits any longer.
  std::lock_guard lk(callbacks_mu_);
  callbacks_closed_ = true;
  for (Callback& c : callbacks_) {
    if (!c.called->exchange(true)) c.done();
  }
  callbacks_.clear();
}

bool EtcdStore::WaitCache(int64_t revision, std::chrono::milliseconds timeout) {
  std::unique_lock lk(applied_mu_);
  return applied_cv_.wait_for(lk, timeout, [&] {
    return closed_.load() || applied_ >= revision;
  }) && applied_ >= revision;
}

pb::TxnRequest EtcdStore::WriteTxn(Op op, const std::string& key, const std::string* value,
                                   int64_t expected_revision) {
  const std::string ekey = EtcdKey(key);
  pb::TxnRequest txn;
  pb::Compare* compare = txn.add_compare();
  compare->set_key(ekey);
  if (op == Op::kCreate) {
    compare->set_result(pb::Compare::EQUAL);
    compare->set_target(pb::Compare::CREATE);
    compare->set_create_revision(0);
  } else if (expected_revision > 0) {
    compare->set_result(pb::Compare::EQUAL);
    compare->set_target(pb::Compare::MOD);
    compare->set_mod_revision(expected_revision);
  } else {
    compare->set_result(pb::Compare::GREATER);
    compare->set_target(pb::Compare::CREATE);
    compare->set_create_revision(0);
  }
  if (value) {
    pb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(ekey);
    put->set_value(*value);
    if (key.starts_with(event_prefix_)) {
      if (int64_t lease = EventLease()) put->set_lease(lease);
    }
  } else {
    pb::DeleteRangeRequest* del = txn.add_success()->mutable_request_delete_range();
    del->set_key(ekey);
    del->set_prev_kv(true);
  }
  txn.add_failure()->mutable_request_range()->set_key(ekey);
  return txn;
}

Result<ObjectPtr> EtcdStore::Settle(Op op, const std::string& key, const ObjectPtr& object,
                                    const api::Object::EncodedTemplate& encoded, const pb::TxnResponse& answer,
                                    int64_t& visible_at) {
  visible_at = 0;
  const int64_t revision = answer.header().revision();
  if (!answer.succeeded()) {
    const mvccpb::KeyValue* current = nullptr;
    if (answer.responses_size() > 0 && answer.responses(0).has_response_range() &&
        answer.responses(0).response_range().kvs_size() > 0) {
      current = &answer.responses(0).response_range().kvs(0);
    }
    if (current) visible_at = current->mod_revision();
    if (op == Op::kCreate) return Status::AlreadyExists("object already exists: " + key);
    if (!current) return Status::NotFound("object not found: " + key);
    return Status::Conflict(Conflict());
  }

  ObjectPtr result;
  MemoryStore::ReplicaChange change;
  change.key = key;
  change.revision = revision;
  if (object) {
    result = object->WithResourceVersion(revision, encoded.At(revision));
    change.object = result;
  } else {
    const mvccpb::KeyValue* prev = nullptr;
    if (answer.responses_size() > 0 && answer.responses(0).has_response_delete_range() &&
        answer.responses(0).response_delete_range().prev_kvs_size() > 0) {
      prev = &answer.responses(0).response_delete_range().prev_kvs(0);
    }
    if (prev) {
      auto cached = cache_->Get(key);
      if (cached.ok() && cached.value()->resource_version() == prev->mod_revision()) {
        result = cached.value()->WithResourceVersion(revision);
      } else {
        result = DecodeValue(prev->value(), revision, EtcdKey(key));
      }
    }
    if (!result) return Status::NotFound("object not found: " + key);
  }
  {
    std::lock_guard lk(pending_mu_);
    pending_.emplace(revision, std::move(change));
  }
  visible_at = revision;
  return result;
}

Result<ObjectPtr> EtcdStore::Write(Op op, const std::string& key, ObjectPtr object,
                                   int64_t expected_revision) {
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  api::Object::EncodedTemplate encoded;
  if (object) encoded = object->EncodeForRevision();
  const pb::TxnRequest txn = WriteTxn(op, key, object ? &encoded.text : nullptr, expected_revision);
  pb::TxnResponse answer;
  if (Status s = client_->Txn(txn, &answer); !s.ok()) return s;
  int64_t visible_at = 0;
  Result<ObjectPtr> result = Settle(op, key, object, encoded, answer, visible_at);
  if (!result.ok()) {
    // What refused the write is in this process's reads before the answer.
    if (visible_at > 0) WaitCache(visible_at, options_.client.timeout);
    return result;
  }
  if (auto* scope = DeferAcknowledgement::Current()) {
    scope->Deferred(visible_at);  // the caller waits with WhenVisible
  } else {
    WaitCache(visible_at, options_.client.timeout);
  }
  return result;
}

void EtcdStore::CreateAsync(ObjectPtr object, std::function<void(Result<ObjectPtr>)> done) {
  if (closed_.load()) {
    done(Status(StatusCode::kUnavailable, "the store is closed"));
    return;
  }
  struct Pending {
    std::string key;
    ObjectPtr object;
    api::Object::EncodedTemplate encoded;
    std::function<void(Result<ObjectPtr>)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->key = object->StorageKey();
  pending->encoded = object->EncodeForRevision();
  pending->object = std::move(object);
  pending->done = std::move(done);
  pb::TxnRequest txn = WriteTxn(Op::kCreate, pending->key, &pending->encoded.text, 0);
  // Answered on the client's thread: the result (or what refused it) once
  // this process's reads have it, as Create returns.
  client_->TxnAsync(std::move(txn), [this, pending](Status sent, const pb::TxnResponse& answer) {
    if (!sent.ok()) {
      pending->done(std::move(sent));
      return;
    }
    int64_t visible_at = 0;
    Result<ObjectPtr> result = Settle(Op::kCreate, pending->key, pending->object, pending->encoded, answer, visible_at);
    if (visible_at == 0) {
      pending->done(std::move(result));
      return;
    }
    WhenVisible(visible_at, [pending, result = std::move(result)] { pending->done(result); });
  });
}

Result<ObjectPtr> EtcdStore::Create(ObjectPtr object) {
  const std::string& key = object->StorageKey();
  return Write(Op::kCreate, key, std::move(object), 0);
}

Result<ObjectPtr> EtcdStore::Update(ObjectPtr object, int64_t expected_revision) {
  const std::string& key = object->StorageKey();
  return Write(Op::kUpdate, key, std::move(object), expected_revision);
}

Result<ObjectPtr> EtcdStore::Delete(const std::string& key, int64_t expected_revision) {
  return Write(Op::kDelete, key, nullptr, expected_revision);
}

Result<ObjectPtr> EtcdStore::Get(const std::string& key) { return cache_->Get(key); }

Result<ListResult> EtcdStore::List(const ListOptions& options) {
  if (options.resource_version > 0 && options.continue_token.empty()) {
    WaitCache(options.resource_version, kWaitFresh);
  }
  return cache_->List(options);
}

Result<std::unique_ptr<Watch>> EtcdStore::WatchFrom(const WatchOptions& options) {
  if (options.resource_version > 0) WaitCache(options.resource_version, kWaitFresh);
  return cache_->WatchFrom(options);
}

}  // namespace berth::store
