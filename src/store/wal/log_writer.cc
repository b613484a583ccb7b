// LogWriter: appenders encode records into a shared buffer; one writer thread
// swaps the buffer out, writes it to the current segment and fdatasyncs it
// (group commit), then publishes how far the log is durable. With fsync on,
// the segment is kept filled with zeros ahead of the records (FillAhead).

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/wal/file_io.h"
#include "store/wal/record_format.h"
#include "store/wal/wal.h"
#include "log/log.h"

namespace berth::store::wal {
namespace {

// A batch waits for released appenders at most half as long as the last fsync
// took, and never longer than this (seconds).
constexpr double kMaxGather = 0.001;

// The least a segment is filled ahead by (Options::fill_ahead permitting).
constexpr uint64_t kMinFillAhead = 64 * 1024;

void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  // Returns at once when *word != expected; spurious wake-ups are re-checked by the caller.
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
            nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
            nullptr, 0);
}

[[noreturn]] void Fatal(const std::string& message) {
  BERTH_LOG_ERROR(message, "Fatal write-ahead log error: durability can no longer be promised, aborting");
  std::abort();
}

// Creates the segment file for `first_revision` with its header, synced when
// `sync`. `replace` allows overwriting an existing file (one that holds no records).
// On failure `*error` (when given) is the failed call's errno.
Result<int> CreateSegment(const std::string& dir, int64_t first_revision, bool sync, bool replace,
                          int* error = nullptr) {
  const std::string path = JoinPath(dir, SegmentFileName(first_revision));
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    if (error != nullptr) {
      *error = errno;
    }
    return Status::Internal(ErrnoMessage("create", path, errno));
  }
  const std::string header = EncodeSegmentHeader(first_revision);
  Status status = WriteFully(fd, header.data(), header.size(), path, error);
  if (status.ok() && sync && ::fdatasync(fd) != 0) {
    if (error != nullptr) {
      *error = errno;
    }
    status = Status::Internal(ErrnoMessage("fdatasync", path, errno));
  }
  if (status.ok() && sync) {
    status = SyncDirectory(dir);
  }
  if (!status.ok()) {
    ::close(fd);
    return status;
  }
  return fd;
}

