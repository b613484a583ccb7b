#pragma once
// A Swagger 2.0 document in protobuf, as kube-apiserver serves /openapi/v2 to
// clients that ask for application/com.github.proto-openapi.spec.v2.v1.0+protobuf
// (kubectl, for client-side validation of a `kind: List` and for patch types):
// gnostic's message openapi.v2.Document (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto), filled from the JSON the way gnostic's parser
// fills it.
//
// What is encoded: the document's swagger, info, host, basePath, schemes,
// consumes, produces, tags, externalDocs; paths (path items, their operations
// and parameters: body, query, path, header and formData); responses;
// definitions and every schema field of Swagger 2.0 ($ref, type as TypeItem,
// items as ItemsItem, properties, additionalProperties, allOf, required, enum,
// default, example, the numeric and length bounds, format, description, ...).
// Vendor extensions (every "x-" member) become NamedAny values holding the
// value as YAML, as gnostic writes them. Not encoded, since berth's documents
// have none: security requirements and definitions, response headers and
// file schemas. Members Swagger 2.0 does not define (OpenAPI 3's nullable,
// oneOf, ...) are left out, where gnostic would refuse the whole document.
//
// Pure functions; any thread.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

namespace berth::apiserver {

// The serialized openapi.v2.Document of `document`, a Swagger 2.0 document.
std::string EncodeOpenApiV2Protobuf(const boost::json::object& document);

// `value` as the YAML text of an openapi.v2.Any: block style, maps in their
// JSON order, strings quoted (JSON escapes) whenever a YAML 1.1 reader could
// take them for anything but a string; ends with a newline. Clients read it
// back with a YAML parser (kubectl: x-kubernetes-group-version-kind).
std::string OpenApiV2AnyYaml(const boost::json::value& value);

}  // namespace berth::apiserver
