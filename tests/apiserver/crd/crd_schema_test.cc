// CRD structural schemas: parsing checks, value validation, pruning and
// defaulting, with kube's messages and field paths (see structural_schema.h
// for the kube version and the few forms api::FieldErrors cannot express).

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "apiserver/crd/structural_schema.h"

namespace berth::apiserver::crd {
namespace {

namespace json = boost::json;

constexpr std::string_view kPrefix = "spec.versions[0].schema.openAPIV3Schema";

std::vector<std::string> Lines(const api::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const StatusCause& c : errors.causes()) out.push_back(c.field + ": " + c.message);
  return out;
}

std::shared_ptr<const Schema> MustParse(std::string_view schema) {
  api::FieldErrors errors;
  auto parsed = Schema::Parse(json::parse(schema), kPrefix, errors);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(errors.empty());
  return parsed.ok() ? *parsed : nullptr;
}

std::vector<std::string> ParseErrors(std::string_view schema) {
  api::FieldErrors errors;
  auto parsed = Schema::Parse(json::parse(schema), kPrefix, errors);
  EXPECT_EQ(parsed.ok(), errors.empty());
  return Lines(errors);
}

// A resource schema whose spec has the given properties (a JSON object's members).
std::string WithSpec(std::string_view spec_properties, std::string_view spec_extra = "") {
  return R"({"type":"object","properties":{"spec":{"type":"object",)" + std::string(spec_extra) +
         R"("properties":{)" + std::string(spec_properties) + "}}}}";
}

std::vector<std::string> Validate(const Schema& schema, std::string_view object) {
  api::FieldErrors errors;
  schema.Validate(json::parse(object), errors);
  return Lines(errors);
}

using Errors = std::vector<std::string>;

// ---- Validation: one row per keyword ----

struct ValidationCase {
  std::string name;
  std::string spec_properties;
  std::string spec;  // the object's spec
  Errors want;
};

class ValidatesLikeKube : public ::testing::TestWithParam<ValidationCase> {};

TEST_P(ValidatesLikeKube, Keyword) {
  const ValidationCase& c = GetParam();
  auto schema = MustParse(WithSpec(c.spec_properties));
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(Validate(*schema, R"({"apiVersion":"x/v1","kind":"X","spec":)" + c.spec + "}"), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Keywords, ValidatesLikeKube,
    ::testing::Values(
        ValidationCase{
            "IntegerGivenString",
            R"("replicas":{"type":"integer"})",
            R"({"replicas":"3"})",
            {R"(spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string")"}},
        ValidationCase{"IntegerGivenWholeFloat",
                       R"("replicas":{"type":"integer"})",
                       R"({"replicas":3.0})",
                       {}},
        ValidationCase{
            "IntegerGivenFraction",
            R"("replicas":{"type":"integer"})",
            R"({"replicas":1.5})",
            {R"(spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number")",
             R"(<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas)"}},
        ValidationCase{"NumberTakesInteger", R"("ratio":{"type":"number"})", R"({"ratio":2})", {}},
        ValidationCase{
            "BooleanGivenString",
            R"("on":{"type":"boolean"})",
            R"({"on":"yes"})",
            {R"(spec.on: Invalid value: "string": spec.on in body must be of type boolean: "string")"}},
        ValidationCase{
            "StringGivenNumber",
            R"("name":{"type":"string"})",
            R"({"name":5})",
            {R"(spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer")"}},
        ValidationCase{
            "ArrayGivenObject",
            R"("tags":{"type":"array","items":{"type":"string"}})",
            R"({"tags":{}})",
            {R"(spec.tags: Invalid value: "object": spec.tags in body must be of type array: "object")"}},
        ValidationCase{
            "ObjectGivenArray",
            R"("opts":{"type":"object"})",
            R"({"opts":[]})",
            {R"(spec.opts: Invalid value: "array": spec.opts in body must be of type object: "array")"}},
        ValidationCase{
            "Int32OutOfRange",
            R"("port":{"type":"integer","format":"int32"})",
            R"({"port":3000000000})",
            {R"(<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.port)"}},
        ValidationCase{"Int64InRange",
                       R"("big":{"type":"integer","format":"int64"})",
                       R"({"big":3000000000})",
                       {}},
        ValidationCase{
            "DateTimeMalformed",
            R"("at":{"type":"string","format":"date-time"})",
            R"({"at":"yesterday"})",
            {R"(spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday")"}},
        ValidationCase{
            "DateTimeNoSuchDay",
            R"("at":{"type":"string","format":"date-time"})",
            R"({"at":"2023-02-29T10:00:00Z"})",
            {R"(spec.at: Invalid value: "2023-02-29T10:00:00Z": spec.at in body must be of type date-time: "2023-02-29T10:00:00Z")"}},
        ValidationCase{"DateTimeWithOffsetAndFraction",
                       R"("at":{"type":"string","format":"date-time"})",
                       R"({"at":"2024-02-29T23:59:59.5+02:00"})",
                       {}},
        ValidationCase{"UnknownFormatUnchecked",
                       R"("id":{"type":"string","format":"uuid"})",
                       R"({"id":"nope"})",
                       {}},
        ValidationCase{
            "Enum",
            R"("size":{"type":"string","enum":["small","large"]})",
            R"({"size":"huge"})",
            {R"(spec.size: Unsupported value: "huge": supported values: "small", "large")"}},
        ValidationCase{"EnumOfNumbersMatchesNumerically",
                       R"("n":{"type":"number","enum":[1,2.5]})",
                       R"({"n":1.0})",
                       {}},
        ValidationCase{
            "Pattern",
            R"("name":{"type":"string","pattern":"^[a-z]+$"})",
            R"({"name":"Abc"})",
            {R"(spec.name: Invalid value: "Abc": spec.name in body should match '^[a-z]+$')"}},
        ValidationCase{"PatternHasGosSyntax",
                       R"("name":{"type":"string","pattern":"(?i)^[a-z]+$"})",
                       R"({"name":"Abc"})",
                       {}},
        ValidationCase{"PatternIsASearch",
                       R"("name":{"type":"string","pattern":"[0-9]"})",
                       R"({"name":"v1beta"})",
                       {}},
        ValidationCase{
            "Maximum",
            R"("replicas":{"type":"integer","maximum":10})",
            R"({"replicas":11})",
            {R"(spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10)"}},
        ValidationCase{
            "ExclusiveMaximum",
            R"("replicas":{"type":"integer","maximum":10,"exclusiveMaximum":true})",
            R"({"replicas":10})",
            {R"(spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10)"}},
        ValidationCase{
            "Minimum",
            R"("replicas":{"type":"integer","minimum":1})",
            R"({"replicas":0})",
            {R"(spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1)"}},
        ValidationCase{
            "ExclusiveMinimum",
            R"("replicas":{"type":"integer","minimum":0,"exclusiveMinimum":true})",
            R"({"replicas":0})",
            {R"(spec.replicas: Invalid value: 0: spec.replicas in body should be greater than 0)"}},
        ValidationCase{
            "FractionalBoundShownAsGoDoes",
            R"("n":{"type":"integer","minimum":0.5})",
            R"({"n":0})",
            {R"(spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 0.5)"}},
        ValidationCase{
            "MultipleOf",
            R"("step":{"type":"integer","multipleOf":5})",
            R"({"step":7})",
            {R"(spec.step: Invalid value: 7: spec.step in body should be a multiple of 5)"}},
        ValidationCase{
            "MinLength",
            R"("name":{"type":"string","minLength":1})",
            R"({"name":""})",
            {R"(spec.name: Invalid value: "": spec.name in body should be at least 1 chars long)"}},
        ValidationCase{"MaxLengthCountsCodePoints",
                       R"("name":{"type":"string","maxLength":5})",
                       R"({"name":"héllo"})",
                       {}},
        ValidationCase{
            "MaxLength",
            R"("name":{"type":"string","maxLength":5})",
            R"({"name":"héllo!"})",
            {R"(spec.name: Invalid value: "héllo!": spec.name in body should be at most 5 chars long)"}},
        ValidationCase{
            "MaxItems",
            R"("items":{"type":"array","maxItems":3,"items":{"type":"integer"}})",
            R"({"items":[1,2,3,4]})",
            {R"(spec.items: Invalid value: 4: spec.items in body should have at most 3 items)"}},
        ValidationCase{
            "MinItems",
            R"("items":{"type":"array","minItems":1,"items":{"type":"integer"}})",
            R"({"items":[]})",
            {R"(spec.items: Invalid value: 0: spec.items in body should have at least 1 items)"}},
        ValidationCase{
            "MinProperties",
            R"("labels":{"type":"object","minProperties":1,"additionalProperties":{"type":"string"}})",
            R"({"labels":{}})",
            {R"(spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties)"}},
        ValidationCase{
            "MaxProperties",
            R"("labels":{"type":"object","maxProperties":1,"additionalProperties":{"type":"string"}})",
            R"({"labels":{"a":"1","b":"2"}})",
            {R"(spec.labels: Invalid value: 2: spec.labels in body should have at most 1 properties)"}},
        ValidationCase{
            "AdditionalPropertiesSchemaNamesKeyWithDot",
            R"("labels":{"type":"object","additionalProperties":{"type":"string"}})",
            R"({"labels":{"app":1}})",
            {R"(spec.labels.app: Invalid value: "integer": spec.labels.app in body must be of type string: "integer")"}},
        ValidationCase{
            "AdditionalPropertiesFalse",
            R"("fixed":{"type":"object","additionalProperties":false})",
            R"({"fixed":{"x":1}})",
            {R"(spec.fixed: Invalid value: "x": spec.fixed.x in body is a forbidden property)"}},
        ValidationCase{
            "ItemsPath",
            R"("ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"}}}})",
            R"({"ports":[{"port":1},{"port":"http"}]})",
            {R"(spec.ports[1].port: Invalid value: "string": spec.ports[1].port in body must be of type integer: "string")"}},
        ValidationCase{
            "NullNotNullable",
            R"("note":{"type":"string"})",
            R"({"note":null})",
            {R"(spec.note: Invalid value: "null": spec.note in body must be of type string: "null")"}},
        ValidationCase{
            "NullNullable", R"("note":{"type":"string","nullable":true})", R"({"note":null})", {}},
        ValidationCase{
            "IntOrString",
            R"("port":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true})",
            R"({"port":true})",
            {R"(spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean")",
             R"(<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf))",
             R"(spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean")"}},
        ValidationCase{
            "AllOf",
            R"("code":{"type":"string","allOf":[{"minLength":2},{"maxLength":3}]})",
            R"({"code":"a"})",
            {R"(spec.code: Invalid value: "a": spec.code in body should be at least 2 chars long)",
             R"(<nil>: Invalid value: "": "spec.code" must validate all the schemas (allOf))"}},
        ValidationCase{
            "OneOf",
            R"("n":{"type":"integer","oneOf":[{"minimum":0},{"maximum":10}]})",
            R"({"n":5})",
            {R"(<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found 2 valid alternatives)"}},
        ValidationCase{
            "Not",
            R"("mode":{"type":"string","not":{"enum":["off"]}})",
            R"({"mode":"off"})",
            {R"(<nil>: Invalid value: "": "spec.mode" must not validate the schema (not))"}},
        ValidationCase{
            "ListTypeSet",
            R"("tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}})",
            R"({"tags":["a","b","a","a"]})",
            {R"(spec.tags[2]: Duplicate value: "a")"}}),
    [](const ::testing::TestParamInfo<ValidationCase>& info) { return info.param.name; });

TEST(CrdSchemaValidate, RequiredFieldsAreReportedWithoutTheirParentsName) {
  auto schema = MustParse(WithSpec(R"("image":{"type":"string"})", R"("required":["image"],)"));
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(Validate(*schema, R"({"spec":{}})"), Errors{"spec.image: Required value"});
  api::FieldErrors errors;
  schema->Validate(json::parse(R"({"spec":{}})"), errors);
  EXPECT_EQ(errors.causes()[0].type, "FieldValueRequired");
}

TEST(CrdSchemaValidate, ListTypeMapRejectsRepeatedKeys) {
  auto schema = MustParse(WithSpec(
      R"("ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
          "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}})"));
  ASSERT_NE(schema, nullptr);
  api::FieldErrors errors;
  schema->Validate(
      json::parse(
          R"({"spec":{"ports":[{"name":"a","port":1},{"name":"b"},{"name":"a","port":2}]}})"),
      errors);
  ASSERT_EQ(errors.causes().size(), 1u);
  EXPECT_EQ(errors.causes()[0].field, "spec.ports[2]");
  EXPECT_EQ(errors.causes()[0].type, "FieldValueDuplicate");
}

// ---- Parsing: kube's structural rules ----

struct ParseCase {
  std::string name;
  std::string schema;
  Errors want;
};

class RejectsLikeKube : public ::testing::TestWithParam<ParseCase> {};

TEST_P(RejectsLikeKube, Schema) { EXPECT_EQ(ParseErrors(GetParam().schema), GetParam().want); }

const std::string kP = std::string(kPrefix);

INSTANTIATE_TEST_SUITE_P(
    Structural, RejectsLikeKube,
    ::testing::Values(
        ParseCase{"FieldWithoutType",
                  R"({"type":"object","properties":{"spec":{"properties":{}}}})",
                  {kP + ".properties[spec].type: Required value: must not be empty for specified "
                        "object fields"}},
        ParseCase{
            "ItemsWithoutType",
            WithSpec(R"("list":{"type":"array","items":{}})"),
            {kP +
             ".properties[spec].properties[list].items.type: Required value: must not be empty for "
             "specified array items"}},
        ParseCase{"RootWithoutType",
                  R"({"properties":{}})",
                  {kP + ".type: Required value: must not be empty at the root"}},
        ParseCase{"RootNotObject",
                  R"({"type":"string"})",
                  {kP + ".type: Invalid value: \"string\": must be object at the root"}},
        ParseCase{
            "ArrayWithoutItems",
            WithSpec(R"("list":{"type":"array"})"),
            {kP + ".properties[spec].properties[list].items: Required value: must be specified"}},
        ParseCase{
            "UnknownType",
            WithSpec(R"("n":{"type":"map"})"),
            {kP +
             ".properties[spec].properties[n].type: Unsupported value: \"map\": supported values: "
             "\"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\""}},
        ParseCase{"TypeNull",
                  WithSpec(R"("n":{"type":"null"})"),
                  {kP + ".properties[spec].properties[n].type: Unsupported value: \"null\": "
                        "supported values: "
                        "\"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
                   kP + ".properties[spec].properties[n].type: Forbidden: type cannot be set to "
                        "null, use nullable "
                        "as an alternative"}},
        ParseCase{"Ref",
                  WithSpec(R"("n":{"type":"object","$ref":"#/definitions/x"})"),
                  {kP + ".properties[spec].properties[n].$ref: Forbidden: $ref is not supported"}},
        ParseCase{"UniqueItems",
                  WithSpec(R"("n":{"type":"array","uniqueItems":true,"items":{"type":"string"}})"),
                  {kP + ".properties[spec].properties[n].uniqueItems: Forbidden: uniqueItems "
                        "cannot be set to true "
                        "since the runtime complexity becomes quadratic"}},
        ParseCase{
            "PropertiesAndAdditionalProperties",
            WithSpec(
                R"("n":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}})"),
            {kP + ".properties[spec].properties[n].additionalProperties: Forbidden: "
                  "additionalProperties and "
                  "properties are mutual exclusive"}},
        ParseCase{"AdditionalPropertiesAtRoot",
                  R"({"type":"object","additionalProperties":{"type":"string"}})",
                  {kP + ".additionalProperties: Forbidden: must not be used at the root"}},
        ParseCase{
            "TypeInsideAnyOf",
            WithSpec(
                R"("n":{"type":"string","anyOf":[{"type":"string"},{"type":"integer","minimum":1}]})"),
            {kP + ".properties[spec].properties[n].anyOf[0].type: Forbidden: must be empty to be "
                  "structural",
             kP + ".properties[spec].properties[n].anyOf[1].type: Forbidden: must be empty to be "
                  "structural"}},
        ParseCase{"PreserveUnknownFieldsFalse",
                  WithSpec(R"("n":{"type":"object","x-kubernetes-preserve-unknown-fields":false})"),
                  {kP + ".properties[spec].properties[n].x-kubernetes-preserve-unknown-fields: "
                        "Invalid value: false: "
                        "must be true or undefined"}},
        ParseCase{
            "ListTypeUnknown",
            WithSpec(
                R"("n":{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}})"),
            {kP +
             ".properties[spec].properties[n].x-kubernetes-list-type: Unsupported value: \"bag\": "
             "supported values: \"atomic\", \"set\", \"map\""}},
        ParseCase{
            "ListMapWithoutKeys",
            WithSpec(
                R"("n":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}})"),
            {kP + ".properties[spec].properties[n].x-kubernetes-list-map-keys: Required value: "
                  "must not be "
                  "empty if x-kubernetes-list-type is map"}},
        ParseCase{
            "MapTypeOnString",
            WithSpec(R"("n":{"type":"string","x-kubernetes-map-type":"atomic"})"),
            {kP +
             ".properties[spec].properties[n].type: Invalid value: \"string\": must be object if "
             "x-kubernetes-map-type is specified"}},
        ParseCase{"NullableRoot",
                  R"({"type":"object","nullable":true})",
                  {kP + ".nullable: Forbidden: nullable cannot be true at the root"}},
        ParseCase{
            "MetadataBeyondNames",
            R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}})",
            {kP + ".properties[metadata]: Forbidden: must not specify anything other than name and "
                  "generateName, but metadata is implicitly specified"}},
        ParseCase{"DefaultOfWrongType",
                  WithSpec(R"("replicas":{"type":"integer","default":"one"})"),
                  {kP + ".properties[spec].properties[replicas].default: Invalid value: "
                        "\"string\":  in body must "
                        "be of type integer: \"string\""}},
        ParseCase{
            "DefaultWithUnknownFields",
            WithSpec(
                R"("opts":{"type":"object","properties":{"a":{"type":"string"}},"default":{"b":1}})"),
            {kP +
             ".properties[spec].properties[opts].default: Invalid value: {\"b\":1}: must not have "
             "unknown fields"}},
        ParseCase{
            "DefaultInMetadata",
            R"({"type":"object","properties":{"metadata":{"type":"object","default":{}}}})",
            {kP +
             ".properties[metadata].default: Forbidden: must not be set in top-level metadata"}},
        ParseCase{"UnknownKeyword",
                  WithSpec(R"("n":{"type":"string","minimun":1})"),
                  {kP + ".properties[spec].properties[n].minimun: Forbidden: unknown field"}}),
    [](const ::testing::TestParamInfo<ParseCase>& info) { return info.param.name; });

