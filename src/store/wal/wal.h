#pragma once
// The embedded store's durability: a write-ahead log of CRC'd records in
// segment files, group-committed by a background thread, and snapshots of the
// whole state that bound the log.
//
// Files in the data directory:
//   wal-<first revision, 16 hex digits>.log   log segments, records in revision order
//   snap-<revision, 16 hex digits>.snap       full state at that revision
// A segment named for revision F holds records with revisions >= F, up to the
// first revision of the next segment. Revisions increase strictly through the
// log and continue without a gap from one segment to the next (and from the
// snapshot into the log): without a snapshot the log starts at revision 1.
// The byte layouts are described in record_format.h and snapshot.h.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::store::wal {

struct Record {
  enum class Type : unsigned char {
    kPut = 1,     // value: the object's JSON (its resourceVersion may be another revision's)
    kDelete = 2,  // value: empty
    // value: the object's JSON with metadata.resourceVersion set to this
    // record's revision — the text the store serves, so it is kept as read.
    kPutAtRevision = 3,
  };
  Type type = Type::kPut;
  int64_t revision = 0;
  std::string key;
  std::string value;  // the object's JSON for kPut / kPutAtRevision; empty for kDelete
  bool operator==(const Record&) const = default;
};

// Appends records and makes them durable. Append never waits for I/O: a
// background thread writes what has accumulated and fdatasyncs it (group
// commit), so many concurrent writers share one fsync.
// Thread-safety: all methods may be called from any thread. Callers append in
// revision order (they serialise Append under their own lock).
// Positions are increasing sequence numbers (not byte offsets).
// One fsync covers everything queued while the previous one ran; after an
// fsync the writer waits up to half an fsync's duration for the appenders it
// just released, so that steady concurrent load forms one batch, not two.
class LogWriter {
 public:
  struct Options {
    std::string dir;
    // false: write but never fsync (tests and benchmarks of the in-memory path).
    bool sync = true;
    // Called on the writer thread after each fsync with its duration.
    std::function<void(double seconds)> on_fsync;
    // Called on the writer thread each time the log is durable up to a newer
    // position, before WaitDurable's callers for it are released.
    std::function<void(uint64_t position)> on_durable;
    // With sync on, the writer keeps up to this many bytes beyond the newest
    // record already written as zeros (starting at 64 KiB per segment and
    // growing with it), so that an fdatasync overwrites allocated blocks
    // instead of growing the file: on ext4 that halves its latency and CPU
    // (no journal commit for the size). A segment is cut back to its records
    // when the log rotates or closes; after a crash, recovery cuts the
    // zero-filled end of the newest one. A fill that fails (a full disk) is
    // cut off again and ends filling for this writer; only record writes and
    // fsyncs are fatal. 0: never fill ahead.
    uint64_t fill_ahead = uint64_t{256} << 10;
    // Called once, on the writer thread, when the log has failed for good (a
    // failed fsync, an I/O error): before the waiters are released.
    std::function<void(const Status&)> on_failure;
    // Tests only: called before each record write ("write") and each
    // fdatasync ("fdatasync"); a non-zero errno is taken as that call's failure.
    std::function<int(std::string_view call)> inject_fault;
  };

  // Starts a new segment whose first record will carry `next_revision`. The
  // directory must exist; recovery must have run first (it repairs the tail).
  // REQUIRES: next_revision is one more than the last revision recovered.
  // Fails when a segment named for a later revision exists, or the one named
  // for `next_revision` already holds records (a header-only file left by a
  // crash is replaced).
  static Result<std::unique_ptr<LogWriter>> Open(Options options, int64_t next_revision);
  virtual ~LogWriter() = default;

  // Queues a record; returns its position for WaitDurable. REQUIRES: not closed.
  virtual uint64_t Append(const Record& record) = 0;
  // Blocks until every record up to `position` is written and fdatasync'ed
  // (only written, with sync off), or the log has failed (see Health).
  //
  // Failures. A write that fails for want of space (ENOSPC, EDQUOT)
  // is retried: the segment is cut back to its last whole record and the
  // writer tries again every so often, while Health reports the cause, until
  // space returns (the waiting appenders then complete as usual). Any other
  // write error, and every failed fsync, fails the log for good: after a
  // failed fsync the kernel may have dropped the dirty pages and a later
  // fsync would succeed without them, so nothing is retried. WaitDurable then
  // returns for every position not already durable (IsDurable says which),
  // nothing more is written, and Health returns why until the process
  // restarts and recovers from what is on disk.
  virtual void WaitDurable(uint64_t position) = 0;
  // Whether every record up to `position` is durable.
  virtual bool IsDurable(uint64_t position) const = 0;
  // Ok; or why the log takes no records now: out of space (retrying, an
  // InsufficientStorage-like Internal status naming the file), or failed for
  // good. Appends made meanwhile wait (space) or never become durable (failed).
  virtual Status Health() const = 0;
  // Records appended after this call go to a new segment starting at `next_revision`.
  // REQUIRES: the next record appended carries `next_revision`. The new file is
  // created by the writer thread: it exists once WaitDurable has returned for a
  // record appended after this call (or after Close). Rotating an empty segment
  // to its own revision does nothing.
  virtual void Rotate(int64_t next_revision) = 0;
  // Flushes, syncs and stops the writer thread. Idempotent; the destructor calls it.
  virtual void Close() = 0;
};

