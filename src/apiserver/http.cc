#include "apiserver/http.h"

#include <algorithm>

#include "api/go_bool.h"

namespace berth::apiserver {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%' && i + 2 < in.size()) {
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ParseQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    auto eq = part.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back(PercentDecode(part, true), "");
    } else {
      out.emplace_back(PercentDecode(part.substr(0, eq), true),
                       PercentDecode(part.substr(eq + 1), true));
    }
  }
  return out;
}

std::optional<std::string_view> Request::Query(std::string_view key) const {
  for (const auto& [k, v] : query) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

void Request::AddWarning(std::string text) {
  if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) warnings.push_back(std::move(text));
}

bool Request::QueryBool(std::string_view key, bool fallback) const {
  auto v = Query(key);
  if (!v) return fallback;
  return api::ParseGoBool(*v).value_or(fallback);
}

bool IsJsonContentType(std::string_view ct) {
  if (ct.empty()) return true;
  auto semi = ct.find(';');
  std::string_view media = ct.substr(0, semi);
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  return media == "application/json" || media == "*/*";
}

bool IsCborContentType(std::string_view ct) {
  std::string_view media = ct.substr(0, ct.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  return media == "application/cbor";
}

const Handler* FindRoute(const std::vector<Route>& routes, std::string_view path) {
  for (const Route& route : routes) {
    if (path.starts_with(route.prefix)) return &route.handler;
  }
  return nullptr;
}

bool AnonymousRoute(const std::vector<Route>& routes, std::string_view path) {
  for (const Route& route : routes) {
    if (path.starts_with(route.prefix)) return route.anonymous;
  }
  return false;
}

}  // namespace berth::apiserver
