// Log record decoding (ParseRecord, IsCompleteRecord). The first byte picks
// whether the rest is read as framed bytes as they are, or as a payload that
// gets a correct length and CRC. A record that parses re-encodes to a record
// that parses to the same fields; IsCompleteRecord agrees with ParseRecord.
#include "fuzz_store_files.h"
#include "fuzz_util.h"
#include "store/wal/wal.h"

using namespace berth;
namespace wal = berth::store::wal;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  if (input.empty()) return 0;
  const bool frame = input[0] & 1;
  input.remove_prefix(1);
  std::string bytes = frame ? fuzz::FrameRecordPayload(input) : std::string(input);

  wal::RecordView view;
  const char* problem = nullptr;
  const wal::ParseState state = wal::ParseRecord(bytes, &view, &problem);
  fuzz::Check(wal::IsCompleteRecord(bytes) == (state == wal::ParseState::kOk),
              "IsCompleteRecord disagrees with ParseRecord");
  if (state != wal::ParseState::kOk) {
    fuzz::Check(problem != nullptr, "a refused record without a problem");
    return 0;
  }
  fuzz::Check(view.framed_size <= bytes.size(), "a record larger than its bytes");
  wal::Record record{view.type, view.revision, std::string(view.key), std::string(view.value)};
  std::string encoded;
  wal::AppendRecord(record, &encoded);
  wal::RecordView again;
  fuzz::Check(wal::ParseRecord(encoded, &again, &problem) == wal::ParseState::kOk,
              "a re-encoded record does not parse");
  fuzz::Check(again.type == view.type && again.revision == view.revision && again.key == view.key &&
                  again.value == view.value && again.framed_size == encoded.size(),
              "a re-encoded record parses to other fields");
  return 0;
}
