#include "scheduler/framework/yaml_fields.h"

#include <string>

namespace berth::scheduler {

namespace json = boost::json;

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

// How kube would show a value that api::FieldErrors cannot: a float as written
// (FieldErrors writes numbers as JSON, 1.5E0), a map or a list elided.
std::string ShowUnquoted(const YAML::Node& n) {
  if (n.IsMap()) return "{...}";
  if (n.IsSequence()) return "[...]";
  return n.Scalar();
}

// One pass over the document, collecting every problem with kube's field path.

}  // namespace berth::scheduler
