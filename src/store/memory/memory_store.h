#pragma once
// The embedded store: an in-memory MVCC index (a short version history per
// key, enough for consistent paginated lists and watch replay over the history
// window), made durable by the write-ahead log and snapshots in wal/ when it
// has a data directory.
//
// Visibility: a write is assigned the next revision under the index lock and
// appended to the log in revision order; it becomes visible to readers and
// watchers (CurrentRevision) only once it is durable: the log's thread
// publishes each group-committed batch at once (OnDurable), then releases the
// batch's writers. A writer under a DeferAcknowledgement returns without
// waiting and learns of durability through WhenVisible. Without a data
// directory writes are visible at once.
//
// Watch fan-out: every write puts one event in a ring indexed by revision;
// watchers pull from the ring at their own cursor, so a write costs the same
// with 0 or 1,000 watchers, and a slow watcher only ever hurts itself (once the
// ring has moved past its cursor it gets Expired).

#include <atomic>
#include <boost/container/small_vector.hpp>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "store/encryption.h"
#include "store/memory/key_index.h"
#include "store/store.h"
#include "store/wal/dir_lock.h"
#include "store/wal/wal.h"

namespace berth::store {

class MemoryStore final : public Store {
 public:
  struct Options {
    // Empty: nothing is persisted. Otherwise the directory (created if missing)
    // holds the log and snapshots; Open recovers from it. Unless read_only,
    // the store owns the directory until Close: Open fails (Unavailable, "data
    // directory D is in use by PID n") while another store, in this process
    // or another, owns it.
    std::string data_dir;
    // false: log writes are not fsync'ed (benchmarks of the non-durable path).
    bool sync = true;
    // Watch history / MVCC window, in revisions.
    int64_t history = 100'000;
    // A snapshot is taken after this many log records (0: never).
    int64_t snapshot_every = 200'000;
    // Called with each log fsync's duration (seconds), from the log's thread.
    std::function<void(double)> on_fsync;
    // Called with each snapshot's duration (seconds: writing it and pruning
    // what it covers), from the thread that took it.
    std::function<void(double)> on_snapshot;
    // Recover without repairing anything and accept no writes (store check).
    bool read_only = false;
    // Recover the state as of this revision (store restore); implies read_only.
    int64_t recover_to_revision = 0;
    // Set: values of the resources it covers are encrypted in the log and
    // snapshots (and decrypted on recovery); objects in memory stay plain.
    std::shared_ptr<const Encryption> encryption;
    // Tests only: wal::LogWriter::Options::inject_fault.
    std::function<int(std::string_view call)> inject_fault;
  };

  // Opens the store; with a data directory, recovers it first (see
  // wal::Recover for what is repaired and what refuses to start).
  static Result<std::unique_ptr<MemoryStore>> Open(Options options);
  ~MemoryStore() override;

