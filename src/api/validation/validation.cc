#include "api/validation/validation.h"

#include <algorithm>
#include <cctype>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"

namespace berth::api {

namespace json = boost::json;

namespace {

void ValidateMetadata(const Object& object, const KindRules& rules, FieldErrors& errors) {
  const json::object* meta = ObjectAt(&object.json(), "metadata");
  const std::string& name = object.name();
  if (name.empty()) {
    errors.Required("metadata.name", "name or generateName is required");
  } else {
    for (const auto& p : rules.name_problems(name)) errors.Invalid("metadata.name", name, p);
  }
  if (object.info().namespaced && object.namespace_name().empty()) errors.Required("metadata.namespace");
  for (const auto& [key, value] : object.labels()) {
    for (const auto& p : IsQualifiedName(key)) errors.Invalid("metadata.labels", key, p);
    for (const auto& p : IsValidLabelValue(value)) errors.Invalid("metadata.labels", value, p);
  }
  if (const json::object* annotations = ObjectAt(meta, "annotations")) {
    // kube's ValidateAnnotations: keys are qualified names whatever their
    // case; keys and values together at most 256 KiB.
    constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;
    int64_t total = 0;
    for (const auto& kv : *annotations) {
      std::string lowered(kv.key());
      std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      for (const auto& p : IsQualifiedName(lowered)) errors.Invalid("metadata.annotations", kv.key(), p);
      total += static_cast<int64_t>(kv.key().size());
      if (kv.value().is_string()) total += static_cast<int64_t>(kv.value().get_string().size());
    }
    if (total > kTotalAnnotationSizeLimit) errors.TooLong("metadata.annotations", kTotalAnnotationSizeLimit);
  }
}

validation::KindRuleTable BuiltinRules() {
  validation::KindRuleTable table;
  validation::AddCoreRules(table);
  validation::AddAppsRules(table);
  validation::AddBatchRules(table);
  validation::AddAutoscalingRules(table);
  validation::AddNetworkingRules(table);
  validation::AddRbacRules(table);
  validation::AddNodeRules(table);
  validation::AddStorageRules(table);
  validation::AddSchedulingRules(table);
  validation::AddPolicyRules(table);
  validation::AddAdmissionregistrationRules(table);
  return table;
}

}  // namespace

const KindRules& RulesOf(Kind kind) {
  static const validation::KindRuleTable table = BuiltinRules();
  return table.For(kind);
}

Status ValidateObject(const Object& object, const KindRules& rules) {
  if (rules.check_encoding) {
    if (Status encoded = rules.check_encoding(object); !encoded.ok()) return encoded;
  }
  FieldErrors errors;
  ValidateMetadata(object, rules, errors);
  if (rules.validate) rules.validate(object, errors);
  return errors.ToStatus(QualifiedKind(object.info()), object.name());
}

Status ValidateObject(const Object& object) { return ValidateObject(object, RulesOf(object.kind())); }

Status ValidateObjectUpdate(const Object& next, const Object& current, const KindRules& rules) {
  return rules.validate_update ? rules.validate_update(next, current) : Status::Ok();
}

Status ValidateObjectUpdate(const Object& next, const Object& current) {
  return ValidateObjectUpdate(next, current, RulesOf(next.kind()));
}

}  // namespace berth::api
