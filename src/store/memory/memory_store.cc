#include "store/memory/memory_store.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

namespace berth::store {
namespace {

// Watchers scan at most this many revisions per call, so one call never holds
// the index lock for long.
constexpr int64_t kScanLimit = 4096;

// Continue tokens are opaque to clients: "<revision>:<last key>" in base64url.
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
    out += kB64[n & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::strchr(kB64, c);
    if (c == '\0' || p == nullptr) return std::nullopt;
    acc = (acc << 6) | uint32_t(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::string EncodeContinue(int64_t revision, std::string_view last_key) {
  std::string raw = std::to_string(revision);
  raw += ':';
  raw += last_key;
  return Base64UrlEncode(raw);
}

bool DecodeContinue(std::string_view token, int64_t* revision, std::string* last_key) {
  auto raw = Base64UrlDecode(token);
  if (!raw) return false;
  auto colon = raw->find(':');
  if (colon == std::string::npos) return false;
  auto rv = api::ParseResourceVersion(std::string_view(*raw).substr(0, colon));
  if (!rv || *rv == 0) return false;
  *revision = *rv;
  *last_key = raw->substr(colon + 1);
  return true;
}

bool Matches(const Predicate& predicate, const ObjectPtr& object) {
  return object && (!predicate || predicate(*object));
}

// Hands items from the thread that makes them to one consumer thread, in
// order, in batches: recovery reads, checks and frames log records on one core
// while the index is built on another.
template <typename T>
class Pipeline {
 public:
  explicit Pipeline(std::function<void(std::vector<T>&)> consume) : consume_(std::move(consume)) {
    batch_.reserve(kBatch);
    thread_ = std::thread([this] { Run(); });
  }
  ~Pipeline() { Finish(); }

  void Push(T item) {
    batch_.push_back(std::move(item));
    if (batch_.size() == kBatch) Hand();
  }
  // Hands over what is left and returns once everything has been consumed.
  void Finish() {
    if (!thread_.joinable()) return;
    Hand();
    {
      std::lock_guard lk(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  static constexpr size_t kBatch = 4096;
  static constexpr size_t kMaxQueued = 4;

  void Hand() {
    if (batch_.empty()) return;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return queue_.size() < kMaxQueued; });
      queue_.push_back(std::move(batch_));
    }
    cv_.notify_all();
    batch_ = {};
    batch_.reserve(kBatch);
  }

  void Run() {
    for (;;) {
      std::vector<T> batch;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      cv_.notify_all();
      consume_(batch);
    }
  }

  const std::function<void(std::vector<T>&)> consume_;
  std::vector<T> batch_;  // the producer's
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<T>> queue_;  // guarded by mu_
  bool done_ = false;                 // guarded by mu_
  std::thread thread_;
};

}  // namespace

// One watch stream over the event ring. The consumer calls Next/Poll from one
// thread at a time; Stop and the store's notifications come from any thread.
class MemoryStore::WatchImpl final : public Watch {
 public:
  WatchImpl(MemoryStore* store, WatchOptions options)
      : store_(store),
        options_(std::move(options)),
        cursor_(options_.resource_version),
        last_emit_(std::chrono::steady_clock::now()) {}
  ~WatchImpl() override { Stop(); }

  std::vector<WatchEvent> Next(std::chrono::steady_clock::time_point deadline,
                               size_t max) override {
    while (true) {
      if (Done()) return {};
      auto out = Collect(max);
      auto now = std::chrono::steady_clock::now();
      if (!out.empty()) {
        last_emit_ = now;
        return out;
      }
      if (auto bookmark = BookmarkIfDue(now)) return {*bookmark};
      if (now >= deadline) return {};
      auto wake = deadline;
      if (options_.bookmark_interval.count() > 0) {
        wake = std::min(wake, last_emit_ + options_.bookmark_interval);
      }
      CommitWaiter waiter(store_);
      std::unique_lock lk(store_->commit_mu_);
      store_->commit_cv_.wait_until(lk, wake, [&] {
        return stopped_.load() || store_->closed_.load() ||
               store_->committed_.load(std::memory_order_acquire) > cursor_;
      });
    }
  }

  std::vector<WatchEvent> Poll(size_t max) override {
    if (notify_state_) notify_state_->pending.store(false);
    if (Done()) return {};
    auto out = Collect(max);
    auto now = std::chrono::steady_clock::now();
    if (!out.empty()) {
      last_emit_ = now;
      return out;
    }
    if (auto bookmark = BookmarkIfDue(now)) return {*bookmark};
    return out;
  }

  void SetNotify(std::function<void()> notify) override {
    if (!notify_state_) {
      notify_state_ = std::make_shared<NotifyState>();
      notify_state_->prefix = options_.prefix;
      std::lock_guard lk(store_->watchers_mu_);
      store_->watchers_.push_back(notify_state_);
    }
    std::lock_guard lk(notify_state_->mu);
    notify_state_->notify = std::move(notify);
  }

  void Stop() override {
    if (stopped_.exchange(true)) return;
    if (notify_state_) {
      std::lock_guard lk(notify_state_->mu);
      notify_state_->notify = nullptr;
    }
    std::lock_guard lk(store_->commit_mu_);
    store_->commit_cv_.notify_all();
  }

  bool Done() const override {
    return stopped_.load() || done_.load() || store_->closed_.load();
  }

 private:
  std::optional<WatchEvent> BookmarkIfDue(std::chrono::steady_clock::time_point now) {
    if (options_.bookmark_interval.count() <= 0) return std::nullopt;
    if (now - last_emit_ < options_.bookmark_interval) return std::nullopt;
    last_emit_ = now;
    return WatchEvent{EventType::kBookmark, nullptr, cursor_, {}};
  }

  // Reads ring events after cursor_ up to the visible revision, filtered.
  std::vector<WatchEvent> Collect(size_t max) {
    std::vector<WatchEvent> out;
    int64_t visible = store_->committed_.load(std::memory_order_acquire);
    if (cursor_ >= visible) return out;
    std::shared_lock lk(store_->mu_);
    if (cursor_ < store_->compacted_) {
      out.push_back({EventType::kError, nullptr, cursor_,
                     Status::Expired("too old resource version: " + std::to_string(cursor_) +
                                     " (" + std::to_string(store_->compacted_ + 1) + ")")});
      done_ = true;
      return out;
    }
    const int64_t end = std::min(visible, cursor_ + kScanLimit);
    const int64_t history = store_->options_.history;
    for (int64_t r = cursor_ + 1; r <= end; ++r) {
      const Event& e = store_->ring_[r % history];
      cursor_ = r;
      const ObjectPtr& any = e.object ? e.object : e.prev;
      if (!any || !any->StorageKey().starts_with(options_.prefix)) continue;
      if (auto event = Convert(e)) {
        out.push_back(std::move(*event));
        if (out.size() >= max) break;
      }
    }
    return out;
  }

  // Kubernetes' filtered-watch rule: transitions across the predicate become
  // ADDED / DELETED.
  std::optional<WatchEvent> Convert(const Event& e) const {
    const Predicate& p = options_.predicate;
    if (e.type == EventType::kDeleted) {
      if (!Matches(p, e.prev)) return std::nullopt;
      return WatchEvent{EventType::kDeleted, e.object, e.revision, {}};
    }
    bool now_matches = Matches(p, e.object);
    bool before_matches = Matches(p, e.prev);
    if (now_matches && before_matches) return WatchEvent{EventType::kModified, e.object, e.revision, {}};
    if (now_matches) return WatchEvent{EventType::kAdded, e.object, e.revision, {}};
    if (before_matches) {
      return WatchEvent{EventType::kDeleted, e.prev->WithResourceVersion(e.revision), e.revision, {}};
    }
    return std::nullopt;
  }

  MemoryStore* const store_;
  const WatchOptions options_;
  int64_t cursor_;  // last revision scanned; consumer thread only
  std::chrono::steady_clock::time_point last_emit_;  // consumer thread only
  std::atomic<bool> stopped_{false};
  std::atomic<bool> done_{false};

 public:
  std::shared_ptr<NotifyState> notify_state_;  // set by SetNotify before consuming
};

MemoryStore::MemoryStore(Options options) : options_(std::move(options)) {
  ring_.resize(static_cast<size_t>(std::max<int64_t>(options_.history, 1)));
}

MemoryStore::~MemoryStore() { Close(); }

Result<std::unique_ptr<MemoryStore>> MemoryStore::Open(Options options) {
  if (options.history < 1) return Status::BadRequest("history must be at least 1 revision");
  if (options.recover_to_revision > 0) options.read_only = true;
  std::unique_ptr<MemoryStore> store(new MemoryStore(std::move(options)));
  if (!store->options_.data_dir.empty()) {
    Status s = store->Recover();
    if (!s.ok()) return s;
  }
  return store;
}

Status MemoryStore::Recover() {
  const std::string& dir = options_.data_dir;
  std::error_code ec;
  if (options_.read_only) {
    if (!std::filesystem::is_directory(dir, ec)) {
      return Status::NotFound("data directory " + dir + " does not exist");
    }
  } else {
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::Internal("cannot create data directory " + dir + ": " + ec.message());
  }

  std::unique_lock lk(mu_);
  Status failure;
  bool first_record = true;
  // Log records are turned into objects here and applied to the index by the
  // pipeline's thread, which works under this thread's hold of mu_ (nothing
  // else can reach the store before Open returns).
  struct Applied {
    std::string key;
    ObjectPtr object;  // nullptr: a delete
    int64_t revision;
  };
  Pipeline<Applied> apply([this](std::vector<Applied>& batch) {
    for (Applied& a : batch) {
      ApplyLocked(index_.FindOrInsert(a.key), std::move(a.object), a.revision);
      revision_ = a.revision;
    }
  });
  wal::RecoverOptions recover_options;
  recover_options.repair = !options_.read_only;
  if (options_.recover_to_revision > 0) recover_options.max_revision = options_.recover_to_revision;
  // Snapshot values and kPutAtRevision records are the objects' Encoded()
  // text at their revision: served from the mapped files as they are, and
  // parsed on first use.
  auto report = wal::RecoverMapped(
      dir, recover_options,
      [&](wal::SnapshotEntry entry) {
        std::string key(entry.key);
        CountLocked(key, 1);
        ObjectPtr object =
            api::Object::FromStored(key, entry.value, std::move(entry.file), entry.revision);
        index_.Load(key)->value = Versions{{entry.revision, std::move(object)}};
      },
      [&](const wal::MappedRecord& record) {
        if (!failure.ok()) return;
        if (first_record) {
          index_.FinishLoad();  // the snapshot's keys, before any record can look one up
          first_record = false;
          revision_ = compacted_ = record.revision - 1;
        }
        ObjectPtr object;
        if (record.type == wal::Record::Type::kPutAtRevision) {
          object = api::Object::FromStored(std::string(record.key), record.value, record.file,
                                           record.revision);
        } else if (record.type == wal::Record::Type::kPut) {
          // Written before records carried their revision's text: decoded now.
          auto decoded = api::Object::Decode(record.value);
          if (!decoded.ok()) {
            failure = Status::Internal("log record at revision " + std::to_string(record.revision) +
                                       ": " + decoded.status().message());
            return;
          }
          object = decoded.value()->WithResourceVersion(record.revision);
        }
        apply.Push({std::string(record.key), std::move(object), record.revision});
      });
  apply.Finish();
  index_.FinishLoad();  // a snapshot with no record after it
  if (!report.ok()) return report.status();
  if (!failure.ok()) return failure;
  recovery_ = report.value();
  if (first_record) revision_ = compacted_ = recovery_.snapshot_revision;
  revision_ = std::max(revision_, recovery_.last_revision);
  committed_.store(revision_);

  if (options_.recover_to_revision > 0 && revision_ != options_.recover_to_revision) {
    return Status::BadRequest("revision " + std::to_string(options_.recover_to_revision) +
                              " is not in the data directory (it holds up to revision " +
                              std::to_string(revision_) + ")");
  }
  if (options_.read_only) return Status::Ok();

  auto files = wal::ListFiles(dir);
  if (!files.ok()) return files.status();
  for (const auto& f : files.value()) {
    if (f.snapshot) last_snapshot_revision_ = std::max(last_snapshot_revision_, f.revision);
  }

  wal::LogWriter::Options log_options;
  log_options.dir = dir;
  log_options.sync = options_.sync;
  log_options.on_fsync = options_.on_fsync;
  log_options.on_durable = [this](uint64_t position) { OnDurable(position); };
  auto log = wal::LogWriter::Open(std::move(log_options), revision_ + 1);
  if (!log.ok()) return log.status();
  log_ = std::move(log).value();
  return Status::Ok();
}

void MemoryStore::CountLocked(std::string_view key, int64_t delta) {
  const std::string_view prefix = Index::ResourceOf(key);  // "/<group>/<resource>/"
  auto it = counts_.find(prefix);
  if (it == counts_.end()) it = counts_.emplace(std::string(prefix), 0).first;
  it->second += delta;
}

const MemoryStore::Version* MemoryStore::VersionAt(const Versions& versions,
                                                   int64_t revision) {
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->revision <= revision) return it->object ? &*it : nullptr;
  }
  return nullptr;
}

void MemoryStore::ApplyLocked(Entry* entry, ObjectPtr object, int64_t revision) {
  const std::string& key = entry->key;
  Versions& versions = entry->value;
  ObjectPtr prev = versions.empty() ? nullptr : versions.back().object;
  if (!prev && object) CountLocked(key, 1);
  if (prev && !object) CountLocked(key, -1);

  Event event;
  event.revision = revision;
  event.prev = prev;
  if (!object) {
    event.type = EventType::kDeleted;
    event.object = prev ? prev->WithResourceVersion(revision) : nullptr;
  } else {
    event.type = prev ? EventType::kModified : EventType::kAdded;
    event.object = object;
  }
  event.entry = entry;
  versions.push_back({revision, std::move(object)});

  // The ring holds every revision in (compacted_, revision]. Evicting the
  // oldest event advances the window; prune the versions it made unreachable.
  const int64_t history = options_.history;
  Event& slot = ring_[revision % history];
  if (revision - compacted_ > history) {
    compacted_ = revision - history;
    if (Entry* old = slot.entry) {
      Versions& vs = old->value;
      // Keep the newest version at or below compacted_ and everything after it.
      size_t keep = 0;
      for (size_t i = 0; i < vs.size(); ++i) {
        if (vs[i].revision <= compacted_) keep = i;
      }
      if (keep > 0) vs.erase(vs.begin(), vs.begin() + static_cast<ptrdiff_t>(keep));
      if (vs.size() == 1 && !vs[0].object && vs[0].revision <= compacted_) index_.Erase(old);
    }
  }
  slot = std::move(event);
}

Result<ObjectPtr> MemoryStore::Write(Op op, const std::string& key, ObjectPtr object,
                                     int64_t expected_revision) {
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  if (options_.read_only) return Status(StatusCode::kForbidden, "the store is read-only");
  // Encode outside the lock; the revision's digits go in under it. The log
  // record and the stored version share that text (the version's Encoded()).
  api::Object::EncodedTemplate encoded;
  if (object && log_) encoded = object->EncodeForRevision();

  const uint64_t key_hash = Index::Hash(key);

  std::unique_lock lk(mu_);
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  Entry* entry = index_.Find(key, key_hash);
  const Version* current = !entry || entry->value.empty() || !entry->value.back().object
                               ? nullptr
                               : &entry->value.back();
  if (op == Op::kCreate && current) {
    int64_t rev = current->revision;
    lk.unlock();
    WaitVisible(rev);
    return Status::AlreadyExists("object already exists: " + key);
  }
  if (op != Op::kCreate) {
    if (!current) {
      int64_t rev = !entry || entry->value.empty() ? 0 : entry->value.back().revision;
      lk.unlock();
      WaitVisible(rev);
      return Status::NotFound("object not found: " + key);
    }
    if (expected_revision > 0 && current->revision != expected_revision) {
      int64_t rev = current->revision;
      lk.unlock();
      WaitVisible(rev);
      return Status::Conflict("the object has been modified; please apply your changes to the "
                              "latest version and try again");
    }
  }
  ObjectPtr prev = current ? current->object : nullptr;
  const int64_t revision = ++revision_;
  ObjectPtr stored;
  uint64_t position = 0;
  bool snapshot_due = false;
  if (log_) {
    wal::Record record;
    record.type = object ? wal::Record::Type::kPutAtRevision : wal::Record::Type::kDelete;
    record.revision = revision;
    record.key = key;
    if (object) record.value = encoded.At(revision);
    // Queued for publication before it is logged: the log's thread may make
    // it durable, and publish it, before Append returns.
    position = ++log_position_;
    {
      std::lock_guard plk(publish_mu_);
      // The written object, or the deleted one: either carries the key.
      unpublished_.push_back({position, revision, object ? object : prev});
    }
    if (log_->Append(record) != position) {
      std::fprintf(stderr, "berth: store: log position out of step at revision %lld\n",
                   static_cast<long long>(revision));
      std::abort();
    }
    if (object) stored = object->WithResourceVersion(revision, std::move(record.value));
    snapshot_due = options_.snapshot_every > 0 && ++records_since_snapshot_ >= options_.snapshot_every;
  } else if (object) {
    stored = object->WithResourceVersion(revision);
  }
  if (!entry) entry = index_.FindOrInsert(key, key_hash);
  ApplyLocked(entry, stored, revision);
  lk.unlock();

  if (!log_) {
    const std::string_view keys[] = {key};
    Publish(revision, keys);
  } else if (auto* scope = DeferAcknowledgement::Current()) {
    scope->Deferred(revision);  // published by OnDurable; the caller waits with WhenVisible
  } else {
    log_->WaitDurable(position);  // OnDurable has published it when this returns
  }
  if (snapshot_due) MaybeSnapshotAsync();
  if (op == Op::kDelete) return prev->WithResourceVersion(revision);
  return stored;
}

void MemoryStore::Publish(int64_t revision, std::span<const std::string_view> keys) {
  int64_t seen = committed_.load(std::memory_order_relaxed);
  while (seen < revision && !committed_.compare_exchange_weak(seen, revision)) {
  }
  // Both sides are sequentially consistent: either a waiter counted itself
  // before this load (and is woken), or its predicate sees the new revision.
  if (commit_waiters_.load() > 0) {
    { std::lock_guard lk(commit_mu_); }
    commit_cv_.notify_all();
  }

  std::lock_guard lk(watchers_mu_);
  for (size_t i = 0; i < watchers_.size();) {
    auto state = watchers_[i].lock();
    if (!state) {
      watchers_[i] = std::move(watchers_.back());
      watchers_.pop_back();
      continue;
    }
    const bool under = std::any_of(keys.begin(), keys.end(), [&](std::string_view key) {
      return key.starts_with(state->prefix);
    });
    if (under && !state->pending.exchange(true)) {
      std::lock_guard slk(state->mu);
      if (state->notify) state->notify();
    }
    ++i;
  }
}

void MemoryStore::OnDurable(uint64_t position) {
  // The log's thread only: publishes, in one step, every write durable now.
  int64_t revision = 0;
  {
    std::lock_guard plk(publish_mu_);
    while (!unpublished_.empty() && unpublished_.front().position <= position) {
      revision = unpublished_.front().revision;
      durable_objects_.push_back(std::move(unpublished_.front().keyed));
      unpublished_.pop_front();
    }
    if (revision == 0) return;  // a rotation only
    // Under publish_mu_, so WhenVisible either sees the new revision or has
    // queued its callback before this takes the ones due.
    committed_.store(revision, std::memory_order_seq_cst);
    auto due = std::partition(visible_callbacks_.begin(), visible_callbacks_.end(),
                              [&](const auto& c) { return c.first > revision; });
    for (auto it = due; it != visible_callbacks_.end(); ++it)
      durable_callbacks_.push_back(std::move(it->second));
    visible_callbacks_.erase(due, visible_callbacks_.end());
  }
  for (const auto& object : durable_objects_) durable_keys_.push_back(object->StorageKey());
  Publish(revision, durable_keys_);
  for (auto& done : durable_callbacks_) done();
  durable_keys_.clear();
  durable_objects_.clear();
  durable_callbacks_.clear();
}

void MemoryStore::WhenVisible(int64_t revision, std::function<void()> done) {
  if (committed_.load(std::memory_order_acquire) < revision) {
    std::lock_guard plk(publish_mu_);
    if (committed_.load(std::memory_order_seq_cst) < revision && !log_closed_) {
      visible_callbacks_.emplace_back(revision, std::move(done));
      return;
    }
  }
  done();
}

void MemoryStore::WaitVisible(int64_t revision) {
  if (committed_.load(std::memory_order_acquire) >= revision) return;
  CommitWaiter waiter(this);
  std::unique_lock lk(commit_mu_);
  commit_cv_.wait(lk, [&] {
    return closed_.load() || committed_.load(std::memory_order_acquire) >= revision;
  });
}

Result<ObjectPtr> MemoryStore::Create(ObjectPtr object) {
  const std::string& key = object->StorageKey();
  return Write(Op::kCreate, key, std::move(object), 0);
}

Result<ObjectPtr> MemoryStore::Update(ObjectPtr object, int64_t expected_revision) {
  const std::string& key = object->StorageKey();
  return Write(Op::kUpdate, key, std::move(object), expected_revision);
}

Result<ObjectPtr> MemoryStore::Delete(const std::string& key, int64_t expected_revision) {
  return Write(Op::kDelete, key, nullptr, expected_revision);
}

Result<ObjectPtr> MemoryStore::Get(const std::string& key) {
  std::shared_lock lk(mu_);
  if (const Entry* entry = index_.Find(key)) {
    if (const Version* v = VersionAt(entry->value, committed_.load(std::memory_order_acquire))) {
      return v->object;
    }
  }
  return Status::NotFound("object not found: " + key);
}

Result<ListResult> MemoryStore::List(const ListOptions& options) {
  // The walk below reads the listed resources' keys in order: when some were
  // added or erased since they were last ordered, this list orders them
  // first, which takes the lock exclusively (and the list then runs under it).
  std::shared_lock shared(mu_);
  std::unique_lock<std::shared_mutex> exclusive;
  if (!index_.Sorted(options.prefix)) {
    shared.unlock();
    exclusive = std::unique_lock(mu_);
    index_.Sort(options.prefix);
  }
  const int64_t visible = committed_.load(std::memory_order_acquire);
  int64_t revision = visible;
  std::string start = options.prefix;
  bool after_start = false;
  if (!options.continue_token.empty()) {
    std::string last_key;
    if (!DecodeContinue(options.continue_token, &revision, &last_key) ||
        !last_key.starts_with(options.prefix)) {
      return Status::BadRequest("continue key is not valid");
    }
    if (revision < compacted_ || revision > visible) {
      return Status::Expired("The provided continue parameter is too old to display a consistent "
                             "list result. You can start a new list without the continue "
                             "parameter.");
    }
    start = std::move(last_key);
    after_start = true;
  } else if (options.resource_version > 0 && options.match == ResourceVersionMatch::kExact) {
    revision = options.resource_version;
    if (revision < compacted_) {
      return Status::Expired("too old resource version: " + std::to_string(revision) + " (" +
                             std::to_string(compacted_ + 1) + ")");
    }
    if (revision > visible) {
      return Status(StatusCode::kTimeout, "Too large resource version: " +
                                              std::to_string(revision) +
                                              ", current: " + std::to_string(visible));
    }
  }

  ListResult result;
  result.revision = revision;
  bool full = false;  // the page is full: only counting what remains
  index_.Walk(options.prefix, start, after_start, [&](const Entry& entry) {
    const Version* v = VersionAt(entry.value, revision);
    if (full) {
      if (v) ++result.remaining;
      return true;
    }
    if (!v || (options.predicate && !options.predicate(*v->object))) return true;
    if (options.limit > 0 && static_cast<int64_t>(result.items.size()) >= options.limit) {
      // More remain: count them (only when unfiltered, as Kubernetes does).
      result.continue_token = EncodeContinue(revision, result.items.back()->StorageKey());
      if (options.predicate) return false;
      full = true;
      ++result.remaining;
      return true;
    }
    result.items.push_back(v->object);
    return true;
  });
  return result;
}

Result<std::unique_ptr<Watch>> MemoryStore::WatchFrom(const WatchOptions& options) {
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  WatchOptions o = options;
  int64_t visible = committed_.load(std::memory_order_acquire);
  if (o.resource_version == 0) o.resource_version = visible;
  {
    std::shared_lock lk(mu_);
    if (o.resource_version < compacted_) {
      return Status::Expired("too old resource version: " + std::to_string(o.resource_version) +
                             " (" + std::to_string(compacted_ + 1) + ")");
    }
  }
  if (o.resource_version > visible) {
    return Status(StatusCode::kTimeout, "Too large resource version: " +
                                            std::to_string(o.resource_version) +
                                            ", current: " + std::to_string(visible));
  }
  return std::unique_ptr<Watch>(std::make_unique<WatchImpl>(this, std::move(o)));
}

std::vector<std::pair<std::string, int64_t>> MemoryStore::CountByResource() {
  std::shared_lock lk(mu_);
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [prefix, count] : counts_) {
    if (count > 0) out.emplace_back(prefix, count);
  }
  return out;
}

