#include "store/memory/memory_store.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "store/memory/continue_token.h"
#include "log/log.h"

namespace berth::store {

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
  SlotLocked(revision) = std::move(event);
}

MemoryStore::Event& MemoryStore::SlotLocked(int64_t revision) {
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
  return slot;
}

Result<ObjectPtr> MemoryStore::Write(Op op, const std::string& key, ObjectPtr object,
                                     int64_t expected_revision) {
  if (closed_.load()) return Status(StatusCode::kUnavailable, "the store is closed");
  if (options_.read_only) return Status(StatusCode::kForbidden, "the store is read-only");
  // A failed log or a full disk: refused before anything is assigned.
  if (log_) {
    if (Status health = log_->Health(); !health.ok()) return health;
  }
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
    if (log_failed_.load()) return Health();
    return Status::AlreadyExists("object already exists: " + key);
  }
  if (op != Op::kCreate) {
    if (!current) {
      int64_t rev = !entry || entry->value.empty() ? 0 : entry->value.back().revision;
      lk.unlock();
      WaitVisible(rev);
      if (log_failed_.load()) return Health();
      return Status::NotFound("object not found: " + key);
    }
    if (expected_revision > 0 && current->revision != expected_revision) {
      int64_t rev = current->revision;
      lk.unlock();
      WaitVisible(rev);
      if (log_failed_.load()) return Health();
      return Status::Conflict("the object has been modified; please apply your changes to the "
                              "latest version and try again");
    }
  }
  ObjectPtr prev = current ? current->object : nullptr;
  // The object's text at the revision it is about to get, and (a resource
  // encrypted at rest) the log's form of it: sealed before the revision is
  // taken, so a failure leaves nothing behind.
  std::string text;
  std::string sealed;
  const bool seal = object && log_ && options_.encryption && options_.encryption->Covers(key);
  if (seal) {
    text = encoded.At(revision_ + 1);
    auto stored_form = options_.encryption->ToStorage(key, text);
    if (!stored_form.ok()) return stored_form.status();
    sealed = std::move(stored_form).value();
  }
  const int64_t revision = ++revision_;
  ObjectPtr stored;
  uint64_t position = 0;
  bool snapshot_due = false;
  if (log_) {
    wal::Record record;
    record.type = object ? wal::Record::Type::kPutAtRevision : wal::Record::Type::kDelete;
    record.revision = revision;
    record.key = key;
    if (object) record.value = seal ? std::move(sealed) : encoded.At(revision);
    // Queued for publication before it is logged: the log's thread may make
    // it durable, and publish it, before Append returns.
    position = ++log_position_;
    {
      std::lock_guard plk(publish_mu_);
      // The written object, or the deleted one: either carries the key.
      unpublished_.push_back({position, revision, object ? object : prev});
    }
    if (log_->Append(record) != position) {
      BERTH_LOG_ERROR("log position out of step", "Store write failed", {"revision", revision});
      std::abort();
    }
    if (object) stored = object->WithResourceVersion(revision, seal ? std::move(text) : std::move(record.value));
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
    if (!log_->IsDurable(position)) return Health();  // the log failed first: never visible
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

void MemoryStore::OnLogFailure(const Status& status) {
  std::vector<std::function<void()>> due;
  {
    std::lock_guard plk(publish_mu_);
    log_failure_ = status;
    log_failed_.store(true);
    for (auto& [revision, done] : visible_callbacks_) due.push_back(std::move(done));
    visible_callbacks_.clear();
  }
  {
    std::lock_guard lk(commit_mu_);
  }
  commit_cv_.notify_all();  // conflict checks waiting for a write that will never be visible
  for (auto& done : due) done();  // their WriteStatus answers the failure
}

Status MemoryStore::Health() {
  if (log_failed_.load()) {
    std::lock_guard plk(publish_mu_);
    return log_failure_;
  }
  return log_ ? log_->Health() : Status::Ok();
}

Status MemoryStore::WriteStatus(int64_t revision) {
  if (committed_.load(std::memory_order_acquire) >= revision) return Status::Ok();
  std::lock_guard plk(publish_mu_);
  if (committed_.load(std::memory_order_seq_cst) >= revision || !log_failed_.load()) return Status::Ok();
  return log_failure_;
}

void MemoryStore::WhenVisible(int64_t revision, std::function<void()> done) {
  if (committed_.load(std::memory_order_acquire) < revision) {
    std::lock_guard plk(publish_mu_);
    if (committed_.load(std::memory_order_seq_cst) < revision && !log_closed_ && !log_failed_.load()) {
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
    return closed_.load() || log_failed_.load() ||
           committed_.load(std::memory_order_acquire) >= revision;
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

std::vector<std::pair<std::string, int64_t>> MemoryStore::CountByResource() {
  std::shared_lock lk(mu_);
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [prefix, count] : counts_) {
    if (count > 0) out.emplace_back(prefix, count);
  }
  return out;
}

int64_t MemoryStore::CompactedRevision() {
  std::shared_lock lk(mu_);
  return compacted_;
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
  {
    std::lock_guard lk(thread_mu_);
    if (snapshot_thread_.joinable()) snapshot_thread_.join();
  }
  dir_lock_.Release();  // nothing more is written: the directory may have a new owner
}

}  // namespace berth::store
