#include "apiserver/schema/protobuf.h"

#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include <boost/json.hpp>
#include <openssl/evp.h>

#include "api/codec/json_parse.h"
#include "apiserver/schema/go_types.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using protobuf_schema::Field;
using protobuf_schema::FieldType;
using protobuf_schema::Message;
using T = FieldType;

Status Unsupported(std::string what) {
  return Status(StatusCode::kUnsupportedMediaType,
                "the body of the request was in an unknown format - berth decodes protobuf for some kinds and "
                "fields only (" + what + "); send application/json (e.g. kubectl ... --dry-run=client -o yaml | "
                "kubectl apply -f -)");
}

// A protobuf wire reader over one message's bytes.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      auto byte = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > data_.size() - pos_) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Fixed64(uint64_t* out) {
    if (data_.size() - pos_ < 8) return false;
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(data_[pos_ + static_cast<size_t>(i)]);
    pos_ += 8;
    *out = v;
    return true;
  }
  // Skips a field of `wire` type whose tag was read, as gogo-protobuf's
  // skipGenerated does: a group (3) up to its end-group tag, nested groups
  // included; false for a lone end-group (4), wire types 6 and 7, or a field
  // cut short.
  bool Skip(int wire) {
    uint64_t v;
    std::string_view b;
    switch (wire) {
      case 0: return Varint(&v);
      case 1: return Advance(8);
      case 2: return Bytes(&b);
      case 3: return SkipGroup();
      case 5: return Advance(4);
      default: return false;
    }
  }

 private:
  bool SkipGroup() {
    for (int depth = 1; depth > 0;) {
      uint64_t key;
      if (!Varint(&key)) return false;
      const int wire = static_cast<int>(key & 7);
      if (wire == 3) {
        ++depth;
      } else if (wire == 4) {
        --depth;
      } else if (!Skip(wire)) {
        return false;
      }
    }
    return true;
  }
  bool Advance(size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Status Malformed(const Message& m) { return Status::BadRequest("malformed protobuf in " + std::string(m.name)); }

// Reads the fields of a small message {1: string/varint, 2: varint ...} into slots.
struct Small {
  std::string s1, s3;
  int64_t v1 = 0, v2 = 0;
  std::string_view b2;  // field 2 as bytes
  bool has_b2 = false;
};
bool ReadSmall(std::string_view bytes, Small* out) {
  Reader r(bytes);
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return false;
    int number = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (wire == 0) {
      uint64_t v;
      if (!r.Varint(&v)) return false;
      if (number == 1) out->v1 = static_cast<int64_t>(v);
      if (number == 2) out->v2 = static_cast<int64_t>(v);
    } else if (wire == 2) {
      std::string_view b;
      if (!r.Bytes(&b)) return false;
      if (number == 1) out->s1 = std::string(b);
      if (number == 2) {
        out->b2 = b;
        out->has_b2 = true;
      }
      if (number == 3) out->s3 = std::string(b);
    } else if (!r.Skip(wire)) {
      return false;
    }
  }
  return true;
}

// Standard base64 with padding, as Go's encoding/json writes a []byte.
std::string Base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// meta/v1 Time {1 seconds, 2 nanos} as Go's JSON writes it: whole seconds,
// the zero time as null.
// The length of the valid UTF-8 sequence at the start of `s`, 0 when there
// is none (Go's utf8.DecodeRune rules: no overlong forms, no surrogates,
// nothing above U+10FFFF).
size_t Utf8SequenceLength(std::string_view s) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i < s.size() && byte(i) >= lo && byte(i) <= hi;
  };
  const unsigned char b = byte(0);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    const unsigned char lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    const unsigned char lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// `s` with each byte that starts no valid UTF-8 sequence replaced by U+FFFD,
