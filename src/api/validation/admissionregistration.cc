// admissionregistration.k8s.io/v1 Mutating/ValidatingWebhookConfiguration
// (kube's pkg/apis/admissionregistration/validation and
// k8s.io/apiserver/pkg/util/webhook's URL and Service checks), and
// apiregistration.k8s.io/v1 APIService (kube-aggregator's validation).

#include <algorithm>
#include <set>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

std::vector<std::string> StringsAt(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* a = ArrayAt(o, key)) {
    for (const auto& v : *a) out.emplace_back(v.is_string() ? std::string_view(v.get_string()) : "");
  }
  return out;
}

bool HasWildcard(const std::vector<std::string>& values) {
  for (const auto& v : values) {
    if (v == "*") return true;
  }
  return false;
}

// utilvalidation.IsFullyQualifiedName: a DNS subdomain of three or more parts.
void FullyQualifiedName(std::string_view name, const std::string& path, FieldErrors& errors) {
  if (name.empty()) return errors.Required(path);
  if (name.back() == '.') name.remove_suffix(1);
  if (auto problems = IsDns1123Subdomain(name); !problems.empty()) {
    std::string joined;
    for (const auto& p : problems) joined += (joined.empty() ? "" : ",") + p;
    return errors.Invalid(path, name, joined);
  }
  if (std::count(name.begin(), name.end(), '.') < 2) {
    errors.Invalid(path, name, "should be a domain with at least three segments separated by dots");
  }
}

void Resources(const json::object& rule, const std::string& path, FieldErrors& errors) {
  const json::array* list = ArrayAt(rule, "resources");
  std::vector<std::string> resources = StringsAt(rule, "resources");
  if (resources.empty()) errors.Required(path);
  std::set<std::string> with_wildcard_sub, with_wildcard_resource;
  bool double_wildcard = false, single_wildcard = false, plain = false;
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string& r = resources[i];
    if (r.empty()) {
      errors.Required(IndexPath(path, i));
      continue;
    }
    if (r == "*/*") double_wildcard = true;
    if (r == "*") single_wildcard = true;
    size_t slash = r.find('/');
    if (slash == std::string::npos) {
      plain = r != "*";
      continue;
    }
    std::string res = r.substr(0, slash), sub = r.substr(slash + 1);
    if (with_wildcard_sub.count(res)) {
      errors.Invalid(IndexPath(path, i), r, "if '" + res + "/*' is present, must not specify " + r);
    }
    if (with_wildcard_resource.count(sub)) {
      errors.Invalid(IndexPath(path, i), r, "if '*/" + sub + "' is present, must not specify " + r);
    }
    if (sub == "*") with_wildcard_sub.insert(res);
    if (res == "*") with_wildcard_resource.insert(sub);
  }
  if (resources.size() > 1 && double_wildcard) {
    errors.InvalidGo(path, GoStrings(list), "if '*/*' is present, must not specify other resources");
  }
  if (single_wildcard && plain) {
    errors.InvalidGo(path, GoStrings(list), "if '*' is present, must not specify other resources without subresources");
  }
}

void RuleWithOperations(const json::object& rule, const std::string& path, FieldErrors& errors) {
  static const std::vector<std::string> kOperations = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
  std::vector<std::string> operations = StringsAt(rule, "operations");
  if (operations.empty()) errors.Required(path + ".operations");
  if (operations.size() > 1 && HasWildcard(operations)) {
    errors.InvalidGo(path + ".operations", GoStrings(ArrayAt(rule, "operations"), "[]admissionregistration.OperationType"),
                     "if '*' is present, must not specify other operations");
  }
  for (size_t i = 0; i < operations.size(); ++i) {
    if (std::find(kOperations.begin(), kOperations.end(), operations[i]) == kOperations.end()) {
      errors.NotSupported(IndexPath(path + ".operations", i), operations[i], kOperations);
    }
  }
  std::vector<std::string> groups = StringsAt(rule, "apiGroups");
  if (groups.empty()) errors.Required(path + ".apiGroups");
  if (groups.size() > 1 && HasWildcard(groups)) {
    errors.InvalidGo(path + ".apiGroups", GoStrings(ArrayAt(rule, "apiGroups")),
                     "if '*' is present, must not specify other API groups");
  }
  std::vector<std::string> versions = StringsAt(rule, "apiVersions");
  if (versions.empty()) errors.Required(path + ".apiVersions");
  if (versions.size() > 1 && HasWildcard(versions)) {
    errors.InvalidGo(path + ".apiVersions", GoStrings(ArrayAt(rule, "apiVersions")),
                     "if '*' is present, must not specify other API versions");
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].empty()) errors.Required(IndexPath(path + ".apiVersions", i));
  }
  Resources(rule, path + ".resources", errors);
  if (const json::value* scope = Present(&rule, "scope")) {
    std::string_view s = scope->is_string() ? std::string_view(scope->get_string()) : "";
    if (s != "*" && s != "Cluster" && s != "Namespaced") errors.NotSupported(path + ".scope", s, {"*", "Cluster", "Namespaced"});
  }
}



