#include "api/codec/base64.h"

#include <array>
#include <cstdint>

namespace berth::api {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> DecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i)
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr auto kDecode = DecodeTable();

bool IsNewline(char c) { return c == '\r' || c == '\n'; }

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Go's decodeQuantum, one quantum of four symbols at a time.
std::variant<std::string, Base64Corrupt> Base64Decode(std::string_view src) {
  std::string out;
  size_t si = 0;
  while (true) {
    std::array<uint32_t, 4> symbols{};
    size_t j = 0;
    bool end = false;
    for (; j < 4; ++j) {
      if (si == src.size()) {
        if (j == 0) return out;
        return Base64Corrupt{si - j};
      }
      const char c = src[si++];
      if (IsNewline(c)) {
        --j;
        continue;
      }
      if (const int8_t v = kDecode[static_cast<unsigned char>(c)]; v >= 0) {
        symbols[j] = static_cast<uint32_t>(v);
        continue;
      }
      if (c != '=' || j < 2) return Base64Corrupt{si - 1};
      if (j == 2) {  // "==" expected: the first is read
        while (si < src.size() && IsNewline(src[si])) ++si;
        if (si == src.size()) return Base64Corrupt{src.size()};
        if (src[si] != '=') return Base64Corrupt{si - 1};
        ++si;
      }
      while (si < src.size() && IsNewline(src[si])) ++si;
      if (si < src.size()) return Base64Corrupt{si};
      end = true;
      break;
    }
    const uint32_t v = (symbols[0] << 18) | (symbols[1] << 12) | (symbols[2] << 6) | symbols[3];
    const size_t bytes = end ? j - 1 : 3;
    out += static_cast<char>((v >> 16) & 0xff);
    if (bytes > 1) out += static_cast<char>((v >> 8) & 0xff);
    if (bytes > 2) out += static_cast<char>(v & 0xff);
    if (end) return out;
  }
}

}  // namespace berth::api