// as Go's encoding/json writes such strings; nullopt when `s` is valid.
std::optional<std::string> CoercedUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t n = Utf8SequenceLength(s.substr(i));
    if (n == 0) break;
    i += n;
  }
  if (i == s.size()) return std::nullopt;
  std::string out(s.substr(0, i));
  while (i < s.size()) {
    size_t n = Utf8SequenceLength(s.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Protobuf strings are bytes: kube stores them as sent and writes them as
// JSON coerced to valid UTF-8. berth keeps JSON, which must be valid UTF-8
// to be read back, so strings and map keys are coerced here.
void CoerceToUtf8(json::value& v) {
  if (v.is_string()) {
    if (auto fixed = CoercedUtf8(v.get_string())) v = json::string(*fixed);
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) CoerceToUtf8(e);
  } else if (v.is_object()) {
    json::object& o = v.get_object();
    bool keys_valid = true;
    for (auto& [key, value] : o) {
      CoerceToUtf8(value);
      if (CoercedUtf8(key)) keys_valid = false;
    }
    if (!keys_valid) {
      json::object fixed;
      for (auto& [key, value] : o) {
        auto k = CoercedUtf8(key);
        fixed[k ? std::string_view(*k) : std::string_view(key)] = std::move(value);
      }
      v = std::move(fixed);
    }
  }
}

// Unix seconds as Go's Time.MarshalJSON writes them ("2006-01-02T15:04:05Z"),
// in whole seconds; nullopt outside the years 0–9999, which Go refuses to
// write (kube could store such a time but never serve it as JSON). Calendar
// arithmetic in seconds: system_clock's nanoseconds end in 2262.
std::optional<std::string> FormatUnixSeconds(int64_t seconds) {
  constexpr int64_t kYear0 = -62167219200;      // 0000-01-01T00:00:00Z
  constexpr int64_t kYear9999End = 253402300799;  // 9999-12-31T23:59:59Z
  if (seconds < kYear0 || seconds > kYear9999End) return std::nullopt;
  using namespace std::chrono;
  const sys_seconds t{std::chrono::seconds(seconds)};
  const auto day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss time{t - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return std::string(text);
}

Status TimeOutOfRange(const Message& m) {
  return Status::BadRequest("Time.MarshalJSON: year outside of range [0,9999] in " + std::string(m.name));
}

// meta/v1 Time: null for the zero Timestamp.
Result<json::value> TimeValue(const Small& t, const Message& m) {
  if (t.v1 == 0 && t.v2 == 0) return json::value(nullptr);
  auto text = FormatUnixSeconds(t.v1);
  if (!text) return TimeOutOfRange(m);
  return json::value(*text);
}

// meta/v1 MicroTime as Go's JSON writes it: "2006-01-02T15:04:05.000000Z".
std::optional<std::string> FormatMicroTime(int64_t seconds, int64_t nanos) {
  auto text = FormatUnixSeconds(seconds);
  if (!text) return std::nullopt;
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%06d", static_cast<int>(nanos / 1000 % 1000000));
  text->insert(text->size() - 1, fraction);  // before the trailing "Z"
  return text;
}

// How deep messages may nest. The schema of a CustomResourceDefinition is
// recursive; a body nesting deeper than any real one is refused rather than
// decoded on an ever deeper stack.
constexpr int kMaxDepth = 100;

Result<json::object> DecodeMessage(std::string_view bytes, const Message& m, int depth);

// A nested message's JSON: its object, or for a union the one value Go writes.
Result<json::value> DecodeNested(std::string_view bytes, const Message& message, int depth) {
  if (depth >= kMaxDepth) {
    return Status::BadRequest("protobuf messages nested deeper than " + std::to_string(kMaxDepth) + " in " +
                              message.name);
  }
  auto decoded = DecodeMessage(bytes, message, depth + 1);
  if (!decoded.ok()) return decoded.status();
  json::object o = std::move(decoded).value();
  if (message.union_of.size() == 0) return json::value(std::move(o));
  for (const char* name : message.union_of) {
    json::value* v = o.if_contains(name);
    if (v && !(v->is_array() && v->get_array().empty())) return std::move(*v);
  }
  return api::ParseJson(message.union_default);
}

// A double as Go's JSON writes it: integral values without a fraction.
json::value DoubleValue(double d) {
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) <= kExact) return json::value(static_cast<int64_t>(d));
  return json::value(d);
}