void ReviewVersions(const json::object& hook, const std::string& path, FieldErrors& errors) {
  std::vector<std::string> versions = StringsAt(hook, "admissionReviewVersions");
  if (versions.empty()) return errors.Required(path, "must specify one of v1, v1beta1");
  std::set<std::string> seen;
  bool known = false;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (!seen.insert(versions[i]).second) {
      errors.Invalid(IndexPath(path, i), versions[i], "duplicate version");
      continue;
    }
    for (const auto& m : IsDns1035Label(versions[i])) errors.Invalid(IndexPath(path, i), versions[i], m);
    known = known || versions[i] == "v1" || versions[i] == "v1beta1";
  }
  if (!known) errors.InvalidGo(path, GoStrings(ArrayAt(hook, "admissionReviewVersions")), "must include at least one of v1, v1beta1");
}

void OneOf(const json::object& hook, std::string_view key, const std::vector<std::string>& allowed,
           const std::string& path, FieldErrors& errors) {
  const json::value* v = Present(&hook, key);
  if (v == nullptr) return;
  std::string_view s = v->is_string() ? std::string_view(v->get_string()) : "";
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    errors.NotSupported(path + "." + std::string(key), s, allowed);
  }
}

void Webhook(const json::object& hook, const std::string& path, bool mutating, FieldErrors& errors) {
  FullyQualifiedName(StringAt(hook, "name"), path + ".name", errors);
  if (const json::array* rules = ArrayAt(hook, "rules")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      if (const json::object* r = (*rules)[i].if_object()) RuleWithOperations(*r, IndexPath(path + ".rules", i), errors);
    }
  }
  OneOf(hook, "failurePolicy", {"Fail", "Ignore"}, path, errors);
  OneOf(hook, "matchPolicy", {"Equivalent", "Exact"}, path, errors);
  if (Present(&hook, "sideEffects") == nullptr) {
    errors.Required(path + ".sideEffects", "must specify one of None, NoneOnDryRun");
  } else {
    OneOf(hook, "sideEffects", {"None", "NoneOnDryRun"}, path, errors);
  }
  if (const json::value* timeout = Present(&hook, "timeoutSeconds")) {
    const int64_t t = timeout->is_int64() ? timeout->get_int64() : 0;
    if (t < 1 || t > 30) {
      errors.InvalidValue(path + ".timeoutSeconds", *timeout, "the timeout value must be between 1 and 30 seconds");
    }
  }
  LabelSelectorRules(Present(&hook, "namespaceSelector"), path + ".namespaceSelector", errors);
  LabelSelectorRules(Present(&hook, "objectSelector"), path + ".objectSelector", errors);
  if (mutating) OneOf(hook, "reinvocationPolicy", {"IfNeeded", "Never"}, path, errors);
  const json::object* config = ObjectAt(hook, "clientConfig");
  const json::value* url = Present(config, "url");
  const json::object* service = ObjectAt(config, "service");
  if ((url == nullptr) == (service == nullptr)) {
    errors.Required(path + ".clientConfig", "exactly one of url or service is required");
  } else if (url) {
    ValidateWebhookUrl(url->is_string() ? std::string_view(url->get_string()) : "", path + ".clientConfig.url", errors);
  } else {
    ValidateWebhookService(*service, path + ".clientConfig.service", errors);
  }
  // CEL is not built yet: a condition berth cannot evaluate is refused, not ignored.
  if (const json::array* conditions = ArrayAt(hook, "matchConditions"); conditions && !conditions->empty()) {
    errors.Forbidden(path + ".matchConditions", "CEL match conditions are not supported by this server yet");
  }
}

template <bool kMutating>
void ValidateWebhookConfiguration(const Object& object, FieldErrors& errors) {
  const json::array* webhooks = ArrayAt(object.json(), "webhooks");
  if (webhooks == nullptr) return;
  std::set<std::string> names;
  for (size_t i = 0; i < webhooks->size(); ++i) {
    const json::object* hook = (*webhooks)[i].if_object();
    if (hook == nullptr) continue;
    const std::string path = IndexPath("webhooks", i);
    Webhook(*hook, path, kMutating, errors);
    ReviewVersions(*hook, path + ".admissionReviewVersions", errors);
    std::string name(StringAt(*hook, "name"));
    if (!name.empty() && !names.insert(name).second) errors.Duplicate(path + ".name", name);
  }
}

