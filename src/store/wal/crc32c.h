#pragma once
// CRC-32C (Castagnoli), the checksum of every log record and snapshot.
// Uses the SSE4.2 crc32 instruction when the CPU has it, a table otherwise;
// both give identical results. Thread-safe; no state beyond constant tables.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace berth::store::wal {

// The CRC-32C of `size` bytes at `data` continued from `crc`, the CRC of the
// bytes before them (0 for none): Crc32cExtend(Crc32c(a), b) == Crc32c(a + b).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);

inline uint32_t Crc32c(const void* data, size_t size) { return Crc32cExtend(0, data, size); }
inline uint32_t Crc32c(std::string_view bytes) { return Crc32c(bytes.data(), bytes.size()); }

// The portable implementation, exposed so tests can compare it with the
// hardware one on the same input.
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t size);
// True when Crc32cExtend uses the SSE4.2 instruction on this machine.
bool Crc32cIsHardwareAccelerated();

}  // namespace berth::store::wal