Result<json::value> DecodeValue(const Field& f, int wire, Reader& r, const Message& m, int depth) {
  if (f.type == T::kDouble) {
    uint64_t bits;
    if (wire != 1 || !r.Fixed64(&bits)) return Malformed(m);
    return DoubleValue(std::bit_cast<double>(bits));
  }
  if (f.type == T::kInt || f.type == T::kBool) {
    if (wire != 0) return Malformed(m);
    uint64_t v;
    if (!r.Varint(&v)) return Malformed(m);
    if (f.type == T::kBool) return json::value(v != 0);
    return json::value(static_cast<int64_t>(v));
  }
  if (wire != 2) return Malformed(m);
  std::string_view b;
  if (!r.Bytes(&b)) return Malformed(m);
  switch (f.type) {
    case T::kString:
      return json::value(json::string(b));
    case T::kMessage:
      return DecodeNested(b, *f.message, depth);
    case T::kBytes:
      return json::value(Base64(b));
    case T::kTime: {
      Small t;
      if (!ReadSmall(b, &t)) return Malformed(m);
      return TimeValue(t, m);
    }
    case T::kMicroTime: {
      Small t;
      if (!ReadSmall(b, &t)) return Malformed(m);
      if (t.v1 == 0 && t.v2 == 0) return json::value(nullptr);
      auto text = FormatMicroTime(t.v1, t.v2);
      if (!text) return TimeOutOfRange(m);
      return json::value(*text);
    }
    case T::kRawExtension: {
      Small raw;
      if (!ReadSmall(b, &raw)) return Malformed(m);
      if (raw.s1.empty()) return json::value(nullptr);
      json::error_code ec;
      json::value parsed = api::ParseJson(raw.s1, ec);
      if (ec) return Unsupported(std::string(m.name) + " " + f.name + " in a non-JSON encoding");
      return parsed;
    }
    case T::kQuantity: {
      Small q;
      if (!ReadSmall(b, &q)) return Malformed(m);
      return json::value(q.s1);
    }
    case T::kIntOrString: {
      Small v;
      if (!ReadSmall(b, &v)) return Malformed(m);
      if (v.v1 == 1) return json::value(v.s3);  // type String
      return json::value(v.v2);
    }
    case T::kFieldsV1: {
      Small raw;
      if (!ReadSmall(b, &raw)) return Malformed(m);
      json::error_code ec;
      json::value parsed = api::ParseJson(raw.s1, ec);
      if (ec) return Status::BadRequest(std::string(m.name) + " " + f.name + ": not JSON");
      return parsed;
    }
    default:
      return Malformed(m);
  }
}

// A map entry {1: key, 2: value} into out[field.name][key].
Status DecodeMapEntry(const Field& field, std::string_view entry, json::object& out, const Message& m,
                      int depth) {
  Small e;
  if (!ReadSmall(entry, &e)) return Malformed(m);
  json::value value;
  switch (field.type) {
    case T::kStringMap: value = json::string(e.b2); break;
    case T::kBytesMap: value = json::string(Base64(e.b2)); break;
    case T::kTimeMap: {
      Small t;
      if (!ReadSmall(e.b2, &t)) return Malformed(m);
      auto time = TimeValue(t, m);
      if (!time.ok()) return time.status();
      value = std::move(time).value();
      break;
    }
    case T::kMessageMap: {
      auto nested = DecodeNested(e.b2, *field.message, depth);
      if (!nested.ok()) return nested.status();
      value = std::move(nested).value();
      break;
    }
    default: {  // kQuantityMap
      Small q;
      if (!ReadSmall(e.b2, &q)) return Malformed(m);
      value = json::string(q.s1);
    }
  }
  json::value& map = out[field.name];
  if (!map.is_object()) map = json::object();
  map.get_object()[e.s1] = std::move(value);
  return Status::Ok();
}

