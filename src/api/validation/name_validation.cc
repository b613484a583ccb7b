#include "api/validation/name_validation.h"

#include <cctype>

namespace berth::api {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool MatchesDns1123Label(std::string_view v) {
  if (v.empty() || !IsLowerAlnum(v.front()) || !IsLowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> IsDns1123Label(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back("must be no more than 63 characters");
  if (!MatchesDns1123Label(value)) {
    out.push_back("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                  "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
                  "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  }
  return out;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back("must be no more than 253 characters");
  bool ok = !value.empty();
  size_t start = 0;
  while (ok && start <= value.size()) {
    size_t dot = value.find('.', start);
    std::string_view part = value.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!MatchesDns1123Label(part)) ok = false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) {
    out.push_back("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                  "regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return out;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> out;
  std::string_view name = value;
  auto slash = value.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      out.push_back("prefix part must be non-empty");
    } else {
      for (auto& p : IsDns1123Subdomain(prefix)) out.push_back("prefix part " + p);
    }
  }
  constexpr std::string_view kNameMessage =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
      "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  if (name.empty()) {
    out.push_back("name part must be non-empty");
  } else {
    if (name.size() > 63) out.push_back("name part must be no more than 63 characters");
    bool ok = IsAlnum(name.front()) && IsAlnum(name.back());
    for (char c : name) ok = ok && (IsAlnum(c) || c == '-' || c == '_' || c == '.');
    if (!ok) out.emplace_back(kNameMessage);
  }
  return out;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  if (value.size() > 63) out.push_back("must be no more than 63 characters");
  bool ok = IsAlnum(value.front()) && IsAlnum(value.back());
  for (char c : value) ok = ok && (IsAlnum(c) || c == '-' || c == '_' || c == '.');
  if (!ok) {
    out.push_back("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                  "'my_value',  or '12345', regex used for validation is "
                  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return out;
}

std::vector<std::string> IsDns1035Label(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back("must be no more than 63 characters");
  if (!MatchesDns1123Label(value) || !(value.front() >= 'a' && value.front() <= 'z')) {
    out.push_back("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                  "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                  "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return out;
}

std::vector<std::string> IsWildcardDns1123Subdomain(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back("must be no more than 253 characters");
  if (!value.starts_with("*.") || !IsDns1123Subdomain(value.substr(2)).empty()) {
    out.push_back("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
                  "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
                  "character (e.g. '*.example.com', regex used for validation is "
                  "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return out;
}

std::vector<std::string> IsConfigMapKey(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back("must be no more than 253 characters");
  bool ok = !value.empty();
  for (char c : value) ok = ok && (IsAlnum(c) || c == '-' || c == '.' || c == '_');
  if (!ok) {
    out.push_back("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                  "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (value == ".") {
    out.push_back("must not be '.'");
  } else if (value == "..") {
    out.push_back("must not be '..'");
  } else if (value.starts_with("..")) {
    out.push_back("must not start with '..'");
  }
  return out;
}

std::vector<std::string> IsValidPortName(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 15) out.push_back("must be no more than 15 characters");
  bool charset = !value.empty();
  bool letter = false;
  for (char c : value) {
    charset = charset && (IsLowerAlnum(c) || c == '-');
    letter = letter || (c >= 'a' && c <= 'z');
  }
  if (!charset) {
    out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  } else if (!letter) {
    out.push_back("must contain at least one letter (a-z)");
  }
  if (value.find("--") != std::string_view::npos) out.push_back("must not contain consecutive hyphens");
  if (!value.empty() && (value.front() == '-' || value.back() == '-')) {
    out.push_back("must not begin or end with a hyphen");
  }
  return out;
}

std::vector<std::string> IsValidPathSegmentName(std::string_view value) {
  if (value == "." || value == "..") return {"may not be '" + std::string(value) + "'"};
  std::vector<std::string> out;
  for (std::string_view bad : {"/", "%"}) {
    if (value.find(bad) != std::string_view::npos) out.push_back("may not contain '" + std::string(bad) + "'");
  }
  return out;
}

}  // namespace berth::api
