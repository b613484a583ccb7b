// CustomResourceDefinition schemas (the apiextensions structural schema,
// apiserver/crd/structural_schema.h). The input is JSON: [schema, object] or
// a schema alone (then validated against {}). A schema that passes kube's
// structural checks prunes, defaults and validates the object; pruning is
// idempotent.
#include <boost/json/serialize.hpp>

#include "api/validation/field_errors.h"
#include "apiserver/crd/structural_schema.h"
#include "fuzz_util.h"

using namespace berth;
namespace json = boost::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = fuzz::ParseJson(fuzz::Bytes(data, size));
  if (!input) return 0;
  json::value schema_json = *input;
  json::value object = json::object();
  if (input->is_array() && input->get_array().size() == 2) {
    schema_json = input->get_array()[0];
    object = input->get_array()[1];
  }
  api::FieldErrors errors;
  auto schema = apiserver::crd::Schema::Parse(schema_json, "spec.validation.openAPIV3Schema", errors);
  if (!schema.ok()) return 0;
  std::vector<std::string> pruned;
  (*schema)->Prune(object, &pruned);
  (*schema)->ApplyDefaults(object);
  api::FieldErrors object_errors;
  (*schema)->Validate(object, object_errors);
  json::value again = object;
  std::vector<std::string> pruned_again;
  (*schema)->Prune(again, &pruned_again);
  (*schema)->ApplyDefaults(again);
  fuzz::Check(again == object, "pruning and defaulting a second time changes the object",
              json::serialize(object), json::serialize(again));
  (void)(*schema)->ListTypeAt("spec.items");
  (void)(*schema)->ListTypeAt("spec");
  return 0;
}
