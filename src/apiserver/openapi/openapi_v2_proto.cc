#include "apiserver/openapi/openapi_v2_proto.h"

#include <bit>
#include <boost/json.hpp>
#include <charconv>
#include <cstdint>
#include <string_view>

#include "api/json_fields.h"
#include "store/wal/coding.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// ---- Protobuf wire format, as far as the openapi.v2 messages need it ----

class ProtoWriter {
 public:
  // Singular proto3 scalars: nothing is written for the default value.
  void String(int field, std::string_view v) {
    if (!v.empty()) Bytes(field, v);
  }
  void Bool(int field, bool v) {
    if (v) Varint(field, 1);
  }
  void Int64(int field, int64_t v) {
    if (v != 0) Varint(field, static_cast<uint64_t>(v));
  }
  void Double(int field, double v) {
    if (v == 0) return;
    Tag(field, kFixed64);
    const auto bits = std::bit_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) out_ += static_cast<char>(bits >> (8 * i));
  }
  // Always written: elements of repeated fields, members of a oneof, and
  // message fields that are present (an empty message is not an absent one).
  void Bytes(int field, std::string_view v) {
    Tag(field, kLengthDelimited);
    PutVarint(v.size());
    out_.append(v);
  }
  void Message(int field, const ProtoWriter& m) { Bytes(field, m.out_); }
  void OneofBool(int field, bool v) { Varint(field, v ? 1 : 0); }

  std::string Take() && { return std::move(out_); }

 private:
  static constexpr int kVarint = 0;
  static constexpr int kFixed64 = 1;
  static constexpr int kLengthDelimited = 2;

  void Tag(int field, int wire_type) {
    PutVarint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
  }
  void Varint(int field, uint64_t v) {
    Tag(field, kVarint);
    PutVarint(v);
  }
  void PutVarint(uint64_t v) {
    char buf[10];
    out_.append(buf, store::wal::PutVarint(buf, v));
  }

  std::string out_;
};

// ---- YAML of an Any ----

bool IsYamlKeyword(std::string_view s) {
  // Words a YAML 1.1 reader (gopkg.in/yaml.v2) resolves to a bool or null.
  static constexpr std::string_view kWords[] = {"y",     "yes", "n",   "no",   "true",
                                                "false", "on",  "off", "null", "~"};
  for (std::string_view w : kWords) {
    if (s.size() != w.size()) continue;
    bool same = true;
    for (size_t i = 0; i < s.size() && same; ++i) {
      same = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))) == w[i];
    }
    if (same) return true;
  }
  return false;
}

// A string that reads back as the same string when written plain: it starts
// with a letter, '_' or '/', holds only letters, digits and ._/- (and inner
// spaces), and is no keyword. Anything else is quoted.
bool IsPlainSafe(std::string_view s) {
  if (s.empty() || s.back() == ' ' || IsYamlKeyword(s)) return false;
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (!std::isalpha(c0) && c0 != '_' && c0 != '/') return false;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '/' && c != '-' && c != ' ') return false;
  }
  return true;
}

void AppendYamlString(std::string_view s, std::string& out) {
  if (IsPlainSafe(s)) {
    out += s;
  } else {
    out += json::serialize(json::string_view(s));  // JSON escapes are YAML double-quoted escapes
  }
}

void AppendYamlScalar(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      break;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      break;
    case json::kind::int64:
      out += std::to_string(v.get_int64());
      break;
    case json::kind::uint64:
      out += std::to_string(v.get_uint64());
      break;
    case json::kind::double_: {
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get_double());
      out.append(buf, ec == std::errc() ? end : buf);
      break;
    }
    case json::kind::string:
      AppendYamlString(v.get_string(), out);
      break;
    case json::kind::object:
      out += "{}";  // only called for empty containers
      break;
    case json::kind::array:
      out += "[]";
      break;
  }
}

bool IsBlock(const json::value& v) {
  return (v.is_object() && !v.get_object().empty()) || (v.is_array() && !v.get_array().empty());
}