std::vector<std::string> MemoryStore::CheckObjects() {
  std::vector<ObjectPtr> objects;
  {
    std::shared_lock lk(mu_);
    index_.ForEach([&](const Entry& entry) {
      for (const Version& v : entry.value) {
        if (v.object) objects.push_back(v.object);
      }
    });
  }
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::vector<std::string>> problems(threads);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (size_t i = t; i < objects.size(); i += threads) {
        Status s = objects[i]->CheckDecodes();
        if (!s.ok()) {
          problems[t].push_back(objects[i]->StorageKey() + " at revision " +
                                std::to_string(objects[i]->resource_version()) + ": " +
                                s.message());
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  std::vector<std::string> out;
  for (auto& p : problems) out.insert(out.end(), p.begin(), p.end());
  std::sort(out.begin(), out.end());
  return out;
}

int64_t MemoryStore::CompactedRevision() {
  std::shared_lock lk(mu_);
  return compacted_;
}

void MemoryStore::MaybeSnapshotAsync() {
  if (snapshotting_.exchange(true)) return;
  std::lock_guard lk(thread_mu_);
  if (closed_.load()) {
    snapshotting_.store(false);
    return;
  }
  if (snapshot_thread_.joinable()) snapshot_thread_.join();
  snapshot_thread_ = std::thread([this] {
    Status s = Snapshot();
    if (!s.ok()) std::fprintf(stderr, "berth: snapshot failed: %s\n", s.ToString().c_str());
    snapshotting_.store(false);
  });
}

std::vector<ObjectPtr> MemoryStore::LiveObjectsLocked() {
  index_.Sort();
  std::vector<ObjectPtr> objects;
  objects.reserve(index_.size());
  index_.Walk("", "", false, [&](const Entry& entry) {
    if (const Version* v = VersionAt(entry.value, revision_)) objects.push_back(v->object);
    return true;
  });
  return objects;
}

Status MemoryStore::Snapshot() {
  if (!log_) return Status::Ok();
  std::lock_guard slk(snapshot_mu_);  // one snapshot at a time
  int64_t revision;
  std::vector<ObjectPtr> objects;
  {
    std::unique_lock lk(mu_);
    if (closed_.load()) return Status::Ok();
    revision = revision_;
    objects = LiveObjectsLocked();
    // Later records go to a segment the snapshot does not cover.
    log_->Rotate(revision + 1);
    ++log_position_;  // a rotation takes a position too
    records_since_snapshot_ = 0;
  }
  Status s = WriteSnapshotTo(options_.data_dir, revision, objects);
  if (!s.ok()) return s;
  // Keep this snapshot and the one before it (restore can go back that far).
  const int64_t previous = last_snapshot_revision_;
  last_snapshot_revision_ = std::max(last_snapshot_revision_, revision);
  if (previous > 0 && previous < revision) return wal::PruneBefore(options_.data_dir, previous);
  return Status::Ok();
}

Status MemoryStore::ExportSnapshot(const std::string& dir) {
  std::lock_guard slk(snapshot_mu_);
  int64_t revision;
  std::vector<ObjectPtr> objects;
  {
    std::unique_lock lk(mu_);
    revision = revision_;
    objects = LiveObjectsLocked();
  }
  return WriteSnapshotTo(dir, revision, objects);
}

Status MemoryStore::WriteSnapshotTo(const std::string& dir, int64_t revision,
                                    const std::vector<ObjectPtr>& objects) {
  std::vector<wal::SnapshotEntry> entries;
  entries.reserve(objects.size());
  for (const auto& o : objects) {
    entries.push_back({o->StorageKey(), o->resource_version(), o->Encoded()});
  }
  return wal::WriteSnapshot(dir, revision, entries);
}

void MemoryStore::Close() {
  {
    std::unique_lock lk(mu_);  // waits for writers inside the critical section
    if (closed_.exchange(true)) return;
  }
  if (log_) log_->Close();  // writers waiting for durability are released, every write published
  {
    std::lock_guard plk(publish_mu_);
    log_closed_ = true;
  }
  {
    std::lock_guard lk(commit_mu_);
  }
  commit_cv_.notify_all();
  std::lock_guard lk(thread_mu_);
  if (snapshot_thread_.joinable()) snapshot_thread_.join();
}

}  // namespace berth::store
