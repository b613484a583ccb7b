#pragma once
// OpenAPI documents of the served kinds, as kube-apiserver publishes them:
//   GET /openapi/v3                      the index: one entry per group-version,
//                                        {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=<H>"}}}
//   GET /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>
//                                        an OpenAPI 3.0 document: the REST paths of
//                                        that group-version's kinds (operations with
//                                        x-kubernetes-group-version-kind and
//                                        x-kubernetes-action, kube's query parameters)
//                                        and components.schemas under kube's names
//   GET /openapi/v2                      one Swagger 2.0 document of everything, in
//                                        JSON or (Accept: application/com.github.proto-
//                                        openapi.spec.v2@v1.0+protobuf, as kubectl asks)
//                                        gnostic's protobuf message (openapi_v2.h)
// kubectl reads them for --validate (it sends fieldValidation=Strict once it
// sees that parameter on a kind's PATCH operation in v3; a `kind: List` it
// validates itself, item by item, against the v2 protobuf) and for `kubectl
// explain`.
// <H> is the SHA-512 of the document, in uppercase hex as kube writes it.
//
// The same schemas drive server-side field validation (UnknownFields).
//
// Each kind's subresource paths are those its strategy holds and lists
// (ResourceRegistry::ListedSubresources), as discovery shows them.
//
// Thread-safe: any thread may call any method. Documents are built lazily and
// cached until the kind table (api::AllKinds), a kind's subresources or a
// schema changes.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "apiserver/http.h"

namespace berth::apiserver {

class ResourceRegistry;  // registry/registry.h

class OpenApi {
 public:
  // REQUIRES: `registry` outlives the OpenApi.
  explicit OpenApi(const ResourceRegistry& registry) : registry_(registry) {}
  OpenApi(const OpenApi&) = delete;
  OpenApi& operator=(const OpenApi&) = delete;

  // Describes the objects of a registered kind with `schema`: an OpenAPI v3
  // schema of the whole object, as a CustomResourceDefinition version's
  // schema.openAPIV3Schema (structural: properties, items, additionalProperties,
  // x-kubernetes-preserve-unknown-fields, x-kubernetes-embedded-resource,
  // x-kubernetes-int-or-string; no $ref). apiVersion, kind and metadata (kube's
  // ObjectMeta) are added at the top whatever the schema says. Fields the schema
  // does not allow are unknown fields to field validation, as kube prunes them.
  // Replaces an earlier schema of the kind. No-op for built-in kinds.
  void SetSchema(api::Kind kind, boost::json::value schema);
  // Forgets a registered kind's schema: its objects are described as open
  // (anything below the metadata is accepted).
  void ClearSchema(api::Kind kind);

  struct Document {
    std::string body;  // serialized JSON
    std::string hash;  // SHA-512 of body, uppercase hex
  };
  // The /openapi/v3 index (serialized JSON).
  std::string V3Index();
  // The document of "api/v1" or "apis/<group>/<version>"; null when no served
  // kind is in that group-version.
  std::shared_ptr<const Document> V3GroupVersion(std::string_view path);
  // The Swagger 2.0 document of every served kind.
  std::shared_ptr<const Document> V2();
  // The same document as gnostic's openapi.v2.Document protobuf message
  // (openapi_v2_proto.h); `hash` is the JSON's, as kube's ETag. Encoded once
  // per version of the JSON, outside the lock.
  std::shared_ptr<const Document> V2Protobuf();

  // The fields of `object` (a whole object of `kind`) its schema does not
  // know, as kube's strict decoder names them ("spec.foo",
  // "spec.template.spec.containers[0].imagee"), in document order. Nothing is
  // reported below an object the schema leaves open
  // (x-kubernetes-preserve-unknown-fields), nor for a registered kind without
  // a schema.
  std::vector<std::string> UnknownFields(api::Kind kind, const boost::json::value& object) const;

 private:
  struct Cache {
    std::string kinds;     // fingerprint of api::AllKinds() and their subresources the documents describe
    uint64_t schemas = 0;  // schemas_version_ they describe
    bool built = false;
    std::map<std::string, std::shared_ptr<const Document>, std::less<>> v3;  // by "api/v1" path
    std::string v3_index;
    std::shared_ptr<const Document> v2;
    std::shared_ptr<const Document> v2_protobuf;  // encoded from v2 on first request
  };
  // Brings cache_ up to date with the kind table and schemas.
  void Refresh();  // REQUIRES: mu_ held
  // The schema of `kind`'s objects (root, with apiVersion/kind/metadata); null for a registered kind without one.
  std::shared_ptr<const boost::json::object> RootSchema(api::Kind kind) const;  // REQUIRES: mu_ held

  const ResourceRegistry& registry_;
  mutable std::mutex mu_;
  std::map<api::Kind, std::shared_ptr<const boost::json::object>> custom_;  // guarded by mu_
  uint64_t schemas_version_ = 1;                                             // guarded by mu_
  Cache cache_;                                                              // guarded by mu_
};

// Answers GET /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>;
// nullopt when `request.path` is none of these. /openapi/v2 is JSON unless
// the Accept header prefers the protobuf form, 406 when it allows neither;
// it varies by Accept. The documents carry an ETag and answer 304 to an
// If-None-Match naming it. A v3 document asked for with a stale ?hash= is
// redirected (301) to the current one, as kube does.
std::optional<Response> ServeOpenApi(OpenApi& openapi, const Request& request);

}  // namespace berth::apiserver
