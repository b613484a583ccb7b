#include "apiserver/openapi/openapi_v2.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <string>
#include <vector>

#include "api/json_fields.h"
#include "apiserver/openapi/openapi_schemas.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kDefinitionsRefPrefix = "#/definitions/";

// Rewrites "#/components/schemas/" references to "#/definitions/".
void ToDefinitionRefs(json::value& value) {
  if (value.is_object()) {
    for (auto& m : value.get_object()) {
      if (m.key() == "$ref" && m.value().is_string()) {
        std::string_view ref = m.value().get_string();
        if (ref.starts_with(kSchemaRefPrefix)) {
          m.value() =
              std::string(kDefinitionsRefPrefix) + std::string(ref.substr(kSchemaRefPrefix.size()));
        }
      } else {
        ToDefinitionRefs(m.value());
      }
    }
  } else if (value.is_array()) {
    for (auto& v : value.get_array()) ToDefinitionRefs(v);
  }
}

void RemoveRequired(json::object& schema, std::string_view field) {
  json::value* value = schema.if_contains("required");
  json::array* required = value ? value->if_array() : nullptr;
  if (required == nullptr) return;
  api::EraseIf(*required,
               [&](const json::value& v) { return v.is_string() && v.get_string() == field; });
  if (required->empty()) schema.erase("required");
}

// kube's conversion of one structural schema to Swagger 2.0, parents before
// their children (a child's nullable decides its parent's required list).
void ToSwaggerSchema(json::object& s) {
  for (std::string_view junctor : {"allOf", "oneOf", "anyOf", "not"}) s.erase(junctor);
  if (api::BoolAt(&s, "nullable")) {
    // kubectl cannot cope with an untyped value that has items or properties.
    s.erase("type");
    s.erase("items");
    s.erase("properties");
  }
  s.erase("nullable");  // not Swagger 2.0
  const bool preserve = api::BoolAt(&s, "x-kubernetes-preserve-unknown-fields");
  if (preserve) {
    // kubectl would call the fields the schema does not list unknown.
    s.erase("items");
    s.erase("properties");
  }
  const std::string_view type = api::StringAt(s, "type");
  if ((type == "array" && !s.contains("items")) || (preserve && type == "object")) s.erase("type");

  json::value* properties_value = s.if_contains("properties");
  if (json::object* properties = properties_value ? properties_value->if_object() : nullptr) {
    for (auto& member : *properties) {
      if (member.value().is_object() && api::BoolAt(&member.value().get_object(), "nullable")) {
        RemoveRequired(s, member.key());
      }
    }
    for (auto& member : *properties) {
      if (member.value().is_object()) ToSwaggerSchema(member.value().get_object());
    }
  }
  if (json::value* additional = s.if_contains("additionalProperties");
      additional && additional->is_object()) {
    if (api::BoolAt(&additional->get_object(), "nullable")) s.erase("required");
    ToSwaggerSchema(additional->get_object());
  }
  if (json::value* items = s.if_contains("items"); items && items->is_object()) {
    ToSwaggerSchema(items->get_object());
  }
}

// One media range of an Accept header, as k8s.io/kube-openapi reads it
// (github.com/munnerz/goautoneg): type/subtype and q; other parameters are
// ignored.
struct MediaRange {
  std::string_view type;
  std::string_view subtype;
  double q = 1;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> ranges;
  while (true) {
    const size_t comma = accept.find(',');
    std::string_view part = accept.substr(0, comma);
    const size_t semi = part.find(';');
    std::string_view media = Trim(part.substr(0, semi));
    MediaRange r;
    const size_t slash = media.find('/');
    bool valid = true;
    if (slash == std::string_view::npos) {
      valid = media == "*";
      r.type = media;
      r.subtype = "*";
    } else {
      r.type = Trim(media.substr(0, slash));
      r.subtype = Trim(media.substr(slash + 1));
      valid = r.subtype.find('/') == std::string_view::npos;
    }
    for (std::string_view params = semi == std::string_view::npos ? "" : part.substr(semi + 1);
         valid;) {
      const size_t next = params.find(';');
      std::string_view param = params.substr(0, next);
      const size_t eq = param.find('=');
      if (eq != std::string_view::npos && Trim(param.substr(0, eq)) == "q") {
        std::string_view value = param.substr(eq + 1);
        double q = 0;  // unparseable: 0, as Go's strconv.ParseFloat leaves it
        std::from_chars(value.data(), value.data() + value.size(), q);
        r.q = q;
      }
      if (next == std::string_view::npos) break;
      params.remove_prefix(next + 1);
    }
    if (valid) ranges.push_back(r);
    if (comma == std::string_view::npos) break;
    accept.remove_prefix(comma + 1);
  }
  // Highest q first; among equal q, concrete types before wildcards.
  std::stable_sort(ranges.begin(), ranges.end(), [](const MediaRange& a, const MediaRange& b) {
    if (a.q != b.q) return a.q > b.q;
    if ((a.type == "*") != (b.type == "*")) return b.type == "*";
    return a.subtype != "*" && b.subtype == "*";
  });
  return ranges;
}

}  // namespace

void ToSwaggerDefinitions(json::object& definitions) {
  for (auto& member : definitions) {
    ToDefinitionRefs(member.value());
    if (member.value().is_object()) ToSwaggerSchema(member.value().get_object());
  }
}

std::optional<OpenApiV2Format> NegotiateOpenApiV2(std::string_view accept) {
  struct Offer {
    std::string_view subtype;
    OpenApiV2Format format;
  };
  // kube's order: JSON, then the protobuf type kubectl sends, then its newer name.
  static constexpr Offer kOffers[] = {
      {"json", OpenApiV2Format::kJson},
      {"com.github.proto-openapi.spec.v2@v1.0+protobuf", OpenApiV2Format::kProtobuf},
      {"com.github.proto-openapi.spec.v2.v1.0+protobuf", OpenApiV2Format::kProtobuf},
  };
  if (Trim(accept).empty()) accept = "*/*";
  for (const MediaRange& range : ParseAccept(accept)) {
    for (const Offer& offer : kOffers) {
      if (range.type != "application" && range.type != "*") continue;
      if (range.subtype != offer.subtype && range.subtype != "*") continue;
      return offer.format;
    }
  }
  return std::nullopt;
}

std::string_view OpenApiV2ContentType(OpenApiV2Format format) {
  return format == OpenApiV2Format::kProtobuf
             ? "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
             : "application/json";
}

bool IfNoneMatchHits(std::string_view if_none_match, std::string_view etag) {
  auto opaque = [](std::string_view tag) {
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    return tag;
  };
  const std::string_view want = opaque(etag);
  std::string_view rest = if_none_match;
  while (true) {
    rest = Trim(rest);
    if (rest.empty()) return false;
    if (rest.front() == ',') {
      rest.remove_prefix(1);
      continue;
    }
    if (rest.front() == '*') return true;
    std::string_view tag = opaque(rest);
    if (tag.size() < 2 || tag.front() != '"') return false;
    const size_t close = tag.find('"', 1);
    if (close == std::string_view::npos) return false;
    if (tag.substr(0, close + 1) == want) return true;
    rest = tag.substr(close + 1);
  }
}

}  // namespace berth::apiserver
