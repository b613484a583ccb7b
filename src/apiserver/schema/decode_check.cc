#include "apiserver/schema/decode_check.h"

#include <boost/json.hpp>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

#include "api/codec/base64.h"
#include "api/quantity.h"
#include "api/validation/field_errors.h"
#include "apiserver/schema/go_types.h"

namespace berth::apiserver {

namespace json = boost::json;
namespace pb = protobuf_schema;

namespace {

// The JSON kind Go's UnmarshalTypeError names ("string", "number", ...).
std::string_view JsonKind(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return "string";
    case json::kind::bool_:
      return "bool";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
    case json::kind::null:
      return "null";
    default:
      return "number";
  }
}

// A number as Go's error quotes its literal (the shortest form of a double).
std::string NumberText(const json::value& v) {
  if (!v.is_double()) return json::serialize(v);
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v.get_double());
  return std::string(buf, r.ptr);
}

bool IsDigit(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// Go's time.Parse of `text` with kube's layouts (RFC 3339, and with six
// fractional digits for a MicroTime): "" when it parses, else Go's error.
std::string GoTimeError(std::string_view text, bool micro) {
  const std::string layout =
      micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
  std::string_view rest = text;
  auto cannot = [&](std::string_view element) {
    return "parsing time " + api::GoQuote(text) + " as " + api::GoQuote(layout) +
           ": cannot parse " + api::GoQuote(rest) + " as " + api::GoQuote(element);
  };
  auto range = [&](std::string_view what) {
    return "parsing time " + api::GoQuote(text) + ": " + std::string(what) + " out of range";
  };
  // A number of exactly two digits (one or two when `fixed` is false).
  auto number = [&](bool fixed, int& out) {
    if (!IsDigit(rest, 0)) return false;
    if (!IsDigit(rest, 1)) {
      if (fixed) return false;
      out = rest[0] - '0';
      rest.remove_prefix(1);
      return true;
    }
    out = (rest[0] - '0') * 10 + (rest[1] - '0');
    rest.remove_prefix(2);
    return true;
  };
  auto literal = [&](char c) {
    if (rest.empty() || rest[0] != c) return false;
    rest.remove_prefix(1);
    return true;
  };
  if (rest.size() < 4 || !IsDigit(rest, 0) || !IsDigit(rest, 1) || !IsDigit(rest, 2) ||
      !IsDigit(rest, 3)) {
    return cannot("2006");
  }
  const int year = std::stoi(std::string(rest.substr(0, 4)));
  rest.remove_prefix(4);
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!literal('-')) return cannot("-");
  if (!number(true, month)) return cannot("01");
  if (month < 1 || month > 12) return range("month");
  if (!literal('-')) return cannot("-");
  if (!number(true, day)) return cannot("02");
  if (day < 1 || day > 31) return range("day");
  if (!literal('T')) return cannot("T");
  if (!number(false, hour)) return cannot("15");
  if (hour > 23) return range("hour");
  if (!literal(':')) return cannot(":");
  if (!number(true, minute)) return cannot("04");
  if (minute > 59) return range("minute");
  if (!literal(':')) return cannot(":");
  if (!number(true, second)) return cannot("05");
  if (second > 59) return range("second");
  if (micro) {
    if (rest.size() < 7 || (rest[0] != '.' && rest[0] != ',')) return cannot(".000000");
    for (size_t i = 1; i < 7; ++i) {
      if (!IsDigit(rest, i)) return cannot(".000000");
    }
    rest.remove_prefix(7);
  } else if (rest.size() >= 2 && (rest[0] == '.' || rest[0] == ',') && IsDigit(rest, 1)) {
    size_t i = 1;
    while (IsDigit(rest, i)) ++i;
    rest.remove_prefix(i);
  }
  if (!rest.empty() && rest[0] == 'Z') {
    rest.remove_prefix(1);
  } else {
    if (rest.size() < 6 || rest[3] != ':' || (rest[0] != '+' && rest[0] != '-') ||
        !IsDigit(rest, 1) || !IsDigit(rest, 2) || !IsDigit(rest, 4) || !IsDigit(rest, 5)) {
      return cannot("Z07:00");
    }
    if ((rest[1] - '0') * 10 + (rest[2] - '0') > 24) return range("time zone offset hour");
    if ((rest[4] - '0') * 10 + (rest[5] - '0') > 60) return range("time zone offset minute");
    rest.remove_prefix(6);
  }
  if (!rest.empty())
    return "parsing time " + api::GoQuote(text) + ": extra text: " + api::GoQuote(rest);
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  if (day > kDays[month - 1] + (month == 2 && leap ? 1 : 0)) return range("day");
  return "";
}

