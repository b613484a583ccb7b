#pragma once
// rbac.authorization.k8s.io/v1 rules and subjects, and kube's matching of
// them against a request (plugin/pkg/auth/authorizer/rbac): a rule allows a
// request when its verbs, API groups, resources (with subresources:
// "pods/status", "*/scale") and resource names match, or, for a path, its
// verbs and nonResourceURLs ("/apis/*" matches by prefix). "*" matches
// everything in each list.

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/authz/authentication.h"
#include "apiserver/authz/authorization.h"

namespace berth::apiserver::rbac {

struct PolicyRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names, non_resource_urls;
  bool operator==(const PolicyRule&) const = default;
};

struct Subject {
  std::string kind;  // User, Group, ServiceAccount
  std::string name;
  std::string ns;  // ServiceAccount's namespace
};

// A Role's or ClusterRole's `rules` (missing or malformed entries are skipped:
// the object was validated when written).
std::vector<PolicyRule> RulesFromJson(const boost::json::value* rules);
boost::json::array RulesToJson(const std::vector<PolicyRule>& rules);
// A binding's `subjects`.
std::vector<Subject> SubjectsFromJson(const boost::json::value* subjects);

bool RuleAllows(const Attributes& attributes, const PolicyRule& rule);

// Whether `subject` of a binding in `binding_namespace` ("" for a
// ClusterRoleBinding) names `user`: by user name, by one of its groups, or as
// the service account system:serviceaccount:NS:NAME (NS defaulting to the
// binding's namespace).
bool SubjectMatches(const Subject& subject, const UserInfo& user,
                    std::string_view binding_namespace);

// kube's escalation check (validation.Covers): the parts of `servant` that
// no rule of `owner` covers, each broken down to one verb, group, resource
// and name (or one verb and URL). Empty: `owner` holds everything `servant`
// grants.
std::vector<PolicyRule> Uncovered(const std::vector<PolicyRule>& owner,
                                  const std::vector<PolicyRule>& servant);

// kube's PolicyRule.CompactString: {APIGroups:[""], Resources:["pods"], Verbs:["get"]}.
std::string CompactString(const PolicyRule& rule);

}  // namespace berth::apiserver::rbac
