#include "apiserver/openapi/field_validation.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace {

// Walks JSON text, remembering the keys of each open object.
class DuplicateScanner {
 public:
  explicit DuplicateScanner(std::string_view text) : text_(text) {}

  std::vector<std::string> Run() {
    SkipSpace();
    Value(0);
    return std::move(found_);
  }

 private:
  static constexpr int kMaxDepth = 256;

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipSpace() {
    while (!AtEnd() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool Hex4(uint32_t& cp) {
    if (pos_ + 4 > text_.size()) return false;
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  // A string at pos_ (its opening quote), decoded into `out` when non-null.
  bool String(std::string* out) {
    if (Peek() != '"') return false;
    ++pos_;
    while (!AtEnd()) {
      char c = text_[pos_++];
      if (c == '"') return true;
      if (c != '\\') {
        if (out) *out += c;
        continue;
      }
      if (AtEnd()) return false;
      char e = text_[pos_++];
      uint32_t cp = 0;
      switch (e) {
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
          if (!Hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && pos_ + 6 <= text_.size() && text_[pos_] == '\\' &&
              text_[pos_ + 1] == 'u') {
            pos_ += 2;
            uint32_t low = 0;
            if (!Hex4(low)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          break;
        default: cp = static_cast<unsigned char>(e); break;
      }
      if (out) AppendUtf8(*out, cp);
    }
    return false;
  }

  bool Value(int depth) {
    if (depth > kMaxDepth) return false;
    switch (Peek()) {
      case '{': return Object(depth);
      case '[': return Array(depth);
      case '"': return String(nullptr);
      default:
        while (!AtEnd()) {
          char c = text_[pos_];
          if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r') break;
          ++pos_;
        }
        return true;
    }
  }

  bool Object(int depth) {
    ++pos_;  // '{'
    std::set<std::string, std::less<>> seen;
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      std::string key;
      if (!String(&key)) return false;
      SkipSpace();
      if (Peek() != ':') return false;
      ++pos_;
      SkipSpace();
      const size_t mark = path_.size();
      if (!path_.empty()) path_ += '.';
      path_ += key;
      if (!seen.insert(key).second) found_.push_back(path_);
      bool ok = Value(depth + 1);
      path_.resize(mark);
      if (!ok) return false;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      return false;
    }
  }

  bool Array(int depth) {
    ++pos_;  // '['
    SkipSpace();
    if (Peek() == ']') {
      ++pos_;
      return true;
    }
    for (size_t index = 0;; ++index) {
      SkipSpace();
      const size_t mark = path_.size();
      path_ += '[' + std::to_string(index) + ']';
      bool ok = Value(depth + 1);
      path_.resize(mark);
      if (!ok) return false;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      return false;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string path_;
  std::vector<std::string> found_;
};

std::string_view OptionsKind(WriteVerb verb) {
  switch (verb) {
    case WriteVerb::kCreate:
      return "CreateOptions";
    case WriteVerb::kUpdate:
      return "UpdateOptions";
    case WriteVerb::kPatch:
      break;
  }
  return "PatchOptions";
}

// The body is JSON text whose duplicate keys can be looked for (not protobuf,
// not a JSON patch's list of operations).
bool BodyIsJsonObject(const Request& request) {
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) return false;
  auto first = request.body.find_first_not_of(" \t\r\n");
  return first != std::string::npos && request.body[first] == '{';
}

}  // namespace

Result<FieldValidation> FieldValidationOf(const Request& request, WriteVerb verb) {
  auto value = request.Query("fieldValidation");
  if (!value || value->empty() || *value == "Warn") return FieldValidation::kWarn;
  if (*value == "Strict") return FieldValidation::kStrict;
  if (*value == "Ignore") return FieldValidation::kIgnore;
  const std::string cause = "Unsupported value: \"" + std::string(*value) +
                            "\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"";
  return Status::Invalid(std::string(OptionsKind(verb)) + ".meta.k8s.io \"\" is invalid: fieldValidation: " + cause,
                         {{"FieldValueNotSupported", cause, "fieldValidation"}});
}

std::vector<std::string> DuplicateFields(std::string_view json_text) { return DuplicateScanner(json_text).Run(); }

Status CheckFields(Request& request, const OpenApi& openapi, const api::KindInfo& kind, WriteVerb verb,
                   const boost::json::value& object, const boost::json::value* before) {
  auto directive = FieldValidationOf(request, verb);
  if (!directive.ok()) return directive.status();
  if (*directive == FieldValidation::kIgnore) return Status::Ok();
  if (request.trusted && !request.Query("fieldValidation")) return Status::Ok();

  std::vector<std::string> problems;
  std::vector<std::string> unknown = openapi.UnknownFields(kind.kind, object);
  if (before != nullptr && !unknown.empty()) {
    std::vector<std::string> had = openapi.UnknownFields(kind.kind, *before);
    std::erase_if(unknown, [&](const std::string& path) { return std::find(had.begin(), had.end(), path) != had.end(); });
  }
  for (auto& path : unknown) problems.push_back("unknown field \"" + path + "\"");
  if (BodyIsJsonObject(request)) {
    for (auto& path : DuplicateFields(request.body)) problems.push_back("duplicate field \"" + path + "\"");
  }
  if (problems.empty()) return Status::Ok();

  if (*directive == FieldValidation::kWarn) {
    for (auto& p : problems) request.AddWarning(std::move(p));
    return Status::Ok();
  }
  std::string message = "strict decoding error: ";
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i > 0) message += ", ";
    message += problems[i];
  }
  if (verb != WriteVerb::kPatch) {
    // The create and update handlers wrap decoding errors this way.
    std::string name(kind.name);
    message = name + " in version \"" + std::string(kind.version) + "\" cannot be handled as a " + name + ": " +
              message;
  }
  return Status::BadRequest(std::move(message));
}

std::string WarningHeaderValue(std::string_view text) {
  std::string out = "299 - \"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace berth::apiserver