// Decodes as Go's decoder does: remembers the first type mismatch (decoding
// goes on) and stops at the first error of a value with a decoder of its own.
class Decoder {
 public:
  // The error, "" when none; after Struct().
  std::string Error() const { return fatal_.empty() ? saved_ : fatal_; }

  // `v`, an object of message `m`, the value of the field at the path so far.
  void Struct(const pb::Message& m, const json::value& v, std::string_view type_name) {
    if (v.is_null() || m.union_of.size() > 0) return;  // unions have decoders of their own
    if (!v.is_object()) return Mismatch(v, type_name);
    const char* outer = struct_;
    struct_ = m.name;
    for (const auto& kv : v.get_object()) {
      const pb::Field* f = Find(m, kv.key());
      if (f == nullptr) continue;
      path_.push_back(f->name);
      FieldValue(*f, kv.value());
      path_.pop_back();
      struct_ = m.name;
      if (!fatal_.empty()) return;
    }
    struct_ = outer;
  }

 private:
  static const pb::Field* Find(const pb::Message& m, std::string_view key) {
    for (const pb::Field& f : m.fields) {
      if (f.flags & pb::kInline) {
        if (const pb::Field* inner = Find(*f.message, key)) return inner;
      } else if (key == f.name) {
        return &f;
      }
    }
    return nullptr;
  }

  static std::string MessageType(const pb::Message& m) {
    return std::string(m.go_package) + "." + m.name;
  }

  // The Go type of one value of `f`.
  static std::string ItemType(const pb::Field& f) {
    using T = pb::FieldType;
    if (f.go_type != nullptr) return f.go_type;
    switch (f.type) {
      case T::kString:
        return "string";
      case T::kInt:
        return "int32";
      case T::kBool:
        return "bool";
      case T::kDouble:
        return "float64";
      case T::kBytes:
        return "[]uint8";
      case T::kMessage:
        return MessageType(*f.message);
      case T::kStringMap:
        return "map[string]string";
      case T::kBytesMap:
        return "map[string][]uint8";
      case T::kQuantityMap:
        return "v1.ResourceList";
      case T::kMessageMap:
        return "map[string]" + MessageType(*f.message);
      case T::kTimeMap:
        return "map[string]v1.Time";
      case T::kTime:
        return "v1.Time";
      case T::kMicroTime:
        return "v1.MicroTime";
      case T::kQuantity:
        return "resource.Quantity";
      case T::kIntOrString:
        return "intstr.IntOrString";
      case T::kFieldsV1:
        return "v1.FieldsV1";
      case T::kRawExtension:
        return "runtime.RawExtension";
    }
    return "interface {}";
  }

  std::string TypeError(std::string_view value, std::string_view type_name) const {
    std::string out = "json: cannot unmarshal " + std::string(value);
    if (path_.empty()) return out + " into Go value of type " + std::string(type_name);
    out += " into Go struct field ";
    out += struct_;
    out += '.';
    for (size_t i = 0; i < path_.size(); ++i) {
      if (i > 0) out += '.';
      out += path_[i];
    }
    return out + " of type " + std::string(type_name);
  }

  void Mismatch(const json::value& v, std::string_view type_name, bool with_literal = false) {
    if (!saved_.empty()) return;
    std::string value(JsonKind(v));
    if (with_literal) value += " " + NumberText(v);
    saved_ = TypeError(value, type_name);
  }
  void Fail(std::string message) {
    if (fatal_.empty()) fatal_ = std::move(message);
  }

  void FieldValue(const pb::Field& f, const json::value& v) {
    if (f.flags & pb::kRepeated) {
      if (v.is_null()) return;
      if (!v.is_array()) return Mismatch(v, "[]" + ItemType(f));
      for (const json::value& item : v.get_array()) {
        Item(f, item);
        if (!fatal_.empty()) return;
      }
      return;
    }
    Item(f, v);
  }

  // An integer of `bits` (32 or 64) bits.
  void Integer(const json::value& v, int bits, std::string_view type_name) {
    if (v.is_int64()) {
      const int64_t n = v.get_int64();
      if (bits == 32 && (n < INT32_MIN || n > INT32_MAX)) Mismatch(v, type_name, true);
    } else if (v.is_uint64() || v.is_double()) {
      Mismatch(v, type_name, true);
    } else if (!v.is_null()) {
      Mismatch(v, type_name);
    }
  }

  void Quantity(const json::value& v) {
    if (v.is_null()) return;
    std::string text = v.is_string() ? std::string(v.get_string()) : json::serialize(v);
    const size_t first = text.find_first_not_of(" \t\r\n");
    const size_t last = text.find_last_not_of(" \t\r\n");
    text = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    auto q = api::Quantity::Parse(text);
    if (!q.ok()) Fail(q.status().message());
  }

