// MemoryStore's replica mode (see memory_store.h): the etcd backend's watch
// cache applies etcd's changes here at etcd's revisions.

#include <algorithm>

#include "store/memory/memory_store.h"

namespace berth::store {

void MemoryStore::SkipLocked(int64_t revision) {
  if (revision <= revision_) return;
  // A gap longer than the window empties every slot once.
  const int64_t from = std::max(revision_ + 1, revision - options_.history + 1);
  for (int64_t r = from; r <= revision; ++r) {
    Event& slot = SlotLocked(r);
    slot = Event{};
    slot.revision = r;
  }
  revision_ = revision;
}

void MemoryStore::PublishReplicated(int64_t revision, std::span<const std::string_view> keys) {
  std::vector<std::function<void()>> due_callbacks;
  {
    // Under publish_mu_, as OnDurable: WhenVisible either sees the new
    // revision or has queued its callback before this takes the ones due.
    std::lock_guard plk(publish_mu_);
    if (committed_.load(std::memory_order_relaxed) < revision) {
      committed_.store(revision, std::memory_order_seq_cst);
    }
    auto due = std::partition(visible_callbacks_.begin(), visible_callbacks_.end(),
                              [&](const auto& c) { return c.first > revision; });
    for (auto it = due; it != visible_callbacks_.end(); ++it)
      due_callbacks.push_back(std::move(it->second));
    visible_callbacks_.erase(due, visible_callbacks_.end());
  }
  Publish(revision, keys);
  for (auto& done : due_callbacks) done();
}

void MemoryStore::ApplyReplicated(std::span<const ReplicaChange> changes, int64_t through) {
  std::vector<std::string_view> keys;
  int64_t revision;
  {
    std::unique_lock lk(mu_);
    if (closed_.load()) return;
    for (const ReplicaChange& change : changes) {
      if (change.revision <= revision_) continue;
      SkipLocked(change.revision - 1);
      Entry* entry = index_.Find(change.key);
      const bool live = entry && !entry->value.empty() && entry->value.back().object;
      if (!change.object && !live) {
        // Deleting what this replica never had: nothing to tell watchers.
        SkipLocked(change.revision);
        continue;
      }
      if (!entry) entry = index_.FindOrInsert(change.key);
      ApplyLocked(entry, change.object, change.revision);
      revision_ = change.revision;
      keys.push_back(change.key);
    }
    SkipLocked(through);
    revision = revision_;
  }
  PublishReplicated(revision, keys);
}

void MemoryStore::ResetReplica(const std::vector<ObjectPtr>& objects, int64_t revision) {
  {
    std::unique_lock lk(mu_);
    if (closed_.load()) return;
    // The ring first: its events point at the entries erased below.
    for (Event& slot : ring_) slot = Event{};
    std::vector<Entry*> entries;
    entries.reserve(index_.size());
    index_.ForEach([&](const Entry& e) { entries.push_back(const_cast<Entry*>(&e)); });
    for (Entry* e : entries) index_.Erase(e);
    counts_.clear();
    for (const ObjectPtr& object : objects) {
      Entry* entry = index_.FindOrInsert(object->StorageKey());
      entry->value.clear();
      entry->value.push_back({object->resource_version(), object});
      CountLocked(entry->key, 1);
    }
    revision_ = std::max(revision_, revision);
    compacted_ = revision_;
    revision = revision_;
  }
  PublishReplicated(revision, {});
  // Every watcher looks: those from before `revision` find they have expired.
  std::lock_guard lk(watchers_mu_);
  for (auto& weak : watchers_) {
    if (auto state = weak.lock(); state && !state->pending.exchange(true)) {
      std::lock_guard slk(state->mu);
      if (state->notify) state->notify();
    }
  }
}

}  // namespace berth::store
