#include "store/wal/snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/wal/coding.h"
#include "store/wal/crc32c.h"

namespace berth::store::wal {
namespace {

constexpr char kSnapshotMagic[8] = {'B', 'E', 'R', 'T', 'H', 'S', 'N', 'P'};
constexpr uint32_t kSnapshotVersion = 1;
constexpr size_t kHeaderSize = 32;
constexpr size_t kTrailerSize = 4;
constexpr size_t kWriteChunk = size_t{1} << 20;

// Buffers the file's bytes, keeps the running CRC, and writes in 1 MiB chunks.
// The first failed write sticks and is returned by Finish.
class SnapshotWriter {
 public:
  SnapshotWriter(int fd, const std::string& path) : fd_(fd), path_(path) {
    buffer_.reserve(kWriteChunk);
  }

  void Append(std::string_view bytes) {
    if (buffer_.size() + bytes.size() > kWriteChunk) {
      Flush();
    }
    if (bytes.size() >= kWriteChunk) {  // a huge value: write it straight through
      crc_ = Crc32cExtend(crc_, bytes.data(), bytes.size());
      if (status_.ok()) {
        status_ = WriteFully(fd_, bytes.data(), bytes.size(), path_);
      }
      return;
    }
    buffer_.append(bytes);
  }
  void AppendVarint(uint64_t v) {
    char bytes[10];
    Append(std::string_view(bytes, static_cast<size_t>(PutVarint(bytes, v) - bytes)));
  }

  Status Finish() {
    Flush();
    char trailer[kTrailerSize];
    PutFixed32(trailer, crc_);
    if (status_.ok()) {
      status_ = WriteFully(fd_, trailer, sizeof trailer, path_);
    }
    return status_;
  }

 private:
  void Flush() {
    crc_ = Crc32cExtend(crc_, buffer_.data(), buffer_.size());
    if (status_.ok()) {
      status_ = WriteFully(fd_, buffer_.data(), buffer_.size(), path_);
    }
    buffer_.clear();
  }

  const int fd_;
  const std::string& path_;
  std::string buffer_;
  uint32_t crc_ = 0;
  Status status_;
};

Status WriteSnapshotFile(int fd, const std::string& path, int64_t revision,
                         const std::vector<SnapshotEntry>& entries) {
  SnapshotWriter out(fd, path);
  char header[kHeaderSize];
  std::memcpy(header, kSnapshotMagic, 8);
  PutFixed32(header + 8, kSnapshotVersion);
  PutFixed32(header + 12, 0);
  PutFixed64(header + 16, static_cast<uint64_t>(revision));
  PutFixed64(header + 24, entries.size());
  out.Append(std::string_view(header, kHeaderSize));
  for (const SnapshotEntry& e : entries) {
    out.AppendVarint(e.key.size());
    out.Append(e.key);
    out.AppendVarint(static_cast<uint64_t>(e.revision));
    out.AppendVarint(e.value.size());
    out.Append(e.value);
  }
  if (Status s = out.Finish(); !s.ok()) {
    return s;
  }
  if (::fsync(fd) != 0) {
    return Status::Internal(ErrnoMessage("fsync", path, errno));
  }
  return Status::Ok();
}

// Walks the entries of a checked file body; `fn` may be null (framing check only).
// Returns "" or what is wrong.
std::string WalkEntries(std::string_view body, uint64_t count, int64_t snapshot_revision,
                        const std::function<void(SnapshotEntry)>* fn) {
  const char* p = body.data();
  const char* end = body.data() + body.size();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t key_size, revision, value_size;
    if (!GetVarint(&p, end, &key_size) || key_size > static_cast<size_t>(end - p)) {
      return "entry " + std::to_string(i) + " is malformed";
    }
    std::string_view key(p, key_size);
    p += key_size;
    if (!GetVarint(&p, end, &revision) || !GetVarint(&p, end, &value_size) ||
        value_size > static_cast<size_t>(end - p)) {
      return "entry " + std::to_string(i) + " is malformed";
    }
    if (revision > static_cast<uint64_t>(snapshot_revision)) {
      return "entry " + std::to_string(i) + " has revision " + std::to_string(revision) +
             " after the snapshot's";
    }
    std::string_view value(p, value_size);
    p += value_size;
    if (fn != nullptr) {
      (*fn)(SnapshotEntry{key, static_cast<int64_t>(revision), value});
    }
  }
  if (p != end) {
    return "bytes after the last entry";
  }
  return "";
}

}  // namespace

Status WriteSnapshot(const std::string& dir, int64_t revision,
                     const std::vector<SnapshotEntry>& entries) {
  const std::string name = SnapshotFileName(revision);
  const std::string path = JoinPath(dir, name);
  const std::string temporary = path + std::string(kTemporarySuffix);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::Internal(ErrnoMessage("create", temporary, errno));
  }
  Status status = WriteSnapshotFile(fd, temporary, revision, entries);
  if (::close(fd) != 0 && status.ok()) {
    status = Status::Internal(ErrnoMessage("close", temporary, errno));
  }
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = Status::Internal(ErrnoMessage("rename to " + name, temporary, errno));
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  return SyncDirectory(dir);
}

Result<SnapshotReader> SnapshotReader::Open(const std::string& dir, int64_t revision) {
  const std::string name = SnapshotFileName(revision);
  auto mapped = MappedFile::Open(JoinPath(dir, name));
  if (!mapped.ok()) {
    return mapped.status();
  }
  std::string_view bytes = mapped->bytes();
  auto corrupt = [&](const std::string& why) {
    return Status::Internal(name + ": corrupt snapshot (" + why + ")");
  };
  if (bytes.size() < kHeaderSize + kTrailerSize) {
    return corrupt("file too short");
  }
  if (std::memcmp(bytes.data(), kSnapshotMagic, 8) != 0) {
    return corrupt("bad magic");
  }
  if (GetFixed32(bytes.data() + 8) != kSnapshotVersion) {
    return corrupt("unsupported version");
  }
  const size_t body_end = bytes.size() - kTrailerSize;
  if (Crc32c(bytes.data(), body_end) != GetFixed32(bytes.data() + body_end)) {
    return corrupt("CRC mismatch");
  }
  if (static_cast<int64_t>(GetFixed64(bytes.data() + 16)) != revision) {
    return corrupt("header revision does not match the file name");
  }
  SnapshotReader reader;
  reader.revision_ = revision;
  reader.entry_count_ = GetFixed64(bytes.data() + 24);
  std::string problem = WalkEntries(bytes.substr(kHeaderSize, body_end - kHeaderSize),
                                    reader.entry_count_, revision, nullptr);
  if (!problem.empty()) {
    return corrupt(problem);
  }
  reader.file_ = std::make_shared<const MappedFile>(std::move(mapped).value());
  return reader;
}

void SnapshotReader::ForEach(const std::function<void(SnapshotEntry)>& fn) const {
  std::string_view bytes = file_->bytes();
  const std::function<void(SnapshotEntry)> with_file = [&](SnapshotEntry entry) {
    entry.file = file_;
    fn(std::move(entry));
  };
  WalkEntries(bytes.substr(kHeaderSize, bytes.size() - kHeaderSize - kTrailerSize), entry_count_,
              revision_, &with_file);
}

}  // namespace berth::store::wal
