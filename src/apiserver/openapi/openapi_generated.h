#pragma once
// Internal to openapi_schemas.cc: OpenAPI schemas of the built-in kinds
// without a hand-written definition, derived field by field from the
// protobuf decoder's tables (go_types.h), which list every field of
// kube's generated.proto with its JSON name and type. Nested messages are
// written inline, except the shared ones that have hand-written definitions
// (ObjectMeta, LabelSelector, Condition, PodTemplateSpec, ...), which are
// referred to; a message that contains itself (a CRD's JSONSchemaProps) is
// left open below its first occurrence.

#include <boost/json/object.hpp>

namespace berth::apiserver {

// Adds, for every built-in kind the protobuf tables decode and `defs` has no
// definition for, its definition under kube's name (DefinitionName); and
// to the hand-written Container, VolumeMount and PodSpec the fields kube
// added since they were written.
void AddGeneratedKindDefinitions(boost::json::object& defs);

}  // namespace berth::apiserver
