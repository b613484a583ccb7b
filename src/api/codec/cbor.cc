#include "api/codec/cbor.h"

#include <algorithm>
#include <bit>
#include <boost/json.hpp>
#include <cmath>
#include <cstring>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

#include "api/codec/base64.h"

namespace berth::api {

namespace json = boost::json;

namespace {

enum Major : uint8_t {
  kUnsigned = 0,
  kNegative = 1,
  kBytes = 2,
  kText = 3,
  kArray = 4,
  kMap = 5,
  kTag = 6,
  kSimple = 7,
};

constexpr uint8_t kBreak = 0xff;
constexpr uint64_t kTagDateTime = 0;
constexpr uint64_t kTagEpoch = 1;
constexpr uint64_t kTagPositiveBignum = 2;
constexpr uint64_t kTagNegativeBignum = 3;
constexpr uint64_t kTagBase64Url = 21;
constexpr uint64_t kTagBase64 = 22;
constexpr uint64_t kTagBase16 = 23;

// ---- Encoding ---------------------------------------------------------------

void AppendHead(std::string& out, uint8_t major, uint64_t n) {
  const auto m = static_cast<char>(major << 5);
  if (n < 24) {
    out.push_back(static_cast<char>(m | static_cast<char>(n)));
    return;
  }
  int bytes = n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xffffffffULL ? 4 : 8;
  out.push_back(static_cast<char>(m | static_cast<char>(bytes == 1   ? 24
                                                        : bytes == 2 ? 25
                                                        : bytes == 4 ? 26
                                                                     : 27)));
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
}

// The float16 bits of `d` when float16 holds it exactly (normal or subnormal).
std::optional<uint16_t> ExactHalf(double d) {
  if (d == 0) return std::signbit(d) ? 0x8000 : 0x0000;
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  int exp = 0;
  const double mant = std::frexp(a, &exp);  // a = mant * 2^exp, mant in [0.5, 1)
  // Normal float16: a = 1.f * 2^(exp-1), exponent -14..15, 10 fraction bits.
  const int e = exp - 1;
  if (e >= -14 && e <= 15) {
    const double scaled = std::ldexp(mant, 11);  // 1.f scaled to 11 bits: [1024, 2048)
    if (scaled != std::floor(scaled)) return std::nullopt;
    const auto frac = static_cast<uint16_t>(static_cast<int>(scaled) - 1024);
    return static_cast<uint16_t>(sign | ((e + 15) << 10) | frac);
  }
  if (e < -14 && e >= -24) {
    // Subnormal: a = f * 2^-24 with f < 1024.
    const double f = std::ldexp(a, 24);
    if (f != std::floor(f) || f >= 1024) return std::nullopt;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(f));
  }
  return std::nullopt;
}

void AppendDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out.push_back(static_cast<char>(0xf6));
    return;
  }
  if (auto half = ExactHalf(d)) {
    out.push_back(static_cast<char>(0xf9));
    out.push_back(static_cast<char>(*half >> 8));
    out.push_back(static_cast<char>(*half & 0xff));
    return;
  }
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    const auto bits = std::bit_cast<uint32_t>(f);
    out.push_back(static_cast<char>(0xfa));
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    return;
  }
  const auto bits = std::bit_cast<uint64_t>(d);
  out.push_back(static_cast<char>(0xfb));
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

