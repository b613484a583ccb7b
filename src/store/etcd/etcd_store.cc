#include "store/etcd/etcd_store.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "api/kinds.h"

namespace berth::store {

namespace json = boost::json;
using etcd::B64;
using etcd::Int;
using etcd::UnB64;
using namespace std::chrono_literals;

namespace {

// kube's lease reuse: Events written within this long (at most) share one lease.
constexpr auto kLeaseReuse = 60s;
// kube's cacher waits this long for its cache to reach a revision a client names.
constexpr auto kWaitFresh = 3s;

const json::object* FirstKv(const json::object& range_response) {
  const json::value* kvs = range_response.if_contains("kvs");
  if (!kvs || !kvs->is_array() || kvs->as_array().empty()) return nullptr;
  return kvs->as_array()[0].if_object();
}

// The response of the first request of a Txn's branch: responses[0].<field>.
const json::object* TxnResponse(const json::object& txn, std::string_view field) {
  const json::value* responses = txn.if_contains("responses");
  if (!responses || !responses->is_array() || responses->as_array().empty()) return nullptr;
  const json::object* first = responses->as_array()[0].if_object();
  if (!first) return nullptr;
  const json::value* r = first->if_contains(field);
  return r ? r->if_object() : nullptr;
}

std::string ValueOf(const json::object& kv) {
  const json::value* v = kv.if_contains("value");
  return v && v->is_string() ? UnB64(v->as_string()) : "";
}

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
    json::object request{{"key", B64(from)}, {"range_end", B64(range_end_)}, {"limit", 10000}};
    if (revision > 0) request["revision"] = revision;
    auto answer = client_->Call("/v3/kv/range", request);
    if (!answer.ok()) return answer.status();
    if (revision == 0) {
      if (const json::value* header = answer->if_contains("header"); header && header->is_object())
        revision = Int(header->as_object(), "revision");
    }
    std::string last;
    if (const json::value* kvs = answer->if_contains("kvs"); kvs && kvs->is_array()) {
      for (const json::value& v : kvs->as_array()) {
        const json::object* kv = v.if_object();
        if (!kv) continue;
        std::string key = UnB64(kv->at("key").as_string());
        last = key;
        if (ObjectPtr o = DecodeValue(ValueOf(*kv), Int(*kv, "mod_revision"), key)) {
          objects.push_back(std::move(o));
        }
      }
    }
    const json::value* more = answer->if_contains("more");
    if (!more || !more->is_bool() || !more->as_bool() || last.empty()) break;
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
    const int64_t from = cache_->CurrentRevision() + 1;
    json::object create{{"key", B64(range_start_)},
                        {"range_end", B64(range_end_)},
                        {"start_revision", from},
                        {"progress_notify", true}};
    json::object request{{"create_request", std::move(create)}};
    std::vector<MemoryStore::ReplicaChange> changes;
    Status ended = client_->Stream(
        "/v3/watch", request,
        [&](json::object& message) {
          const json::value* r = message.if_contains("result");
          if (!r || !r->is_object()) {
            if (message.contains("error")) return false;
            return true;
          }
          const json::object& result = r->as_object();
          backoff = 100ms;
          if (Int(result, "compact_revision") > 0) {
            reload = true;  // our revision is gone: list again
            return false;
          }
          if (const json::value* c = result.if_contains("canceled");
              c && c->is_bool() && c->as_bool()) {
            return false;
          }
          changes.clear();
          int64_t through = 0;
          const json::value* events = result.if_contains("events");
          if (events && events->is_array()) {
            for (const json::value& e : events->as_array()) {
              const json::object* event = e.if_object();
              if (!event) continue;
              const json::object* kv =
                  event->if_contains("kv") ? event->at("kv").if_object() : nullptr;
              if (!kv) continue;
              const int64_t revision = Int(*kv, "mod_revision");
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
              const std::string etcd_key = UnB64(kv->at("key").as_string());
              const bool deleted = event->if_contains("type") && event->at("type").is_string() &&
                                   event->at("type").as_string() == "DELETE";
              MemoryStore::ReplicaChange change;
              change.revision = revision;
              if (deleted) {
                // The watch asks for no previous values (etcd would read
                // one per event): the cache knows the key.
                change.key = StorageKeyOf(etcd_key);
              } else {
                change.object = DecodeValue(ValueOf(*kv), revision, etcd_key);
                if (!change.object) continue;
                change.key = change.object->StorageKey();
              }
              changes.push_back(std::move(change));
            }
          } else if (const json::value* h = result.if_contains("header");
                     h && h->is_object() && !result.contains("created")) {
            // A progress notification: nothing of ours changed up to its revision.
            through = Int(h->as_object(), "revision");
          }
          if (changes.empty() && through == 0) return true;
          cache_->ApplyReplicated(changes, through);
          {
            std::lock_guard lk(applied_mu_);
            applied_ = std::max(applied_, cache_->CurrentRevision());
          }
          applied_cv_.notify_all();
          return !closed_.load();
        },
        closed_);
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
    auto answer =
        client_->Call("/v3/kv/range",
                      json::object{{"key", B64(range_start_)}, {"limit", 1}, {"keys_only", true}});
    if (answer.ok()) {
      if (const json::value* h = answer->if_contains("header"); h && h->is_object())
        previous = Int(h->as_object(), "revision");
    }
  }
}

