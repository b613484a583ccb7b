#pragma once
// The byte layout of log segments. All integers are little-endian.
//
//   segment header (24 bytes): "BERTHWAL", u32 version, u32 CRC-32C of the
//                              header with this field zeroed, i64 first revision
//   record, repeated:          u32 payload length, u32 CRC-32C of the payload,
//                              payload = u8 type (Record::Type), varint revision,
//                                        varint key length, key,
//                                        varint value length, value
//
// The header's first revision must equal the one in the file's name, so a
// renamed or foreign file is refused rather than replayed.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "store/wal/wal.h"

namespace berth::store::wal {

inline constexpr size_t kSegmentHeaderSize = 24;
inline constexpr uint32_t kSegmentVersion = 1;
inline constexpr size_t kRecordHeaderSize = 8;
// type + three one-byte varints: no valid payload is shorter, so zero-filled
// bytes (length 0, CRC 0) never read as a record.
inline constexpr size_t kMinPayloadSize = 4;
// Far above any object the API accepts; the length field could hold 4 GiB.
inline constexpr size_t kMaxPayloadSize = size_t{1} << 30;

// The header of a segment whose first record will carry `first_revision`.
std::string EncodeSegmentHeader(int64_t first_revision);

enum class HeaderState {
  kValid,
  // Shorter than a header but a prefix of the expected one, or all zero
  // bytes: what a crash while creating the file leaves.
  kTorn,
  kInvalid,
};
// Classifies the first bytes of the segment file named for `first_revision`;
// `problem` says why when kInvalid.
HeaderState CheckSegmentHeader(std::string_view file_start, int64_t first_revision,
                               std::string* problem);

// Appends `record`, framed, to `out`.
void AppendRecord(const Record& record, std::string* out);

// One record read in place: the views point into the parsed bytes.
struct RecordView {
  Record::Type type = Record::Type::kPut;
  int64_t revision = 0;
  std::string_view key;
  std::string_view value;
  size_t framed_size = 0;  // header + payload
};

enum class ParseState {
  kOk,
  kTruncated,  // the header or the payload runs past the end of the bytes
  kCorrupt,    // CRC mismatch, or a payload that does not decode
};
// Parses the framed record at the start of `bytes`; `problem` says why when
// not kOk ("CRC mismatch", "payload runs past end of file", ...).
ParseState ParseRecord(std::string_view bytes, RecordView* out, const char** problem);

// True when a complete, well-formed record with a matching CRC starts at
// `bytes`. Cheap on random or zero bytes: the length and structure are
// checked before the CRC.
bool IsCompleteRecord(std::string_view bytes);

}  // namespace berth::store::wal
