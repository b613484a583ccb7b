// File naming, listing and pruning of the data directory.

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "store/wal/file_io.h"
#include "store/wal/snapshot.h"
#include "store/wal/wal.h"

namespace berth::store::wal {
namespace {

constexpr std::string_view kSegmentPrefix = "wal-";
constexpr std::string_view kSegmentSuffix = ".log";
constexpr std::string_view kSnapshotPrefix = "snap-";
constexpr std::string_view kSnapshotSuffix = ".snap";

std::string HexName(std::string_view prefix, int64_t revision, std::string_view suffix) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(revision)));
  std::string name(prefix);
  name += hex;
  name += suffix;
  return name;
}

// Parses prefix + 16 lowercase hex digits + suffix; false for any other name.
bool ParseHexName(std::string_view name, std::string_view prefix, std::string_view suffix,
                  int64_t* revision) {
  if (name.size() != prefix.size() + 16 + suffix.size() || !name.starts_with(prefix) ||
      !name.ends_with(suffix)) {
    return false;
  }
  uint64_t v = 0;
  for (char c : name.substr(prefix.size(), 16)) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) {
    return false;
  }
  *revision = static_cast<int64_t>(v);
  return true;
}

Status RemoveFile(const std::string& dir, const std::string& name) {
  const std::string path = JoinPath(dir, name);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::Internal(ErrnoMessage("remove", path, errno));
  }
  return Status::Ok();
}

}  // namespace

std::string SegmentFileName(int64_t first_revision) {
  return HexName(kSegmentPrefix, first_revision, kSegmentSuffix);
}

std::string SnapshotFileName(int64_t revision) {
  return HexName(kSnapshotPrefix, revision, kSnapshotSuffix);
}

Result<std::vector<FileInfo>> ListFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    return Status::Internal(ErrnoMessage("open directory", dir, errno));
  }
  std::vector<FileInfo> files;
  Status status;
  for (;;) {
    errno = 0;  // readdir returns null both at the end and on error
    dirent* entry = ::readdir(d);
    if (entry == nullptr) {
      if (errno != 0) {
        status = Status::Internal(ErrnoMessage("read directory", dir, errno));
      }
      break;
    }
    std::string_view name = entry->d_name;
    FileInfo info;
    if (ParseHexName(name, kSegmentPrefix, kSegmentSuffix, &info.revision)) {
      info.snapshot = false;
    } else if (ParseHexName(name, kSnapshotPrefix, kSnapshotSuffix, &info.revision)) {
      info.snapshot = true;
    } else {
      continue;
    }
    info.name = std::string(name);
    struct stat st;
    const std::string path = JoinPath(dir, info.name);
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) {
        continue;  // removed while listing
      }
      status = Status::Internal(ErrnoMessage("stat", path, errno));
      break;
    }
    info.bytes = st.st_size;
    files.push_back(std::move(info));
  }
  ::closedir(d);
  if (!status.ok()) {
    return status;
  }
  // A segment named R starts at R while snap-R ends at R: the segment sorts first.
  std::sort(files.begin(), files.end(), [](const FileInfo& a, const FileInfo& b) {
    if (a.revision != b.revision) {
      return a.revision < b.revision;
    }
    return !a.snapshot && b.snapshot;
  });
  return files;
}

Status PruneBefore(const std::string& dir, int64_t revision) {
  auto listed = ListFiles(dir);
  if (!listed.ok()) {
    return listed.status();
  }
  const std::vector<FileInfo>& files = listed.value();
  const bool covered = std::any_of(files.begin(), files.end(), [&](const FileInfo& f) {
    return f.snapshot && f.revision >= revision;
  });
  if (!covered) {
    return Status::BadRequest("no snapshot at or after revision " + std::to_string(revision) +
                              " in " + dir + "; nothing pruned");
  }
  std::vector<const FileInfo*> segments;
  for (const FileInfo& f : files) {
    if (!f.snapshot) {
      segments.push_back(&f);
    }
  }
  bool removed = false;
  for (const FileInfo& f : files) {
    if (f.snapshot && f.revision < revision) {
      if (Status s = RemoveFile(dir, f.name); !s.ok()) {
        return s;
      }
      removed = true;
    }
  }
  // A segment's records end before the next segment's first revision; the
  // newest segment has no such bound and is always kept.
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i + 1]->revision <= revision + 1) {
      if (Status s = RemoveFile(dir, segments[i]->name); !s.ok()) {
        return s;
      }
      removed = true;
    }
  }
  // Leftovers of snapshots that were being written when a process died.
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> stale;
    while (dirent* entry = ::readdir(d)) {
      std::string_view name = entry->d_name;
      int64_t r;
      if (name.ends_with(kTemporarySuffix) &&
          ParseHexName(name.substr(0, name.size() - kTemporarySuffix.size()), kSnapshotPrefix,
                       kSnapshotSuffix, &r) &&
          r < revision) {
        stale.emplace_back(name);
      }
    }
    ::closedir(d);
    for (const std::string& name : stale) {
      if (Status s = RemoveFile(dir, name); !s.ok()) {
        return s;
      }
      removed = true;
    }
  }
  return removed ? SyncDirectory(dir) : Status::Ok();
}

}  // namespace berth::store::wal