TEST(CrdSchemaParse, UntypedNodesAllowedUnderPreserveUnknownFieldsAndIntOrString) {
  MustParse(WithSpec(R"("raw":{"x-kubernetes-preserve-unknown-fields":true},
                         "port":{"x-kubernetes-int-or-string":true},
                         "emb":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true})"));
}

TEST(CrdSchemaParse, AdditionalPropertiesTrueBesidePropertiesIsAllowed) {
  MustParse(WithSpec(
      R"("n":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true})"));
}

TEST(CrdSchemaParse, InvalidPatternIsRejected) {
  const Errors errors = ParseErrors(WithSpec(R"("n":{"type":"string","pattern":"[a-"})"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], kP + ".properties[spec].properties[n].pattern: Invalid value: \"[a-\": must be a valid "
                            "regular expression, but isn't: error parsing regexp: missing closing ]: `[a-`");
}

TEST(CrdSchemaParse, FailureIsAnInvalidStatusWithTheSameCauses) {
  api::FieldErrors errors;
  errors.Required("spec.group");  // a cause the caller had before
  auto parsed = Schema::Parse(json::parse(R"({"properties":{}})"), kPrefix, errors);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalid);
  ASSERT_EQ(errors.causes().size(), 2u);
  EXPECT_EQ(parsed.status().causes(), std::vector<StatusCause>{errors.causes()[1]});
}

