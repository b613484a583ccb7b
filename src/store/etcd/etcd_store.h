#pragma once
// The Store on etcd v3, as kube-apiserver keeps its objects there: each object
// at <prefix>/<resource>/<namespace>/<name> (kube's layout; resources of
// groups other than the core one keep their group: <prefix>/<group>/<resource>/...),
// its JSON as the value, its resourceVersion etcd's mod_revision.
//
// Writes go to etcd as transactions: Create puts when the key's
// create_revision is 0 (else AlreadyExists), Update and Delete compare the
// key's mod_revision with the expected one (Conflict) or that it exists
// (NotFound). Reads, lists and watches are served by this process's watch
// cache: a MemoryStore in replica mode fed by one etcd watch on the whole
// prefix, so any number of clients cost etcd one watch. A write returns once
// the cache has caught up with its revision (read-your-writes on the process
// that wrote; under a DeferAcknowledgement, WhenVisible says when), so
// several processes on one etcd behave as one API.
//
// When etcd is down, writes fail within the client's timeout with 503/504;
// the cache's watch reconnects and resumes from its last revision, or, when
// etcd has compacted that revision, lists again and ends the cache's watches
// with Expired (their clients list again). Compaction runs every
// `compaction_interval` at the revision seen one interval earlier (kube's
// compactor). Events are written with an etcd lease of `event_ttl` (shared
// by the Events of a minute, as kube's lease reuse), so etcd deletes them.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/etcd/etcd_client.h"
#include "store/memory/memory_store.h"
#include "store/store.h"

namespace berth::store {

class EtcdStore final : public Store {
 public:
  struct Options {
    etcd::ClientOptions client;
    std::string prefix = "/registry";  // kube's --etcd-prefix
    int64_t history = 100'000;         // the watch cache's window, in revisions
    // kube's --etcd-compaction-interval (0: berth never compacts).
    std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};
    // Events expire this long after their last write (0: never).
    std::chrono::seconds event_ttl{0};
  };

  // Connects, loads the cache from a list of the prefix and starts its watch.
  // Unavailable when etcd cannot be reached within the client's timeout.
  static Result<std::unique_ptr<EtcdStore>> Open(Options options);
  ~EtcdStore() override;

  Result<ObjectPtr> Create(ObjectPtr object) override;
  // Create's transaction sent without holding the calling thread; `done`
  // runs on the etcd client's thread once the cache has the answer's revision.
  void CreateAsync(ObjectPtr object, std::function<void(Result<ObjectPtr>)> done) override;
  Result<ObjectPtr> Get(const std::string& key) override;
  Result<ListResult> List(const ListOptions& options) override;
  Result<ObjectPtr> Update(ObjectPtr object, int64_t expected_revision) override;
  Result<ObjectPtr> Delete(const std::string& key, int64_t expected_revision = 0) override;
  Result<std::unique_ptr<Watch>> WatchFrom(const WatchOptions& options) override;
  int64_t CurrentRevision() override { return cache_->CurrentRevision(); }
  std::vector<std::pair<std::string, int64_t>> CountByResource() override {
    return cache_->CountByResource();
  }
  // As the embedded store, but bounded: should the cache not reach `revision`
  // within the client's timeout (etcd went away after the write), `done` is
  // called then (the write is in etcd; this process's reads lag behind it).
  void WhenVisible(int64_t revision, std::function<void()> done) override;

  // The oldest revision the cache can list or watch from.
  int64_t CompactedRevision() { return cache_->CompactedRevision(); }
  // Compacts etcd's history up to `revision` now (the compactor's step).
  Status Compact(int64_t revision);
  // The etcd key of a storage key (or of a prefix of one).
  std::string EtcdKey(std::string_view storage_key) const;
  // Stops the cache's watch and the compactor, ends every watch. Idempotent.
  void Close();

 private:
  explicit EtcdStore(Options options);
  enum class Op { kCreate, kUpdate, kDelete };
  Result<ObjectPtr> Write(Op op, const std::string& key, ObjectPtr object,
                          int64_t expected_revision);
  // A write's transaction: `value` to put (nullptr: delete), guarded as
  // the class comment says.
  etcdserverpb::TxnRequest WriteTxn(Op op, const std::string& key, const std::string* value,
                                    int64_t expected_revision);
  // A write's result from etcd's answer; `visible_at`: the revision this
  // process's reads must reach before the result is given (0: none). A
  // success is queued for the cache's feeder.
  Result<ObjectPtr> Settle(Op op, const std::string& key, const ObjectPtr& object,
                           const api::Object::EncodedTemplate& encoded,
                           const etcdserverpb::TxnResponse& answer, int64_t& visible_at);
  // Waits (bounded by the client's timeout) until the cache has applied `revision`.
  bool WaitCache(int64_t revision, std::chrono::milliseconds timeout);
  // Lists the prefix from etcd and resets the cache to it; the revision listed at.
  Result<int64_t> Load();
  // The cache's feeder: one etcd watch, resumed or reloaded until Close.
  void Feed();
  void Compactor();
  // Calls the WhenVisible callbacks whose time ran out.
  void Overdue();
  // A lease for an Event written now (0: none or none could be had).
  int64_t EventLease();
  // A storage key for an etcd key (for a deletion etcd gave no previous value for).
  std::string StorageKeyOf(std::string_view etcd_key);

  const Options options_;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MemoryStore> cache_;
  std::string range_start_;  // prefix + "/"
  std::string range_end_;    // the first key after every key under it
  std::string event_prefix_;

  // Objects this process wrote, by revision, until the cache applies them:
  // the feeder takes them instead of decoding etcd's copy.
  std::mutex pending_mu_;
  std::map<int64_t, MemoryStore::ReplicaChange> pending_;  // guarded by pending_mu_

  std::mutex applied_mu_;
  std::condition_variable applied_cv_;
  int64_t applied_ = 0;  // the cache's revision; guarded by applied_mu_

  // WhenVisible callbacks not yet called, with their deadlines; each runs
  // once, by the cache or by Overdue, whichever comes first.
  struct Callback {
    std::chrono::steady_clock::time_point deadline;
    std::shared_ptr<std::atomic<bool>> called;
    std::function<void()> done;
  };
  std::mutex callbacks_mu_;
  std::vector<Callback> callbacks_;  // guarded by callbacks_mu_
  bool callbacks_closed_ = false;    // guarded by callbacks_mu_

  std::mutex lease_mu_;
  int64_t lease_id_ = 0;                                 // guarded by lease_mu_
  std::chrono::steady_clock::time_point lease_granted_;  // guarded by lease_mu_

  std::atomic<bool> closed_{false};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  std::thread feeder_;
  std::thread compactor_;
  std::thread overdue_;
};

}  // namespace berth::store
