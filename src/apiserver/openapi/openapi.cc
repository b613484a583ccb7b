#include "apiserver/openapi/openapi.h"

#include <openssl/sha.h>

#include <array>
#include <set>
#include <utility>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "apiserver/api_server.h"
#include "apiserver/openapi/openapi_paths.h"
#include "apiserver/openapi/openapi_schemas.h"
#include "apiserver/openapi/openapi_v2.h"
#include "apiserver/openapi/openapi_v2_proto.h"
#include "apiserver/registry/registry.h"

namespace berth::apiserver {

namespace json = boost::json;

using openapi_paths::AddKindPaths;
using openapi_paths::Dialect;
using openapi_paths::GroupVersionPath;
using openapi_paths::GvkObject;
using openapi_paths::kMetaDefs;

namespace {

constexpr std::string_view kKubeVersion = "v1.32.0";

std::string Sha512Hex(std::string_view data) {
  std::array<unsigned char, SHA512_DIGEST_LENGTH> digest;
  SHA512(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

std::string KindsFingerprint(const ResourceRegistry& registry, const std::vector<api::KindInfo>& kinds) {
  std::string f;
  for (const auto& k : kinds) {
    for (const Subresource* subresource : registry.ListedSubresources(k.kind)) {
      f += subresource->name();
      f += ',';
    }
    f += std::to_string(static_cast<int>(k.kind));
    f += '|';
    f += k.group;
    f += '|';
    f += k.version;
    f += '|';
    f += k.name;
    f += '|';
    f += k.resource;
    f += k.namespaced ? "|n;" : "|c;";
  }
  return f;
}

// ---- Schemas ----

const json::object* ObjectMember(const json::object* o, std::string_view key) { return api::ObjectAt(o, key); }

bool IsTrue(const json::object* o, std::string_view key) { return api::BoolAt(o, key); }

const json::object* Definition(std::string_view name) {
  return api::ObjectAt(BuiltinDefinitions(), name);
}

// Follows "$ref" (to a built-in definition) and a lone allOf.
const json::object* Resolve(const json::object* schema) {
  for (int depth = 0; schema != nullptr && depth < 16; ++depth) {
    std::string_view ref = api::StringAt(schema, "$ref");
    if (!ref.empty()) {
      if (!ref.starts_with(kSchemaRefPrefix)) return nullptr;
      schema = Definition(ref.substr(kSchemaRefPrefix.size()));
      continue;
    }
    const json::array* all = api::ArrayAt(schema, "allOf");
    if (all && all->size() == 1 && (*all)[0].is_object() && !schema->contains("properties")) {
      schema = &(*all)[0].get_object();
      continue;
    }
    return schema;
  }
  return nullptr;
}

void AppendField(std::string& path, std::string_view key) {
  if (!path.empty()) path += '.';
  path += key;
}

// Collects the paths of fields `schema` does not allow, kube's pruning rules:
// an object lists its fields in properties, maps its values through
// additionalProperties, or keeps anything with x-kubernetes-preserve-unknown-fields.
void CollectUnknown(const json::object* schema, const json::value& value, std::string& path,
                    std::vector<std::string>& out) {
  schema = Resolve(schema);
  if (schema == nullptr || IsTrue(schema, "x-kubernetes-int-or-string")) return;
  if (value.is_object()) {
    const json::object* properties = ObjectMember(schema, "properties");
    const json::value* additional = schema->if_contains("additionalProperties");
    const bool open = IsTrue(schema, "x-kubernetes-preserve-unknown-fields") ||
                      (additional && additional->is_bool() && additional->get_bool());
    const bool embedded = IsTrue(schema, "x-kubernetes-embedded-resource");
    const bool closed = properties != nullptr || api::StringAt(schema, "type") == "object";
    for (const auto& member : value.get_object()) {
      std::string_view key = member.key();
      const size_t mark = path.size();
      AppendField(path, key);
      if (properties && properties->contains(key)) {
        CollectUnknown(api::ObjectAt(properties, key), member.value(), path, out);
      } else if (embedded && key == "metadata") {
        CollectUnknown(Definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), member.value(), path, out);
      } else if (embedded && (key == "apiVersion" || key == "kind")) {
        // part of every embedded object
      } else if (additional && additional->is_object()) {
        CollectUnknown(&additional->get_object(), member.value(), path, out);
      } else if (!open && closed) {
        out.push_back(path);
      }
      path.resize(mark);
    }
  } else if (value.is_array()) {
    const json::object* items = ObjectMember(schema, "items");
    if (items == nullptr) return;
    const json::array& a = value.get_array();
    for (size_t i = 0; i < a.size(); ++i) {
      const size_t mark = path.size();
      path += '[';
      path += std::to_string(i);
      path += ']';
      CollectUnknown(items, a[i], path, out);
      path.resize(mark);
    }
  }
}

// The root schema of a built-in kind: its own definition, or the generic one.
const json::object& BuiltinRoot(api::Kind kind) {
  static const std::vector<json::object> kRoots = [] {
    std::vector<json::object> roots;
    for (int i = 0; i < api::kBuiltinKindCount; ++i) {
      const api::KindInfo& info = api::Info(static_cast<api::Kind>(i));
      const json::object* def = Definition(DefinitionName(info));
      roots.push_back(def ? *def : GenericKindSchema(info));
    }
    return roots;
  }();
  return kRoots[static_cast<size_t>(kind)];
}

// A custom resource's schema as given, with apiVersion, kind and metadata on top.
json::object CustomRoot(json::value schema) {
  json::object root = schema.is_object() ? std::move(schema.get_object()) : json::object();
  root["type"] = "object";
  json::object& properties = api::MutableObject(root, "properties");
  properties["apiVersion"] = json::object{{"type", "string"}, {"description", "The versioned schema of this object."}};
  properties["kind"] = json::object{{"type", "string"}, {"description", "The kind of this object."}};
  properties["metadata"] = json::object{
      {"$ref", std::string(kSchemaRefPrefix) + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
      {"description", "Standard object metadata."}};
  return root;
}

// Adds to `refs` every definition `value` refers to, transitively.
void CollectRefs(const json::value& value, std::string_view prefix, const json::object& defs,
                 std::set<std::string, std::less<>>& refs) {
  if (value.is_object()) {
    for (const auto& m : value.get_object()) {
      if (m.key() == "$ref" && m.value().is_string()) {
        std::string_view ref = m.value().get_string();
        if (!ref.starts_with(prefix)) continue;
        std::string name(ref.substr(prefix.size()));
        if (refs.insert(name).second) {
          if (const json::value* def = defs.if_contains(name)) CollectRefs(*def, prefix, defs, refs);
        }
      } else {
        CollectRefs(m.value(), prefix, defs, refs);
      }
    }
  } else if (value.is_array()) {
    for (const auto& v : value.get_array()) CollectRefs(v, prefix, defs, refs);
  }
}

json::object ListSchema(const api::KindInfo& info, const std::string& def) {
  json::object o;
  o["description"] = "A list of " + std::string(info.name) + " objects.";
  o["type"] = "object";
  o["required"] = json::array{"items"};
  o["properties"] = json::object{
      {"apiVersion", json::object{{"type", "string"}, {"description", "The versioned schema of this list."}}},
      {"items", json::object{{"type", "array"},
                             {"description", "The objects."},
                             {"items", json::object{{"$ref", std::string(kSchemaRefPrefix) + def}}}}},
      {"kind", json::object{{"type", "string"}, {"description", "The kind of this list."}}},
      {"metadata", json::object{{"$ref", std::string(kSchemaRefPrefix) + std::string(kMetaDefs) + "ListMeta"},
                                {"description", "Standard list metadata."}}}};
  return o;
}

std::shared_ptr<const OpenApi::Document> MakeDocument(json::object doc) {
  auto d = std::make_shared<OpenApi::Document>();
  d->body = json::serialize(doc);
  d->hash = Sha512Hex(d->body);
  return d;
}

}  // namespace

void OpenApi::SetSchema(api::Kind kind, json::value schema) {
  if (api::IsBuiltin(kind)) return;
  auto root = std::make_shared<const json::object>(CustomRoot(std::move(schema)));
  std::lock_guard lock(mu_);
  custom_[kind] = std::move(root);
  ++schemas_version_;
}

void OpenApi::ClearSchema(api::Kind kind) {
  std::lock_guard lock(mu_);
  if (custom_.erase(kind) > 0) ++schemas_version_;
}

std::shared_ptr<const json::object> OpenApi::RootSchema(api::Kind kind) const {
  if (api::IsBuiltin(kind)) {
    // Static storage: an aliasing pointer that owns nothing.
    return std::shared_ptr<const json::object>(std::shared_ptr<const json::object>(), &BuiltinRoot(kind));
  }
  auto it = custom_.find(kind);
  return it == custom_.end() ? nullptr : it->second;
}

void OpenApi::Refresh() {
  const std::vector<api::KindInfo> kinds = api::AllKinds();
  std::string fingerprint = KindsFingerprint(registry_, kinds);
  if (cache_.built && cache_.kinds == fingerprint && cache_.schemas == schemas_version_) return;
  cache_ = Cache{};
  cache_.kinds = std::move(fingerprint);
  cache_.schemas = schemas_version_;
  cache_.built = true;

  // Every definition a document may use: the built-in ones, and per served
  // kind its own (with its GVK) and its list's.
  json::object defs = BuiltinDefinitions();
  // Custom kinds that keep unknown fields at their root: Swagger 2.0 gives
  // them no properties at all (kube's buildKubeNative), or kubectl's v2
  // reader would call every field but apiVersion, kind and metadata unknown.
  std::vector<std::string> open_roots;
  std::vector<std::pair<std::string, std::vector<const api::KindInfo*>>> group_versions;
  for (const auto& info : kinds) {
    const std::string def = DefinitionName(info);
    auto root = RootSchema(info.kind);
    json::object schema = root ? *root : GenericKindSchema(info);
    if (root && !api::IsBuiltin(info.kind) && api::BoolAt(root.get(), "x-kubernetes-preserve-unknown-fields")) {
      open_roots.push_back(def);
    }
    json::array gvks;
    gvks.push_back(GvkObject(info.group, info.version, info.name));
    schema["x-kubernetes-group-version-kind"] = std::move(gvks);
    defs[def] = std::move(schema);
    json::object list = ListSchema(info, def);
    list["x-kubernetes-group-version-kind"] =
        json::array{GvkObject(info.group, info.version, std::string(info.name) + "List")};
    defs[def + "List"] = std::move(list);

    std::string gv = GroupVersionPath(info.group, info.version);
    auto it = std::find_if(group_versions.begin(), group_versions.end(),
                           [&](const auto& entry) { return entry.first == gv; });
    if (it == group_versions.end()) {
      group_versions.emplace_back(gv, std::vector<const api::KindInfo*>{});
      it = std::prev(group_versions.end());
    }
    it->second.push_back(&info);
  }

  json::object index_paths;
  for (const auto& [gv, gv_kinds] : group_versions) {
    json::object paths;
    for (const auto* info : gv_kinds) {
      AddKindPaths(Dialect::kV3, *info, registry_.ListedSubresources(info->kind), paths);
    }
    std::set<std::string, std::less<>> refs;
    CollectRefs(paths, kSchemaRefPrefix, defs, refs);
    json::object schemas;
    for (const auto& name : refs) {
      if (const json::value* def = defs.if_contains(name)) schemas[name] = *def;
    }
    json::object doc;
    doc["openapi"] = "3.0.0";
    doc["info"] = json::object{{"title", "Kubernetes"}, {"version", kKubeVersion}};
    doc["paths"] = std::move(paths);
    doc["components"] = json::object{{"schemas", std::move(schemas)}};
    auto document = MakeDocument(std::move(doc));
    index_paths[gv] = json::object{{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + document->hash}};
    cache_.v3[gv] = std::move(document);
  }
  cache_.v3_index = json::serialize(json::object{{"paths", std::move(index_paths)}});

  // Swagger 2.0: all paths and definitions in one document.
  json::object v2_paths;
  for (const auto& info : kinds) {
    AddKindPaths(Dialect::kV2, info, registry_.ListedSubresources(info.kind), v2_paths);
  }
  ToSwaggerDefinitions(defs);
  for (const auto& def : open_roots) {
    json::object& schema = defs[def].as_object();
    json::value gvks = schema["x-kubernetes-group-version-kind"];
    schema = json::object{{"type", "object"}, {"x-kubernetes-group-version-kind", std::move(gvks)}};
  }
  json::object v2;
  v2["swagger"] = "2.0";
  v2["info"] = json::object{{"title", "Kubernetes"}, {"version", kKubeVersion}};
  v2["paths"] = std::move(v2_paths);
  v2["definitions"] = std::move(defs);
  cache_.v2 = MakeDocument(std::move(v2));
}

std::string OpenApi::V3Index() {
  std::lock_guard lock(mu_);
  Refresh();
  return cache_.v3_index;
}

std::shared_ptr<const OpenApi::Document> OpenApi::V3GroupVersion(std::string_view path) {
  std::lock_guard lock(mu_);
  Refresh();
  auto it = cache_.v3.find(path);
  return it == cache_.v3.end() ? nullptr : it->second;
}

std::shared_ptr<const OpenApi::Document> OpenApi::V2() {
  std::lock_guard lock(mu_);
  Refresh();
  return cache_.v2;
}

std::shared_ptr<const OpenApi::Document> OpenApi::V2Protobuf() {
  std::shared_ptr<const Document> source;
  {
    std::lock_guard lock(mu_);
    Refresh();
    if (cache_.v2_protobuf) return cache_.v2_protobuf;
    source = cache_.v2;
  }
  // Encoded outside the lock: field validation reads schemas meanwhile.
  auto encoded = std::make_shared<Document>();
  encoded->body = EncodeOpenApiV2Protobuf(api::ParseJson(source->body).as_object());
  encoded->hash = source->hash;
  std::lock_guard lock(mu_);
  Refresh();
  // The schemas changed meanwhile: answer with what was asked for, cache nothing stale.
  if (cache_.v2 != source) return encoded;
  if (!cache_.v2_protobuf) cache_.v2_protobuf = std::move(encoded);
  return cache_.v2_protobuf;
}

std::vector<std::string> OpenApi::UnknownFields(api::Kind kind, const json::value& object) const {
  std::shared_ptr<const json::object> root;
  {
    std::lock_guard lock(mu_);
    root = RootSchema(kind);
  }
  std::vector<std::string> out;
  if (!root) return out;
  std::string path;
  CollectUnknown(root.get(), object, path, out);
  return out;
}

namespace {

// A document with its ETag; 304 Not Modified (no body) when the request's
// If-None-Match already names it.
Response DocumentResponse(const OpenApi::Document& doc, const Request& request) {
  std::string etag = "\"" + doc.hash + "\"";
  const bool unchanged = IfNoneMatchHits(request.if_none_match, etag);
  // As stored: a JSON document or the protobuf one (no newline added).
  Response r = BodyResponse(unchanged ? 304 : 200, unchanged ? std::string() : doc.body, "application/json");
  r.headers.emplace_back("ETag", std::move(etag));
  return r;
}

}  // namespace

std::optional<Response> ServeOpenApi(OpenApi& openapi, const Request& request) {
  std::string_view path = request.path;
  if (path.ends_with('/') && path.size() > 1) path.remove_suffix(1);
  if (path != "/openapi/v2" && path != "/openapi/v3" && !path.starts_with("/openapi/v3/")) return std::nullopt;
  if (request.method != "GET") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "method not allowed"));
  }
  auto not_found = [] { return ErrorResponse(Status::NotFound("the server could not find the requested resource")); };

