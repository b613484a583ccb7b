#pragma once
// Snapshot files: the whole state at one revision.
//
//   header (32 bytes): "BERTHSNP", u32 version, u32 zero, i64 revision, u64 entry count
//   entry, repeated:   varint key length, key, varint revision, varint value length, value
//   trailer:           u32 CRC-32C of every byte before it
//
// A snapshot is written as snap-<revision>.snap.tmp and renamed into place
// only once it is complete and synced, so a crash never leaves a half-written
// file under the real name.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "api/status.h"
#include "store/wal/file_io.h"
#include "store/wal/wal.h"

namespace berth::store::wal {

inline constexpr std::string_view kTemporarySuffix = ".tmp";

// A snapshot file checked end to end (CRC, header, the framing of every entry)
// before any entry is handed out, so a damaged file is refused as a whole.
class SnapshotReader {
 public:
  // Maps and checks dir/snap-<revision>.snap. The error names the file.
  static Result<SnapshotReader> Open(const std::string& dir, int64_t revision);

  int64_t revision() const { return revision_; }
  uint64_t entry_count() const { return entry_count_; }
  // Calls `fn` for each entry in file order. The views point into the mapped
  // file, which the entry's `file` keeps mapped.
  void ForEach(const std::function<void(SnapshotEntry)>& fn) const;

 private:
  std::shared_ptr<const MappedFile> file_;
  int64_t revision_ = 0;
  uint64_t entry_count_ = 0;
};

}  // namespace berth::store::wal
