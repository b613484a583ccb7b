#pragma once
// One owner per data directory: an exclusive flock(2) on <dir>/LOCK, held
// while the owner lives, with the owner's PID written in the file so that a
// second process is told who has it. The kernel drops the lock when the
// process dies however it dies (SIGKILL included), so a stale LOCK file never
// keeps a directory locked.

#include <string>

#include "api/status.h"

namespace berth::store::wal {

class DirLock {
 public:
  // Locks `dir` (which must exist). Unavailable when another process holds
  // it: "data directory DIR is in use by PID n".
  static Result<DirLock> Acquire(const std::string& dir);

  DirLock() = default;
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  bool held() const { return fd_ >= 0; }
  // Unlocks now (also what the destructor does). Idempotent.
  void Release();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace berth::store::wal