// Writes `v` as block YAML, each line indented by `indent`, except the first
// when the caller already wrote its indentation ("- " of a sequence entry).
void AppendYaml(const json::value& v, size_t indent, bool first_inline, std::string& out) {
  bool first = true;
  auto pad = [&] {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
  };
  if (v.is_object() && !v.get_object().empty()) {
    for (const auto& member : v.get_object()) {
      pad();
      AppendYamlString(member.key(), out);
      out += ':';
      if (IsBlock(member.value())) {
        out += '\n';
        AppendYaml(member.value(), indent + 4, false, out);
      } else {
        out += ' ';
        AppendYamlScalar(member.value(), out);
        out += '\n';
      }
    }
  } else if (v.is_array() && !v.get_array().empty()) {
    for (const auto& item : v.get_array()) {
      pad();
      out += "- ";
      if (IsBlock(item)) {
        AppendYaml(item, indent + 2, true, out);
      } else {
        AppendYamlScalar(item, out);
        out += '\n';
      }
    }
  } else {
    pad();
    AppendYamlScalar(v, out);
    out += '\n';
  }
}

// ---- JSON members ----

const json::value* Member(const json::object& o, std::string_view key) {
  return o.if_contains(key);
}

double NumberAt(const json::object& o, std::string_view key) {
  const json::value* v = Member(o, key);
  if (v == nullptr) return 0;
  if (v->is_double()) return v->get_double();
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  return 0;
}

int64_t IntegerAt(const json::object& o, std::string_view key) { return api::IntAt(&o, key); }

bool BoolAt(const json::object& o, std::string_view key) { return api::BoolAt(&o, key); }

// A member that is a string or an array of strings, as repeated strings.
void Strings(const json::object& o, std::string_view key, int field, ProtoWriter& w) {
  const json::value* v = Member(o, key);
  if (v == nullptr) return;
  if (v->is_string()) w.Bytes(field, v->get_string());
  if (!v->is_array()) return;
  for (const auto& s : v->get_array()) {
    if (s.is_string()) w.Bytes(field, s.get_string());
  }
}

ProtoWriter Any(const json::value& v) {
  ProtoWriter any;
  any.String(2, OpenApiV2AnyYaml(v));  // Any.yaml
  return any;
}

void AnyAt(const json::object& o, std::string_view key, int field, ProtoWriter& w) {
  if (const json::value* v = Member(o, key)) w.Message(field, Any(*v));
}

void AnyArray(const json::object& o, std::string_view key, int field, ProtoWriter& w) {
  const json::array* a = api::ArrayAt(o, key);
  if (a == nullptr) return;
  for (const auto& v : *a) w.Message(field, Any(v));
}

// Every "x-" member as a NamedAny.
void VendorExtensions(const json::object& o, int field, ProtoWriter& w) {
  for (const auto& member : o) {
    if (!member.key().starts_with("x-")) continue;
    ProtoWriter named;
    named.String(1, member.key());
    named.Message(2, Any(member.value()));
    w.Message(field, named);
  }
}

// A NamedX message: name 1, value 2.
ProtoWriter Named(std::string_view name, const ProtoWriter& value) {
  ProtoWriter named;
  named.String(1, name);
  named.Message(2, value);
  return named;
}

// ---- openapi.v2 messages ----

ProtoWriter ExternalDocs(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "description"));
  w.String(2, api::StringAt(o, "url"));
  VendorExtensions(o, 3, w);
  return w;
}

ProtoWriter Xml(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "name"));
  w.String(2, api::StringAt(o, "namespace"));
  w.String(3, api::StringAt(o, "prefix"));
  w.Bool(4, BoolAt(o, "attribute"));
  w.Bool(5, BoolAt(o, "wrapped"));
  VendorExtensions(o, 6, w);
  return w;
}

ProtoWriter Schema(const json::object& o);

ProtoWriter SchemaOrEmpty(const json::value& v) {
  static const json::object kEmpty;
  return Schema(v.is_object() ? v.get_object() : kEmpty);
}