// ---- Decoding ---------------------------------------------------------------

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (n - i < static_cast<size_t>(len)) return false;
    for (int k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

std::string Base16(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Base64Url(std::string_view bytes) {
  std::string out = Base64Encode(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

// Seconds since the epoch as RFC 3339 in UTC with nanoseconds as Go's
// time.RFC3339Nano writes them (trailing zeros of the fraction dropped).
std::optional<std::string> EpochToRfc3339(double seconds) {
  // Years 0001..9999, which RFC 3339 can spell.
  if (!(seconds >= -62135596800.0 && seconds < 253402300800.0)) return std::nullopt;
  const double whole = std::floor(seconds);
  auto nanos = static_cast<int64_t>(std::llround((seconds - whole) * 1e9));
  auto t = static_cast<time_t>(whole);
  if (nanos >= 1000000000) {
    nanos -= 1000000000;
    ++t;
  }
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::nullopt;
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (nanos > 0) {
    char frac[32];
    std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(nanos));
    std::string f = frac;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  out += 'Z';
  return out;
}

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}

  Result<json::value> DecodeAll() {
    json::value v;
    if (!Item(v, 0, 0)) return std::move(error_);
    if (pos_ != in_.size()) {
      return Status::BadRequest("cbor: " + std::to_string(in_.size() - pos_) +
                                " bytes of extraneous data starting at index " +
                                std::to_string(pos_));
    }
    return v;
  }

 private:
  struct Head {
    uint8_t major = 0;
    uint8_t info = 0;  // additional information (31: indefinite length / break)
    uint64_t arg = 0;
  };

  bool Fail(std::string message) {
    error_ = Status::BadRequest("cbor: " + std::move(message));
    return false;
  }
  bool Truncated() { return Fail("unexpected end of input at byte " + std::to_string(pos_)); }
  size_t Remaining() const { return in_.size() - pos_; }

  bool ReadHead(Head& h) {
    if (Remaining() < 1) return Truncated();
    const auto ib = static_cast<uint8_t>(in_[pos_++]);
    h.major = ib >> 5;
    h.info = ib & 31;
    if (h.info < 24) {
      h.arg = h.info;
      return true;
    }
    if (h.info == 31) {
      if (h.major == kUnsigned || h.major == kNegative || h.major == kTag) {
        return Fail("invalid additional information 31 for major type " + std::to_string(h.major));
      }
      return true;
    }
    if (h.info > 27) return Fail("invalid additional information " + std::to_string(h.info));
    const size_t n = size_t{1} << (h.info - 24);
    if (Remaining() < n) return Truncated();
    h.arg = 0;
    for (size_t i = 0; i < n; ++i) h.arg = (h.arg << 8) | static_cast<uint8_t>(in_[pos_++]);
    return true;
  }

  bool PeekBreak() const { return pos_ < in_.size() && static_cast<uint8_t>(in_[pos_]) == kBreak; }

  // A byte or text string's content (chunks of an indefinite one joined).
  bool StringContent(const Head& h, std::string& out) {
    if (h.info != 31) {
      if (h.arg > Remaining()) return Truncated();
      out.assign(in_.substr(pos_, h.arg));
      pos_ += h.arg;
      return true;
    }
    for (;;) {
      if (Remaining() < 1) return Truncated();
      if (PeekBreak()) {
        ++pos_;
        return true;
      }
      Head chunk;
      if (!ReadHead(chunk)) return false;
      if (chunk.major != h.major || chunk.info == 31) {
        return Fail("wrong element type in indefinite-length string at byte " +
                    std::to_string(pos_ - 1));
      }
      if (chunk.arg > Remaining()) return Truncated();
      out.append(in_.substr(pos_, chunk.arg));
      pos_ += chunk.arg;
    }
  }

  // Decodes one item into `out`. `depth` counts enclosing arrays, maps and
  // tags; `later` is the innermost enclosing expected-later-encoding tag.
  bool Item(json::value& out, int depth, uint64_t later) {
    const size_t start = pos_;
    Head h;
    if (!ReadHead(h)) return false;
    switch (h.major) {
      case kUnsigned:
        if (h.arg > static_cast<uint64_t>(INT64_MAX)) {
          return Fail("cannot unmarshal positive integer " + std::to_string(h.arg) +
                      " into int64 (overflow)");
        }
        out = static_cast<int64_t>(h.arg);
        return true;
      case kNegative:
        if (h.arg > static_cast<uint64_t>(INT64_MAX)) {
          return Fail("cannot unmarshal negative integer -1-" + std::to_string(h.arg) +
                      " into int64 (overflow)");
        }
        out = -1 - static_cast<int64_t>(h.arg);
        return true;
      case kBytes: {
        std::string bytes;
        if (!StringContent(h, bytes)) return false;
        if (later == kTagBase64Url) {
          out = Base64Url(bytes);
        } else if (later == kTagBase64) {
          out = Base64Encode(bytes);
        } else if (later == kTagBase16) {
          out = Base16(bytes);
        } else {
          if (!ValidUtf8(bytes))
            return Fail("byte string at byte " + std::to_string(start) + " is not valid UTF-8");
          out = json::string(bytes);
        }
        return true;
      }
      case kText: {
        std::string text;
        if (!StringContent(h, text)) return false;
        if (!ValidUtf8(text)) return Fail("invalid UTF-8 string at byte " + std::to_string(start));
        out = json::string(text);
        return true;
      }
      case kArray:
        return Array(h, out, depth + 1, later);
      case kMap:
        return Map(h, out, depth + 1, later);
      case kTag:
        return Tag(h, out, depth + 1, later);
      default:
        return Simple(h, out, start);
    }
  }

  bool CheckDepth(int depth) {
    if (depth > kCborMaxNesting) {
      return Fail("exceeded max nested level " + std::to_string(kCborMaxNesting));
    }
    return true;
  }

  bool Array(const Head& h, json::value& out, int depth, uint64_t later) {
    if (!CheckDepth(depth)) return false;
    json::array a;
    if (h.info != 31) {
      if (h.arg > kCborMaxElements) {
        return Fail("exceeded max number of elements " + std::to_string(kCborMaxElements) +
                    " for CBOR array");
      }
      if (h.arg > Remaining()) return Truncated();  // every element takes a byte at least
      a.reserve(h.arg);
    }
    for (uint64_t i = 0;; ++i) {
      if (h.info == 31) {
        if (Remaining() < 1) return Truncated();
        if (PeekBreak()) {
          ++pos_;
          break;
        }
        if (i >= kCborMaxElements) {
          return Fail("exceeded max number of elements " + std::to_string(kCborMaxElements) +
                      " for CBOR array");
        }
      } else if (i == h.arg) {
        break;
      }
      json::value v;
      if (!Item(v, depth, later)) return false;
      a.push_back(std::move(v));
    }
    out = std::move(a);
    return true;
  }

  bool Map(const Head& h, json::value& out, int depth, uint64_t later) {
    if (!CheckDepth(depth)) return false;
    json::object o;
    if (h.info != 31) {
      if (h.arg > kCborMaxElements) {
        return Fail("exceeded max number of key-value pairs " + std::to_string(kCborMaxElements) +
                    " for CBOR map");
      }
      if (h.arg > Remaining() / 2) return Truncated();  // a key and a value take two bytes at least
      o.reserve(h.arg);
    }
    for (uint64_t i = 0;; ++i) {
      if (h.info == 31) {
        if (Remaining() < 1) return Truncated();
        if (PeekBreak()) {
          ++pos_;
          break;
        }
        if (i >= kCborMaxElements) {
          return Fail("exceeded max number of key-value pairs " + std::to_string(kCborMaxElements) +
                      " for CBOR map");
        }
      } else if (i == h.arg) {
        break;
      }
      const size_t key_at = pos_;
      if (Remaining() < 1) return Truncated();
      const uint8_t key_major = static_cast<uint8_t>(in_[pos_]) >> 5;
      if (key_major != kText && key_major != kBytes) {
        return Fail("map key at byte " + std::to_string(key_at) + " is not a string (major type " +
                    std::to_string(key_major) + ")");
      }
      json::value key;
      if (!Item(key, depth, 0)) return false;
      std::string_view k = key.get_string();
      if (o.contains(k))
        return Fail("found duplicate map key \"" + std::string(k) + "\" at byte " +
                    std::to_string(key_at));
      json::value v;
      if (!Item(v, depth, later)) return false;
      o.emplace(k, std::move(v));
    }
    out = std::move(o);
    return true;
  }

  bool Tag(const Head& h, json::value& out, int depth, uint64_t later) {
    if (!CheckDepth(depth)) return false;
    const size_t content_at = pos_;
    switch (h.arg) {
      case kTagPositiveBignum:
      case kTagNegativeBignum:
        return Fail("bignum tag " + std::to_string(h.arg) + " is not accepted");
      case kTagDateTime:
        if (Remaining() < 1) return Truncated();
        if ((static_cast<uint8_t>(in_[pos_]) >> 5) != kText) {
          return Fail("tag 0 at byte " + std::to_string(content_at) +
                      " must enclose a text string");
        }
        return Item(out, depth, later);
      case kTagEpoch: {
        if (!Item(out, depth, later)) return false;
        if (!out.is_number())
          return Fail("tag 1 at byte " + std::to_string(content_at) + " must enclose a number");
        auto text = EpochToRfc3339(out.to_number<double>());
        if (!text) return Fail("tag 1 at byte " + std::to_string(content_at) + " is out of range");
        out = json::string(*text);
        return true;
      }
      case kTagBase64Url:
      case kTagBase64:
      case kTagBase16:
        return Item(out, depth, h.arg);
      default:
        // Self-described CBOR (55799) and tags kube does not know: the content.
        return Item(out, depth, later);
    }
  }

  bool Simple(const Head& h, json::value& out, size_t start) {
    const std::string at = " at byte " + std::to_string(start);
    switch (h.info) {
      case 20:
        out = false;
        return true;
      case 21:
        out = true;
        return true;
      case 22:
        out = nullptr;
        return true;
      case 23:
        return Fail("simple value 23 (undefined) is not accepted" + at);
      case 24:
        if (h.arg < 32) return Fail("invalid two-byte simple value " + std::to_string(h.arg) + at);
        return Fail("simple value " + std::to_string(h.arg) + " is not accepted" + at);
      case 25:
      case 26:
      case 27: {
        double d = 0;
        if (h.info == 25) {
          d = HalfToDouble(static_cast<uint16_t>(h.arg));
        } else if (h.info == 26) {
          d = std::bit_cast<float>(static_cast<uint32_t>(h.arg));
        } else {
          d = std::bit_cast<double>(h.arg);
        }
        if (std::isnan(d)) return Fail("floating-point NaN is not accepted" + at);
        if (std::isinf(d)) return Fail("floating-point infinity is not accepted" + at);
        out = d;
        return true;
      }
      case 31:
        return Fail("unexpected break" + at);
      default:
        return Fail("simple value " + std::to_string(h.info) + " is not accepted" + at);
    }
  }

  static double HalfToDouble(uint16_t half) {
    const int exp = (half >> 10) & 0x1f;
    const int mant = half & 0x3ff;
    double v = 0;
    if (exp == 0) {
      v = std::ldexp(mant, -24);
    } else if (exp == 31) {
      v = mant == 0 ? INFINITY : NAN;
    } else {
      v = std::ldexp(mant + 1024, exp - 25);
    }
    return (half & 0x8000) ? -v : v;
  }

  std::string_view in_;
  size_t pos_ = 0;
  Status error_;
};

}  // namespace

void AppendCborString(std::string& out, std::string_view text) {
  AppendHead(out, kBytes, text.size());
  out.append(text);
}

void AppendCborItem(std::string& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      out.push_back(static_cast<char>(0xf6));
      return;
    case json::kind::bool_:
      out.push_back(static_cast<char>(value.get_bool() ? 0xf5 : 0xf4));
      return;
    case json::kind::int64: {
      const int64_t i = value.get_int64();
      if (i >= 0) {
        AppendHead(out, kUnsigned, static_cast<uint64_t>(i));
      } else {
        AppendHead(out, kNegative, static_cast<uint64_t>(-(i + 1)));
      }
      return;
    }
    case json::kind::uint64:
      AppendHead(out, kUnsigned, value.get_uint64());
      return;
    case json::kind::double_:
      AppendDouble(out, value.get_double());
      return;
    case json::kind::string:
      AppendCborString(out, value.get_string());
      return;
    case json::kind::array:
      AppendHead(out, kArray, value.get_array().size());
      for (const auto& v : value.get_array()) AppendCborItem(out, v);
      return;
    case json::kind::object: {
      const json::object& o = value.get_object();
      // Bytewise order of the encoded keys: shorter keys first, then lexical.
      std::vector<const json::key_value_pair*> entries;
      entries.reserve(o.size());
      for (const auto& kv : o) entries.push_back(&kv);
      std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
        if (a->key().size() != b->key().size()) return a->key().size() < b->key().size();
        return a->key() < b->key();
      });
      AppendHead(out, kMap, o.size());
      for (const auto* kv : entries) {
        AppendCborString(out, kv->key());
        AppendCborItem(out, kv->value());
      }
      return;
    }
  }
}

std::string EncodeCbor(const json::value& value) {
  std::string out(kSelfDescribedCbor);
  AppendCborItem(out, value);
  return out;
}

Result<json::value> DecodeCbor(std::string_view bytes) { return Decoder(bytes).DecodeAll(); }

}  // namespace berth::api
