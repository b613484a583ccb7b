#include "store/wal/record_format.h"

#include <algorithm>
#include <cstring>

#include "store/wal/coding.h"
#include "store/wal/crc32c.h"

namespace berth::store::wal {
namespace {

constexpr char kSegmentMagic[8] = {'B', 'E', 'R', 'T', 'H', 'W', 'A', 'L'};

// The header with its CRC field zeroed, for computing or checking the CRC.
void FillSegmentHeader(char* h, int64_t first_revision) {
  std::memcpy(h, kSegmentMagic, 8);
  PutFixed32(h + 8, kSegmentVersion);
  PutFixed32(h + 12, 0);
  PutFixed64(h + 16, static_cast<uint64_t>(first_revision));
}

}  // namespace

std::string EncodeSegmentHeader(int64_t first_revision) {
  std::string h(kSegmentHeaderSize, '\0');
  FillSegmentHeader(h.data(), first_revision);
  PutFixed32(h.data() + 12, Crc32c(h.data(), h.size()));
  return h;
}

HeaderState CheckSegmentHeader(std::string_view file_start, int64_t first_revision,
                               std::string* problem) {
  const std::string expected = EncodeSegmentHeader(first_revision);
  std::string_view head = file_start.substr(0, kSegmentHeaderSize);
  if (head == std::string_view(expected).substr(0, head.size())) {
    return head.size() == kSegmentHeaderSize ? HeaderState::kValid : HeaderState::kTorn;
  }
  if (head.find_first_not_of('\0') == std::string_view::npos) {
    return HeaderState::kTorn;
  }
  if (head.size() < 8 || std::memcmp(head.data(), kSegmentMagic, 8) != 0) {
    *problem = "bad magic: not a berth log segment";
  } else if (head.size() < kSegmentHeaderSize) {
    *problem = "cut short";
  } else if (GetFixed32(head.data() + 8) != kSegmentVersion) {
    *problem = "unsupported version " + std::to_string(GetFixed32(head.data() + 8));
  } else {
    char zeroed[kSegmentHeaderSize];
    std::memcpy(zeroed, head.data(), kSegmentHeaderSize);
    PutFixed32(zeroed + 12, 0);
    if (Crc32c(zeroed, kSegmentHeaderSize) != GetFixed32(head.data() + 12)) {
      *problem = "CRC mismatch";
    } else {
      *problem = "first revision differs from the file name";
    }
  }
  return HeaderState::kInvalid;
}

void AppendRecord(const Record& record, std::string* out) {
  const auto revision = static_cast<uint64_t>(record.revision);
  const size_t payload = 1 + VarintSize(revision) + VarintSize(record.key.size()) +
                         record.key.size() + VarintSize(record.value.size()) + record.value.size();
  const size_t start = out->size();
  out->resize(start + kRecordHeaderSize + payload);
  char* frame = out->data() + start;
  char* p = frame + kRecordHeaderSize;
  *p++ = static_cast<char>(record.type);
  p = PutVarint(p, revision);
  p = PutVarint(p, record.key.size());
  p = std::copy(record.key.begin(), record.key.end(), p);
  p = PutVarint(p, record.value.size());
  std::copy(record.value.begin(), record.value.end(), p);
  PutFixed32(frame, static_cast<uint32_t>(payload));
  PutFixed32(frame + 4, Crc32c(frame + kRecordHeaderSize, payload));
}

namespace {

// Decodes the payload's structure (type, varints, lengths adding up exactly);
// false when it does not decode. The CRC is not checked here.
bool DecodePayload(const char* p, const char* end, RecordView* out) {
  const auto type = static_cast<unsigned char>(*p++);
  if (type != static_cast<unsigned char>(Record::Type::kPut) &&
      type != static_cast<unsigned char>(Record::Type::kDelete) &&
      type != static_cast<unsigned char>(Record::Type::kPutAtRevision)) {
    return false;
  }
  uint64_t revision, key_size, value_size;
  if (!GetVarint(&p, end, &revision) || !GetVarint(&p, end, &key_size) ||
      key_size > static_cast<size_t>(end - p)) {
    return false;
  }
  const char* key = p;
  p += key_size;
  if (!GetVarint(&p, end, &value_size) || value_size != static_cast<size_t>(end - p)) {
    return false;
  }
  out->type = static_cast<Record::Type>(type);
  out->revision = static_cast<int64_t>(revision);
  out->key = std::string_view(key, key_size);
  out->value = std::string_view(p, value_size);
  return true;
}

}  // namespace

ParseState ParseRecord(std::string_view bytes, RecordView* out, const char** problem) {
  if (bytes.size() < kRecordHeaderSize) {
    *problem = "record header runs past end of file";
    return ParseState::kTruncated;
  }
  const uint32_t length = GetFixed32(bytes.data());
  if (length < kMinPayloadSize) {
    *problem = "record length too small";
    return ParseState::kCorrupt;
  }
  if (length > bytes.size() - kRecordHeaderSize) {
    *problem = "record payload runs past end of file";
    return ParseState::kTruncated;
  }
  const char* payload = bytes.data() + kRecordHeaderSize;
  const bool decoded = DecodePayload(payload, payload + length, out);
  if (Crc32c(payload, length) != GetFixed32(bytes.data() + 4)) {
    *problem = "CRC mismatch";
    return ParseState::kCorrupt;
  }
  if (!decoded) {
    *problem = "malformed payload";
    return ParseState::kCorrupt;
  }
  out->framed_size = kRecordHeaderSize + length;
  *problem = "";
  return ParseState::kOk;
}

bool IsCompleteRecord(std::string_view bytes) {
  if (bytes.size() < kRecordHeaderSize + kMinPayloadSize) {
    return false;
  }
  const uint32_t length = GetFixed32(bytes.data());
  if (length < kMinPayloadSize || length > bytes.size() - kRecordHeaderSize) {
    return false;
  }
  // The structure check first: it rejects random bytes before a CRC over
  // what could be megabytes is computed.
  const char* payload = bytes.data() + kRecordHeaderSize;
  RecordView view;
  return DecodePayload(payload, payload + length, &view) &&
         Crc32c(payload, length) == GetFixed32(bytes.data() + 4);
}

}  // namespace berth::store::wal
