// kube's ValidateCustomResourceDefinition for what berth serves: names,
// group, scope, versions and their structural schemas, the conversion
// (strategy, webhook client config, review versions), preserveUnknownFields
// and the API approval of community groups.

#include "apiserver/crd/crd_validation.h"

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/field_errors.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"
#include "apiserver/crd/crd_names.h"
#include "apiserver/crd/structural_schema.h"

namespace berth::apiserver::crd {

namespace json = boost::json;

namespace {

void ValidateDnsLabel(std::string_view value, const std::string& path, api::FieldErrors& errors) {
  for (const std::string& problem : api::IsDns1123Label(value)) errors.Invalid(path, value, problem);
}

// Whether a definition's conversionReviewVersions name one berth speaks
// (or none: an old definition may keep an empty list).
bool SpeaksReviewVersionOrEmpty(const json::array* versions) {
  if (versions == nullptr || versions->empty()) return true;
  return std::any_of(versions->begin(), versions->end(), [](const json::value& v) {
    return v.is_string() && (v.get_string() == "v1" || v.get_string() == "v1beta1");
  });
}

// kube's validateConversionReviewVersions.
void ValidateReviewVersions(const json::array* versions, bool require_spoken, const std::string& path,
                            api::FieldErrors& errors) {
  if (versions == nullptr || versions->empty()) return errors.Required(path);
  std::vector<std::string> seen;
  for (size_t i = 0; i < versions->size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    std::string v((*versions)[i].is_string() ? std::string_view((*versions)[i].get_string()) : "");
    if (std::find(seen.begin(), seen.end(), v) != seen.end()) {
      errors.Invalid(at, v, "duplicate version");
      continue;
    }
    seen.push_back(v);
    for (const std::string& problem : api::IsDns1035Label(v)) errors.Invalid(at, v, problem);
  }
  if (require_spoken && !SpeaksReviewVersionOrEmpty(versions)) {
    std::string go = "[]string{";
    for (size_t i = 0; i < seen.size(); ++i) go += (i ? ", " : "") + api::GoQuote(seen[i]);
    errors.InvalidGo(path, go + "}", "must include at least one of v1, v1beta1");
  }
}

// kube's validateCustomResourceConversion. Its field paths are those of
// kube's internal type, as its messages name them
// (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions).
// `old`: the stored definition's spec.conversion on update.
void ValidateConversion(const json::object* conversion, const json::object* old, bool preserve_unknown_fields,
                        api::FieldErrors& errors) {
  if (conversion == nullptr) return;
  std::string_view strategy = api::StringAt(conversion, "strategy");
  const json::object* webhook = api::ObjectAt(conversion, "webhook");
  const json::object* config = api::ObjectAt(webhook, "clientConfig");
  const json::array* review_versions = api::ArrayAt(webhook, "conversionReviewVersions");
  if (strategy.empty()) {
    errors.Required("spec.conversion.strategy");
  } else if (strategy != "None" && strategy != "Webhook") {
    errors.NotSupported("spec.conversion.strategy", strategy, {"None", "Webhook"});
  }
  if (strategy != "Webhook") {
    if (config) {
      errors.Forbidden("spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook");
    }
    if (review_versions && !review_versions->empty()) {
      errors.Forbidden("spec.conversion.conversionReviewVersions",
                       "should not be set when strategy is not set to Webhook");
    }
    return;
  }
  if (preserve_unknown_fields) {
    errors.Invalid("spec.conversion.strategy", strategy, "must be None if spec.preserveUnknownFields is true");
  }
  if (config == nullptr) {
    errors.Required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook");
  } else {
    const json::value* url = config->if_contains("url");
    if (url && url->is_null()) url = nullptr;
    const json::object* service = api::ObjectAt(config, "service");
    if ((url == nullptr) == (service == nullptr)) {
      errors.Required("spec.conversion.webhookClientConfig", "exactly one of url or service is required");
    } else if (url) {
      api::validation::ValidateWebhookUrl(url->is_string() ? std::string_view(url->get_string()) : "",
                                          "spec.conversion.webhookClientConfig.url", errors);
    } else {
      api::validation::ValidateWebhookService(*service, "spec.conversion.webhookClientConfig.service", errors);
    }
  }
  // An update may keep a list berth does not speak if the stored one did not either.
  const bool require_spoken =
      old == nullptr || SpeaksReviewVersionOrEmpty(api::ArrayAt(api::ObjectAt(old, "webhook"), "conversionReviewVersions"));
  ValidateReviewVersions(review_versions, require_spoken, "spec.conversion.conversionReviewVersions", errors);
}

}  // namespace

Status ValidateCrd(const api::Object& object, const api::Object* old) {
  api::FieldErrors errors;
  const json::object& crd = object.json();
  const json::object* spec = api::ObjectAt(crd, "spec");
  std::string_view group = api::StringAt(spec, "group");
  const json::object* names = api::ObjectAt(spec, "names");
  std::string_view plural = api::StringAt(names, "plural");
  if (object.name() != std::string(plural) + "." + std::string(group)) {
    errors.Invalid("metadata.name", object.name(), "must be spec.names.plural+\".\"+spec.group");
  }
  if (group.empty()) {
    errors.Required("spec.group");
  } else {
    for (const std::string& problem : api::IsDns1123Subdomain(group)) errors.Invalid("spec.group", group, problem);
    if (group.find('.') == std::string_view::npos) {
      errors.Invalid("spec.group", group, "should be a domain with at least one dot");
    }
  }
  std::string_view scope = api::StringAt(spec, "scope");
  if (scope.empty()) {
    errors.Required("spec.scope");
  } else if (scope != "Cluster" && scope != "Namespaced") {
    errors.NotSupported("spec.scope", scope, {"Cluster", "Namespaced"});
  }
  if (plural.empty()) {
    errors.Required("spec.names.plural");
  } else {
    ValidateDnsLabel(plural, "spec.names.plural", errors);
  }
  std::string_view singular = api::StringAt(names, "singular");
  if (!singular.empty()) ValidateDnsLabel(singular, "spec.names.singular", errors);
  if (api::StringAt(names, "kind").empty()) errors.Required("spec.names.kind");
  if (api::StringAt(names, "listKind").empty()) errors.Required("spec.names.listKind");
  for (const std::string& s : Names::From(names).short_names) {
    ValidateDnsLabel(s, "spec.names.shortNames", errors);
  }
  const json::array* versions = api::ArrayAt(spec, "versions");
  if (!versions || versions->empty()) {
    errors.Required("spec.versions", "must have exactly one version marked as storage version");
  } else {
    int storage = 0;
    std::vector<std::string> seen;
    for (size_t i = 0; i < versions->size(); ++i) {
      const std::string path = "spec.versions[" + std::to_string(i) + "]";
      const json::object* v = (*versions)[i].if_object();
      std::string_view name = api::StringAt(v, "name");
      if (name.empty()) {
        errors.Required(path + ".name");
      } else {
        for (const std::string& problem : api::IsDns1123Label(name)) errors.Invalid(path + ".name", name, problem);
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) errors.Duplicate(path + ".name", name);
        seen.emplace_back(name);
      }
      if (api::BoolAt(v, "storage")) ++storage;
      const json::object* schema = api::ObjectAt(api::ObjectAt(v, "schema"), "openAPIV3Schema");
      if (!schema) {
        errors.Required(path + ".schema.openAPIV3Schema", "schemas are required");
      } else {
        (void)Schema::Parse(json::value(*schema), path + ".schema.openAPIV3Schema", errors);
      }
    }
    if (storage != 1) {
      errors.InvalidValue("spec.versions", *versions, "must have exactly one version marked as storage version");
    }
  }
  const bool preserve_unknown_fields = api::BoolAt(spec, "preserveUnknownFields");
  // kube's v1 refuses it (its pruning is what berth does); a definition stored with it keeps it.
  if (preserve_unknown_fields && !(old && api::BoolAt(api::Spec(*old), "preserveUnknownFields"))) {
    errors.InvalidValue("spec.preserveUnknownFields", true,
                   "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema "
                   "instead");
  }
  ValidateConversion(api::ObjectAt(spec, "conversion"), old ? api::ObjectAt(api::Spec(*old), "conversion") : nullptr,
                     preserve_unknown_fields, errors);
  ValidateApiApproval(object, old, errors);
  return errors.ToStatus("CustomResourceDefinition.apiextensions.k8s.io", object.name());
}


}  // namespace berth::apiserver::crd
