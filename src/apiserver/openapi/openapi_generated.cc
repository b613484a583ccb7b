#include "apiserver/openapi/openapi_generated.h"

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/kinds.h"
#include "apiserver/openapi/openapi_schemas.h"
#include "apiserver/schema/go_types.h"

namespace berth::apiserver {

namespace json = boost::json;
namespace pb = protobuf_schema;

namespace {

constexpr std::string_view kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

json::object Ref(std::string_view definition) {
  return {{"$ref", std::string(kSchemaRefPrefix) + std::string(definition)}};
}
json::object MetaRef(std::string_view name) { return Ref(std::string(kMeta) + std::string(name)); }
json::object Typed(std::string_view type) { return {{"type", type}}; }
json::object MapOf(json::object values) {
  return {{"type", "object"}, {"additionalProperties", std::move(values)}};
}

// Messages with a hand-written definition of their own: referred to by name.
const char* SharedDefinition(const pb::Message* m) {
  if (m == &pb::kObjectMeta) return "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
  if (m == &pb::kLabelSelector) return "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector";
  if (m == &pb::kCondition) return "io.k8s.apimachinery.pkg.apis.meta.v1.Condition";
  if (m == &pb::kDeleteOptions) return "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
  if (m == &pb::kPodTemplateSpec) return "io.k8s.api.core.v1.PodTemplateSpec";
  return nullptr;
}

class Generator {
 public:
  explicit Generator(const json::object& defs) : defs_(defs) {}

  // The schema of one message as an object type.
  json::object Object(const pb::Message& m) {
    if (const char* shared = SharedDefinition(&m); shared && defs_.contains(shared)) return Ref(shared);
    if (m.union_of.size() > 0 || std::find(stack_.begin(), stack_.end(), &m) != stack_.end()) {
      // A union of a value and an object (JSONSchemaPropsOrBool …), or a
      // message within itself: any value below here.
      return {{"x-kubernetes-preserve-unknown-fields", true}};
    }
    stack_.push_back(&m);
    json::object properties;
    AddFields(m, properties);
    stack_.pop_back();
    json::object o = Typed("object");
    o["properties"] = std::move(properties);
    return o;
  }

 private:
  void AddFields(const pb::Message& m, json::object& properties) {
    for (const pb::Field& f : m.fields) {
      if (f.flags & pb::kInline) {
        AddFields(*f.message, properties);
        continue;
      }
      json::object schema = Value(f);
      if (f.flags & pb::kRepeated) {
        json::object array = Typed("array");
        array["items"] = std::move(schema);
        schema = std::move(array);
      }
      properties[f.name] = std::move(schema);
    }
  }

  // One value of a field (an item, when repeated).
  json::object Value(const pb::Field& f) {
    using T = pb::FieldType;
    switch (f.type) {
      case T::kString: return Typed("string");
      case T::kInt: return Typed("integer");
      case T::kBool: return Typed("boolean");
      case T::kDouble: return {{"type", "number"}, {"format", "double"}};
      case T::kBytes: return {{"type", "string"}, {"format", "byte"}};
      case T::kMessage: return Object(*f.message);
      case T::kStringMap: return MapOf(Typed("string"));
      case T::kBytesMap: return MapOf({{"type", "string"}, {"format", "byte"}});
      case T::kQuantityMap: return MapOf(Ref("io.k8s.apimachinery.pkg.api.resource.Quantity"));
      case T::kMessageMap: return MapOf(Object(*f.message));
      case T::kTimeMap: return MapOf(MetaRef("Time"));
      case T::kTime: return MetaRef("Time");
      case T::kMicroTime: return MetaRef("MicroTime");
      case T::kQuantity: return Ref("io.k8s.apimachinery.pkg.api.resource.Quantity");
      case T::kIntOrString: return Ref("io.k8s.apimachinery.pkg.util.intstr.IntOrString");
      case T::kFieldsV1: return MetaRef("FieldsV1");
      case T::kRawExtension: return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    }
    return {{"x-kubernetes-preserve-unknown-fields", true}};
  }

  const json::object& defs_;
  std::vector<const pb::Message*> stack_;
};

// Hand-written definitions that list every field kube had when they were
// written, and the messages that name the fields kube has now.
struct Written {
  const char* definition;
  const pb::Message* message;
};
const Written kWritten[] = {
    {"io.k8s.api.core.v1.Container", &pb::kContainer},
    {"io.k8s.api.core.v1.VolumeMount", &pb::kVolumeMount},
    {"io.k8s.api.core.v1.PodSpec", &pb::kPodSpec},
};

}  // namespace

void AddGeneratedKindDefinitions(json::object& defs) {
  Generator generator(defs);
  // Fields newer than a hand-written definition: typed, without a description.
  for (const Written& w : kWritten) {
    json::value* def = defs.if_contains(w.definition);
    if (def == nullptr || !def->is_object()) continue;
    json::object generated = generator.Object(*w.message);
    json::value* properties = def->as_object().if_contains("properties");
    if (properties == nullptr || !properties->is_object()) continue;
    for (auto& [name, schema] : generated["properties"].as_object()) {
      if (!properties->as_object().contains(name)) properties->as_object()[name] = schema;
    }
  }
  std::vector<std::pair<std::string, json::object>> added;
  for (int i = 0; i < api::kBuiltinKindCount; ++i) {
    const api::KindInfo& info = api::Info(static_cast<api::Kind>(i));
    const pb::Message* message = pb::MessageOf(info.kind);
    std::string name = DefinitionName(info);
    if (message == nullptr || defs.contains(name)) continue;
    json::object schema = generator.Object(*message);
    schema["description"] = "A " + std::string(info.name) + " (" + info.ApiVersion() + ").";
    json::object& properties = schema["properties"].as_object();
    properties["apiVersion"] = json::object{
        {"type", "string"},
        {"description", "The versioned schema this object is written in, as group/version (\"v1\", \"apps/v1\")."}};
    properties["kind"] = json::object{{"type", "string"},
                                      {"description", "The kind of object this is, in CamelCase (\"Pod\")."}};
    added.emplace_back(std::move(name), std::move(schema));
  }
  for (auto& [name, schema] : added) defs[name] = std::move(schema);
}

}  // namespace berth::apiserver
