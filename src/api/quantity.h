#pragma once
// Resource quantities with Kubernetes' semantics (k8s.io/apimachinery
// pkg/api/resource): "100m", "1.5Gi", "1e3", "0.5". Parsing keeps the format
// (BinarySI, DecimalSI, DecimalExponent) so that ToString() gives the
// canonical form Kubernetes would print.

#include <cstdint>
#include <string>
#include <string_view>

#include "api/status.h"

namespace berth::api {

class Quantity {
 public:
  enum class Format : unsigned char { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;

  // Parses Kubernetes' quantity syntax. Invalid syntax, an unknown suffix or a
  // value beyond the representable range is a BadRequest Status whose message
  // matches Kubernetes' ("quantities must match the regular expression ...").
  static Result<Quantity> Parse(std::string_view text);
  static Quantity FromInt(int64_t value, Format format = Format::kDecimalSI);
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // The value rounded up to an integer (Kubernetes' Value()).
  int64_t Value() const;
  // The value in thousandths, rounded up (Kubernetes' MilliValue()).
  int64_t MilliValue() const;
  // Canonical text, as Kubernetes' String().
  std::string ToString() const;

  int Compare(const Quantity& other) const;  // <0, 0, >0
  bool IsZero() const;
  int Sign() const;
  Format format() const { return format_; }

  bool operator==(const Quantity& o) const { return Compare(o) == 0; }

 private:
  // value = mantissa_ * 10^scale_ exactly (the parser normalises binary
  // suffixes into this decimal form; values that do not fit are errors).
  __int128 mantissa_ = 0;
  int32_t scale_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace berth::api