ProtoWriter Schema(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "$ref"));
  w.String(2, api::StringAt(o, "format"));
  w.String(3, api::StringAt(o, "title"));
  w.String(4, api::StringAt(o, "description"));
  AnyAt(o, "default", 5, w);
  w.Double(6, NumberAt(o, "multipleOf"));
  w.Double(7, NumberAt(o, "maximum"));
  w.Bool(8, BoolAt(o, "exclusiveMaximum"));
  w.Double(9, NumberAt(o, "minimum"));
  w.Bool(10, BoolAt(o, "exclusiveMinimum"));
  w.Int64(11, IntegerAt(o, "maxLength"));
  w.Int64(12, IntegerAt(o, "minLength"));
  w.String(13, api::StringAt(o, "pattern"));
  w.Int64(14, IntegerAt(o, "maxItems"));
  w.Int64(15, IntegerAt(o, "minItems"));
  w.Bool(16, BoolAt(o, "uniqueItems"));
  w.Int64(17, IntegerAt(o, "maxProperties"));
  w.Int64(18, IntegerAt(o, "minProperties"));
  Strings(o, "required", 19, w);
  AnyArray(o, "enum", 20, w);
  if (const json::value* additional = Member(o, "additionalProperties")) {
    ProtoWriter item;  // AdditionalPropertiesItem: schema 1 | boolean 2
    if (additional->is_bool()) {
      item.OneofBool(2, additional->get_bool());
    } else {
      item.Message(1, SchemaOrEmpty(*additional));
    }
    w.Message(21, item);
  }
  if (Member(o, "type") != nullptr) {
    ProtoWriter type;  // TypeItem: value 1
    Strings(o, "type", 1, type);
    w.Message(22, type);
  }
  if (const json::value* items = Member(o, "items")) {
    ProtoWriter item;  // ItemsItem: schema 1, one per schema
    if (items->is_array()) {
      for (const auto& s : items->get_array()) item.Message(1, SchemaOrEmpty(s));
    } else {
      item.Message(1, SchemaOrEmpty(*items));
    }
    w.Message(23, item);
  }
  if (const json::array* all = api::ArrayAt(o, "allOf")) {
    for (const auto& s : *all) w.Message(24, SchemaOrEmpty(s));
  }
  if (const json::object* properties = api::ObjectAt(o, "properties")) {
    ProtoWriter p;  // Properties: additional_properties 1 (NamedSchema)
    for (const auto& member : *properties)
      p.Message(1, Named(member.key(), SchemaOrEmpty(member.value())));
    w.Message(25, p);
  }
  w.String(26, api::StringAt(o, "discriminator"));
  w.Bool(27, BoolAt(o, "readOnly"));
  if (const json::object* xml = api::ObjectAt(o, "xml")) w.Message(28, Xml(*xml));
  if (const json::object* docs = api::ObjectAt(o, "externalDocs"))
    w.Message(29, ExternalDocs(*docs));
  AnyAt(o, "example", 30, w);
  VendorExtensions(o, 31, w);
  return w;
}

// The fields PrimitivesItems, the non-body parameters and Header share, in
// PrimitivesItems' numbering (type 1 ... multipleOf 17, vendor extensions 18);
// the parameters number them `offset` higher.
void PrimitiveFields(const json::object& o, int offset, ProtoWriter& w);

ProtoWriter PrimitivesItems(const json::object& o) {
  ProtoWriter w;
  PrimitiveFields(o, 0, w);
  return w;
}

void PrimitiveFields(const json::object& o, int offset, ProtoWriter& w) {
  w.String(1 + offset, api::StringAt(o, "type"));
  w.String(2 + offset, api::StringAt(o, "format"));
  if (const json::object* items = api::ObjectAt(o, "items"))
    w.Message(3 + offset, PrimitivesItems(*items));
  w.String(4 + offset, api::StringAt(o, "collectionFormat"));
  AnyAt(o, "default", 5 + offset, w);
  w.Double(6 + offset, NumberAt(o, "maximum"));
  w.Bool(7 + offset, BoolAt(o, "exclusiveMaximum"));
  w.Double(8 + offset, NumberAt(o, "minimum"));
  w.Bool(9 + offset, BoolAt(o, "exclusiveMinimum"));
  w.Int64(10 + offset, IntegerAt(o, "maxLength"));
  w.Int64(11 + offset, IntegerAt(o, "minLength"));
  w.String(12 + offset, api::StringAt(o, "pattern"));
  w.Int64(13 + offset, IntegerAt(o, "maxItems"));
  w.Int64(14 + offset, IntegerAt(o, "minItems"));
  w.Bool(15 + offset, BoolAt(o, "uniqueItems"));
  AnyArray(o, "enum", 16 + offset, w);
  w.Double(17 + offset, NumberAt(o, "multipleOf"));
  VendorExtensions(o, 18 + offset, w);
}

// A query, formData, path or header parameter's sub-schema message: required
// 1, in 2, description 3, name 4, then (query and formData only)
// allowEmptyValue 5, then the primitive fields.
ProtoWriter NonBodySubSchema(const json::object& o, bool allows_empty_value) {
  ProtoWriter w;
  w.Bool(1, BoolAt(o, "required"));
  w.String(2, api::StringAt(o, "in"));
  w.String(3, api::StringAt(o, "description"));
  w.String(4, api::StringAt(o, "name"));
  if (allows_empty_value) w.Bool(5, BoolAt(o, "allowEmptyValue"));
  PrimitiveFields(o, allows_empty_value ? 5 : 4, w);
  return w;
}