// ---- Pruning ----

TEST(CrdSchemaPrune, DropsUndeclaredFieldsAndReportsThemSorted) {
  auto schema = MustParse(WithSpec(
      R"("items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
         "labels":{"type":"object","additionalProperties":{"type":"object","properties":{"v":{"type":"string"}}}},
         "raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"strict":{"type":"object"}}})"));
  ASSERT_NE(schema, nullptr);
  json::value object = json::parse(R"({
    "apiVersion":"x/v1","kind":"X","metadata":{"name":"a"},"extra":1,
    "spec":{"foo":1,"items":[{"name":"a","bar":2}],"labels":{"k":{"v":"1","w":"2"}},
            "raw":{"anything":{"goes":true},"strict":{"gone":1}}}})");
  std::vector<std::string> pruned;
  schema->Prune(object, &pruned);
  EXPECT_EQ(pruned, (std::vector<std::string>{"extra", "spec.foo", "spec.items[0].bar",
                                              "spec.labels.k.w", "spec.raw.strict.gone"}));
  EXPECT_EQ(object, json::parse(R"({
    "apiVersion":"x/v1","kind":"X","metadata":{"name":"a"},
    "spec":{"items":[{"name":"a"}],"labels":{"k":{"v":"1"}},"raw":{"anything":{"goes":true},"strict":{}}}})"));
}