  Result<ObjectPtr> Create(ObjectPtr object) override;
  Result<ObjectPtr> Get(const std::string& key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<ObjectPtr> Update(ObjectPtr object, int64_t expected_revision) override;
  Result<ObjectPtr> Delete(const std::string& key, int64_t expected_revision = 0) override;
  Result<std::unique_ptr<Watch>> WatchFrom(const WatchOptions& options) override;
  int64_t CurrentRevision() override { return committed_.load(std::memory_order_acquire); }
  std::vector<std::pair<std::string, int64_t>> CountByResource() override;
  void WhenVisible(int64_t revision, std::function<void()> done) override;
  // The log's health: a failed log (fsync, I/O error) refuses writes until
  // restart; a log out of space refuses them until space is freed.
  Status Health() override;
  Status WriteStatus(int64_t revision) override;

  // The oldest revision a list or watch can still start from.
  int64_t CompactedRevision();
  // Writes a snapshot now (synchronously) and prunes what it covers.
  Status Snapshot();
  // Writes a snapshot of the current state into another directory (which then
  // opens as a store at this revision).
  Status ExportSnapshot(const std::string& dir);
  // Finishes writes in flight, syncs the log and ends every watch. Idempotent.
  void Close();

  // Replica mode (memory_replica.cc), for a store without a data directory
  // whose contents are written elsewhere (the etcd backend's watch cache):
  // changes arrive with the revisions their source gave them, in order, with
  // gaps where the source changed nothing of ours. Reads, lists and watches
  // then work as usual over them.
  struct ReplicaChange {
    std::string key;
    ObjectPtr object;  // resource_version() == revision; nullptr: deleted
    int64_t revision = 0;
  };
  // Applies `changes` (revisions increasing; those at or below the last
  // applied are ignored), then makes `through` (or the last change's revision
  // when greater) visible, waking watchers and WhenVisible callbacks.
  void ApplyReplicated(std::span<const ReplicaChange> changes, int64_t through);
  // Replaces the whole contents with `objects` (each at its resource_version())
  // as of `revision`: nothing older can be listed or watched from, so watches
  // from before it end with Expired (their clients list again).
  void ResetReplica(const std::vector<ObjectPtr>& objects, int64_t revision);

  // Recovery facts from Open (what was replayed, what was repaired).
  const wal::RecoveryReport& recovery_report() const { return recovery_; }
  // Parses every version held now (recovered objects are otherwise parsed on
  // first use), on all cores; a line per one that does not decode:
  // "<key> at revision <N>: <why>".
  std::vector<std::string> CheckObjects();

 private:
  class WatchImpl;
  // What a watcher with a notify callback shares with writers.
  struct NotifyState {
    std::string prefix;  // the watch's: only writes under it notify
    std::mutex mu;
    std::function<void()> notify;  // guarded by mu
    std::atomic<bool> pending{false};
  };
  struct Version {
    int64_t revision;
    ObjectPtr object;  // nullptr: deleted at `revision`
  };
  // A key's versions, oldest first: mostly one, held inline.
  using Versions = boost::container::small_vector<Version, 1>;
  // Key → versions. Entries stay put until erased, so events can point at theirs.
  using Index = KeyIndex<Versions>;
  using Entry = Index::Entry;
  struct Event {
    int64_t revision = 0;
    EventType type = EventType::kAdded;
    ObjectPtr object;  // ADDED/MODIFIED: new version; DELETED: last version at `revision`
    ObjectPtr prev;    // the version before (MODIFIED, DELETED)
    // The written key's entry (nullptr in an empty slot). An entry is erased
    // only when its one remaining version is a deletion the window has passed,
    // so no event in the ring still points at it.
    Entry* entry = nullptr;
  };
  enum class Op { kCreate, kUpdate, kDelete };

  explicit MemoryStore(Options options);
  Status Recover();
  // Recover's steps. The data directory made and locked (or, read-only,
  // found).
  Status PrepareDataDir();
  // REQUIRES: mu_ held exclusively. The snapshot and log replayed into the
  // index; revision_, compacted_ and recovery_ set.
  Status ReplayLocked();
  // REQUIRES: mu_ held exclusively. The log opened for the writes after
  // revision_.
  Status OpenLogLocked();
  // The write path shared by Create, Update and Delete.
  Result<ObjectPtr> Write(Op op, const std::string& key, ObjectPtr object,
                          int64_t expected_revision);
  // REQUIRES: mu_ held exclusively. Applies a write at `revision` to the index
  // entry `entry` (its key's, made by the caller) and the event ring, pruning
  // what falls out of the history window.
  void ApplyLocked(Entry* entry, ObjectPtr object, int64_t revision);
  // REQUIRES: mu_ held exclusively. The ring slot of `revision`, after moving
  // the window past what it held (pruning the versions that made unreachable).
  Event& SlotLocked(int64_t revision);
  // REQUIRES: mu_ held exclusively. Revisions (revision_, revision] carry no
  // event of ours (replica mode): their slots are emptied.
  void SkipLocked(int64_t revision);
  // Makes `revision` visible and runs the WhenVisible callbacks it satisfies
  // (replica mode).
  void PublishReplicated(int64_t revision, std::span<const std::string_view> keys);
  // The newest version of `versions` at or below `revision`; nullptr if none or deleted.
  static const Version* VersionAt(const Versions& versions, int64_t revision);
  // Waits until `revision` is visible (used before reporting a conflict with a
  // write that is still being made durable, so a retry sees it).
  void WaitVisible(int64_t revision);
  // Makes `revision` visible and notifies the watchers whose prefix one of
  // `keys` (the keys written up to it) is under.
  void Publish(int64_t revision, std::span<const std::string_view> keys);
  // The log's on_durable: publishes the writes logged up to `position` and
  // runs the WhenVisible callbacks they satisfy.
  void OnDurable(uint64_t position);
  // The log's on_failure: no logged write not yet durable will ever be;
  // releases whoever waits for one.
  void OnLogFailure(const Status& status);
  void MaybeSnapshotAsync();
  // REQUIRES: snapshot_mu_ held.
  Status WriteSnapshotTo(const std::string& dir, int64_t revision,
                         const std::vector<ObjectPtr>& objects);
  // REQUIRES: mu_ held exclusively (it orders the index). In key order.
  std::vector<ObjectPtr> LiveObjectsLocked();
  // REQUIRES: mu_ held exclusively. Adds `delta` to the live count of the
  // resource `key` belongs to ("/<group>/<resource>/").
  void CountLocked(std::string_view key, int64_t delta);

  const Options options_;

  mutable std::shared_mutex mu_;
  Index index_;            // guarded by mu_
  std::vector<Event> ring_;                                         // guarded by mu_
  int64_t revision_ = 0;        // last assigned revision; guarded by mu_
  int64_t compacted_ = 0;       // guarded by mu_
  int64_t records_since_snapshot_ = 0;  // guarded by mu_
  std::map<std::string, int64_t, std::less<>> counts_;  // live objects per resource prefix; guarded by mu_
  std::unique_ptr<wal::LogWriter> log_;  // set once in Open
  // Held from Open to Close when the store writes to a data directory: a
  // second owner is refused (wal::DirLock).
  wal::DirLock dir_lock_;
  uint64_t log_position_ = 0;            // of the newest Append or Rotate; guarded by mu_

  // Logged writes not yet published, in log order (queued under mu_ as they
  // are logged), and callbacks waiting for a revision to be visible.
  struct Unpublished {
    uint64_t position;
    int64_t revision;
    ObjectPtr keyed;  // the version written (a delete: the one deleted); its key
  };
  std::mutex publish_mu_;
  std::deque<Unpublished> unpublished_;  // guarded by publish_mu_
  std::vector<std::pair<int64_t, std::function<void()>>>
      visible_callbacks_;    // guarded by publish_mu_
  bool log_closed_ = false;  // guarded by publish_mu_
  Status log_failure_;       // guarded by publish_mu_: set once the log failed
  std::atomic<bool> log_failed_{false};
  // OnDurable's scratch, emptied after each call (the log's thread only).
  std::vector<ObjectPtr> durable_objects_;
  std::vector<std::string_view> durable_keys_;
  std::vector<std::function<void()>> durable_callbacks_;

  std::atomic<int64_t> committed_{0};
  std::mutex commit_mu_;
  std::condition_variable commit_cv_;  // signalled when committed_ advances or on Close
  // Threads waiting (or about to wait) on commit_cv_ for a revision: writers
  // signal only when there are some.
  std::atomic<int> commit_waiters_{0};
  struct CommitWaiter {
    explicit CommitWaiter(MemoryStore* store) : store(store) { store->commit_waiters_.fetch_add(1); }
    ~CommitWaiter() { store->commit_waiters_.fetch_sub(1); }
    MemoryStore* store;
  };

  std::mutex watchers_mu_;
  std::vector<std::weak_ptr<NotifyState>> watchers_;  // guarded by watchers_mu_ (for notify)
  std::atomic<bool> closed_{false};

  std::atomic<bool> snapshotting_{false};
  std::mutex thread_mu_;
  std::thread snapshot_thread_;  // guarded by thread_mu_
  std::mutex snapshot_mu_;       // serialises snapshot writes
  int64_t last_snapshot_revision_ = 0;  // guarded by snapshot_mu_
  wal::RecoveryReport recovery_;
};

}  // namespace berth::store