// Parameter: body_parameter 1 | non_body_parameter 2. Empty for an unknown
// "in" (gnostic refuses those).
ProtoWriter Parameter(const json::object& o) {
  ProtoWriter w;
  const std::string_view in = api::StringAt(o, "in");
  if (in == "body") {
    ProtoWriter body;
    body.String(1, api::StringAt(o, "description"));
    body.String(2, api::StringAt(o, "name"));
    body.String(3, in);
    body.Bool(4, BoolAt(o, "required"));
    if (const json::value* schema = Member(o, "schema")) body.Message(5, SchemaOrEmpty(*schema));
    VendorExtensions(o, 6, body);
    w.Message(1, body);
    return w;
  }
  ProtoWriter non_body;  // header 1 | formData 2 | query 3 | path 4
  if (in == "header") {
    non_body.Message(1, NonBodySubSchema(o, false));
  } else if (in == "formData") {
    non_body.Message(2, NonBodySubSchema(o, true));
  } else if (in == "query") {
    non_body.Message(3, NonBodySubSchema(o, true));
  } else if (in == "path") {
    non_body.Message(4, NonBodySubSchema(o, false));
  } else {
    return w;
  }
  w.Message(2, non_body);
  return w;
}

ProtoWriter JsonReference(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "$ref"));
  w.String(2, api::StringAt(o, "description"));
  return w;
}

// ParametersItem: parameter 1 | json_reference 2.
void ParametersItems(const json::object& o, int field, ProtoWriter& w) {
  const json::array* params = api::ArrayAt(o, "parameters");
  if (params == nullptr) return;
  for (const auto& p : *params) {
    if (!p.is_object()) continue;
    ProtoWriter item;
    if (p.get_object().contains("$ref")) {
      item.Message(2, JsonReference(p.get_object()));
    } else {
      item.Message(1, Parameter(p.get_object()));
    }
    w.Message(field, item);
  }
}

ProtoWriter Response(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "description"));
  if (const json::value* schema = Member(o, "schema")) {
    ProtoWriter item;  // SchemaItem: schema 1 | file_schema 2
    item.Message(1, SchemaOrEmpty(*schema));
    w.Message(2, item);
  }
  if (const json::object* examples = api::ObjectAt(o, "examples")) {
    ProtoWriter e;  // Examples: additional_properties 1 (NamedAny)
    for (const auto& member : *examples) e.Message(1, Named(member.key(), Any(member.value())));
    w.Message(4, e);
  }
  VendorExtensions(o, 5, w);
  return w;
}

// ResponseValue: response 1 | json_reference 2.
ProtoWriter ResponseValue(const json::object& o) {
  ProtoWriter w;
  if (o.contains("$ref")) {
    w.Message(2, JsonReference(o));
  } else {
    w.Message(1, Response(o));
  }
  return w;
}

bool IsResponseCode(std::string_view key) {
  if (key == "default") return true;
  return key.size() == 3 && std::isdigit(static_cast<unsigned char>(key[0])) &&
         std::isdigit(static_cast<unsigned char>(key[1])) &&
         std::isdigit(static_cast<unsigned char>(key[2]));
}

ProtoWriter Responses(const json::object& o) {
  ProtoWriter w;
  for (const auto& member : o) {
    if (!IsResponseCode(member.key()) || !member.value().is_object()) continue;
    w.Message(1, Named(member.key(), ResponseValue(member.value().get_object())));
  }
  VendorExtensions(o, 2, w);
  return w;
}

ProtoWriter Operation(const json::object& o) {
  ProtoWriter w;
  Strings(o, "tags", 1, w);
  w.String(2, api::StringAt(o, "summary"));
  w.String(3, api::StringAt(o, "description"));
  if (const json::object* docs = api::ObjectAt(o, "externalDocs"))
    w.Message(4, ExternalDocs(*docs));
  w.String(5, api::StringAt(o, "operationId"));
  Strings(o, "produces", 6, w);
  Strings(o, "consumes", 7, w);
  ParametersItems(o, 8, w);
  if (const json::object* responses = api::ObjectAt(o, "responses"))
    w.Message(9, Responses(*responses));
  Strings(o, "schemes", 10, w);
  w.Bool(11, BoolAt(o, "deprecated"));
  VendorExtensions(o, 13, w);
  return w;
}

