#include "store/wal/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace berth::store::wal {

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') {
    return dir + name;
  }
  return dir + "/" + name;
}

std::string ErrnoMessage(std::string_view what, const std::string& path, int err) {
  std::string m(what);
  m += ' ';
  m += path;
  m += ": ";
  m += std::strerror(err);
  m += " (errno ";
  m += std::to_string(err);
  m += ')';
  return m;
}

Status WriteFully(int fd, const char* data, size_t size, const std::string& path, int* error) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int err = errno;
      if (error != nullptr) {
        *error = err;
      }
      return Status::Internal(ErrnoMessage("write", path, err));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

bool IsOutOfSpace(int err) { return err == ENOSPC || err == EDQUOT; }

Status WriteZerosAt(int fd, uint64_t offset, uint64_t size, const std::string& path) {
  static const char kZeros[64 * 1024] = {};
  while (size > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(size, sizeof(kZeros)));
    ssize_t n = ::pwrite(fd, kZeros, chunk, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Status::Internal(ErrnoMessage("write", path, errno));
    }
    offset += static_cast<uint64_t>(n);
    size -= static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Internal(ErrnoMessage("open directory", dir, errno));
  }
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) {
    return Status::Internal(ErrnoMessage("fsync directory", dir, err));
  }
  return Status::Ok();
}

Result<MappedFile> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Internal(ErrnoMessage("open", path, errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status::Internal(ErrnoMessage("stat", path, err));
  }
  MappedFile file;
  if (st.st_size > 0) {
    void* data = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                        MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (data == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return Status::Internal(ErrnoMessage("mmap", path, err));
    }
    ::madvise(data, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
    file.data_ = static_cast<const char*>(data);
    file.size_ = static_cast<size_t>(st.st_size);
  }
  ::close(fd);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) {
      ::munmap(const_cast<char*>(data_), size_);
    }
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) {
    ::munmap(const_cast<char*>(data_), size_);
  }
}

}  // namespace berth::store::wal
