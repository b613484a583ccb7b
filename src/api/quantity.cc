#include "api/quantity.h"

#include <limits>

namespace berth::api {

namespace {

constexpr std::string_view kFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr int kMinScale = -9;  // kube keeps nano precision; finer values round up
constexpr __int128 kLimit = static_cast<__int128>(1) << 120;

__int128 Pow10(int n) {
  __int128 p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

int64_t Saturate(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// ceil(m * 10^shift) for shift possibly negative; saturating.
int64_t ScaledCeil(__int128 m, int shift) {
  if (shift >= 0) {
    for (int i = 0; i < shift; ++i) {
      if (m > kLimit || m < -kLimit) return m > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
      m *= 10;
    }
    return Saturate(m);
  }
  if (-shift > 38) return m > 0 ? 1 : 0;
  __int128 d = Pow10(-shift);
  __int128 q = m / d;
  if (m % d != 0 && m > 0) ++q;
  return Saturate(q);
}

// Decimal digits of |v| (0 has none).
int DigitCount(__int128 v) {
  int n = 0;
  for (; v != 0; v /= 10) ++n;
  return n;
}

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s += static_cast<char>('0' + (negative ? -digit : digit));
    v /= 10;
  }
  if (negative) s += '-';
  return {s.rbegin(), s.rend()};
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return Status::BadRequest("quantities must match the regular expression");
  size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  __int128 mantissa = 0;
  int scale = 0;
  bool any_digit = false, dot = false;
  int significant = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (dot) return Status::BadRequest(std::string(kFormatError));
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (mantissa == 0 && c == '0') {
      if (dot) --scale;
      continue;
    }
    if (significant >= 36) {
      // Beyond what is representable: integer digits scale up, fraction digits are dropped (rounded up below).
      if (!dot) ++scale;
      else if (c != '0') mantissa += 0;  // precision below 36 digits is far below nano
      continue;
    }
    mantissa = mantissa * 10 + (c - '0');
    ++significant;
    if (dot) --scale;
  }
  if (!any_digit) return Status::BadRequest(std::string(kFormatError));

  std::string_view suffix = text.substr(i);
  Format format = Format::kDecimalSI;
  int binary_power = 0;
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    auto p = kBinary.find(suffix[0]);
    if (p == std::string_view::npos) return Status::BadRequest("unable to parse quantity's suffix");
    binary_power = static_cast<int>(p + 1) * 10;
    format = Format::kBinarySI;
  } else if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view exp = suffix.substr(1);
    bool exp_negative = false;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
      exp_negative = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty() || exp.size() > 4) return Status::BadRequest(std::string(kFormatError));
    int e = 0;
    for (char c : exp) {
      if (c < '0' || c > '9') return Status::BadRequest(std::string(kFormatError));
      e = e * 10 + (c - '0');
    }
    scale += exp_negative ? -e : e;
    format = Format::kDecimalExponent;
  } else if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n': scale -= 9; break;
      case 'u': scale -= 6; break;
      case 'm': scale -= 3; break;
      case 'k': scale += 3; break;
      case 'M': scale += 6; break;
      case 'G': scale += 9; break;
      case 'T': scale += 12; break;
      case 'P': scale += 15; break;
      case 'E': scale += 18; break;
      default: return Status::BadRequest("unable to parse quantity's suffix");
    }
  } else {
    for (char c : suffix) {
      if (std::string_view("eEinumkKMGTP+-0123456789").find(c) == std::string_view::npos) {
        return Status::BadRequest(std::string(kFormatError));
      }
    }
    return Status::BadRequest("unable to parse quantity's suffix");
  }

  if (binary_power > 0 && mantissa != 0) {
    for (int b = 0; b < binary_power; ++b) {
      if (mantissa > kLimit) return Status::BadRequest("quantity is too large");
      mantissa *= 2;
    }
  }
  // Round up to nano precision, as Kubernetes does.
  if (mantissa != 0 && scale < kMinScale) {
    int drop = kMinScale - scale;
    if (drop > 38) {
      mantissa = 1;
    } else {
      __int128 d = Pow10(drop);
      __int128 q = mantissa / d;
      if (mantissa % d != 0) ++q;
      mantissa = q;
    }
    scale = kMinScale;
  }
  if (mantissa != 0) {
    while (mantissa % 10 == 0) {
      mantissa /= 10;
      ++scale;
    }
    // Keep values representable: |value| below ~10^38 in units of 10^-9.
    if (scale > 60) return Status::BadRequest("quantity is too large");
  } else {
    scale = 0;
  }
  Quantity q;
  q.mantissa_ = negative ? -mantissa : mantissa;
  q.scale_ = scale;
  q.format_ = format;
  return q;
}

