#pragma once
// berth's own OpenAPI v3 schemas of kube's built-in kinds, under kube's
// definition names ("io.k8s.api.core.v1.Pod"). The kinds users write and
// explain most (Pod, Deployment, ReplicaSet, Service, ConfigMap, Secret,
// Namespace) are described field by field, with descriptions; every other
// kind the protobuf decoder knows gets a schema of all its fields and their
// types derived from the decoder's tables (openapi_generated.h), without
// descriptions; the few left name their top-level fields and keep what lies
// below open. An object the schema does not list completely carries
// `x-kubernetes-preserve-unknown-fields: true`, so that field validation
// never refuses a field kube would accept.
//
// Immutable after first use; thread-safe.

#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "api/kinds.h"

namespace berth::apiserver {

// "#/components/schemas/": the prefix of every "$ref" in these definitions.
inline constexpr std::string_view kSchemaRefPrefix = "#/components/schemas/";

// kube's definition name of a kind's schema: "io.k8s.api.core.v1.Pod",
// "io.k8s.api.apps.v1.Deployment", and for custom resources the reversed
// group ("com.example.stable.v1.CronTab").
std::string DefinitionName(const api::KindInfo& kind);

// Every definition berth writes, by definition name: the built-in kinds that
// have one of their own and the types they share (ObjectMeta, ListMeta,
// Status, DeleteOptions, Patch, Time, Quantity, autoscaling/v1 Scale, ...).
const boost::json::object& BuiltinDefinitions();

// A schema for a built-in kind without a definition of its own: apiVersion,
// kind, a complete metadata, and everything else open.
boost::json::object GenericKindSchema(const api::KindInfo& kind);

}  // namespace berth::apiserver
