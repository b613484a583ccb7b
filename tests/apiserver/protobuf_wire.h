#pragma once
// A small protobuf writer for the decoder's tests: builds message bodies
// field by field as Go's generated code would write them, and wraps them in
// Kubernetes' "k8s\0" + runtime.Unknown envelope.

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace berth::apiserver::testing {

class Pb {
 public:
  Pb& Str(int field, std::string_view s) { return Len(field, s); }
  Pb& Int(int field, int64_t v) {
    Key(field, 0);
    Raw(static_cast<uint64_t>(v));  // negative: ten bytes, as Go writes int32/int64
    return *this;
  }
  Pb& Bool(int field, bool b) { return Int(field, b ? 1 : 0); }
  Pb& Double(int field, double d) {
    Key(field, 1);
    uint64_t bits = std::bit_cast<uint64_t>(d);
    for (int i = 0; i < 8; ++i, bits >>= 8) bytes_ += static_cast<char>(bits & 0xff);
    return *this;
  }
  Pb& Msg(int field, const Pb& m) { return Len(field, m.bytes_); }
  // map<string, string> / map<string, bytes> entry.
  Pb& Entry(int field, std::string_view key, std::string_view value) {
    return Msg(field, Pb().Str(1, key).Str(2, value));
  }
  // map<string, Message> entry (e.g. a Quantity).
  Pb& Entry(int field, std::string_view key, const Pb& value) {
    return Msg(field, Pb().Str(1, key).Msg(2, value));
  }
  Pb& Quantity(int field, std::string_view q) { return Msg(field, Pb().Str(1, q)); }
  Pb& QuantityEntry(int field, std::string_view key, std::string_view q) {
    return Entry(field, key, Pb().Str(1, q));
  }
  // util/intstr IntOrString {1 type, 2 intVal, 3 strVal}, all written.
  Pb& IntOrStr(int field, int64_t v) { return Msg(field, Pb().Int(1, 0).Int(2, v).Str(3, "")); }
  Pb& IntOrStr(int field, std::string_view s) {
    return Msg(field, Pb().Int(1, 1).Int(2, 0).Str(3, s));
  }
  // meta/v1 Time and MicroTime {1 seconds, 2 nanos}.
  Pb& Time(int field, int64_t seconds, int64_t nanos = 0) {
    return Msg(field, Pb().Int(1, seconds).Int(2, nanos));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void Raw(uint64_t v) {
    do {
      bytes_ += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v);
  }
  void Key(int field, int wire) {
    Raw(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire));
  }
  Pb& Len(int field, std::string_view payload) {
    Key(field, 2);
    Raw(payload.size());
    bytes_.append(payload);
    return *this;
  }
  std::string bytes_;
};

// The enveloped body of a request: "k8s\0" then runtime.Unknown{typeMeta, raw}.
inline std::string Envelope(std::string_view api_version, std::string_view kind, const Pb& raw) {
  return std::string("k8s\0", 4) +
         Pb().Msg(1, Pb().Str(1, api_version).Str(2, kind)).Msg(2, raw).bytes();
}

}  // namespace berth::apiserver::testing