Status EtcdStore::Compact(int64_t revision) {
  auto answer = client_->Call("/v3/kv/compaction", json::object{{"revision", revision}});
  return answer.ok() ? Status::Ok() : answer.status();
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
  auto answer = client_->Call("/v3/lease/grant", json::object{{"TTL", ttl}});
  if (!answer.ok()) return 0;
  lease_id_ = Int(*answer, "ID");
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
    std::lock_guard lk(callbacks_mu_);
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

Result<ObjectPtr> EtcdStore::Write(Op op, const std::string& key, ObjectPtr object,
                                   int64_t expected_revision) {
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  const std::string ekey = EtcdKey(key);
  const std::string ekey64 = B64(ekey);
  api::Object::EncodedTemplate encoded;
  if (object) encoded = object->EncodeForRevision();

  json::array compare;
  if (op == Op::kCreate) {
    compare.push_back(json::object{
        {"key", ekey64}, {"result", "EQUAL"}, {"target", "CREATE"}, {"create_revision", 0}});
  } else if (expected_revision > 0) {
    compare.push_back(json::object{{"key", ekey64},
                                   {"result", "EQUAL"},
                                   {"target", "MOD"},
                                   {"mod_revision", expected_revision}});
  } else {
    compare.push_back(json::object{
        {"key", ekey64}, {"result", "GREATER"}, {"target", "CREATE"}, {"create_revision", 0}});
  }
  json::object success;
  if (object) {
    json::object put{{"key", ekey64}, {"value", B64(encoded.text)}};
    if (key.starts_with(event_prefix_)) {
      if (int64_t lease = EventLease()) put["lease"] = lease;
    }
    success["request_put"] = std::move(put);
  } else {
    success["request_delete_range"] = json::object{{"key", ekey64}, {"prev_kv", true}};
  }
  json::object txn{
      {"compare", std::move(compare)},
      {"success", json::array{std::move(success)}},
      {"failure", json::array{json::object{{"request_range", json::object{{"key", ekey64}}}}}}};
  auto answer = client_->Call("/v3/kv/txn", txn);
  if (!answer.ok()) return answer.status();
  const json::value* h = answer->if_contains("header");
  const int64_t revision = h && h->is_object() ? Int(h->as_object(), "revision") : 0;
  const json::value* ok = answer->if_contains("succeeded");
  if (!ok || !ok->is_bool() || !ok->as_bool()) {
    const json::object* range = TxnResponse(*answer, "response_range");
    const json::object* current = range ? FirstKv(*range) : nullptr;
    if (current) WaitCache(Int(*current, "mod_revision"), options_.client.timeout);
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
    const json::object* deleted = TxnResponse(*answer, "response_delete_range");
    const json::object* prev = nullptr;
    if (deleted) {
      if (const json::value* p = deleted->if_contains("prev_kvs");
          p && p->is_array() && !p->as_array().empty())
        prev = p->as_array()[0].if_object();
    }
    if (prev) {
      auto cached = cache_->Get(key);
      if (cached.ok() && cached.value()->resource_version() == Int(*prev, "mod_revision")) {
        result = cached.value()->WithResourceVersion(revision);
      } else {
        result = DecodeValue(ValueOf(*prev), revision, ekey);
      }
    }
    if (!result) return Status::NotFound("object not found: " + key);
  }
  {
    std::lock_guard lk(pending_mu_);
    pending_.emplace(revision, std::move(change));
  }
  if (auto* scope = DeferAcknowledgement::Current()) {
    scope->Deferred(revision);  // the caller waits with WhenVisible
  } else {
    WaitCache(revision, options_.client.timeout);
  }
  return result;
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
