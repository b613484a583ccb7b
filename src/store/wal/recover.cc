// Recover: the newest usable snapshot, then the log records after it, with a
// torn tail of the newest segment cut off and any other damage refused.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "store/wal/file_io.h"
#include "store/wal/record_format.h"
#include "store/wal/snapshot.h"
#include "store/wal/wal.h"

namespace berth::store::wal {
namespace {

// The length of `bytes` without its trailing zero bytes (the log writer fills
// segments ahead with zeros).
size_t WithoutZeroTail(std::string_view bytes) {
  size_t end = bytes.size();
  for (uint64_t word = 0; end >= sizeof(word); end -= sizeof(word)) {
    std::memcpy(&word, bytes.data() + end - sizeof(word), sizeof(word));
    if (word != 0) {
      break;
    }
  }
  while (end > 0 && bytes[end - 1] == '\0') {
    --end;
  }
  return end;
}

// True when a complete record with a valid CRC starts anywhere in `bytes`
// after `from`: then the damage at `from` is not a torn tail. A record's
// length field is not zero, so none starts in the zero-filled end.
bool ValidRecordAfter(std::string_view bytes, size_t from) {
  const size_t data_end = WithoutZeroTail(bytes);
  for (size_t p = from + 1; p < data_end && p + kRecordHeaderSize + kMinPayloadSize <= bytes.size();
       ++p) {
    if (IsCompleteRecord(bytes.substr(p))) {
      return true;
    }
  }
  return false;
}

// "<file>: <what> at offset <N> (<detail>)".
Status Corrupt(const std::string& file, size_t offset, std::string_view what,
               std::string_view detail = {}) {
  std::string m = file + ": " + std::string(what) + " at offset " + std::to_string(offset);
  if (!detail.empty()) {
    m += " (" + std::string(detail) + ")";
  }
  return Status::Internal(std::move(m));
}

// A cut to make once recovery has succeeded (an error changes nothing).
struct TornTail {
  std::string name;
  size_t offset = 0;
  size_t bytes = 0;
  bool remove_file = false;  // the header itself is incomplete: no record was ever there
  bool zero_filled = false;  // only zeros from `offset` on: space filled ahead, never written
};

Status RepairTornTail(const std::string& dir, const TornTail& torn) {
  const std::string path = JoinPath(dir, torn.name);
  if (torn.remove_file) {
    if (::unlink(path.c_str()) != 0) {
      return Status::Internal(ErrnoMessage("remove", path, errno));
    }
    return SyncDirectory(dir);
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Internal(ErrnoMessage("open", path, errno));
  }
  Status status;
  if (::ftruncate(fd, static_cast<off_t>(torn.offset)) != 0) {
    status = Status::Internal(ErrnoMessage("truncate", path, errno));
  } else if (::fsync(fd) != 0) {
    status = Status::Internal(ErrnoMessage("fsync", path, errno));
  }
  ::close(fd);
  return status;
}

class Replayer {
 public:
  Replayer(const std::string& dir, const RecoverOptions& options, int64_t base,
           const std::function<void(const MappedRecord&)>& on_record, RecoveryReport* report)
      : dir_(dir), options_(options), base_(base), on_record_(on_record), report_(report) {}

  // Replays segments[first..] in order. Sets `torn_` when the newest one ends torn.
  Status Run(const std::vector<FileInfo>& segments, size_t first) {
    for (size_t i = first; i < segments.size(); ++i) {
      const FileInfo& segment = segments[i];
      if (segment.revision > options_.max_revision) {
        break;
      }
      const int64_t covered = std::max(base_, last_log_revision_);
      if (segment.revision > covered + 1) {
        return Status::Internal(segment.name + ": gap in the log: it starts at revision " +
                                std::to_string(segment.revision) +
                                " but what precedes it ends at revision " +
                                std::to_string(covered));
      }
      const int64_t next_start = i + 1 < segments.size() ? segments[i + 1].revision : INT64_MAX;
      bool reached_max = false;
      Status s = ReplaySegment(segment, next_start, i + 1 == segments.size(), &reached_max);
      if (!s.ok() || reached_max) {
        return s;
      }
    }
    return Status::Ok();
  }

  const std::optional<TornTail>& torn() const { return torn_; }

 private:
  Status ReplaySegment(const FileInfo& segment, int64_t next_start, bool newest,
                       bool* reached_max) {
    auto mapped = MappedFile::Open(JoinPath(dir_, segment.name));
    if (!mapped.ok()) {
      return mapped.status();
    }
    auto file = std::make_shared<const MappedFile>(std::move(mapped).value());
    record_.file = file;
    const std::string_view bytes = file->bytes();
    std::string problem;
    switch (CheckSegmentHeader(bytes, segment.revision, &problem)) {
      case HeaderState::kValid:
        break;
      case HeaderState::kTorn:
        if (!newest) {
          return Corrupt(segment.name, 0, "bad segment header", "incomplete");
        }
        if (ValidRecordAfter(bytes, 0)) {
          return Corrupt(segment.name, 0, "bad segment header", "zeroed");
        }
        torn_ = TornTail{segment.name, 0, bytes.size(), /*remove_file=*/true};
        return Status::Ok();
      case HeaderState::kInvalid:
        return Corrupt(segment.name, 0, "bad segment header", problem);
    }

    size_t offset = kSegmentHeaderSize;
    RecordView view;
    while (offset < bytes.size()) {
      const char* why;
      ParseState state = ParseRecord(bytes.substr(offset), &view, &why);
      if (state != ParseState::kOk) {
        if (!newest || ValidRecordAfter(bytes, offset)) {
          return Corrupt(segment.name, offset,
                         state == ParseState::kTruncated ? "truncated record" : "corrupt record",
                         why);
        }
        torn_ = TornTail{segment.name, offset, bytes.size() - offset, false,
                         WithoutZeroTail(bytes) <= offset};
        return Status::Ok();
      }
      if (view.revision < segment.revision || view.revision >= next_start) {
        return Corrupt(
            segment.name, offset,
            "record revision " + std::to_string(view.revision) + " outside the segment's range");
      }
      if (view.revision <= last_log_revision_) {
        return Corrupt(segment.name, offset,
                       "revision " + std::to_string(view.revision) + " after revision " +
                           std::to_string(last_log_revision_),
                       "revisions go backwards");
      }
      last_log_revision_ = view.revision;
      if (view.revision > options_.max_revision) {
        *reached_max = true;
        return Status::Ok();
      }
      if (view.revision > base_) {
        record_.type = view.type;
        record_.revision = view.revision;
        record_.key = view.key;
        record_.value = view.value;
        on_record_(record_);
        ++report_->records_replayed;
        report_->last_revision = view.revision;
      }
      offset += view.framed_size;
    }
    return Status::Ok();
  }