class SegmentLogWriter final : public LogWriter {
 public:
  SegmentLogWriter(Options options, int fd, int64_t first_revision)
      : options_(std::move(options)),
        fd_(fd),
        segment_revision_(first_revision),
        segment_path_(JoinPath(options_.dir, SegmentFileName(first_revision))) {
    thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "wal-writer");
      Run();
    });
  }
  ~SegmentLogWriter() override { Close(); }

  uint64_t Append(const Record& record) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (closing_) {
      Fatal("Append after Close (record revision " + std::to_string(record.revision) + ")");
    }
    if (record.key.size() + record.value.size() > kMaxPayloadSize) {
      Fatal("record at revision " + std::to_string(record.revision) + " is larger than " +
            std::to_string(kMaxPayloadSize) + " bytes");
    }
    const bool was_idle = buffer_.empty() && rotations_.empty();
    AppendRecord(record, &buffer_);
    ++pending_records_;
    const bool wake = was_idle || pending_records_ == gather_target_;
    const uint64_t position = ++queued_;
    // Woken after unlocking: a writer woken under the lock would at once
    // block on it again (a second futex call on each side).
    lock.unlock();
    if (wake) {
      work_cv_.notify_one();
    }
    return position;
  }

  void WaitDurable(uint64_t position) override {
    // A futex on the publish generation: one wake-all releases every waiter
    // without a mutex to fight over on the way out and without spinning.
    for (;;) {
      const uint32_t generation = generation_.load(std::memory_order_seq_cst);
      if (durable_.load(std::memory_order_acquire) >= position ||
          failed_.load(std::memory_order_seq_cst)) {
        return;
      }
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      if (generation_.load(std::memory_order_seq_cst) == generation) {
        FutexWait(&generation_, generation);
      }
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  bool IsDurable(uint64_t position) const override {
    return durable_.load(std::memory_order_acquire) >= position;
  }

  Status Health() const override {
    if (!failed_.load() && !out_of_space_.load()) {
      return Status::Ok();
    }
    std::lock_guard<std::mutex> lock(health_mu_);
    return health_;
  }

  void Rotate(int64_t next_revision) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) {
      Fatal("Rotate after Close");
    }
    rotations_.push_back({buffer_.size(), next_revision});
    ++queued_;
    work_cv_.notify_one();
  }

  void Close() override {
    std::lock_guard<std::mutex> close_lock(close_mu_);
    if (!thread_.joinable()) {
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    work_cv_.notify_one();
    thread_.join();
    if (!failed_.load()) {
      TrimFill();
      Sync();
    }
    if (::close(fd_) != 0 && !failed_.load()) {
      Fail(ErrnoMessage("close", segment_path_, errno));
    }
    fd_ = -1;
  }

 private:
  struct Rotation {
    size_t offset;  // in the buffer: the bytes before it go to the old segment
    int64_t next_revision;
  };

  void Run() {
    std::string batch;
    std::vector<Rotation> rotations;
    // Group commit: appenders released by the last fsync usually append again
    // soon. Waiting briefly (`gather_until`) until the batch holds half of
    // them (`target`) keeps batches large, so fsyncs are few, while the other
    // half come back during this batch's fsync and make the next one: the
    // appenders' own work (an HTTP round trip and a create, for the API
    // server) overlaps the fsync instead of all of them waiting on one fsync
    // and then all working while the disk is idle. Waiting for all of them
    // gave 17,669 durable creates/s over HTTP against 20,761 for half (10
    // alternated runs each, docs/benchmarks-history.md), and no more for 64 store writers.
    std::chrono::steady_clock::time_point gather_until;
    size_t target = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [&] { return !buffer_.empty() || !rotations_.empty() || closing_; });
      if (buffer_.empty() && rotations_.empty()) {
        return;  // closing, all durable
      }
      if (target > 1) {
        gather_target_ = target;
        work_cv_.wait_until(lock, gather_until,
                            [&] { return pending_records_ >= gather_target_ || closing_; });
        gather_target_ = 0;
      }
      batch.swap(buffer_);
      rotations.swap(rotations_);
      const uint64_t batch_end = queued_;
      const size_t batch_records = pending_records_;
      pending_records_ = 0;
      lock.unlock();

      size_t offset = 0;
      for (const Rotation& r : rotations) {
        Write(batch.data() + offset, r.offset - offset);
        offset = r.offset;
        SwitchSegment(r.next_revision);
      }
      Write(batch.data() + offset, batch.size() - offset);
      FillAhead();
      const double sync_seconds = Sync();
      batch.clear();  // keeps its capacity for the next swap
      rotations.clear();
      lock.lock();
      if (failed_.load()) {
        continue;  // nothing more becomes durable; Fail released the waiters
      }
      // Measured under mu_ before anyone is released, so pending_records_ is
      // exactly what queued during the fsync: none of the appenders about to be
      // released has appended again yet.
      target = options_.sync ? (pending_records_ + batch_records + 1) / 2 : 0;
      gather_until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(std::min(sync_seconds / 2, kMaxGather)));
      // Publish and wake outside mu_: the released appenders go straight to
      // Append, and on_durable never delays one. A waiter announces itself before re-checking the
      // generation, so either it is counted here or its futex wait sees the new generation and
      // returns.
      lock.unlock();
      if (options_.on_durable && batch_end > durable_.load(std::memory_order_relaxed)) {
        options_.on_durable(batch_end);
      }
      durable_.store(batch_end, std::memory_order_release);
      generation_.fetch_add(1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) > 0) {
        FutexWakeAll(&generation_);
      }
      lock.lock();
    }
  }

  // Writer thread only. The errno a test injects for `call`, or 0.
  int Injected(std::string_view call) const {
    return options_.inject_fault ? options_.inject_fault(call) : 0;
  }

  // Writer thread only. Runs `attempt` (0 or the errno it failed with, and
  // its message in *message) until it succeeds. Out of space: `undo` puts
  // things back as they were before the attempt, Health reports the cause,
  // and the attempt is repeated after a pause (growing to a second) unless the
  // writer is closing. Any other failure fails the log. Returns whether it succeeded.
  bool UntilDone(const std::function<int(std::string* message)>& attempt,
                 const std::function<bool()>& undo) {
    auto pause = std::chrono::milliseconds(10);
    for (;;) {
      if (failed_.load()) {
        return false;
      }
      std::string message;
      const int err = attempt(&message);
      if (err == 0) {
        break;
      }
      if (!IsOutOfSpace(err) || !undo()) {
        Fail(message);
        return false;
      }
      if (!out_of_space_.load()) {
        {
          std::lock_guard<std::mutex> lock(health_mu_);
          health_ = Status::Internal("the write-ahead log is out of space: " + message +
                                     "; writes are refused until space is freed");
        }
        out_of_space_.store(true);
        BERTH_LOG_ERROR(message, "Write-ahead log out of space: refusing writes, retrying until space is freed");
      }
      std::unique_lock<std::mutex> lock(mu_);
      if (work_cv_.wait_for(lock, pause, [&] { return closing_; })) {
        lock.unlock();
        Fail("closed while out of space (" + message + "): the records not yet written are lost");
        return false;
      }
      pause = std::min<std::chrono::milliseconds>(pause * 2, std::chrono::seconds(1));
    }
    if (out_of_space_.exchange(false)) {
      BERTH_LOG("Write-ahead log: space available again, accepting writes", {"file", segment_path_});
    }
    return true;
  }

  // Writer thread only (or Close once it has stopped). Fails the log for
  // good: nothing more is written or made durable, every waiter is released,
  // and Health says why.
  void Fail(const std::string& message) {
    if (failed_.load()) {
      return;
    }
    const Status status = Status::Internal(
        "the write-ahead log failed (" + message +
        "): the store accepts no writes until it is restarted and recovers from its data directory");
    {
      std::lock_guard<std::mutex> lock(health_mu_);
      health_ = status;
    }
    BERTH_LOG_ERROR(message, "Write-ahead log failed: refusing writes until restart");
    if (options_.on_failure) {
      options_.on_failure(status);
    }
    failed_.store(true, std::memory_order_seq_cst);
    generation_.fetch_add(1, std::memory_order_seq_cst);
    FutexWakeAll(&generation_);
  }

  // Writer thread only.
  void Write(const char* data, size_t size) {
    if (size == 0) {
      return;
    }
    const bool written = UntilDone(
        [&](std::string* message) {
          int err = Injected("write");
          if (err != 0) {
            *message = ErrnoMessage("write", segment_path_, err);
            return err;
          }
          if (Status s = WriteFully(fd_, data, size, segment_path_, &err); !s.ok()) {
            *message = s.message();
          }
          return err;
        },
        [&] {
          // Part of the batch may have reached the file: cut it (and any
          // zeros filled ahead) off, and write from the last whole record again.
          if (::ftruncate(fd_, static_cast<off_t>(write_end())) != 0 ||
              ::lseek(fd_, static_cast<off_t>(write_end()), SEEK_SET) < 0) {
            return false;
          }
          filled_end_ = write_end();
          return true;
        });
    if (!written) {
      return;
    }
    segment_bytes_ += size;
    unsynced_ = true;
  }

  uint64_t write_end() const { return kSegmentHeaderSize + segment_bytes_; }

  // Writer thread only. Once less than half of the wanted zero-filled space is
  // left beyond the records, writes zeros up to write_end() + wanted (synced
  // with the batch just written). Filling is only an optimisation: when it
  // fails (a full disk, a file size limit) the zeros written are cut off again
  // and this writer stops filling, its files growing as it writes.
  void FillAhead() {
    if (!options_.sync || options_.fill_ahead == 0 || fill_failed_ || failed_.load()) {
      return;
    }
    const uint64_t wanted = std::min(options_.fill_ahead, std::max(segment_bytes_, kMinFillAhead));
    const uint64_t end = write_end();
    if (filled_end_ >= end + wanted / 2) {
      return;
    }
    const uint64_t from = std::max(filled_end_, end);
    unsynced_ = true;
    if (Status s = WriteZerosAt(fd_, from, end + wanted - from, segment_path_); !s.ok()) {
      BERTH_LOG_ERROR(s.message(), "Write-ahead log: no longer filling segments ahead");
      fill_failed_ = true;
      filled_end_ = end + wanted;  // as far as the zeros may have gone
      TrimFill();
      return;
    }
    filled_end_ = end + wanted;
  }

  // Writer thread only. Cuts the zero-filled space beyond the records off the
  // current segment (made durable by the next Sync).
  void TrimFill() {
    if (failed_.load()) {
      return;
    }
    if (filled_end_ <= write_end()) {
      return;
    }
    if (::ftruncate(fd_, static_cast<off_t>(write_end())) != 0) {
      Fail(ErrnoMessage("truncate", segment_path_, errno));
      return;
    }
    filled_end_ = write_end();
    unsynced_ = true;
  }

  // Writer thread only. Returns the fsync's duration in seconds (0: none was needed).
  // A failed fdatasync fails the log: it is never retried (see WaitDurable).
  double Sync() {
    if (!unsynced_ || !options_.sync || failed_.load()) {
      return 0;
    }
    const auto start = std::chrono::steady_clock::now();
    int err = Injected("fdatasync");
    if (err == 0 && ::fdatasync(fd_) != 0) {
      err = errno;
    }
    if (err != 0) {
      Fail(ErrnoMessage("fdatasync", segment_path_, err));
      return 0;
    }
    unsynced_ = false;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options_.on_fsync) {
      options_.on_fsync(seconds);
    }
    return seconds;
  }

  // Writer thread only. Makes the current segment durable and starts the next.
  void SwitchSegment(int64_t next_revision) {
    if (failed_.load()) {
      return;
    }
    if (next_revision == segment_revision_ && segment_bytes_ == 0) {
      return;  // still empty
    }
    if (next_revision <= segment_revision_) {
      Fatal("Rotate(" + std::to_string(next_revision) + ") does not follow the current segment " +
            segment_path_);
    }
    TrimFill();
    Sync();
    int fd = -1;
    bool replace = false;  // a retry replaces the file the failed attempt left
    const std::string next_path = JoinPath(options_.dir, SegmentFileName(next_revision));
    const bool created = UntilDone(
        [&](std::string* message) {
          int err = 0;
          auto segment = CreateSegment(options_.dir, next_revision, options_.sync, replace, &err);
          if (segment.ok()) {
            fd = segment.value();
            return 0;
          }
          *message = segment.status().message();
          return err != 0 ? err : EIO;
        },
        [&] {
          replace = true;
          return ::unlink(next_path.c_str()) == 0 || errno == ENOENT;
        });
    if (!created) {
      return;
    }
    if (::close(fd_) != 0) {
      Fail(ErrnoMessage("close", segment_path_, errno));
      ::close(fd);
      return;
    }
    fd_ = fd;
    segment_revision_ = next_revision;
    segment_path_ = JoinPath(options_.dir, SegmentFileName(next_revision));
    segment_bytes_ = 0;
    filled_end_ = kSegmentHeaderSize;
    unsynced_ = false;
  }

  const Options options_;

  std::mutex mu_;
  std::condition_variable work_cv_;  // wakes the writer thread
  std::string buffer_;               // guarded by mu_: encoded records not yet taken
  std::vector<Rotation> rotations_;  // guarded by mu_
  uint64_t queued_ = 0;              // guarded by mu_: position of the newest Append/Rotate
  size_t pending_records_ = 0;       // guarded by mu_: records in buffer_
  size_t gather_target_ = 0;  // guarded by mu_: wake the writer at this many (0: not waiting)
  bool closing_ = false;      // guarded by mu_

  std::atomic<uint64_t> durable_{0};     // position up to which everything is durable
  std::atomic<uint32_t> generation_{0};  // bumped after each store to durable_
  std::atomic<int> sleepers_{0};         // WaitDurable callers about to sleep or asleep
  std::atomic<bool> failed_{false};      // failed for good (Fail)
  std::atomic<bool> out_of_space_{false};  // retrying a write for want of space
  mutable std::mutex health_mu_;
  Status health_;  // guarded by health_mu_: why, when failed_ or out_of_space_

  // Owned by the writer thread while it runs, then by Close.
  int fd_;
  int64_t segment_revision_;
  std::string segment_path_;
  uint64_t segment_bytes_ = 0;  // record bytes in the current segment (header excluded)
  uint64_t filled_end_ = kSegmentHeaderSize;  // the segment file's size: records, then zeros
  bool fill_failed_ = false;                  // a fill failed: stop filling ahead
  bool unsynced_ = false;

  std::mutex close_mu_;  // serialises Close
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<LogWriter>> LogWriter::Open(Options options, int64_t next_revision) {
  auto files = ListFiles(options.dir);
  if (!files.ok()) {
    return files.status();
  }
  bool replace = false;
  for (const FileInfo& f : files.value()) {
    if (f.snapshot || f.revision < next_revision) {
      continue;
    }
    if (f.revision > next_revision || f.bytes > static_cast<int64_t>(kSegmentHeaderSize)) {
      return Status::Internal(f.name + " already holds log records at or after revision " +
                              std::to_string(next_revision) +
                              "; the log must be recovered before it is reopened");
    }
    replace = true;  // left by a crash right after the segment was created; holds no records
  }
  auto fd = CreateSegment(options.dir, next_revision, options.sync, replace);
  if (!fd.ok()) {
    return fd.status();
  }
  return std::unique_ptr<LogWriter>(
      std::make_unique<SegmentLogWriter>(std::move(options), fd.value(), next_revision));
}

}  // namespace berth::store::wal
