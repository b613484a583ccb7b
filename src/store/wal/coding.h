#pragma once
// Little-endian fixed-width integers and LEB128 varints, as the log and
// snapshot formats store them.

#include <cstddef>
#include <cstdint>

namespace berth::store::wal {

inline void PutFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    dst[i] = static_cast<char>(v >> (8 * i));
  }
}
inline void PutFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    dst[i] = static_cast<char>(v >> (8 * i));
  }
}
inline uint32_t GetFixed32(const char* src) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(src[i])) << (8 * i);
  }
  return v;
}
inline uint64_t GetFixed64(const char* src) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(src[i])) << (8 * i);
  }
  return v;
}

inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
// Writes `v` at `dst` (at most 10 bytes); returns the byte after it.
inline char* PutVarint(char* dst, uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}
// Reads a varint from [*p, end) and advances *p past it; false when it runs
// past `end` or is longer than a 64-bit value needs.
inline bool GetVarint(const char** p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    auto byte = static_cast<unsigned char>(*(*p)++);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace berth::store::wal