// kube-aggregator's ValidateAPIService: the name is version.group ("v1."
// for the core group), the spec names that group and version. One backed by
// a Service is accepted and stored; berth does not proxy to it, which its
// status and the 503 its group/version answers say (registry/strategies.cc).
void ValidateAPIService(const Object& object, FieldErrors& errors) {
  const json::object* spec = ObjectAt(object.json(), "spec");
  const std::string_view group = StringAt(spec, "group"), version = StringAt(spec, "version");
  const std::string expected = std::string(version) + "." + std::string(group);
  if (object.name() != expected) {
    errors.Invalid("metadata.name", object.name(), "must be `spec.version+\".\"+spec.group`: \"" + expected + "\"");
  }
  if (version.empty()) {
    errors.Required("spec.version");
  } else {
    for (const auto& m : IsDns1035Label(version)) errors.Invalid("spec.version", version, m);
  }
  if (!group.empty()) {
    for (const auto& m : IsDns1123Subdomain(group)) errors.Invalid("spec.group", group, m);
  }
  const int64_t group_priority = IntAt(spec, "groupPriorityMinimum");
  if (group_priority <= 0 || group_priority > 20000) {
    errors.Invalid("spec.groupPriorityMinimum", std::to_string(group_priority), "must be positive and less than 20000");
  }
  const int64_t version_priority = IntAt(spec, "versionPriority");
  if (version_priority <= 0 || version_priority > 1000) {
    errors.Invalid("spec.versionPriority", std::to_string(version_priority), "must be positive and less than 1000");
  }
  const json::object* service = ObjectAt(spec, "service");
  const bool skip_tls = BoolAt(spec, "insecureSkipTLSVerify");
  if (service == nullptr) {
    if (skip_tls) errors.Invalid("spec.insecureSkipTLSVerify", "true", "must not be true if service is nil");
    if (!StringAt(spec, "caBundle").empty()) {
      errors.Invalid("spec.caBundle", "(bytes)", "must be empty if service is nil");
    }
    return;
  }
  if (StringAt(service, "namespace").empty()) errors.Required("spec.service.namespace");
  if (StringAt(service, "name").empty()) errors.Required("spec.service.name");
  if (const json::value* port = Present(service, "port")) ValidatePortNumber(*port, "spec.service.port", errors);
  if (skip_tls && !StringAt(spec, "caBundle").empty()) {
    errors.Invalid("spec.insecureSkipTLSVerify", "true", "may not be true if caBundle is present");
  }
}

}  // namespace

// webhook.ValidateWebhookURL with https forced.
void ValidateWebhookUrl(std::string_view url, const std::string& path, FieldErrors& errors) {
  constexpr std::string_view kForm = "; desired format: https://host[/path]";
  std::string_view rest = url;
  std::string_view scheme;
  if (size_t colon = rest.find("://"); colon != std::string_view::npos) {
    scheme = rest.substr(0, colon);
    rest.remove_prefix(colon + 3);
  } else {
    rest = {};  // no authority: Go reads it all as a path
  }
  std::string_view fragment, query;
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
    fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view user;
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    user = authority.substr(0, at);
    authority.remove_prefix(at + 1);
  }
  if (scheme != "https") errors.Invalid(path, scheme, "'https' is the only allowed URL scheme" + std::string(kForm));
  if (authority.empty()) errors.Invalid(path, authority, "host must be specified" + std::string(kForm));
  if (!user.empty()) errors.Invalid(path, user, "user information is not permitted in the URL");
  if (!fragment.empty()) errors.Invalid(path, fragment, "fragments are not permitted in the URL");
  if (!query.empty()) errors.Invalid(path, query, "query parameters are not permitted in the URL");
}

// webhook.ValidateWebhookService.
void ValidateWebhookService(const json::object& service, const std::string& path, FieldErrors& errors) {
  if (StringAt(service, "name").empty()) errors.Required(path + ".name", "service name is required");
  if (StringAt(service, "namespace").empty()) errors.Required(path + ".namespace", "service namespace is required");
  if (const json::value* port = Present(&service, "port")) {
    const int64_t p = port->is_int64() ? port->get_int64() : 0;
    if (p < 1 || p > 65535) {
      errors.InvalidValue(path + ".port", *port, "port is not valid: must be between 1 and 65535, inclusive");
    }
  }
  const json::value* url_path = Present(&service, "path");
  if (url_path == nullptr || !url_path->is_string()) return;
  std::string_view p = url_path->get_string();
  if (p.empty() || p == "/") return;
  if (p == "//") return errors.Invalid(path + ".path", p, "segment[0] may not be empty");
  if (p.front() != '/') errors.Invalid(path + ".path", p, "must start with a '/'");
  std::string_view steps = p.front() == '/' ? p.substr(1) : p;
  if (!steps.empty() && steps.back() == '/') steps.remove_suffix(1);
  for (size_t i = 0;; ++i) {
    size_t slash = steps.find('/');
    std::string_view step = steps.substr(0, slash);
    if (step.empty()) {
      errors.Invalid(path + ".path", p, "segment[" + std::to_string(i) + "] may not be empty");
    } else {
      for (const auto& m : IsDns1123Subdomain(step)) {
        errors.Invalid(path + ".path", p, "segment[" + std::to_string(i) + "]: " + m);
      }
    }
    if (slash == std::string_view::npos) break;
    steps.remove_prefix(slash + 1);
  }
}

void AddAdmissionregistrationRules(KindRuleTable& table) {
  table.Set(Kind::kMutatingWebhookConfiguration, {.validate = ValidateWebhookConfiguration<true>});
  table.Set(Kind::kValidatingWebhookConfiguration, {.validate = ValidateWebhookConfiguration<false>});
  table.Set(Kind::kAPIService, {.name_problems = IsValidPathSegmentName, .validate = ValidateAPIService});
}

}  // namespace berth::api::validation
