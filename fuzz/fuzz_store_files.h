#pragma once
// Helpers for the store's file targets: a temporary data directory per input,
// and records framed with a correct length and CRC (so that the fuzzer reaches
// past the checksum into the payload's structure).

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "store/wal/crc32c.h"
#include "store/wal/record_format.h"

namespace berth::fuzz {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "berth-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  void Write(const std::string& name, std::string_view bytes) const {
    std::ofstream out(path_ + "/" + name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

 private:
  std::string path_;
};

inline void PutLe32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// `payload` framed as a log record: its length, its CRC-32C, the bytes.
inline std::string FrameRecordPayload(std::string_view payload) {
  std::string out;
  PutLe32(out, static_cast<uint32_t>(payload.size()));
  PutLe32(out, store::wal::Crc32c(payload));
  out.append(payload);
  return out;
}

}  // namespace berth::fuzz
