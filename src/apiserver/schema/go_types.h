#pragma once
// The schema the protobuf decoder (protobuf.cc) reads by, which also gives
// the OpenAPI schemas of the kinds without hand-written ones
// (openapi_generated.cc).
// Each message is a table of field number -> JSON name and type, as
// k8s.io/api's and k8s.io/apimachinery's generated.proto define them, with
// the JSON rules of the Go types (omitempty, pointers, inlined structs).
// The tables live in one file per API group: go_types_meta.cc (meta/v1);
// core/v1 in three, go_types_pod.cc (containers, the pod spec, Pod,
// PodTemplate, Binding), _volume.cc (volume sources, PersistentVolume and its
// claim) and _core.cc (the other core kinds); then _apps, _autoscaling,
// _batch, _coordination, _discovery, _networking, _node, _policy, _rbac,
// _scheduling, _storage, _apiextensions, _admissionregistration (with
// apiregistration's APIService). Each group file lists the kinds it decodes
// (k<Group>Kinds); protobuf.cc gathers them into one table by kind.

#include <initializer_list>
#include <span>
#include <string_view>

#include "api/kinds.h"

namespace berth::apiserver::protobuf_schema {

enum class FieldType {
  kString,
  kInt,   // int32, int64 (repeated: packed or not)
  kBool,
  kMessage,
  kStringMap,    // map<string, string>
  kBytesMap,     // map<string, bytes>: values as base64, as Go's JSON writes []byte
  kQuantityMap,  // map<string, resource.Quantity>
  kTime,         // meta/v1 Time: RFC 3339, the zero time as null
  kMicroTime,    // meta/v1 MicroTime: RFC 3339 with microseconds, the zero time as null
  kQuantity,     // resource.Quantity: its string
  kIntOrString,  // util/intstr IntOrString
  kFieldsV1,     // meta/v1 FieldsV1 {1: JSON bytes}: that JSON
  kRawExtension, // runtime.RawExtension, apiextensions JSON {1: raw bytes}: that JSON (protobuf raw is unsupported)
  kDouble,       // double (fixed64): a JSON number, integral values as integers
  kBytes,        // bytes: base64, as Go's JSON writes a []byte
  kMessageMap,   // map<string, Message>
  kTimeMap,      // map<string, meta/v1 Time>
};

enum FieldFlags : unsigned {
  kRepeated = 1,
  // Go's protobuf writes every non-pointer scalar, zero or not. Where Go's
  // JSON would omit it (omitempty) a zero is dropped; a pointer field, or one
  // without omitempty, keeps its zero (it was meant).
  kKeepZero = 2,
  // An embedded Go struct (json:",inline"): a nested message on the wire
  // whose fields the JSON puts into the parent object.
  kInline = 4,
};

struct Message;

struct Field {
  int number;
  const char* name;  // JSON name
  FieldType type;
  unsigned flags = 0;
  const Message* message = nullptr;  // kMessage only
  // The Go type of one value (an item, when repeated) where it is not the
  // default of `type` (kString: string, kInt: int32, kBool: bool, kDouble:
  // float64): "int64", or a named type as Go's reflection prints it
  // ("v1.RestartPolicy", "types.UID"). kube's JSON decoder names it in its
  // errors (decode_check.h).
  const char* go_type = nullptr;

