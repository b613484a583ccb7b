// Snapshot decoding (SnapshotReader): the input becomes snap-<revision>.snap
// (the revision read from the input's header field, as the file name must
// carry it); the first byte picks whether the CRC trailer is appended
// correctly, so that the entries' framing is reached. A snapshot that opens
// writes back (WriteSnapshot) to one that reads to the same entries.
#include <cstring>
#include <vector>

#include "fuzz_store_files.h"
#include "fuzz_util.h"
#include "store/wal/snapshot.h"
#include "store/wal/wal.h"

using namespace berth;
namespace wal = berth::store::wal;

namespace {

struct Entry {
  std::string key;
  int64_t revision;
  std::string value;
  bool operator==(const Entry&) const = default;
};

std::vector<Entry> ReadAll(const wal::SnapshotReader& reader) {
  std::vector<Entry> out;
  reader.ForEach([&](wal::SnapshotEntry e) {
    out.push_back(Entry{std::string(e.key), e.revision, std::string(e.value)});
  });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  if (input.empty()) return 0;
  const bool add_crc = input[0] & 1;
  input.remove_prefix(1);
  std::string file(input);
  if (add_crc) fuzz::PutLe32(file, wal::Crc32c(input));
  int64_t revision = 1;
  if (input.size() >= 24) std::memcpy(&revision, input.data() + 16, sizeof(revision));
  if (revision < 0) return 0;

  fuzz::TempDir dir;
  dir.Write(wal::SnapshotFileName(revision), file);
  auto reader = wal::SnapshotReader::Open(dir.path(), revision);
  if (!reader.ok()) return 0;
  fuzz::Check(reader->revision() == revision, "a snapshot opened at another revision");
  std::vector<Entry> entries = ReadAll(*reader);
  fuzz::Check(entries.size() == reader->entry_count(), "a snapshot yields another number of entries");

  fuzz::TempDir copy;
  std::vector<wal::SnapshotEntry> out;
  for (const auto& e : entries) out.push_back(wal::SnapshotEntry{e.key, e.revision, e.value});
  Status written = wal::WriteSnapshot(copy.path(), revision, out);
  fuzz::Check(written.ok(), "a snapshot read back does not write", written.message());
  auto again = wal::SnapshotReader::Open(copy.path(), revision);
  fuzz::Check(again.ok(), "a written snapshot does not open", again.ok() ? "" : again.status().message());
  fuzz::Check(ReadAll(*again) == entries, "a written snapshot reads back other entries");
  return 0;
}