  const std::string& dir_;
  const RecoverOptions& options_;
  const int64_t base_;
  const std::function<void(const MappedRecord&)>& on_record_;
  RecoveryReport* report_;
  int64_t last_log_revision_ = 0;
  MappedRecord record_;  // reused; its `file` is the segment being read
  std::optional<TornTail> torn_;
};

}  // namespace

Result<RecoveryReport> Recover(const std::string& dir, const RecoverOptions& options,
                               const std::function<void(SnapshotEntry)>& on_snapshot_entry,
                               const std::function<void(Record&&)>& on_record) {
  Record record;  // reused: its strings keep their capacity unless the callee moves them out
  return RecoverMapped(dir, options, on_snapshot_entry, [&](const MappedRecord& mapped) {
    record.type = mapped.type;
    record.revision = mapped.revision;
    record.key.assign(mapped.key);
    record.value.assign(mapped.value);
    on_record(std::move(record));
  });
}

Result<RecoveryReport> RecoverMapped(const std::string& dir, const RecoverOptions& options,
                                     const std::function<void(SnapshotEntry)>& on_snapshot_entry,
                                     const std::function<void(const MappedRecord&)>& on_record) {
  auto listed = ListFiles(dir);
  if (!listed.ok()) {
    return listed.status();
  }
  std::vector<FileInfo> segments;
  std::vector<FileInfo> snapshots;  // newest first, none after max_revision
  for (const FileInfo& f : listed.value()) {
    if (!f.snapshot) {
      segments.push_back(f);
    } else if (f.revision <= options.max_revision) {
      snapshots.insert(snapshots.begin(), f);
    }
  }

  // The newest snapshot whose checks pass. A damaged newer one is only
  // survivable when the log still holds everything since the older one.
  std::optional<SnapshotReader> snapshot;
  std::optional<Status> damaged;  // the newest damaged snapshot's error
  int64_t damaged_revision = 0;
  for (const FileInfo& f : snapshots) {
    auto reader = SnapshotReader::Open(dir, f.revision);
    if (reader.ok()) {
      snapshot = std::move(reader).value();
      break;
    }
    if (!damaged) {
      damaged = reader.status();
      damaged_revision = f.revision;
    }
  }
  const int64_t base = snapshot ? snapshot->revision() : 0;

  // The first segment to read: the newest one starting at or before base + 1
  // (the ones before it hold only revisions the snapshot covers).
  size_t first = 0;
  while (first + 1 < segments.size() && segments[first + 1].revision <= base + 1) {
    ++first;
  }
  if (!segments.empty() && segments[first].revision > base + 1) {
    std::string why = segments[first].name + ": gap in the log: it starts at revision " +
                      std::to_string(segments[first].revision) + " but " +
                      (snapshot ? "the snapshot used is at revision " + std::to_string(base)
                                : std::string("there is no snapshot before it"));
    if (damaged) {
      return Status::Internal(damaged->message() + ", and " + why);
    }
    return Status::Internal(why);
  }
  if (damaged && segments.empty()) {
    return Status::Internal(damaged->message() + ", and there is no log to rebuild it from");
  }

  RecoveryReport report;
  report.snapshot_revision = base;
  report.last_revision = base;
  const bool have_snapshot = snapshot.has_value();
  if (have_snapshot) {
    snapshot->ForEach(on_snapshot_entry);
    snapshot.reset();  // unmapped unless an entry's `file` was kept
  }

  Replayer replayer(dir, options, base, on_record, &report);
  if (Status s = replayer.Run(segments, first); !s.ok()) {
    return s;
  }

  if (damaged) {
    if (report.last_revision < damaged_revision) {
      return Status::Internal(damaged->message() + ", and the log ends at revision " +
                              std::to_string(report.last_revision) + ", before it");
    }
    report.notes.push_back(
        damaged->message() + "; recovered from " +
        (have_snapshot ? SnapshotFileName(base) + " and the log" : std::string("the log alone")));
  }
  if (const auto& torn = replayer.torn()) {
    std::string where = torn->name + " at offset " + std::to_string(torn->offset) + " (" +
                        std::to_string(torn->bytes) + " bytes)";
    const char* what = torn->zero_filled ? "zero-filled end of " : "torn tail of ";
    if (options.repair) {
      if (Status s = RepairTornTail(dir, *torn); !s.ok()) {
        return s;
      }
      report.notes.push_back((torn->remove_file ? std::string("removed torn segment ")
                                                : "truncated " + std::string(what)) +
                             where);
    } else {
      report.notes.push_back(what + where + " left in place (repair off)");
    }
  }
  return report;
}

}  // namespace berth::store::wal