  void Time(const json::value& v, bool micro) {
    if (v.is_null()) return;
    if (!v.is_string()) return Fail(TypeError(JsonKind(v), "string"));
    std::string error = GoTimeError(v.get_string(), micro);
    if (!error.empty()) Fail(std::move(error));
  }

  void Bytes(const json::value& v, std::string_view type_name) {
    if (v.is_null()) return;
    if (!v.is_string()) return Mismatch(v, type_name);
    auto decoded = api::Base64Decode(v.get_string());
    if (auto* bad = std::get_if<api::Base64Corrupt>(&decoded); bad && saved_.empty()) {
      saved_ = "illegal base64 data at input byte " + std::to_string(bad->offset);
    }
  }

  // One value of `f` (an item, when repeated).
  void Item(const pb::Field& f, const json::value& v) {
    using T = pb::FieldType;
    switch (f.type) {
      case T::kString:
        if (!v.is_string() && !v.is_null()) Mismatch(v, ItemType(f));
        return;
      case T::kInt:
        return Integer(v, f.go_type != nullptr && std::string_view(f.go_type) == "int64" ? 64 : 32,
                       ItemType(f));
      case T::kBool:
        if (!v.is_bool() && !v.is_null()) Mismatch(v, ItemType(f));
        return;
      case T::kDouble:
        if (!v.is_number() && !v.is_null()) Mismatch(v, ItemType(f));
        return;
      case T::kBytes:
        return Bytes(v, "[]uint8");
      case T::kMessage:
        return Struct(*f.message, v, ItemType(f));
      case T::kStringMap:
      case T::kBytesMap:
      case T::kQuantityMap:
      case T::kMessageMap:
      case T::kTimeMap:
        return Map(f, v);
      case T::kTime:
        return Time(v, false);
      case T::kMicroTime:
        return Time(v, true);
      case T::kQuantity:
        return Quantity(v);
      case T::kIntOrString:
        // intstr's own decoder: a string, else an int32 (Go's json.Unmarshal of the value).
        if (v.is_string() || v.is_null()) return;
        if (v.is_int64() && v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX) return;
        return Fail(TypeError(v.is_number() ? "number " + NumberText(v) : std::string(JsonKind(v)),
                              "int32"));
      case T::kFieldsV1:
      case T::kRawExtension:
        return;  // any JSON
    }
  }

  // A map's values are decoded at the map's own path (Go adds no key to it).
  void Map(const pb::Field& f, const json::value& v) {
    using T = pb::FieldType;
    if (v.is_null()) return;
    if (!v.is_object()) return Mismatch(v, ItemType(f));
    for (const auto& kv : v.get_object()) {
      const json::value& value = kv.value();
      switch (f.type) {
        case T::kStringMap:
          if (!value.is_string() && !value.is_null()) Mismatch(value, "string");
          break;
        case T::kBytesMap:
          Bytes(value, "[]uint8");
          break;
        case T::kQuantityMap:
          Quantity(value);
          break;
        case T::kMessageMap:
          Struct(*f.message, value, MessageType(*f.message));
          break;
        case T::kTimeMap:
          Time(value, false);
          break;
        default:
          break;
      }
      if (!fatal_.empty()) return;
    }
  }

  const char* struct_ = "";
  std::vector<std::string_view> path_;
  std::string saved_;  // the first type mismatch
  std::string fatal_;  // the error that stopped decoding
};

}  // namespace

namespace {

std::string ErrorOf(const pb::Message* message, const json::value& object) {
  if (message == nullptr || !object.is_object()) return "";
  Decoder decoder;
  decoder.Struct(*message, object, "");
  return decoder.Error();
}

}  // namespace

std::string GoDecodeError(api::Kind kind, const json::value& object) {
  return ErrorOf(pb::MessageOf(kind), object);
}

Status CheckScaleDecodable(WriteVerb verb, const json::value& scale) {
  std::string error = ErrorOf(&pb::kScale, scale);
  if (error.empty()) return Status::Ok();
  if (verb == WriteVerb::kPatch) {
    api::FieldErrors errors;
    errors.Invalid("patch", json::serialize(scale), error);
    return errors.ToStatus("", "");
  }
  return Status::BadRequest("Scale in version \"v1\" cannot be handled as a Scale: " + error);
}

Status CheckDecodable(const api::KindInfo& kind, WriteVerb verb, const json::value& object) {
  std::string error = GoDecodeError(kind.kind, object);
  if (error.empty()) return Status::Ok();
  if (verb == WriteVerb::kPatch) {
    api::FieldErrors errors;
    errors.Invalid("patch", json::serialize(object), error);
    return errors.ToStatus("", "");
  }
  const std::string name(kind.name);
  return Status::BadRequest(name + " in version \"" + std::string(kind.version) +
                            "\" cannot be handled as a " + name + ": " + error);
}

}  // namespace berth::apiserver