TEST(CrdSchemaPrune, EmbeddedResourceKeepsItsTypeMetaAndMetadata) {
  auto schema = MustParse(WithSpec(
      R"("template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}})"));
  ASSERT_NE(schema, nullptr);
  json::value object = json::parse(
      R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{},"status":{}}}})");
  std::vector<std::string> pruned;
  schema->Prune(object, &pruned);
  EXPECT_EQ(pruned, std::vector<std::string>{"spec.template.status"});
  EXPECT_EQ(
      object,
      json::parse(
          R"({"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{}}}})"));
}

// ---- Defaulting ----

TEST(CrdSchemaDefaults, FillsMissingFieldsTopDownInPropertiesItemsAndMapValues) {
  auto schema = MustParse(WithSpec(
      R"("replicas":{"type":"integer","default":1},
         "strategy":{"type":"object","default":{},"properties":{"type":{"type":"string","default":"Rolling"}}},
         "ports":{"type":"array","items":{"type":"object","properties":{"protocol":{"type":"string","default":"TCP"}}}},
         "limits":{"type":"object","additionalProperties":{"type":"object","properties":{"max":{"type":"integer","default":5}}}})",
      R"("default":{},)"));
  ASSERT_NE(schema, nullptr);
  json::value object =
      json::parse(R"({"spec":{"replicas":3,"ports":[{},{"protocol":"UDP"}],"limits":{"cpu":{}}}})");
  schema->ApplyDefaults(object);
  EXPECT_EQ(object,
            json::parse(R"({"spec":{"replicas":3,"ports":[{"protocol":"TCP"},{"protocol":"UDP"}],
      "limits":{"cpu":{"max":5}},"strategy":{"type":"Rolling"}}})"));

  json::value empty = json::parse(R"({})");
  schema->ApplyDefaults(empty);
  EXPECT_EQ(empty, json::parse(R"({"spec":{"replicas":1,"strategy":{"type":"Rolling"}}})"));
}

