#pragma once
// The versioned object store: etcd's model (one cluster-wide revision,
// compare-and-swap on an object's revision, watch from a revision) over API
// objects. Implemented by the embedded store (memory index + WAL); an etcd v3
// backend implements the same contract.
//
// Keys are api::Object::StorageKey(): lists and watches select a key prefix
// (api::StoragePrefix). Every method is thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "api/status.h"

namespace berth::store {

using api::ObjectPtr;

// Which objects a list or watch returns besides the key prefix.
// nullptr matches everything.
using Predicate = std::function<bool(const api::Object&)>;

enum class ResourceVersionMatch { kNotOlderThan, kExact };

struct ListOptions {
  std::string prefix;
  Predicate predicate;
  // 0: the latest revision. Otherwise see `match`.
  int64_t resource_version = 0;
  // kExact lists at exactly `resource_version` (Expired when compacted);
  // kNotOlderThan lists at the latest revision, which is never older.
  ResourceVersionMatch match = ResourceVersionMatch::kNotOlderThan;
  // At most `limit` items (0: no limit); a continue token is returned when more remain.
  int64_t limit = 0;
  // From a previous page: continues that list at its revision. Expired when
  // the revision has since been compacted; BadRequest when malformed.
  std::string continue_token;
};

struct ListResult {
  std::vector<ObjectPtr> items;  // in key order
  int64_t revision = 0;          // the revision the list is consistent at
  std::string continue_token;    // "" when this is the last page
  int64_t remaining = 0;         // items after this page (when continue_token is set)
};

enum class EventType : unsigned char { kAdded, kModified, kDeleted, kBookmark, kError };
std::string_view EventTypeName(EventType type);  // "ADDED", ..., "BOOKMARK", "ERROR"

struct WatchEvent {
  EventType type;
  // ADDED/MODIFIED: the new version. DELETED: the last version, at the deletion's
  // revision. BOOKMARK: nullptr. ERROR: nullptr, see `error`.
  ObjectPtr object;
  int64_t revision = 0;
  Status error;
};

struct WatchOptions {
  std::string prefix;
  Predicate predicate;
  // Events after this revision. 0: from now on (nothing replayed). A revision
  // older than the history window: the watch fails with Expired.
  int64_t resource_version = 0;
  // Emit a BOOKMARK carrying the current revision after this long without events
  // (0: never).
  std::chrono::milliseconds bookmark_interval{0};
};

// One watch stream. Events come in revision order. With a predicate, an object
// that stops matching arrives as DELETED and one that starts matching as ADDED
// (Kubernetes' filtered-watch rule). A watcher that falls further behind than
// the store's history window ends with one ERROR event (Expired): the client
// lists again and resumes. A slow watcher never delays writers or other watchers.
class Watch {
 public:
  virtual ~Watch() = default;
  // Waits until events are ready, `deadline` passes or Stop() is called; returns
  // up to `max` events (empty on timeout or after the stream ended).
  virtual std::vector<WatchEvent> Next(std::chrono::steady_clock::time_point deadline,
                                       size_t max = 1024) = 0;
  // Non-blocking Next.
  virtual std::vector<WatchEvent> Poll(size_t max = 1024) = 0;
  // `notify` is called when new events may be ready (from a writer's thread: it
  // must be cheap and must not call back into the store). Replaces any earlier one.
  virtual void SetNotify(std::function<void()> notify) = 0;
  // Ends the stream; Next returns at once. Idempotent.
  virtual void Stop() = 0;
  // True once the stream has ended (Stop, ERROR delivered, store closed).
  virtual bool Done() const = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Stores a new object at its StorageKey. AlreadyExists when the key exists.
  // Returns the stored version (resource_version() set).
  virtual Result<ObjectPtr> Create(ObjectPtr object) = 0;
  // The latest version. NotFound when absent.
  virtual Result<ObjectPtr> Get(const std::string& key) = 0;
  virtual Result<ListResult> List(const ListOptions& options) = 0;
  // Replaces the object at its StorageKey. When expected_revision > 0 the current
  // version's revision must equal it, else Conflict. NotFound when absent.
  virtual Result<ObjectPtr> Update(ObjectPtr object, int64_t expected_revision) = 0;
  // Removes the key; guarded like Update. Returns the deleted version, at the
  // revision of the deletion.
  virtual Result<ObjectPtr> Delete(const std::string& key, int64_t expected_revision = 0) = 0;
  // A watch refers to its store: it must be destroyed before the store is.
  virtual Result<std::unique_ptr<Watch>> WatchFrom(const WatchOptions& options) = 0;
  // The newest revision visible to readers.
  virtual int64_t CurrentRevision() = 0;
  // Number of live objects per key prefix of the form "/<group>/<resource>/".
  virtual std::vector<std::pair<std::string, int64_t>> CountByResource() = 0;
  // Calls `done` once `revision` is visible to readers (and so durable): at
  // once when it already is, else later from the store's own thread, where
  // `done` must be cheap and must not call back into the store. Pairs with
  // DeferAcknowledgement; a store whose writes return only once visible (the
  // default) calls it at once.
  virtual void WhenVisible(int64_t revision, std::function<void()> done) {
    (void)revision;
    done();
  }
  // Create for callers that answer asynchronously (the HTTP server's create
  // path): `done` gets what Create returns, once a created object is visible
  // to readers (and so durable), exactly once, at once or later from another
  // thread, where it must be cheap and must not call back into the store's
  // writes. The calling thread is not held while the write waits: the
  // default logs the write under a DeferAcknowledgement and answers through
  // WhenVisible; the etcd store sends its transaction and answers from the
  // gRPC client's thread, so no thread waits for etcd's round trip.
  virtual void CreateAsync(ObjectPtr object, std::function<void(Result<ObjectPtr>)> done);
  // Ok; or why the store refuses writes now (its log failed, or is out of
  // space). Reads go on either way. /readyz reports it.
  virtual Status Health() { return Status::Ok(); }
  // Once WhenVisible has called back for a deferred write at `revision`: Ok
  // when it is visible, else why it never will be (the store failed before
  // the write was durable; the write must be answered with this error).
  virtual Status WriteStatus(int64_t revision) {
    (void)revision;
    return Status::Ok();
  }
};

// Deferred acknowledgement of writes, for callers that answer asynchronously
// (the HTTP server's create path): while one is alive on a thread, a store
// that supports it (the embedded store with a log) returns from that thread's
// Create/Update/Delete once the write is ordered and logged, without waiting
// for its fsync, and records the write's revision here. Nothing is visible to
// readers or watchers before it is durable either way; what changes is who
// waits: the caller must not report the write to anyone until
// Store::WhenVisible(revision(), ...) has called back. Stores without support
// wait as usual and record nothing. Scopes nest (the inner one is current).
class DeferAcknowledgement {
 public:
  DeferAcknowledgement();
  ~DeferAcknowledgement();
  DeferAcknowledgement(const DeferAcknowledgement&) = delete;
  DeferAcknowledgement& operator=(const DeferAcknowledgement&) = delete;

  // The newest revision written under this scope and not yet waited for; 0: none.
  int64_t revision() const { return revision_; }
  // For stores: the calling thread's current scope, or nullptr.
  static DeferAcknowledgement* Current();
  // For stores: a write at `revision` was not waited for.
  void Deferred(int64_t revision) { revision_ = revision > revision_ ? revision : revision_; }

 private:
  DeferAcknowledgement* previous_;
  int64_t revision_ = 0;
};

// Kubernetes' GuaranteedUpdate: reads the current version, applies `update`
// to it, writes with a revision guard, and retries on Conflict. `update` may
// return an error Status to stop (returned as is); it may be called several times.
Result<ObjectPtr> GuaranteedUpdate(Store& store, const std::string& key,
                                   const std::function<Result<ObjectPtr>(const ObjectPtr&)>& update,
                                   int max_attempts = 16);

}  // namespace berth::store
