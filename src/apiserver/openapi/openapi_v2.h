#pragma once
// The Swagger 2.0 form of berth's OpenAPI documents, GET /openapi/v2, as
// kube-apiserver serves it (k8s.io/kube-openapi pkg/handler): one document in
// JSON or, for clients that ask for it, in gnostic's protobuf message
// (openapi_v2_proto.h), negotiated by the Accept header; both carry the JSON's
// hash as their ETag.
//
// Pure functions; any thread.

#include <boost/json/object.hpp>
#include <optional>
#include <string_view>

namespace berth::apiserver {

// Turns OpenAPI v3 definitions (as components.schemas holds them) into
// Swagger 2.0 definitions that kubectl's v2 reader accepts, by the rules kube
// applies to a CustomResourceDefinition's schema for /openapi/v2: references
// point to "#/definitions/"; allOf, oneOf, anyOf and not are dropped; a
// nullable schema loses its type, items and properties (and is no longer
// required by its parent); a schema with x-kubernetes-preserve-unknown-fields
// loses its properties and items, and its type when that was "object" or it
// is an array left without items. kubectl validates a `kind: List` item by
// item against these definitions, and would otherwise call a field unknown
// that the server keeps.
void ToSwaggerDefinitions(boost::json::object& definitions);

enum class OpenApiV2Format { kJson, kProtobuf };

// The first of JSON, then protobuf (under either of its two media types) that
// the Accept header's media ranges allow, taken by q-value and then by
// specificity; an empty header is "*/*" (JSON). nullopt: nothing acceptable
// (kube answers 406).
std::optional<OpenApiV2Format> NegotiateOpenApiV2(std::string_view accept);

// The answer's Content-Type: application/json, or
// application/com.github.proto-openapi.spec.v2.v1.0+protobuf.
std::string_view OpenApiV2ContentType(OpenApiV2Format format);

// Whether an If-None-Match header names `etag` (quoted, as the ETag header
// carries it) or is "*", comparing weakly (a W/ prefix is ignored), as Go's
// http.ServeContent does before it answers 304 Not Modified.
bool IfNoneMatchHits(std::string_view if_none_match, std::string_view etag);

}  // namespace berth::apiserver
