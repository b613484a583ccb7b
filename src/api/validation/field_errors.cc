#include "api/validation/field_errors.h"

#include <algorithm>
#include <utility>

#include <boost/json.hpp>

namespace berth::api {

namespace json = boost::json;

std::string GoQuote(std::string_view v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s = "\"";
  for (char c : v) {
    switch (c) {
      case '"':
        s += "\\\"";
        break;
      case '\\':
        s += "\\\\";
        break;
      case '\n':
        s += "\\n";
        break;
      case '\t':
        s += "\\t";
        break;
      case '\r':
        s += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          s += "\\x";
          s += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
          s += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
          s += c;
        }
    }
  }
  s += '"';
  return s;
}

std::string GoStringMap(const json::object& o) {
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  for (const auto& kv : o) entries.emplace_back(kv.key(), kv.value().is_string() ? std::string_view(kv.value().get_string()) : "");
  std::sort(entries.begin(), entries.end());
  std::string out = "map[string]string{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(entries[i].first) + ":" + GoQuote(entries[i].second);
  }
  return out + "}";
}


void FieldErrors::Required(std::string field, std::string_view detail) {
  std::string message = "Required value";
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueRequired", std::move(message), std::move(field)});
}

void FieldErrors::Invalid(std::string field, std::string_view value, std::string_view detail) {
  std::string message = "Invalid value: " + GoQuote(value);
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
}

void FieldErrors::InvalidValue(std::string field, const json::value& value,
                               std::string_view detail) {
  std::string message = "Invalid value: ";
  const bool string_map =
      value.is_object() && std::all_of(value.get_object().begin(), value.get_object().end(),
                                       [](const auto& kv) { return kv.value().is_string(); });
  if (value.is_string()) {
    message += GoQuote(value.get_string());
  } else if (string_map) {
    message += GoStringMap(value.get_object());
  } else {
    message += json::serialize(value);
  }
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
}

void FieldErrors::InvalidGo(std::string field, std::string_view go_value, std::string_view detail) {
  std::string message = "Invalid value: " + std::string(go_value);
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
}

void FieldErrors::TooLong(std::string field, int64_t max_bytes) {
  causes_.push_back({"FieldValueTooLong",
                     "Too long: must have at most " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes"),
                     std::move(field)});
}

void FieldErrors::Duplicate(std::string field, std::string_view value) {
  causes_.push_back({"FieldValueDuplicate", "Duplicate value: " + GoQuote(value), std::move(field)});
}

void FieldErrors::DuplicateGo(std::string field, std::string_view go_value, std::string_view detail) {
  std::string message = "Duplicate value: " + std::string(go_value);
  if (!detail.empty()) message += ": " + std::string(detail);
  causes_.push_back({"FieldValueDuplicate", std::move(message), std::move(field)});
}

void FieldErrors::NotFound(std::string field, std::string_view value) {
  causes_.push_back({"FieldValueNotFound", "Not found: " + GoQuote(value), std::move(field)});
}

void FieldErrors::NotSupported(std::string field, std::string_view value, const std::vector<std::string>& supported) {
  std::string message = "Unsupported value: " + GoQuote(value) + ": supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) {
    if (i) message += ", ";
    message += GoQuote(supported[i]);
  }
  causes_.push_back({"FieldValueNotSupported", std::move(message), std::move(field)});
}

void FieldErrors::Forbidden(std::string field, std::string_view detail) {
  causes_.push_back({"FieldValueForbidden", "Forbidden: " + std::string(detail), std::move(field)});
}

Status FieldErrors::ToStatus(std::string_view kind, std::string_view name) const {
  if (causes_.empty()) return Status::Ok();
  std::string message = std::string(kind) + " " + GoQuote(name) + " is invalid: ";
  if (causes_.size() > 1) message += '[';
  for (size_t i = 0; i < causes_.size(); ++i) {
    if (i) message += ", ";
    message += causes_[i].field + ": " + causes_[i].message;
  }
  if (causes_.size() > 1) message += ']';
  return Status::Invalid(std::move(message), causes_);
}

}  // namespace berth::api