  constexpr Field Go(const char* type_name) const {
    Field f = *this;
    f.go_type = type_name;
    return f;
  }
};

struct Message {
  const char* name;
  std::initializer_list<Field> fields;
  // A union Go's JSON writes as one value (apiextensions' JSONSchemaPropsOrBool
  // and kin): the value of the first of these fields that is set (a list: not
  // empty), else the JSON `union_default`.
  std::initializer_list<const char*> union_of = {};
  const char* union_default = "null";
  // The Go package the message's struct is in, as Go's reflection prints a
  // type ("v1.PodSpec"): v1 but for autoscaling/v2's messages.
  const char* go_package = "v1";
};

// Table shorthands: String(1, "name"), Strings(3, "values"),
// Nested(2, "spec", kJobSpec), NestedList(1, "rules", kPolicyRule) ...
constexpr Field String(int number, const char* name, unsigned flags = 0) {
  return {number, name, FieldType::kString, flags};
}
constexpr Field Strings(int number, const char* name) { return {number, name, FieldType::kString, kRepeated}; }
constexpr Field Int(int number, const char* name, unsigned flags = 0) {
  return {number, name, FieldType::kInt, flags};
}
constexpr Field Ints(int number, const char* name) { return {number, name, FieldType::kInt, kRepeated}; }
constexpr Field Bool(int number, const char* name, unsigned flags = 0) {
  return {number, name, FieldType::kBool, flags};
}
constexpr Field Nested(int number, const char* name, const Message& message) {
  return {number, name, FieldType::kMessage, 0, &message};
}
constexpr Field NestedList(int number, const char* name, const Message& message) {
  return {number, name, FieldType::kMessage, kRepeated, &message};
}
constexpr Field Inline(int number, const Message& message) {
  return {number, "", FieldType::kMessage, kInline, &message};
}
constexpr Field StringMap(int number, const char* name) { return {number, name, FieldType::kStringMap}; }
constexpr Field BytesMap(int number, const char* name) { return {number, name, FieldType::kBytesMap}; }
constexpr Field QuantityMap(int number, const char* name) { return {number, name, FieldType::kQuantityMap}; }
constexpr Field Time(int number, const char* name) { return {number, name, FieldType::kTime}; }
constexpr Field TimeMap(int number, const char* name) { return {number, name, FieldType::kTimeMap}; }
constexpr Field MicroTime(int number, const char* name) { return {number, name, FieldType::kMicroTime}; }
constexpr Field RawExtension(int number, const char* name) {
  return {number, name, FieldType::kRawExtension};
}
constexpr Field RawExtensions(int number, const char* name) {
  return {number, name, FieldType::kRawExtension, kRepeated};
}
constexpr Field Double(int number, const char* name, unsigned flags = 0) {
  return {number, name, FieldType::kDouble, flags};
}
constexpr Field Bytes(int number, const char* name) { return {number, name, FieldType::kBytes}; }
constexpr Field MessageMap(int number, const char* name, const Message& message) {
  return {number, name, FieldType::kMessageMap, 0, &message};
}
constexpr Field Quantity(int number, const char* name) { return {number, name, FieldType::kQuantity}; }
constexpr Field IntOrString(int number, const char* name) { return {number, name, FieldType::kIntOrString}; }
constexpr Field FieldsV1(int number, const char* name) { return {number, name, FieldType::kFieldsV1}; }

// Shorter flag for the tables.
inline constexpr unsigned kKeep = kKeepZero;

// meta/v1 and shared messages.
extern const Message kObjectMeta, kLabelSelector, kCondition, kDeleteOptions;
// core/v1 messages other files embed.
extern const Message kLocalObjectReference, kTypedLocalObjectReference, kObjectReference;  // _core
extern const Message kPodTemplateSpec, kObjectFieldSelector, kResourceFieldSelector, kNodeSelector,
    kToleration, kContainer, kVolumeMount, kPodSpec;                                       // _pod
extern const Message kVolume, kPersistentVolumeClaim, kPersistentVolumeSpec, kTopologySelectorTerm,
    kVolumeHealthCondition;  // _volume
// Request bodies that are not stored kinds.
extern const Message kEviction;  // policy/v1
extern const Message kScale;     // autoscaling/v1, the scale subresource's body
extern const Message kTokenRequestBody, kTokenReview;  // authentication/v1 (_authentication)

// authorization.k8s.io/v1 reviews by kind name ("SelfSubjectAccessReview",
// "SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview");
// nullptr for others (_authorization).
const Message* ReviewMessage(std::string_view kind);

// A stored kind and the message its objects are read by.
struct KindMessage {
  api::Kind kind;
  const Message* message;
};
// The kinds each group file decodes.
extern const std::span<const KindMessage> kCoreKinds, kPodKinds, kVolumeKinds, kAppsKinds,
    kAutoscalingKinds, kBatchKinds, kCoordinationKinds, kDiscoveryKinds, kNetworkingKinds, kNodeKinds,
    kPolicyKinds, kRbacKinds, kSchedulingKinds, kStorageKinds, kApiextensionsKinds,
    kAdmissionregistrationKinds;

// The message a built-in kind's objects are read by (gathered from the lists
// above); nullptr for custom resources and kinds no group file decodes.
const Message* MessageOf(api::Kind kind);

}  // namespace berth::apiserver::protobuf_schema
