// apiextensions.k8s.io/v1 messages
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto):
// CustomResourceDefinition, its OpenAPI v3 schema included. The schema is
// recursive; its JSON values (default, enum, example) are raw JSON on the
// wire, and its ...OrBool/OrArray/OrStringArray unions are written by Go's
// JSON as the one value set (a schema, a bool, a list).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// --- Names

const Message kCustomResourceDefinitionNames{
    "CustomResourceDefinitionNames",
    {String(1, "plural", kKeep), String(2, "singular"), Strings(3, "shortNames"),
     String(4, "kind", kKeep), String(5, "listKind"), Strings(6, "categories")}};

// --- The OpenAPI v3 schema

// Declared first: the schema's messages refer to each other.
extern const Message kJSONSchemaProps;
const Message kJSONSchemaPropsOrArray{
    "JSONSchemaPropsOrArray",
    {Nested(1, "schema", kJSONSchemaProps), NestedList(2, "jSONSchemas", kJSONSchemaProps)},
    {"jSONSchemas", "schema"}};
const Message kJSONSchemaPropsOrBool{
    "JSONSchemaPropsOrBool",
    {Bool(1, "allows", kKeep), Nested(2, "schema", kJSONSchemaProps)},
    {"schema", "allows"},
    "false"};
const Message kJSONSchemaPropsOrStringArray{
    "JSONSchemaPropsOrStringArray",
    {Nested(1, "schema", kJSONSchemaProps), Strings(2, "property")},
    {"property", "schema"}};
const Message kExternalDocumentation{"ExternalDocumentation",
                                     {String(1, "description"), String(2, "url")}};
const Message kValidationRule{
    "ValidationRule",
    {String(1, "rule", kKeep), String(2, "message"), String(3, "messageExpression"),
     String(4, "reason", kKeep).Go("v1.FieldValueErrorReason"), String(5, "fieldPath"), Bool(6, "optionalOldSelf", kKeep)}};
const Message kJSONSchemaProps{"JSONSchemaProps",
                               {String(1, "id"),
                                String(2, "$schema"),
                                String(3, "$ref", kKeep),
                                String(4, "description"),
                                String(5, "type"),
                                String(6, "format"),
                                String(7, "title"),
                                RawExtension(8, "default"),
                                Double(9, "maximum", kKeep),
                                Bool(10, "exclusiveMaximum"),
                                Double(11, "minimum", kKeep),
                                Bool(12, "exclusiveMinimum"),
                                Int(13, "maxLength", kKeep).Go("int64"),
                                Int(14, "minLength", kKeep).Go("int64"),
                                String(15, "pattern"),
                                Int(16, "maxItems", kKeep).Go("int64"),
                                Int(17, "minItems", kKeep).Go("int64"),
                                Bool(18, "uniqueItems"),
                                Double(19, "multipleOf", kKeep),
                                RawExtensions(20, "enum"),
                                Int(21, "maxProperties", kKeep).Go("int64"),
                                Int(22, "minProperties", kKeep).Go("int64"),
                                Strings(23, "required"),
                                Nested(24, "items", kJSONSchemaPropsOrArray),
                                NestedList(25, "allOf", kJSONSchemaProps),
                                NestedList(26, "oneOf", kJSONSchemaProps),
                                NestedList(27, "anyOf", kJSONSchemaProps),
                                Nested(28, "not", kJSONSchemaProps),
                                MessageMap(29, "properties", kJSONSchemaProps),
                                Nested(30, "additionalProperties", kJSONSchemaPropsOrBool),
                                MessageMap(31, "patternProperties", kJSONSchemaProps),
                                MessageMap(32, "dependencies", kJSONSchemaPropsOrStringArray),
                                Nested(33, "additionalItems", kJSONSchemaPropsOrBool),
                                MessageMap(34, "definitions", kJSONSchemaProps),
                                Nested(35, "externalDocs", kExternalDocumentation),
                                RawExtension(36, "example"),
                                Bool(37, "nullable"),
                                Bool(38, "x-kubernetes-preserve-unknown-fields", kKeep),
                                Bool(39, "x-kubernetes-embedded-resource"),
                                Bool(40, "x-kubernetes-int-or-string"),
                                Strings(41, "x-kubernetes-list-map-keys"),
                                String(42, "x-kubernetes-list-type", kKeep),
                                String(43, "x-kubernetes-map-type", kKeep),
                                NestedList(44, "x-kubernetes-validations", kValidationRule)}};

