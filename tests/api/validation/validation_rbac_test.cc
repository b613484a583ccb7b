// Validation of rbac.authorization.k8s.io kinds: roles' rules, bindings'
// roleRef and subjects, and the roleRef that never changes.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::UpdateProblems;

constexpr char kGroup[] = "rbac.authorization.k8s.io/v1";

std::string Role(const std::string& rules, const std::string& kind = "Role",
                 const std::string& name = "reader") {
  return Obj(kGroup, kind, name, R"("rules":)" + rules, kind == "Role");
}
std::string Binding(const std::string& role_ref, const std::string& subjects = "[]",
                    const std::string& kind = "RoleBinding") {
  return Obj(kGroup, kind, "b", R"("roleRef":)" + role_ref + R"(,"subjects":)" + subjects,
             kind == "RoleBinding");
}
const std::string kViewRef =
    R"({"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"})";

TEST(RbacValidation, RoleRules) {
  const std::string p = "Role.rbac.authorization.k8s.io \"reader\" is invalid: ";
  EXPECT_EQ(Problems(Role(R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}])")), "");
  EXPECT_EQ(Problems(Role(R"([{"apiGroups":[""],"resources":["pods"]}])")),
            p + "rules[0].verbs: Required value: verbs must contain at least one value");
  EXPECT_EQ(
      Problems(Role(R"([{"verbs":["get"]}])")),
      p + "[rules[0].apiGroups: Required value: resource rules must supply at least one api group, "
          "rules[0].resources: Required value: resource rules must supply at least one resource]");
  EXPECT_EQ(Problems(Role(R"([{"nonResourceURLs":["/healthz"],"verbs":["get"]}])")),
            p + "rules[0].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced rules "
                "cannot apply to "
                "non-resource URLs");
  EXPECT_EQ(Problems(Role(R"([{"nonResourceURLs":["/healthz"],"verbs":["get"]}])", "ClusterRole")),
            "");
  EXPECT_EQ(
      Problems(Role(R"([{"nonResourceURLs":["/healthz"],"resources":["pods"],"verbs":["get"]}])",
                    "ClusterRole")),
      "ClusterRole.rbac.authorization.k8s.io \"reader\" is invalid: rules[0].nonResourceURLs: Invalid value: "
      "[]string{\"/healthz\"}: rules "
      "cannot apply to both regular resources and non-resource URLs");
  // RBAC names are path segments: colons are fine, slashes are not.
  EXPECT_EQ(Problems(Role("[]", "ClusterRole", "system:aggregate-to-view")), "");
  EXPECT_EQ(
      Problems(Role("[]", "ClusterRole", "a/b")),
      "ClusterRole.rbac.authorization.k8s.io \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'");
  EXPECT_EQ(Problems(Obj(kGroup, "ClusterRole", "agg",
                         R"("aggregationRule":{"clusterRoleSelectors":[]})", false)),
            "ClusterRole.rbac.authorization.k8s.io \"agg\" is invalid: aggregationRule.clusterRoleSelectors: Required value: "
            "at least one "
            "clusterRoleSelector required if aggregationRule is non-nil");
}

TEST(RbacValidation, BindingsRoleRefsAndSubjects) {
  const std::string p = "RoleBinding.rbac.authorization.k8s.io \"b\" is invalid: ";
  EXPECT_EQ(Problems(Binding(
                kViewRef,
                R"([{"kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"default"}])")),
            "");
  EXPECT_EQ(Problems(Binding(R"({"apiGroup":"rbac","kind":"Role","name":"r"})")),
            p + "roleRef.apiGroup: Unsupported value: \"rbac\": supported values: "
                "\"rbac.authorization.k8s.io\"");
  EXPECT_EQ(
      Problems(Binding(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"r"})")),
      p + "roleRef.kind: Unsupported value: \"Group\": supported values: \"Role\", "
          "\"ClusterRole\"");
  EXPECT_EQ(Problems(Binding(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Role"})")),
            p + "roleRef.name: Required value");
  EXPECT_EQ(Problems(Binding(kViewRef, R"([{"kind":"Robot","name":"r2"}])")),
            p + "subjects[0].kind: Unsupported value: \"Robot\": supported values: "
                "\"ServiceAccount\", \"User\", "
                "\"Group\"");
  EXPECT_EQ(Problems(Binding(kViewRef, R"([{"kind":"User"}])")),
            p + "subjects[0].name: Required value");
  EXPECT_EQ(
      Problems(Binding(kViewRef, R"([{"kind":"ServiceAccount","name":"sa","apiGroup":"v1"}])")),
      p + "subjects[0].apiGroup: Unsupported value: \"v1\": supported values: \"\"");
  EXPECT_EQ(Problems(Binding(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"})",
                             "[]", "ClusterRoleBinding")),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef.kind: Unsupported value: \"Role\": "
            "supported values: "
            "\"ClusterRole\"");
  EXPECT_EQ(Problems(Binding(kViewRef, R"([{"kind":"ServiceAccount","name":"sa"}])",
                             "ClusterRoleBinding")),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: subjects[0].namespace: Required value");
}

TEST(RbacValidation, RoleRefNeverChanges) {
  const std::string edit =
      R"({"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"})";
  EXPECT_EQ(
      UpdateProblems(Binding(kViewRef, R"([{"kind":"User","name":"bob"}])"), Binding(kViewRef)),
      "");
  EXPECT_EQ(UpdateProblems(Binding(edit), Binding(kViewRef)),
            "RoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef: Invalid value: "
            "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
            "Kind:\"ClusterRole\", Name:\"edit\"}: cannot change roleRef");
  EXPECT_NE(UpdateProblems(Binding(edit, "[]", "ClusterRoleBinding"),
                           Binding(kViewRef, "[]", "ClusterRoleBinding")),
            "");
}

}  // namespace
}  // namespace berth::api
