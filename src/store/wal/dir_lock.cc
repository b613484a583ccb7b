#include "store/wal/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "store/wal/file_io.h"

namespace berth::store::wal {

Result<DirLock> DirLock::Acquire(const std::string& dir) {
  const std::string path = JoinPath(dir, "LOCK");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Internal(ErrnoMessage("open", path, errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    if (err == EWOULDBLOCK) {
      char buf[32] = {};
      ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
      for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) holder += buf[i];
    }
    ::close(fd);
    if (err != EWOULDBLOCK) return Status::Internal(ErrnoMessage("lock", path, err));
    return Status::Unavailable("data directory " + dir + " is in use by " +
                               (holder.empty() ? std::string("another process") : "PID " + holder));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::Internal(ErrnoMessage("truncate", path, err));
  }
  if (Status s = WriteFully(fd, pid.data(), pid.size(), path); !s.ok()) {
    ::close(fd);
    return s;
  }
  return DirLock(fd);
}

DirLock::DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirLock::~DirLock() { Release(); }

void DirLock::Release() {
  if (fd_ < 0) return;
  ::close(fd_);  // drops the flock
  fd_ = -1;
}

}  // namespace berth::store::wal
