// MemoryStore's watches: each pulls events from the store's ring at its own
// cursor (see memory_store.h, "Watch fan-out").

#include <algorithm>
#include <chrono>

#include "store/memory/memory_store.h"

namespace berth::store {
namespace {

// Watchers scan at most this many revisions per call, so one call never holds
// the index lock for long.
constexpr int64_t kScanLimit = 4096;

bool Matches(const Predicate& predicate, const ObjectPtr& object) {
  return object && (!predicate || predicate(*object));
}

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
      std::chrono::steady_clock::time_point now;
      if (auto ready = Ready(max, &now); !ready.empty()) return ready;
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
    std::chrono::steady_clock::time_point now;
    return Ready(max, &now);
  }

  // What can be handed out now: the events collected (up to `max`), else a
  // bookmark when one is due, else nothing. *now: the time it looked.
  std::vector<WatchEvent> Ready(size_t max, std::chrono::steady_clock::time_point* now) {
    auto out = Collect(max);
    *now = std::chrono::steady_clock::now();
    if (!out.empty()) {
      last_emit_ = *now;
      return out;
    }
    if (auto bookmark = BookmarkIfDue(*now)) return {*bookmark};
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

}  // namespace berth::store
