#include "scheduler/framework/yaml_fields.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace berth::scheduler {

namespace json = boost::json;

namespace {

// ---- Scalar resolution (go-yaml v2's resolve table) ----

std::optional<bool> ResolveBool(std::string_view s) {
  for (std::string_view t :
       {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}) {
    if (s == t) return true;
  }
  for (std::string_view f :
       {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}) {
    if (s == f) return false;
  }
  return std::nullopt;
}

// Go's strconv.ParseInt(s, 0, 64) after go-yaml removed the '_' separators;
// an unsigned value above int64's range comes back as uint64.
std::optional<json::value> ResolveInteger(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  std::string_view v = s;
  bool negative = false;
  if (!v.empty() && (v.front() == '+' || v.front() == '-')) {
    negative = v.front() == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) {
    base = 2;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) {
    base = 8;
    v.remove_prefix(2);
  } else if (v.size() > 1 && v[0] == '0') {
    base = 8;
    v.remove_prefix(1);
  }
  if (v.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), magnitude, base);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kInt64Max + 1) return std::nullopt;
    return json::value(magnitude == kInt64Max + 1 ? std::numeric_limits<int64_t>::min()
                                                  : -static_cast<int64_t>(magnitude));
  }
  if (magnitude > kInt64Max) return json::value(magnitude);
  return json::value(static_cast<int64_t>(magnitude));
}

// YAML's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
// (.inf and .nan have no JSON form and stay strings.)
std::optional<double> ResolveFloat(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa_start = i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
  } else {
    if (digits() == 0) return std::nullopt;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  bool negative = s[0] == '-';
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data() + mantissa_start, s.data() + s.size(), value);
  if (ec != std::errc() && ec != std::errc::result_out_of_range) return std::nullopt;
  if (ptr != s.data() + s.size()) return std::nullopt;
  return negative ? -value : value;
}

}  // namespace

// Go's %q, enough for config values: quotes, backslashes and control characters escaped.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) +
         ": ";
}

// How a non-null scalar reads in JSON: plain scalars are resolved, everything else is a string.
json::value ScalarToJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  const std::string& tag = n.Tag();
  if (tag != "?") {
    // Quoted, block, or explicitly tagged. Explicit core tags other than !!str resolve as if plain.
    bool core = tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
                tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null";
    if (!core) return json::value(s);
  }
  if (auto b = ResolveBool(s)) return json::value(*b);
  if (auto i = ResolveInteger(s)) return *i;
  if (auto f = ResolveFloat(s)) return json::value(*f);
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  return json::value(s);
}

// How kube would show a value that api::FieldErrors cannot: a float as written
// (FieldErrors writes numbers as JSON, 1.5E0), a map or a list elided.
std::string ShowUnquoted(const YAML::Node& n) {
  if (n.IsMap()) return "{...}";
  if (n.IsSequence()) return "[...]";
  return n.Scalar();
}

// One pass over the document, collecting every problem with kube's field path.

}  // namespace berth::scheduler