TEST(CrdSchemaDefaults, NullIsReplacedOrDroppedUnlessNullable) {
  auto schema = MustParse(WithSpec(R"("a":{"type":"string","default":"x"},
                                      "b":{"type":"string"},
                                      "c":{"type":"string","nullable":true,"default":"y"})"));
  ASSERT_NE(schema, nullptr);
  json::value object = json::parse(R"({"spec":{"a":null,"b":null,"c":null}})");
  schema->ApplyDefaults(object);
  EXPECT_EQ(object, json::parse(R"({"spec":{"a":"x","c":null}})"));
}

// ---- A CRD as controller-gen writes it ----

constexpr std::string_view kControllerGenSchema = R"({
  "description": "Backup is the Schema for the backups API. It describes a scheduled backup of a database, where it is stored and for how long copies are kept.",
  "type": "object",
  "properties": {
    "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources", "type": "string"},
    "kind": {"description": "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.", "type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "description": "BackupSpec defines the desired state of Backup",
      "type": "object",
      "required": ["schedule", "target"],
      "properties": {
        "schedule": {"description": "Schedule in cron format.", "type": "string", "minLength": 1, "pattern": "^(\\S+\\s){4}\\S+$"},
        "retention": {"description": "How many copies to keep.", "type": "integer", "format": "int32", "default": 7, "minimum": 1, "maximum": 365},
        "mode": {"description": "Mode of the copy.", "type": "string", "default": "Incremental", "enum": ["Full", "Incremental"]},
        "suspend": {"type": "boolean", "default": false},
        "maxUnavailable": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true, "default": "25%"},
        "target": {
          "description": "Target says where copies go.",
          "type": "object",
          "required": ["bucket"],
          "properties": {
            "bucket": {"type": "string", "maxLength": 63},
            "endpoint": {"type": "string", "default": "https://s3.example.com"},
            "credentials": {"type": "object", "properties": {"secretRef": {"type": "object", "properties": {"name": {"type": "string"}}, "x-kubernetes-map-type": "atomic"}}}
          }
        },
        "resources": {
          "type": "object",
          "properties": {
            "limits": {"type": "object", "additionalProperties": {"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$", "x-kubernetes-int-or-string": true}}
          }
        },
        "hooks": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "command": {"type": "array", "items": {"type": "string"}}, "timeoutSeconds": {"type": "integer", "format": "int64", "default": 30}}}
        },
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "status": {
      "type": "object",
      "properties": {
        "lastBackupTime": {"type": "string", "format": "date-time"},
        "conditions": {"type": "array", "items": {"type": "object", "required": ["type", "status"], "properties": {"type": {"type": "string"}, "status": {"type": "string", "enum": ["True", "False", "Unknown"]}}}}
      }
    }
  }
})";

