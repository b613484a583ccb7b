// MemoryStore's snapshots: taken after every Options::snapshot_every log
// records (in the background) or on demand, and exported for store backups.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

#include "store/memory/memory_store.h"
#include "log/log.h"

namespace berth::store {

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
    if (!s.ok()) BERTH_LOG_ERROR(s.ToString(), "Snapshot failed");
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
  // A failed log's newest writes were never acknowledged: no snapshot may make them durable.
  if (log_failed_.load()) return Health();
  std::lock_guard slk(snapshot_mu_);  // one snapshot at a time
  const auto started = std::chrono::steady_clock::now();
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
  if (previous > 0 && previous < revision) s = wal::PruneBefore(options_.data_dir, previous);
  if (s.ok() && options_.on_snapshot) {
    options_.on_snapshot(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  return s;
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
  std::deque<std::string> sealed;  // encrypted values the entries point into
  for (const auto& o : objects) {
    const std::string& key = o->StorageKey();
    if (options_.encryption && options_.encryption->Covers(key)) {
      auto value = options_.encryption->ToStorage(key, o->Encoded());
      if (!value.ok()) return value.status();
      sealed.push_back(std::move(value).value());
      entries.push_back({key, o->resource_version(), sealed.back()});
      continue;
    }
    entries.push_back({key, o->resource_version(), o->Encoded()});
  }
  return wal::WriteSnapshot(dir, revision, entries);
}

}  // namespace berth::store