Quantity Quantity::FromInt(int64_t value, Format format) {
  Quantity q;
  q.mantissa_ = value;
  q.format_ = format;
  while (q.mantissa_ != 0 && q.mantissa_ % 10 == 0) {
    q.mantissa_ /= 10;
    ++q.scale_;
  }
  return q;
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  Quantity q = FromInt(milli, format);
  if (q.mantissa_ != 0) q.scale_ -= 3;
  return q;
}

int64_t Quantity::Value() const { return ScaledCeil(mantissa_, scale_); }
int64_t Quantity::MilliValue() const { return ScaledCeil(mantissa_, scale_ + 3); }
bool Quantity::IsZero() const { return mantissa_ == 0; }
int Quantity::Sign() const { return mantissa_ > 0 ? 1 : mantissa_ < 0 ? -1 : 0; }

int Quantity::Compare(const Quantity& other) const {
  if (Sign() != other.Sign()) return Sign() < other.Sign() ? -1 : 1;
  if (mantissa_ == 0) return 0;
  // Same sign: first by magnitude (digits + scale), then, equally long,
  // m1*10^s1 with m2*10^s2 aligned to the smaller scale: both then have the
  // longer mantissa's digit count, which __int128 holds.
  const int order = DigitCount(mantissa_) + scale_, other_order = DigitCount(other.mantissa_) + other.scale_;
  if (order != other_order) return (order < other_order) == (Sign() > 0) ? -1 : 1;
  int s = std::min(scale_, other.scale_);
  int d1 = scale_ - s, d2 = other.scale_ - s;
  __int128 a = mantissa_, b = other.mantissa_;
  for (int i = 0; i < d1; ++i) a *= 10;
  for (int i = 0; i < d2; ++i) b *= 10;
  return a < b ? -1 : a > b ? 1 : 0;
}

std::string Quantity::ToString() const {
  if (mantissa_ == 0) return "0";
  // Binary suffixes only for values __int128 holds as an integer (up to 38 digits).
  if (format_ == Format::kBinarySI && scale_ >= 0 && DigitCount(mantissa_) + scale_ <= 38) {
    __int128 v = mantissa_ * Pow10(scale_);
    __int128 abs = v < 0 ? -v : v;
    static constexpr std::string_view kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int k = 0;
    while (k < 6 && abs >= 1024 && abs % 1024 == 0) {
      abs /= 1024;
      v /= 1024;
      ++k;
    }
    return Int128ToString(v) + std::string(kSuffixes[k]);
  }
  // Decimal: the largest exponent (a multiple of 3) that keeps an integer
  // mantissa; SI suffixes end at E (10^18), exponents do not (kube prints
  // "1e60"). The mantissa's scaling is written as zeros, not multiplied, so
  // that no value overflows.
  int e = scale_ >= 0 ? (scale_ / 3) * 3 : -((-scale_ + 2) / 3) * 3;
  e = std::max(-9, format_ == Format::kDecimalExponent ? e : std::min(e, 18));
  const std::string digits = Int128ToString(mantissa_) + std::string(static_cast<size_t>(scale_ - e), '0');
  if (format_ == Format::kDecimalExponent) {
    return digits + (e == 0 ? "" : "e" + std::to_string(e));
  }
  std::string_view suffix;
  switch (e) {
    case -9: suffix = "n"; break;
    case -6: suffix = "u"; break;
    case -3: suffix = "m"; break;
    case 3: suffix = "k"; break;
    case 6: suffix = "M"; break;
    case 9: suffix = "G"; break;
    case 12: suffix = "T"; break;
    case 15: suffix = "P"; break;
    case 18: suffix = "E"; break;
    default: suffix = ""; break;
  }
  return digits + std::string(suffix);
}

}  // namespace berth::api
