// Recovery of a damaged data directory: the input becomes the log segment
// wal-0000000000000001.log (the first byte picks how: as it is, after a valid
// segment header, or after a valid header as records framed with correct
// CRCs from length-prefixed chunks, anything left over a torn tail), then
// Recover runs with repair on. Whatever it repaired, a second recovery of the
// same directory succeeds and finds the same state.
#include <vector>

#include "fuzz_store_files.h"
#include "fuzz_util.h"
#include "store/wal/wal.h"

using namespace berth;
namespace wal = berth::store::wal;

namespace {

struct Recovered {
  Result<wal::RecoveryReport> report;
  std::vector<wal::Record> records;
};

Recovered RecoverDir(const std::string& dir) {
  Recovered out{Status::Internal("not run"), {}};
  out.report = wal::Recover(
      dir, wal::RecoverOptions{}, [](wal::SnapshotEntry) {},
      [&](wal::Record&& r) { out.records.push_back(std::move(r)); });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  if (input.empty()) return 0;
  const int mode = static_cast<unsigned char>(input[0]) % 3;
  input.remove_prefix(1);
  std::string file;
  if (mode == 0) {
    file = input;
  } else {
    file = wal::EncodeSegmentHeader(1);
    if (mode == 1) {
      file.append(input);
    } else {
      while (!input.empty()) {
        size_t n = static_cast<unsigned char>(input[0]);
        if (n + 1 > input.size()) break;
        file += fuzz::FrameRecordPayload(input.substr(1, n));
        input.remove_prefix(n + 1);
      }
      file.append(input);  // a torn tail
    }
  }
  fuzz::TempDir dir;
  dir.Write(wal::SegmentFileName(1), file);

  Recovered first = RecoverDir(dir.path());
  if (!first.report.ok()) return 0;
  Recovered second = RecoverDir(dir.path());
  fuzz::Check(second.report.ok(), "a directory recovered (and repaired) once does not recover again",
              second.report.ok() ? "" : second.report.status().message());
  fuzz::Check(second.report->last_revision == first.report->last_revision,
              "a second recovery ends at another revision");
  fuzz::Check(second.records == first.records, "a second recovery replays other records");
  return 0;
}
