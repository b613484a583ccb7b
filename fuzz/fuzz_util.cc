#include "fuzz_util.h"

#include <cstdio>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/defaults.h"
#include "api/validation/validation.h"

namespace berth::fuzz {

namespace json = boost::json;

void Check(bool ok, std::string_view what, std::string_view a, std::string_view b) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!a.empty()) std::fprintf(stderr, "  first:  %.*s\n", static_cast<int>(a.size()), a.data());
  if (!b.empty()) std::fprintf(stderr, "  second: %.*s\n", static_cast<int>(b.size()), b.data());
  std::abort();
}

std::optional<json::value> ParseJson(std::string_view text) {
  json::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) return std::nullopt;
  return value;
}

std::pair<std::optional<std::string_view>, std::string_view> SplitAtNul(std::string_view input) {
  auto nul = input.find('\0');
  if (nul == std::string_view::npos) return {std::nullopt, input};
  return {input.substr(0, nul), input.substr(nul + 1)};
}

api::Kind PickKind(std::string_view& input, std::span<const api::Kind> choices) {
  if (input.empty()) return choices[0];
  auto pick = static_cast<unsigned char>(input[0]) % choices.size();
  input.remove_prefix(1);
  return choices[pick];
}

bool SameUpToDoubleRounding(const json::value& a, const json::value& b) {
  if (a.is_double() && b.is_double()) {
    double x = a.get_double(), y = b.get_double();
    return x == y || std::fabs(x - y) <= 4 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameUpToDoubleRounding(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& [key, value] : x) {
      const json::value* other = y.if_contains(key);
      if (!other || !SameUpToDoubleRounding(value, *other)) return false;
    }
    return true;
  }
  return a == b;
}

void CheckDecodedObject(const api::Object& object) {
  std::string encoded(object.Encoded());
  auto again = api::Object::Decode(encoded);
  Check(again.ok(), "an encoded object does not decode again", encoded,
        again.ok() ? "" : again.status().message());
  Check((*again)->kind() == object.kind(), "the kind changed in a round trip", encoded);
  Check((*again)->Encoded() == encoded || SameUpToDoubleRounding((*again)->json(), object.json()),
        "encode(decode(encode(x))) differs from encode(x)", encoded, (*again)->Encoded());
  (void)api::ValidateObject(object);
  (void)object.FieldValue("metadata.name");
  (void)object.FieldValue("spec.nodeName");
  (void)object.FieldValue("status.phase");
  json::object defaulted = object.json();
  api::ApplyDefaults(object.kind(), defaulted);
  if (auto d = api::Object::FromJson(json::value(std::move(defaulted))); d.ok()) {
    (void)api::ValidateObject(**d);
  }
}

api::ObjectPtr CheckObjectOfKind(api::Kind kind, std::string_view text) {
  auto value = ParseJson(text);
  if (!value || !value->is_object()) return nullptr;
  const api::KindInfo& info = api::Info(kind);
  std::string api_version =
      info.group.empty() ? std::string(info.version) : std::string(info.group) + "/" + std::string(info.version);
  value->get_object()["apiVersion"] = api_version;
  value->get_object()["kind"] = info.name;
  auto object = api::Object::FromJson(std::move(*value));
  if (!object.ok()) return nullptr;
  Check((*object)->kind() == kind, "decoded as another kind");
  CheckDecodedObject(**object);
  return *object;
}

}  // namespace berth::fuzz