// A repeated integer field written packed (one length-delimited run of varints).
Status DecodePackedInts(const Field& field, Reader& r, json::object& out, const Message& m) {
  std::string_view packed;
  if (!r.Bytes(&packed)) return Malformed(m);
  json::value& list = out[field.name];
  if (!list.is_array()) list = json::array();
  Reader values(packed);
  while (!values.done()) {
    uint64_t v;
    if (!values.Varint(&v)) return Malformed(m);
    list.get_array().push_back(static_cast<int64_t>(v));
  }
  return Status::Ok();
}

bool IsZero(const json::value& v) {
  return (v.is_string() && v.get_string().empty()) || (v.is_int64() && v.get_int64() == 0) ||
         (v.is_bool() && !v.get_bool());
}

Result<json::object> DecodeMessage(std::string_view bytes, const Message& m, int depth) {
  json::object out;
  Reader r(bytes);
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return Malformed(m);
    const uint64_t number64 = key >> 3;
    int number = static_cast<int>(number64), wire = static_cast<int>(key & 7);
    // kube's generated Unmarshal: an end-group outside a group and field
    // number 0 are malformed.
    if (wire == 4 || number64 == 0 || number64 > 0x1FFFFFFF) return Malformed(m);
    const Field* field = nullptr;
    for (const auto& f : m.fields) {
      if (f.number == number) field = &f;
    }
    // A field the schema does not have is skipped, as kube's decoders skip
    // it (client-go <= 1.24 writes ObjectMeta's clusterName, field 15).
    if (!field) {
      if (!r.Skip(wire)) return Malformed(m);
      continue;
    }
    const bool repeated = field->flags & protobuf_schema::kRepeated;
    if (field->type == T::kStringMap || field->type == T::kBytesMap || field->type == T::kQuantityMap ||
        field->type == T::kMessageMap || field->type == T::kTimeMap) {
      std::string_view entry;
      if (wire != 2 || !r.Bytes(&entry)) return Malformed(m);
      if (Status s = DecodeMapEntry(*field, entry, out, m, depth); !s.ok()) return s;
      continue;
    }
    if (repeated && field->type == T::kInt && wire == 2) {
      if (Status s = DecodePackedInts(*field, r, out, m); !s.ok()) return s;
      continue;
    }
    auto value = DecodeValue(*field, wire, r, m, depth);
    if (!value.ok()) return value.status();
    json::value& v = value.value();
    if (field->flags & protobuf_schema::kInline) {
      for (auto& [k, inner] : v.get_object()) out[k] = std::move(inner);
      continue;
    }
    bool scalar = field->type == T::kString || field->type == T::kInt || field->type == T::kBool ||
                  field->type == T::kBytes || field->type == T::kDouble;
    if (scalar && !repeated && !(field->flags & protobuf_schema::kKeepZero) && IsZero(v)) continue;
    if (repeated) {
      json::value& list = out[field->name];
      if (!list.is_array()) list = json::array();
      list.get_array().push_back(std::move(v));
    } else {
      out[field->name] = std::move(v);
    }
  }
  return out;
}

