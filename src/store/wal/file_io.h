#pragma once
// Small POSIX file helpers shared by the log writer, snapshots and recovery.
// Errors come back as Status values whose message names the file and errno.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/status.h"

namespace berth::store::wal {

std::string JoinPath(const std::string& dir, const std::string& name);

// "<what> <path>: <strerror> (errno N)".
std::string ErrnoMessage(std::string_view what, const std::string& path, int err);

// Writes all of [data, data+size) at the file's offset, retrying short writes
// and EINTR. On failure `*error` (when given) is the failed call's errno.
Status WriteFully(int fd, const char* data, size_t size, const std::string& path,
                  int* error = nullptr);

// Whether a failed write's errno means the file system (or the user's quota)
// is out of space: retrying once space is freed may work. (A file size
// limit, EFBIG, is not: it does not go away.)
bool IsOutOfSpace(int err);

// Writes `size` zero bytes at `offset` (pwrite: the file's offset is left
// where it was), retrying short writes and EINTR.
Status WriteZerosAt(int fd, uint64_t offset, uint64_t size, const std::string& path);

// fsyncs a directory so that files created, renamed or removed in it survive a crash.
Status SyncDirectory(const std::string& dir);

// A whole file, read through a read-only private mapping (no copy, one
// syscall to map however large the file is). Move-only.
class MappedFile {
 public:
  static Result<MappedFile> Open(const std::string& path);
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace berth::store::wal