  if (path == "/openapi/v2") {
    const auto format = NegotiateOpenApiV2(request.accept);
    if (!format) {
      Response r = JsonResponse(406, "");
      r.content_type = "text/plain; charset=utf-8";
      r.headers.emplace_back("Vary", "Accept");
      return r;
    }
    auto doc = *format == OpenApiV2Format::kProtobuf ? openapi.V2Protobuf() : openapi.V2();
    // Both forms carry the JSON's hash: the Vary header keeps caches apart.
    Response r = DocumentResponse(*doc, request);
    r.content_type = OpenApiV2ContentType(*format);
    r.headers.emplace_back("Vary", "Accept");
    return r;
  }
  if (path == "/openapi/v3") return JsonResponse(200, openapi.V3Index());

  std::string_view gv = path.substr(std::string_view("/openapi/v3/").size());
  auto doc = openapi.V3GroupVersion(gv);
  if (!doc) return not_found();
  auto hash = request.Query("hash");
  if (hash && *hash != doc->hash) {
    Response r = JsonResponse(301, "");
    r.content_type = "text/plain; charset=utf-8";
    r.headers.emplace_back("Location", "/openapi/v3/" + std::string(gv) + "?hash=" + doc->hash);
    return r;
  }
  Response r = DocumentResponse(*doc, request);
  if (hash) {
    r.headers.emplace_back("Cache-Control", "public, immutable");
  } else {
    r.headers.emplace_back("Cache-Control", "no-cache, private");
  }
  return r;
}

}  // namespace berth::apiserver
