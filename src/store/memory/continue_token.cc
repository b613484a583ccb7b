#include "store/memory/continue_token.h"

#include <optional>
#include <string>

#include "api/object.h"

namespace berth::store {
namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
    out += kB64[n & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::strchr(kB64, c);
    if (c == '\0' || p == nullptr) return std::nullopt;
    acc = (acc << 6) | uint32_t(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

std::string EncodeContinue(int64_t revision, std::string_view last_key) {
  std::string raw = std::to_string(revision);
  raw += ':';
  raw += last_key;
  return Base64UrlEncode(raw);
}

bool DecodeContinue(std::string_view token, int64_t* revision, std::string* last_key) {
  auto raw = Base64UrlDecode(token);
  if (!raw) return false;
  auto colon = raw->find(':');
  if (colon == std::string::npos) return false;
  auto rv = api::ParseResourceVersion(std::string_view(*raw).substr(0, colon));
  if (!rv || *rv == 0) return false;
  *revision = *rv;
  *last_key = raw->substr(colon + 1);
  return true;
}

}  // namespace berth::store
