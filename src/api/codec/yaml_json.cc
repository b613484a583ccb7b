#include "api/codec/yaml_json.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace berth::api {

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

json::value YamlScalarToJson(const YAML::Node& n) {
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

json::value YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json::object o;
      for (const auto& kv : node) o[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json::array a;
      for (const auto& e : node) a.push_back(YamlToJson(e));
      return a;
    }
    case YAML::NodeType::Scalar:
      return YamlScalarToJson(node);
    default:
      return nullptr;
  }
}

}  // namespace berth::api