TEST(CrdSchemaControllerGen, PrunesDefaultsAndValidatesARealisticObject) {
  auto schema = MustParse(kControllerGenSchema);
  ASSERT_NE(schema, nullptr);
  json::value object = json::parse(R"({
    "apiVersion": "db.example.com/v1", "kind": "Backup", "metadata": {"name": "nightly", "namespace": "prod"},
    "spec": {
      "schedule": "0 3 * * *",
      "unknownKnob": true,
      "target": {"bucket": "backups", "region": "eu"},
      "resources": {"limits": {"cpu": "500m", "memory": 1024}},
      "hooks": [{"name": "pre", "command": ["sync"]}],
      "extra": {"anything": ["goes"]}
    },
    "status": {"lastBackupTime": "2024-05-01T03:00:00Z", "conditions": [{"type": "Ready", "status": "True"}]}
  })");

  std::vector<std::string> pruned;
  schema->Prune(object, &pruned);
  EXPECT_EQ(pruned, (std::vector<std::string>{"spec.target.region", "spec.unknownKnob"}));
  schema->ApplyDefaults(object);
  const json::object& spec = object.at("spec").as_object();
  EXPECT_EQ(spec.at("retention"), json::value(7));
  EXPECT_EQ(spec.at("mode"), json::value("Incremental"));
  EXPECT_EQ(spec.at("suspend"), json::value(false));
  EXPECT_EQ(spec.at("maxUnavailable"), json::value("25%"));
  EXPECT_EQ(spec.at("target").at("endpoint"), json::value("https://s3.example.com"));
  EXPECT_EQ(spec.at("hooks").at(0).at("timeoutSeconds"), json::value(30));
  EXPECT_EQ(Validate(*schema, json::serialize(object)), Errors{});

  // The same object, broken in the ways users break it.
  json::value broken = object;
  json::object& s = broken.at("spec").as_object();
  s["retention"] = 400;
  s["mode"] = "Differential";
  s["maxUnavailable"] = 1.5;
  s["schedule"] = "daily";
  s["target"].as_object().erase("bucket");
  s["resources"].at("limits").as_object()["cpu"] = "lots";
  s["hooks"].as_array().push_back(json::parse(R"({"name":"pre"})"));
  broken.at("status").as_object()["lastBackupTime"] = "yesterday";
  EXPECT_EQ(
      Validate(*schema, json::serialize(broken)),
      (Errors{
          R"(spec.schedule: Invalid value: "daily": spec.schedule in body should match '^(\S+\s){4}\S+$')",
          R"(spec.retention: Invalid value: 400: spec.retention in body should be less than or equal to 365)",
          R"(spec.mode: Unsupported value: "Differential": supported values: "Full", "Incremental")",
          R"(spec.maxUnavailable: Invalid value: "number": spec.maxUnavailable in body must be of type integer,string: "number")",
          R"(<nil>: Invalid value: "": "spec.maxUnavailable" must validate at least one schema (anyOf))",
          R"(spec.maxUnavailable: Invalid value: "number": spec.maxUnavailable in body must be of type integer: "number")",
          R"(<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.maxUnavailable)",
          R"(spec.target.bucket: Required value)",
          R"(spec.resources.limits.cpu: Invalid value: "lots": spec.resources.limits.cpu in body should match '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$')",
          R"(status.lastBackupTime: Invalid value: "yesterday": status.lastBackupTime in body must be of type date-time: "yesterday")",
          R"(spec.hooks[1]: Duplicate value: "{\"name\":\"pre\"}")",
      }));
}

}  // namespace
}  // namespace berth::apiserver::crd