struct SnapshotEntry {
  std::string_view key;
  int64_t revision;  // the revision of this object's last write
  std::string_view value;
  // Read back (Recover): the mapped file the views point into; holding a copy
  // keeps it mapped, and the views valid, after the call.
  std::shared_ptr<const void> file = nullptr;
};

// A log record read in place (RecoverMapped): the views point into the mapped
// segment, which a copy of `file` keeps mapped.
struct MappedRecord {
  Record::Type type = Record::Type::kPut;
  int64_t revision = 0;
  std::string_view key;
  std::string_view value;
  std::shared_ptr<const void> file;
};

// Writes snap-<revision>.snap atomically (temporary file, fsync, rename, fsync
// of the directory), with a CRC over its contents.
Status WriteSnapshot(const std::string& dir, int64_t revision,
                     const std::vector<SnapshotEntry>& entries);

struct RecoverOptions {
  // Recover the state at this revision (newest snapshot <= it, log records <= it).
  int64_t max_revision = INT64_MAX;
  // Truncate a torn tail of the newest segment in place (false: only report it).
  bool repair = true;
};

struct RecoveryReport {
  int64_t snapshot_revision = 0;  // 0 when no snapshot was used
  int64_t last_revision = 0;      // the newest revision recovered
  int64_t records_replayed = 0;
  // What was repaired or passed over, e.g.
  // "truncated torn tail of wal-….log at offset 1234 (56 bytes)".
  std::vector<std::string> notes;
};

// Reads the data directory: calls on_snapshot_entry for each entry of the
// newest valid snapshot with revision <= max_revision, then on_record for each
// log record after it (in revision order, <= max_revision).
// A torn tail (the newest segment ends in an incomplete or CRC-failing record
// with nothing valid after it) is cut off; any other damage is an Internal
// Status naming the file and byte offset, and nothing is repaired.
// A damaged newest snapshot is passed over for an older one (or none) only
// when the log holds every revision from there up to the damaged one; the
// report's notes say so. Otherwise the error names the damaged snapshot.
// Entry views point into the mapped snapshot, kept mapped by copies of the
// entry's `file`; on_record may move the strings out of its Record.
Result<RecoveryReport> Recover(const std::string& dir, const RecoverOptions& options,
                               const std::function<void(SnapshotEntry)>& on_snapshot_entry,
                               const std::function<void(Record&&)>& on_record);
// As Recover, with records handed over in place (nothing copied). Files stay
// mapped, and their disk space allocated even once pruned, while a copy of
// their `file` is held.
Result<RecoveryReport> RecoverMapped(const std::string& dir, const RecoverOptions& options,
                                     const std::function<void(SnapshotEntry)>& on_snapshot_entry,
                                     const std::function<void(const MappedRecord&)>& on_record);

// Removes snapshots older than `revision` and the segments all of whose records
// are at or below `revision` (they are covered by the snapshot at `revision`).
// The newest segment is always kept. BadRequest, and nothing removed, when no
// snapshot at or after `revision` exists.
Status PruneBefore(const std::string& dir, int64_t revision);

struct FileInfo {
  std::string name;
  int64_t bytes;
  int64_t revision;  // first revision (segments) or revision (snapshots)
  bool snapshot;
};
// The log and snapshot files of `dir`, oldest first (by revision; a segment
// before the snapshot of the same revision). Other files are ignored.
Result<std::vector<FileInfo>> ListFiles(const std::string& dir);

// "wal-<16 lowercase hex digits>.log" and "snap-<16 lowercase hex digits>.snap".
std::string SegmentFileName(int64_t first_revision);
std::string SnapshotFileName(int64_t revision);

}  // namespace berth::store::wal