// Reads the "k8s\0" envelope and decodes its raw message by `message`;
// apiVersion and kind come from the envelope, else the defaults given.
Result<json::value> DecodeEnvelope(std::string_view body, const Message& message, std::string_view default_api_version,
                                   std::string_view default_kind) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (!body.starts_with(kMagic)) return Status::BadRequest("protobuf body without the k8s envelope");
  // runtime.Unknown: 1 TypeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
  Reader r(body.substr(kMagic.size()));
  std::string api_version, kind_name;
  std::string_view raw;
  while (!r.done()) {
    uint64_t key;
    if (!r.Varint(&key)) return Status::BadRequest("malformed protobuf envelope");
    int number = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    if (wire != 2) {
      if (!r.Skip(wire)) return Status::BadRequest("malformed protobuf envelope");
      continue;
    }
    std::string_view b;
    if (!r.Bytes(&b)) return Status::BadRequest("malformed protobuf envelope");
    if (number == 1) {
      Small t;
      if (!ReadSmall(b, &t)) return Status::BadRequest("malformed protobuf envelope");
      api_version = t.s1;
      kind_name = std::string(t.b2);
    } else if (number == 2) {
      raw = b;
    } else if (number == 3 && !b.empty()) {
      return Unsupported("content encoding " + std::string(b));
    }
  }
  auto decoded = DecodeMessage(raw, message, 0);
  if (!decoded.ok()) return decoded.status();
  json::object o = std::move(decoded).value();
  o["apiVersion"] = api_version.empty() ? std::string(default_api_version) : api_version;
  o["kind"] = kind_name.empty() ? std::string(default_kind) : kind_name;
  json::value value(std::move(o));
  CoerceToUtf8(value);
  return value;
}

}  // namespace

Result<json::value> DecodeProtobuf(std::string_view body, api::Kind kind) {
  const api::KindInfo& info = api::Info(kind);
  const Message* message = protobuf_schema::MessageOf(kind);
  if (!message) return Unsupported(std::string(info.name) + " objects");
  return DecodeEnvelope(body, *message, info.ApiVersion(), info.name);
}

Result<json::value> DecodeProtobufDeleteOptions(std::string_view body) {
  return DecodeEnvelope(body, protobuf_schema::kDeleteOptions, "v1", "DeleteOptions");
}

Result<json::value> DecodeProtobufEviction(std::string_view body) {
  return DecodeEnvelope(body, protobuf_schema::kEviction, "policy/v1", "Eviction");
}

Result<json::value> DecodeProtobufScale(std::string_view body) {
  return DecodeEnvelope(body, protobuf_schema::kScale, "autoscaling/v1", "Scale");
}

Result<json::value> DecodeProtobufTokenRequest(std::string_view body) {
  return DecodeEnvelope(body, protobuf_schema::kTokenRequestBody, "authentication.k8s.io/v1", "TokenRequest");
}

Result<json::value> DecodeProtobufReview(std::string_view body, std::string_view kind) {
  if (kind == "TokenReview") {
    return DecodeEnvelope(body, protobuf_schema::kTokenReview, "authentication.k8s.io/v1", kind);
  }
  const Message* message = protobuf_schema::ReviewMessage(kind);
  if (!message) return Unsupported(std::string(kind) + " objects");
  return DecodeEnvelope(body, *message, "authorization.k8s.io/v1", kind);
}

namespace protobuf_schema {

// The message of each built-in kind, gathered once from the group files'
// lists; null for a kind no group file decodes.
const Message* MessageOf(api::Kind kind) {
  using Table = std::array<const Message*, api::kBuiltinKindCount>;
  static const Table table = [] {
    Table t{};
    for (auto group : {kCoreKinds, kPodKinds, kVolumeKinds, kAppsKinds, kAutoscalingKinds, kBatchKinds,
                       kCoordinationKinds, kDiscoveryKinds, kNetworkingKinds, kNodeKinds, kPolicyKinds, kRbacKinds,
                       kSchedulingKinds, kStorageKinds, kApiextensionsKinds, kAdmissionregistrationKinds}) {
      for (const KindMessage& entry : group) t[static_cast<size_t>(entry.kind)] = entry.message;
    }
    return t;
  }();
  if (!api::IsBuiltin(kind)) return nullptr;  // custom resources: JSON only, as in kube
  return table[static_cast<size_t>(kind)];
}

}  // namespace protobuf_schema

}  // namespace berth::apiserver
