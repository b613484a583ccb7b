// kube's RBAC matching (rule, subject and escalation coverage), request
// attributes, forbidden messages and --authorization-mode parsing.

#include <gtest/gtest.h>

#include "apiserver/authz/authorization.h"
#include "apiserver/authz/rbac/policy_rule.h"

namespace berth::apiserver::rbac {
namespace {

Attributes Resource(std::string verb, std::string group, std::string resource,
                    std::string subresource = "", std::string name = "",
                    std::string ns = "default") {
  Attributes a;
  a.user = {"alice", "", {"system:authenticated"}};
  a.verb = std::move(verb);
  a.resource_request = true;
  a.group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(subresource);
  a.name = std::move(name);
  a.ns = std::move(ns);
  return a;
}

Attributes Path(std::string verb, std::string path) {
  Attributes a;
  a.user = {"alice", "", {}};
  a.verb = std::move(verb);
  a.path = std::move(path);
  return a;
}

PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                std::vector<std::string> resources, std::vector<std::string> names = {}) {
  return PolicyRule{
      std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

PolicyRule Urls(std::vector<std::string> verbs, std::vector<std::string> urls) {
  return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)};
}

TEST(RuleAllowsTest, MatchesAsKubeDoes) {
  struct Case {
    const char* name;
    PolicyRule rule;
    Attributes request;
    bool allowed;
  };
  const Case cases[] = {
      {"exact", Rule({"get"}, {""}, {"pods"}), Resource("get", "", "pods"), true},
      {"other verb", Rule({"get"}, {""}, {"pods"}), Resource("create", "", "pods"), false},
      {"star verb", Rule({"*"}, {""}, {"pods"}), Resource("deletecollection", "", "pods"), true},
      {"other group", Rule({"get"}, {""}, {"deployments"}), Resource("get", "apps", "deployments"),
       false},
      {"star group", Rule({"get"}, {"*"}, {"deployments"}), Resource("get", "apps", "deployments"),
       true},
      {"star resource", Rule({"get"}, {"apps"}, {"*"}),
       Resource("get", "apps", "deployments", "scale"), true},
      {"resource does not cover its subresource", Rule({"get"}, {""}, {"pods"}),
       Resource("get", "", "pods", "status"), false},
      {"subresource", Rule({"update"}, {""}, {"pods/status"}),
       Resource("update", "", "pods", "status"), true},
      {"subresource does not cover the resource", Rule({"update"}, {""}, {"pods/status"}),
       Resource("update", "", "pods"), false},
      {"star slash subresource", Rule({"get"}, {"*"}, {"*/scale"}),
       Resource("get", "apps", "deployments", "scale"), true},
      {"star slash other subresource", Rule({"get"}, {"*"}, {"*/scale"}),
       Resource("get", "apps", "deployments", "status"), false},
      {"resource name", Rule({"get"}, {""}, {"configmaps"}, {"app"}),
       Resource("get", "", "configmaps", "", "app"), true},
      {"other resource name", Rule({"get"}, {""}, {"configmaps"}, {"app"}),
       Resource("get", "", "configmaps", "", "other"), false},
      {"resource names never match a list", Rule({"list"}, {""}, {"configmaps"}, {"app"}),
       Resource("list", "", "configmaps"), false},
      {"resource rule never matches a path", Rule({"*"}, {"*"}, {"*"}), Path("get", "/healthz"),
       false},
      {"url", Urls({"get"}, {"/healthz"}), Path("get", "/healthz"), true},
      {"url prefix", Urls({"get"}, {"/apis/*"}), Path("get", "/apis/apps/v1"), true},
      {"url prefix is not the bare path", Urls({"get"}, {"/apis/*"}), Path("get", "/apis"), false},
      {"star url", Urls({"*"}, {"*"}), Path("post", "/rpc"), true},
      {"url other verb", Urls({"get"}, {"/healthz"}), Path("post", "/healthz"), false},
      {"url rule never matches a resource", Urls({"*"}, {"*"}), Resource("get", "", "pods"), false},
  };
  for (const Case& c : cases) EXPECT_EQ(RuleAllows(c.request, c.rule), c.allowed) << c.name;
}

TEST(SubjectMatchesTest, UsersGroupsAndServiceAccounts) {
  UserInfo alice{"alice", "", {"dev", "system:authenticated"}};
  EXPECT_TRUE(SubjectMatches({"User", "alice", ""}, alice, ""));
  EXPECT_FALSE(SubjectMatches({"User", "bob", ""}, alice, ""));
  EXPECT_TRUE(SubjectMatches({"Group", "dev", ""}, alice, ""));
  EXPECT_TRUE(SubjectMatches({"Group", "system:authenticated", ""}, alice, ""));
  EXPECT_FALSE(SubjectMatches({"Group", "alice", ""}, alice, ""));
  UserInfo robot{"system:serviceaccount:ci:builder",
                 "",
                 {"system:serviceaccounts", "system:serviceaccounts:ci"}};
  EXPECT_TRUE(SubjectMatches({"ServiceAccount", "builder", "ci"}, robot, ""));
  EXPECT_FALSE(SubjectMatches({"ServiceAccount", "builder", "prod"}, robot, ""));
  // Without a namespace, the binding's own.
  EXPECT_TRUE(SubjectMatches({"ServiceAccount", "builder", ""}, robot, "ci"));
  EXPECT_FALSE(SubjectMatches({"ServiceAccount", "builder", ""}, robot, ""));
  EXPECT_TRUE(SubjectMatches({"Group", "system:serviceaccounts:ci", ""}, robot, ""));
}

TEST(UncoveredTest, BreaksDownWhatTheOwnerLacks) {
  std::vector<PolicyRule> owner = {Rule({"get", "list"}, {""}, {"pods"}),
                                   Rule({"*"}, {"apps"}, {"deployments"}),
                                   Rule({"get"}, {""}, {"*/scale"}), Urls({"get"}, {"/apis/*"})};
  EXPECT_TRUE(Uncovered(owner, {Rule({"get"}, {""}, {"pods"})}).empty());
  EXPECT_TRUE(
      Uncovered(owner, {Rule({"delete", "patch"}, {"apps"}, {"deployments"}, {"web"})}).empty());
  EXPECT_TRUE(Uncovered(owner, {Rule({"get"}, {""}, {"replicationcontrollers/scale"})}).empty());
  EXPECT_TRUE(Uncovered(owner, {Urls({"get"}, {"/apis/apps"})}).empty());
  auto missing = Uncovered(owner, {Rule({"get", "create"}, {""}, {"pods", "secrets"})});
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(CompactString(missing[0]), R"({APIGroups:[""], Resources:["pods"], Verbs:["create"]})");
  EXPECT_EQ(CompactString(missing[1]), R"({APIGroups:[""], Resources:["secrets"], Verbs:["get"]})");
  // A star is only covered by a star.
  EXPECT_EQ(Uncovered(owner, {Rule({"*"}, {""}, {"pods"})}).size(), 1u);
  EXPECT_EQ(Uncovered(owner, {Urls({"get"}, {"/metrics"})}).size(), 1u);
  EXPECT_EQ(CompactString(Urls({"get"}, {"/metrics"})),
            R"({NonResourceURLs:["/metrics"], Verbs:["get"]})");
}

Request MakeRequest(std::string method, std::string target) {
  Request r;
  r.method = std::move(method);
  auto q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
  return r;
}

TEST(RequestAttributesTest, VerbsAndScopesAsKubesRequestInfo) {
  UserInfo user{"alice", "", {}};
  struct Case {
    const char* method;
    const char* target;
    const char* verb;
    const char* resource;
    const char* subresource;
    const char* ns;
    const char* name;
  };
  const Case cases[] = {
      {"GET", "/api/v1/namespaces/default/pods", "list", "pods", "", "default", ""},
      {"GET", "/api/v1/pods?watch=true", "watch", "pods", "", "", ""},
      {"GET", "/api/v1/watch/namespaces/default/pods/web", "watch", "pods", "", "default", "web"},
      {"GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb", "list", "pods",
       "", "default", "web"},
      {"GET", "/api/v1/namespaces/default/pods/web", "get", "pods", "", "default", "web"},
      {"POST", "/api/v1/namespaces/default/pods", "create", "pods", "", "default", ""},
      {"POST", "/api/v1/namespaces/default/pods/web/binding", "create", "pods", "binding",
       "default", "web"},
      {"PUT", "/api/v1/namespaces/default/pods/web/status", "update", "pods", "status", "default",
       "web"},
      {"PATCH", "/apis/apps/v1/namespaces/ns1/deployments/d/scale", "patch", "deployments", "scale",
       "ns1", "d"},
      {"DELETE", "/api/v1/namespaces/default/pods", "deletecollection", "pods", "", "default", ""},
      {"DELETE", "/api/v1/namespaces/default/pods/web", "delete", "pods", "", "default", "web"},
      // A namespace's own requests are in that namespace.
      {"GET", "/api/v1/namespaces/team", "get", "namespaces", "", "team", "team"},
      {"GET", "/api/v1/namespaces", "list", "namespaces", "", "", ""},
      {"GET", "/api/v1/nodes/n1", "get", "nodes", "", "", "n1"},
  };
  for (const Case& c : cases) {
    Attributes a = RequestAttributes(MakeRequest(c.method, c.target), user);
    EXPECT_TRUE(a.resource_request) << c.target;
    EXPECT_EQ(a.verb, c.verb) << c.method << " " << c.target;
    EXPECT_EQ(a.resource, c.resource) << c.target;
    EXPECT_EQ(a.subresource, c.subresource) << c.target;
    EXPECT_EQ(a.ns, c.ns) << c.target;
    EXPECT_EQ(a.name, c.name) << c.target;
  }
  Attributes path = RequestAttributes(MakeRequest("GET", "/apis/apps/v1"), user);
  EXPECT_FALSE(path.resource_request);
  EXPECT_EQ(path.verb, "get");
  EXPECT_EQ(path.path, "/apis/apps/v1");
  EXPECT_EQ(RequestAttributes(MakeRequest("POST", "/rpc"), user).verb, "post");
}

TEST(ForbiddenTest, KubesMessages) {
  EXPECT_EQ(
      ForbiddenMessage(Resource("create", "", "pods")),
      R"(User "alice" cannot create resource "pods" in API group "" in the namespace "default")");
  EXPECT_EQ(ForbiddenMessage(Resource("list", "", "nodes", "", "", "")),
            R"(User "alice" cannot list resource "nodes" in API group "" at the cluster scope)");
  EXPECT_EQ(
      ForbiddenMessage(Resource("patch", "apps", "deployments", "scale", "web")),
      R"(User "alice" cannot patch resource "deployments/scale" in API group "apps" in the namespace "default")");
  EXPECT_EQ(ForbiddenMessage(Path("get", "/metrics")),
            R"(User "alice" cannot get path "/metrics")");

  Response r = ForbiddenResponse(Resource("create", "", "pods"), "");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(
      r.body.find(
          R"("message":"pods is forbidden: User \"alice\" cannot create resource \"pods\" in API group \"\" in the namespace \"default\"")"),
      std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("reason":"Forbidden")"), std::string::npos) << r.body;
  r = ForbiddenResponse(Resource("get", "apps", "deployments", "", "web"),
                        "RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found");
  EXPECT_NE(
      r.body.find(
          R"(deployments.apps \"web\" is forbidden: User \"alice\" cannot get resource \"deployments\" in API group \"apps\" in the namespace \"default\": RBAC: clusterrole)"),
      std::string::npos)
      << r.body;
  r = ForbiddenResponse(Path("get", "/metrics"), "");
  EXPECT_NE(r.body.find(R"("message":"forbidden: User \"alice\" cannot get path \"/metrics\"")"),
            std::string::npos)
      << r.body;
}

TEST(AuthorizationModesTest, KubesListAndRefusals) {
  EXPECT_EQ(ParseAuthorizationModes("RBAC").value(), (std::vector<std::string>{"RBAC"}));
  EXPECT_EQ(ParseAuthorizationModes("AlwaysDeny,RBAC").value(),
            (std::vector<std::string>{"AlwaysDeny", "RBAC"}));
  EXPECT_EQ(ParseAuthorizationModes("Node,RBAC").status().message(),
            "authorization-mode \"Node\" is not supported by berth (supported: AlwaysAllow, "
            "AlwaysDeny, RBAC)");
  EXPECT_EQ(ParseAuthorizationModes("Magic").status().message(),
            "authorization-mode \"Magic\" is not a valid mode");
  EXPECT_EQ(ParseAuthorizationModes("RBAC,RBAC").status().message(),
            "authorization-mode \"RBAC,RBAC\" has mode specified more than once");
  EXPECT_EQ(ParseAuthorizationModes("").status().message(),
            "at least one authorization-mode must be passed");
}

TEST(UnionTest, FirstDecisionWins) {
  std::vector<std::unique_ptr<Authorizer>> chain;
  chain.push_back(MakeAlwaysDeny());
  chain.push_back(MakeAlwaysAllow());
  EXPECT_EQ(MakeUnion(std::move(chain))->Authorize(Resource("get", "", "pods")).decision,
            Decision::kDeny);
  std::vector<std::unique_ptr<Authorizer>> allow_first;
  allow_first.push_back(MakeAlwaysAllow());
  allow_first.push_back(MakeAlwaysDeny());
  EXPECT_EQ(MakeUnion(std::move(allow_first))->Authorize(Resource("get", "", "pods")).decision,
            Decision::kAllow);
  EXPECT_EQ(MakeUnion({})->Authorize(Resource("get", "", "pods")).decision, Decision::kNoOpinion);
}

}  // namespace
}  // namespace berth::apiserver::rbac