ProtoWriter PathItem(const json::object& o) {
  static constexpr std::pair<std::string_view, int> kOperations[] = {
      {"get", 2},     {"put", 3},  {"post", 4}, {"delete", 5},
      {"options", 6}, {"head", 7}, {"patch", 8}};
  ProtoWriter w;
  w.String(1, api::StringAt(o, "$ref"));
  for (const auto& [method, field] : kOperations) {
    if (const json::object* op = api::ObjectAt(o, method)) w.Message(field, Operation(*op));
  }
  ParametersItems(o, 9, w);
  VendorExtensions(o, 10, w);
  return w;
}

ProtoWriter Paths(const json::object& o) {
  ProtoWriter w;
  VendorExtensions(o, 1, w);
  for (const auto& member : o) {
    if (!member.key().starts_with("/") || !member.value().is_object()) continue;
    w.Message(2, Named(member.key(), PathItem(member.value().get_object())));
  }
  return w;
}

ProtoWriter Info(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "title"));
  w.String(2, api::StringAt(o, "version"));
  w.String(3, api::StringAt(o, "description"));
  w.String(4, api::StringAt(o, "termsOfService"));
  if (const json::object* contact = api::ObjectAt(o, "contact")) {
    ProtoWriter c;
    c.String(1, api::StringAt(*contact, "name"));
    c.String(2, api::StringAt(*contact, "url"));
    c.String(3, api::StringAt(*contact, "email"));
    VendorExtensions(*contact, 4, c);
    w.Message(5, c);
  }
  if (const json::object* license = api::ObjectAt(o, "license")) {
    ProtoWriter l;
    l.String(1, api::StringAt(*license, "name"));
    l.String(2, api::StringAt(*license, "url"));
    VendorExtensions(*license, 3, l);
    w.Message(6, l);
  }
  VendorExtensions(o, 7, w);
  return w;
}

ProtoWriter Tag(const json::object& o) {
  ProtoWriter w;
  w.String(1, api::StringAt(o, "name"));
  w.String(2, api::StringAt(o, "description"));
  if (const json::object* docs = api::ObjectAt(o, "externalDocs"))
    w.Message(3, ExternalDocs(*docs));
  VendorExtensions(o, 4, w);
  return w;
}

}  // namespace

std::string OpenApiV2AnyYaml(const json::value& value) {
  std::string out;
  AppendYaml(value, 0, false, out);
  return out;
}

std::string EncodeOpenApiV2Protobuf(const json::object& document) {
  const json::object& o = document;
  ProtoWriter w;
  w.String(1, api::StringAt(o, "swagger"));
  if (const json::object* info = api::ObjectAt(o, "info")) w.Message(2, Info(*info));
  w.String(3, api::StringAt(o, "host"));
  w.String(4, api::StringAt(o, "basePath"));
  Strings(o, "schemes", 5, w);
  Strings(o, "consumes", 6, w);
  Strings(o, "produces", 7, w);
  if (const json::object* paths = api::ObjectAt(o, "paths")) w.Message(8, Paths(*paths));
  if (const json::object* definitions = api::ObjectAt(o, "definitions")) {
    ProtoWriter d;  // Definitions: additional_properties 1 (NamedSchema)
    for (const auto& member : *definitions)
      d.Message(1, Named(member.key(), SchemaOrEmpty(member.value())));
    w.Message(9, d);
  }
  if (const json::object* parameters = api::ObjectAt(o, "parameters")) {
    ProtoWriter p;  // ParameterDefinitions: additional_properties 1 (NamedParameter)
    for (const auto& member : *parameters) {
      if (member.value().is_object())
        p.Message(1, Named(member.key(), Parameter(member.value().get_object())));
    }
    w.Message(10, p);
  }
  if (const json::object* responses = api::ObjectAt(o, "responses")) {
    ProtoWriter r;  // ResponseDefinitions: additional_properties 1 (NamedResponse)
    for (const auto& member : *responses) {
      if (member.value().is_object())
        r.Message(1, Named(member.key(), Response(member.value().get_object())));
    }
    w.Message(11, r);
  }
  if (const json::array* tags = api::ArrayAt(o, "tags")) {
    for (const auto& t : *tags) {
      if (t.is_object()) w.Message(14, Tag(t.get_object()));
    }
  }
  if (const json::object* docs = api::ObjectAt(o, "externalDocs"))
    w.Message(15, ExternalDocs(*docs));
  VendorExtensions(o, 16, w);
  return std::move(w).Take();
}

}  // namespace berth::apiserver