// --- Versions

const Message kCustomResourceValidation{"CustomResourceValidation",
                                        {Nested(1, "openAPIV3Schema", kJSONSchemaProps)}};
const Message kCustomResourceSubresourceStatus{"CustomResourceSubresourceStatus", {}};
const Message kCustomResourceSubresourceScale{
    "CustomResourceSubresourceScale",
    {String(1, "specReplicasPath", kKeep), String(2, "statusReplicasPath", kKeep),
     String(3, "labelSelectorPath", kKeep)}};
const Message kCustomResourceSubresources{"CustomResourceSubresources",
                                          {Nested(1, "status", kCustomResourceSubresourceStatus),
                                           Nested(2, "scale", kCustomResourceSubresourceScale)}};
const Message kCustomResourceColumnDefinition{
    "CustomResourceColumnDefinition",
    {String(1, "name", kKeep), String(2, "type", kKeep), String(3, "format"),
     String(4, "description"), Int(5, "priority"), String(6, "jsonPath", kKeep)}};
const Message kSelectableField{"SelectableField", {String(1, "jsonPath", kKeep)}};
const Message kCustomResourceDefinitionVersion{
    "CustomResourceDefinitionVersion",
    {String(1, "name", kKeep), Bool(2, "served", kKeep), Bool(3, "storage", kKeep),
     Bool(7, "deprecated"), String(8, "deprecationWarning", kKeep),
     Nested(4, "schema", kCustomResourceValidation),
     Nested(5, "subresources", kCustomResourceSubresources),
     NestedList(6, "additionalPrinterColumns", kCustomResourceColumnDefinition),
     NestedList(9, "selectableFields", kSelectableField)}};

// --- Conversion and the definition

const Message kServiceReference{"ServiceReference",
                                {String(1, "namespace", kKeep), String(2, "name", kKeep),
                                 String(3, "path", kKeep), Int(4, "port", kKeep)}};
const Message kWebhookClientConfig{
    "WebhookClientConfig",
    {String(3, "url", kKeep), Nested(1, "service", kServiceReference), Bytes(2, "caBundle")}};
const Message kWebhookConversion{
    "WebhookConversion",
    {Nested(2, "clientConfig", kWebhookClientConfig), Strings(3, "conversionReviewVersions")}};
const Message kCustomResourceConversion{
    "CustomResourceConversion",
    {String(1, "strategy", kKeep).Go("v1.ConversionStrategyType"), Nested(2, "webhook", kWebhookConversion)}};
const Message kCustomResourceDefinitionSpec{
    "CustomResourceDefinitionSpec",
    {String(1, "group", kKeep), Nested(3, "names", kCustomResourceDefinitionNames),
     String(4, "scope", kKeep).Go("v1.ResourceScope"), NestedList(7, "versions", kCustomResourceDefinitionVersion),
     Nested(9, "conversion", kCustomResourceConversion), Bool(10, "preserveUnknownFields")}};
const Message kCustomResourceDefinitionCondition{
    "CustomResourceDefinitionCondition",
    {String(1, "type", kKeep).Go("v1.CustomResourceDefinitionConditionType"), String(2, "status", kKeep).Go("v1.ConditionStatus"), Time(3, "lastTransitionTime"),
     String(4, "reason"), String(5, "message"), Int(6, "observedGeneration").Go("int64")}};
const Message kCustomResourceDefinitionStatus{
    "CustomResourceDefinitionStatus",
    {NestedList(1, "conditions", kCustomResourceDefinitionCondition),
     Nested(2, "acceptedNames", kCustomResourceDefinitionNames), Strings(3, "storedVersions"),
     Int(4, "observedGeneration").Go("int64")}};
const Message kCustomResourceDefinition{
    "CustomResourceDefinition",
    {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kCustomResourceDefinitionSpec),
     Nested(3, "status", kCustomResourceDefinitionStatus)}};

const KindMessage kApiextensionsKindList[] = {
    {api::Kind::kCustomResourceDefinition, &kCustomResourceDefinition},
};
const std::span<const KindMessage> kApiextensionsKinds = kApiextensionsKindList;

}  // namespace berth::apiserver::protobuf_schema
