// rbac.authorization.k8s.io/v1: kube's pkg/apis/rbac/validation for Role,
// ClusterRole, RoleBinding and ClusterRoleBinding. Names of all four are
// path segments (ValidateMetadata's rule), so "system:node" is valid.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/selector.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

bool NonEmptyArray(const json::object* o, std::string_view key) {
  const json::array* a = ArrayAt(o, key);
  return a && !a->empty();
}

// kube's ValidatePolicyRule.
void ValidatePolicyRule(const json::object* rule, bool namespaced, const std::string& path,
                        FieldErrors& errors) {
  if (!NonEmptyArray(rule, "verbs"))
    errors.Required(path + ".verbs", "verbs must contain at least one value");
  if (NonEmptyArray(rule, "nonResourceURLs")) {
    const std::string shown = GoStrings(ArrayAt(rule, "nonResourceURLs"));
    if (namespaced) {
      errors.InvalidGo(path + ".nonResourceURLs", shown,
                       "namespaced rules cannot apply to non-resource URLs");
    }
    if (NonEmptyArray(rule, "apiGroups") || NonEmptyArray(rule, "resources") ||
        NonEmptyArray(rule, "resourceNames")) {
      errors.InvalidGo(path + ".nonResourceURLs", shown,
                       "rules cannot apply to both regular resources and non-resource URLs");
    }
    return;
  }
  if (!NonEmptyArray(rule, "apiGroups")) {
    errors.Required(path + ".apiGroups", "resource rules must supply at least one api group");
  }
  if (!NonEmptyArray(rule, "resources")) {
    errors.Required(path + ".resources", "resource rules must supply at least one resource");
  }
}

// kube's ValidateRoleBindingSubject; User and Group subjects without an
// apiGroup get rbac's by defaulting.
void ValidateSubject(const json::object* subject, bool namespaced, const std::string& path,
                     FieldErrors& errors) {
  const std::string_view name = StringAt(subject, "name");
  if (name.empty()) errors.Required(path + ".name");
  const std::string_view kind = StringAt(subject, "kind");
  const std::string_view group = StringAt(subject, "apiGroup");
  if (kind == "ServiceAccount") {
    if (!name.empty()) {
      for (const auto& m : IsDns1123Subdomain(name)) errors.Invalid(path + ".name", name, m);
    }
    if (!group.empty()) errors.NotSupported(path + ".apiGroup", group, {""});
    if (!namespaced && StringAt(subject, "namespace").empty()) errors.Required(path + ".namespace");
  } else if (kind == "User" || kind == "Group") {
    if (!group.empty() && group != kRbacGroup)
      errors.NotSupported(path + ".apiGroup", group, {std::string(kRbacGroup)});
  } else {
    errors.NotSupported(path + ".kind", kind, {"ServiceAccount", "User", "Group"});
  }
}

std::string GoRoleRef(const json::object* ref) {
  return "rbac.RoleRef{APIGroup:" + GoQuote(StringAt(ref, "apiGroup")) +
         ", Kind:" + GoQuote(StringAt(ref, "kind")) + ", Name:" + GoQuote(StringAt(ref, "name")) +
         "}";
}

}  // namespace

void ValidateRole(const Object& object, FieldErrors& errors) {
  const bool namespaced = object.kind() == Kind::kRole;
  if (const json::array* rules = ArrayAt(object.json(), "rules")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      ValidatePolicyRule((*rules)[i].is_object() ? &(*rules)[i].get_object() : nullptr, namespaced,
                         IndexPath("rules", i), errors);
    }
  }
  if (namespaced) return;
  if (const json::object* aggregation = ObjectAt(&object.json(), "aggregationRule")) {
    const json::array* selectors = ArrayAt(aggregation, "clusterRoleSelectors");
    if (!selectors || selectors->empty()) {
      errors.Required("aggregationRule.clusterRoleSelectors",
                      "at least one clusterRoleSelector required if aggregationRule is non-nil");
    }
    for (size_t i = 0; selectors && i < selectors->size(); ++i) {
      if (auto parsed = LabelSelector::FromJson((*selectors)[i]); !parsed.ok()) {
        errors.InvalidValue(IndexPath("aggregationRule.clusterRoleSelectors", i), (*selectors)[i],
                            parsed.status().message());
      }
    }
  }
}

void ValidateRoleBinding(const Object& object, FieldErrors& errors) {
  const bool namespaced = object.kind() == Kind::kRoleBinding;
  const json::object* ref = ObjectAt(&object.json(), "roleRef");
  // An empty group is rbac's by defaulting.
  if (auto group = StringAt(ref, "apiGroup"); !group.empty() && group != kRbacGroup) {
    errors.NotSupported("roleRef.apiGroup", group, {std::string(kRbacGroup)});
  }
  const std::string_view kind = StringAt(ref, "kind");
  if (namespaced && kind != "Role" && kind != "ClusterRole") {
    errors.NotSupported("roleRef.kind", kind, {"Role", "ClusterRole"});
  } else if (!namespaced && kind != "ClusterRole") {
    errors.NotSupported("roleRef.kind", kind, {"ClusterRole"});
  }
  const std::string_view name = StringAt(ref, "name");
  if (name.empty()) {
    errors.Required("roleRef.name");
  } else {
    for (const auto& m : IsValidPathSegmentName(name)) errors.Invalid("roleRef.name", name, m);
  }
  if (const json::array* subjects = ArrayAt(object.json(), "subjects")) {
    for (size_t i = 0; i < subjects->size(); ++i) {
      ValidateSubject((*subjects)[i].is_object() ? &(*subjects)[i].get_object() : nullptr,
                      namespaced, IndexPath("subjects", i), errors);
    }
  }
}

void ValidateRoleBindingUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  const json::object* after = ObjectAt(&next.json(), "roleRef");
  const json::object* before = ObjectAt(&current.json(), "roleRef");
  for (std::string_view key : {"apiGroup", "kind", "name"}) {
    if (StringAt(after, key) != StringAt(before, key)) {
      errors.InvalidGo("roleRef", GoRoleRef(after), "cannot change roleRef");
      return;
    }
  }
}

void AddRbacRules(KindRuleTable& table) {
  const KindRules role{.name_problems = IsValidPathSegmentName, .validate = ValidateRole};
  const KindRules binding{.name_problems = IsValidPathSegmentName,
                          .validate = ValidateRoleBinding,
                          .validate_update = CollectedUpdateErrors<ValidateRoleBindingUpdate>};
  table.Set(Kind::kRole, role);
  table.Set(Kind::kClusterRole, role);
  table.Set(Kind::kRoleBinding, binding);
  table.Set(Kind::kClusterRoleBinding, binding);
}

}  // namespace berth::api::validation
