#include "apiserver/authz/rbac/bootstrap_policy.h"

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "apiserver/authz/rbac/policy_rule.h"

namespace berth::apiserver::rbac {

namespace json = boost::json;

namespace {

using Strings = std::vector<std::string>;

const Strings kRead = {"get", "list", "watch"};
const Strings kWrite = {"create", "update", "patch", "delete", "deletecollection"};
const Strings kReadUpdate = {"get", "list", "watch", "update", "patch"};

PolicyRule Rule(Strings verbs, Strings groups, Strings resources, Strings names = {}) {
  return PolicyRule{
      std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}
PolicyRule UrlRule(Strings verbs, Strings urls) {
  return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)};
}
// bootstrappolicy's eventsRule.
PolicyRule EventsRule() {
  return Rule({"create", "update", "patch"}, {"", "events.k8s.io"}, {"events"});
}

struct RoleData {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  std::string aggregate_from;  // set: an aggregationRule selecting this label = "true"
  std::vector<PolicyRule> rules;
};

struct BindingData {
  std::string role;  // the ClusterRole, and the binding's name
  std::vector<Subject> subjects;
};

constexpr std::string_view kAggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
constexpr std::string_view kAggregateToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
constexpr std::string_view kAggregateToView = "rbac.authorization.k8s.io/aggregate-to-view";

// cluster-admin, and the roles every client gets (discovery, its own
// access reviews, health and version) or monitoring needs.
void AddSuperuserAndDiscoveryRoles(std::vector<RoleData>& roles) {
  roles.push_back({"cluster-admin", {}, "", {Rule({"*"}, {"*"}, {"*"}), UrlRule({"*"}, {"*"})}});
  roles.push_back(
      {"system:discovery",
       {},
       "",
       {UrlRule({"get"}, {"/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi",
                          "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"})}});
  roles.push_back({"system:basic-user",
                   {},
                   "",
                   {Rule({"create"}, {"authorization.k8s.io"},
                         {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                    Rule({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}});
  roles.push_back({"system:public-info-viewer",
                   {},
                   "",
                   {UrlRule({"get"}, {"/livez", "/readyz", "/healthz", "/version", "/version/"})}});
  roles.push_back({"system:monitoring",
                   {},
                   "",
                   {UrlRule({"get"}, {"/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
                                      "/livez/*", "/readyz/*", "/healthz/*"})}});
}

// The user-facing roles admin, edit and view, aggregated from the
// system:aggregate-to-* roles (edit's rules also go into admin, view's into edit).
void AddAggregatedUserRoles(std::vector<RoleData>& roles) {
  const std::string admin_label(kAggregateToAdmin), edit_label(kAggregateToEdit),
      view_label(kAggregateToView);
  roles.push_back({"admin", {}, admin_label, {}});
  roles.push_back({"edit", {{admin_label, "true"}}, edit_label, {}});
  roles.push_back({"view", {{edit_label, "true"}}, view_label, {}});
  roles.push_back(
      {"system:aggregate-to-admin",
       {{admin_label, "true"}},
       "",
       {Rule({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews"}),
        Rule({"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"},
             {"rbac.authorization.k8s.io"}, {"roles", "rolebindings"})}});
  roles.push_back(
      {"system:aggregate-to-edit",
       {{edit_label, "true"}},
       "",
       {Rule(kRead, {""},
             {"pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets",
              "services/proxy"}),
        Rule({"impersonate"}, {""}, {"serviceaccounts"}),
        Rule(kWrite, {""}, {"pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"}),
        Rule({"create"}, {""}, {"pods/eviction"}),
        Rule(kWrite, {""},
             {"replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
              "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"}),
        Rule({"create"}, {""}, {"serviceaccounts/token"}),
        Rule(kWrite, {"apps"},
             {"statefulsets", "statefulsets/scale", "daemonsets", "deployments",
              "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"}),
        Rule(kWrite, {"autoscaling"}, {"horizontalpodautoscalers"}),
        Rule(kWrite, {"batch"}, {"jobs", "cronjobs"}),
        Rule(kWrite, {"extensions"},
             {"daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
              "replicasets", "replicasets/scale", "replicationcontrollers/scale",
              "networkpolicies"}),
        Rule(kWrite, {"policy"}, {"poddisruptionbudgets"}),
        Rule(kWrite, {"networking.k8s.io"}, {"networkpolicies", "ingresses"})}});
  roles.push_back(
      {"system:aggregate-to-view",
       {{view_label, "true"}},
       "",
       {Rule(kRead, {""},
             {"pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
              "services", "services/status", "endpoints", "persistentvolumeclaims",
              "persistentvolumeclaims/status", "configmaps"}),
        Rule(kRead, {""},
             {"limitranges", "resourcequotas", "bindings", "events", "pods/status",
              "resourcequotas/status", "namespaces/status", "replicationcontrollers/status",
              "pods/log"}),
        Rule(kRead, {""}, {"namespaces"}), Rule(kRead, {"discovery.k8s.io"}, {"endpointslices"}),
        Rule(kRead, {"apps"},
             {"controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
              "daemonsets", "daemonsets/status", "deployments", "deployments/status",
              "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale"}),
        Rule(kRead, {"autoscaling"},
             {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
        Rule(kRead, {"batch"}, {"jobs", "cronjobs", "cronjobs/status", "jobs/status"}),
        Rule(kRead, {"extensions"},
             {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
              "deployments/status", "ingresses", "ingresses/status", "replicasets",
              "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
              "networkpolicies"}),
        Rule(kRead, {"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"}),
        Rule(kRead, {"networking.k8s.io"}, {"networkpolicies", "ingresses", "ingresses/status"})}});
}

// The roles of the cluster's own components: token and access review
// delegation, kube-proxy, DNS, the controller manager, the scheduler (and its
// volume binding), and service account issuer discovery.
void AddComponentRoles(std::vector<RoleData>& roles) {
  roles.push_back({"system:auth-delegator",
                   {},
                   "",
                   {Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
                    Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"})}});
  roles.push_back(
      {"system:node-proxier",
       {},
       "",
       {Rule({"list", "watch"}, {""}, {"services", "endpoints"}), Rule(kRead, {""}, {"nodes"}),
        EventsRule(), Rule({"list", "watch"}, {"discovery.k8s.io"}, {"endpointslices"})}});
  roles.push_back(
      {"system:kube-dns", {}, "", {Rule({"list", "watch"}, {""}, {"endpoints", "services"})}});
  roles.push_back(
      {"system:kube-controller-manager",
       {},
       "",
       {EventsRule(), Rule({"create"}, {"coordination.k8s.io"}, {"leases"}),
        Rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-controller-manager"}),
        Rule({"create"}, {""}, {"secrets", "serviceaccounts"}), Rule({"delete"}, {""}, {"secrets"}),
        Rule({"get"}, {""}, {"namespaces", "secrets", "serviceaccounts", "configmaps"}),
        Rule({"update"}, {""}, {"secrets", "serviceaccounts"}),
        Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
        Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
        Rule({"list", "watch"}, {"*"}, {"*"}), Rule({"create"}, {""}, {"serviceaccounts/token"})}});
  roles.push_back(
      {"system:kube-scheduler",
       {},
       "",
       {EventsRule(), Rule({"create"}, {"coordination.k8s.io"}, {"leases"}),
        Rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-scheduler"}),
        Rule(kRead, {""}, {"nodes"}), Rule({"get", "list", "watch", "delete"}, {""}, {"pods"}),
        Rule({"create"}, {""}, {"pods/binding", "bindings"}),
        Rule({"patch", "update"}, {""}, {"pods/status"}),
        Rule(kRead, {""}, {"services", "replicationcontrollers"}),
        Rule(kRead, {"apps", "extensions"}, {"replicasets"}),
        Rule(kRead, {"apps"}, {"statefulsets"}), Rule(kRead, {"policy"}, {"poddisruptionbudgets"}),
        Rule(kRead, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
        Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
        Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
        Rule(kRead, {"storage.k8s.io"}, {"csinodes"}), Rule(kRead, {""}, {"namespaces"}),
        Rule(kRead, {"storage.k8s.io"}, {"csidrivers"}),
        Rule(kRead, {"storage.k8s.io"}, {"csistoragecapacities"})}});
  roles.push_back({"system:volume-scheduler",
                   {},
                   "",
                   {Rule(kReadUpdate, {""}, {"persistentvolumes"}),
                    Rule(kRead, {"storage.k8s.io"}, {"storageclasses"}),
                    Rule(kReadUpdate, {""}, {"persistentvolumeclaims"})}});
  roles.push_back(
      {"system:service-account-issuer-discovery",
       {},
       "",
       {UrlRule({"get"}, {"/.well-known/openid-configuration", "/.well-known/openid-configuration/",
                          "/openid/v1/jwks", "/openid/v1/jwks/"})}});
}

std::vector<RoleData> ClusterRoles() {
  std::vector<RoleData> roles;
  AddSuperuserAndDiscoveryRoles(roles);
  AddAggregatedUserRoles(roles);
  AddComponentRoles(roles);
  return roles;
}

// kube-system's Role for reading the authentication ConfigMap an
// extension API server reads, and its binding to the components.
const PolicyRule& ExtensionAuthenticationReaderRule() {
  static const PolicyRule rule =
      Rule(kRead, {""}, {"configmaps"}, {"extension-apiserver-authentication"});
  return rule;
}

std::vector<BindingData> ClusterRoleBindings() {
  auto group = [](std::string name) { return Subject{"Group", std::move(name), ""}; };
  auto user = [](std::string name) { return Subject{"User", std::move(name), ""}; };
  return {
      {"cluster-admin", {group("system:masters")}},
      {"system:discovery", {group("system:authenticated")}},
      {"system:basic-user", {group("system:authenticated")}},
      {"system:public-info-viewer",
       {group("system:authenticated"), group("system:unauthenticated")}},
      {"system:monitoring", {group("system:monitoring")}},
      {"system:node-proxier", {user("system:kube-proxy")}},
      {"system:kube-controller-manager", {user("system:kube-controller-manager")}},
      {"system:kube-dns", {Subject{"ServiceAccount", "kube-dns", "kube-system"}}},
      {"system:kube-scheduler", {user("system:kube-scheduler")}},
      {"system:volume-scheduler", {user("system:kube-scheduler")}},
      {"system:service-account-issuer-discovery", {group("system:serviceaccounts")}},
  };
}

json::object Metadata(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& extra_labels) {
  json::object labels{{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (const auto& [k, v] : extra_labels) labels[k] = v;
  return json::object{
      {"name", name},
      {"labels", std::move(labels)},
      {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

json::array SubjectsToJson(const std::vector<Subject>& subjects) {
  json::array out;
  for (const Subject& s : subjects) {
    json::object subject{{"kind", s.kind}, {"name", s.name}};
    if (s.kind == "ServiceAccount") {
      subject["namespace"] = s.ns;
    } else {
      subject["apiGroup"] = "rbac.authorization.k8s.io";
    }
    out.emplace_back(std::move(subject));
  }
  return out;
}

json::object RoleRef(std::string_view kind, const std::string& name) {
  return json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", name}};
}

void AddNamespacedPolicy(std::vector<json::object>& objects) {
  const std::string role = "extension-apiserver-authentication-reader";
  json::object meta = Metadata(role, {});
  meta["namespace"] = "kube-system";
  objects.push_back(json::object{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                 {"kind", "Role"},
                                 {"metadata", std::move(meta)},
                                 {"rules", RulesToJson({ExtensionAuthenticationReaderRule()})}});
  json::object binding_meta = Metadata("system::" + role, {});
  binding_meta["namespace"] = "kube-system";
  objects.push_back(json::object{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", std::move(binding_meta)},
      {"roleRef", RoleRef("Role", role)},
      {"subjects", SubjectsToJson({Subject{"User", "system:kube-controller-manager", ""},
                                   Subject{"User", "system:kube-scheduler", ""}})}});
}

}  // namespace

std::vector<json::object> BootstrapPolicy() {
  std::vector<json::object> objects;
  for (const RoleData& role : ClusterRoles()) {
    json::object o{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"kind", "ClusterRole"},
                   {"metadata", Metadata(role.name, role.labels)}};
    if (!role.aggregate_from.empty()) {
      o["aggregationRule"] =
          json::object{{"clusterRoleSelectors",
                        json::array{json::object{
                            {"matchLabels", json::object{{role.aggregate_from, "true"}}}}}}};
    }
    o["rules"] = RulesToJson(role.rules);
    objects.push_back(std::move(o));
  }
  for (const BindingData& binding : ClusterRoleBindings()) {
    objects.push_back(json::object{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                   {"kind", "ClusterRoleBinding"},
                                   {"metadata", Metadata(binding.role, {})},
                                   {"roleRef", RoleRef("ClusterRole", binding.role)},
                                   {"subjects", SubjectsToJson(binding.subjects)}});
  }
  AddNamespacedPolicy(objects);
  return objects;
}

}  // namespace berth::apiserver::rbac
