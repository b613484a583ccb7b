// The API server with --authorization-mode=RBAC over bearer tokens: kube's
// bootstrap roles, bindings taking effect through the policy index,
// 403 answers, the review endpoints, escalation checks and the in-process
// components' identities.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class RbacAccessTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    options.tokens["admin-token"] = UserInfo{"root", "1", {"system:masters"}};
    options.tokens["view-token"] = UserInfo{"viewer", "2", {}};
    options.tokens["lead-token"] = UserInfo{"lead", "3", {}};
    options.authorization_modes = {"RBAC"};
  }

  Response As(const std::string& token, const std::string& method, const std::string& target,
              const std::string& body = "", const std::string& content_type = "application/json",
              const std::string& peer = "127.0.0.1") {
    Request r;
    r.remote_address = peer;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = "application/json";
    if (!token.empty()) r.authorization = "Bearer " + token;
    return api_->Handle(r);
  }

  // Policy changes reach the index through a store watch: retry until
  // `status` comes (or 20 s pass).
  Response Eventually(int status, const std::string& token, const std::string& method,
                      const std::string& target, const std::string& body = "") {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    Response r;
    do {
      r = As(token, method, target, body);
      if (r.status == status) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < deadline);
    return r;
  }

  void Bind(const std::string& kind, const std::string& ns, const std::string& name,
            const std::string& role_kind, const std::string& role, const std::string& user) {
    json::object binding{
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", kind},
        {"metadata", json::object{{"name", name}}},
        {"roleRef",
         json::object{
             {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role}}},
        {"subjects",
         json::array{json::object{
             {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user}}}}};
    std::string path =
        ns.empty() ? "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
                   : "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings";
    Response r = As("admin-token", "POST", path, json::serialize(binding));
    ASSERT_EQ(r.status, 201) << r.body;
  }

  static json::object Parse(const Response& r) { return json::parse(r.body).as_object(); }

  static std::string Pod(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  }
};

TEST_F(RbacAccessTest, BootstrapAggregatesViewEditAndAdmin) {
  Response view = As("admin-token", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/view");
  ASSERT_EQ(view.status, 200) << view.body;
  json::array rules = Parse(view)["rules"].as_array();
  bool pods = false;
  for (const auto& rule : rules) {
    for (const auto& r : rule.at("resources").as_array()) pods = pods || r == "pods";
  }
  EXPECT_TRUE(pods) << view.body;
  // admin holds edit's and view's rules and its own (roles).
  Response admin =
      As("admin-token", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin");
  EXPECT_NE(admin.body.find("\"rolebindings\""), std::string::npos);
  EXPECT_NE(admin.body.find("\"pods/exec\""), std::string::npos);
  EXPECT_NE(admin.body.find("\"pods/log\""), std::string::npos);
  Response binding = As("admin-token", "GET",
                        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin");
  EXPECT_NE(binding.body.find("system:masters"), std::string::npos) << binding.body;
}

TEST_F(RbacAccessTest, ViewCanListButNotCreate) {
  Response before = As("view-token", "GET", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(before.status, 403);
  EXPECT_EQ(
      Parse(before)["message"].as_string(),
      R"(pods is forbidden: User "viewer" cannot list resource "pods" in API group "" in the namespace "default")");
  Bind("ClusterRoleBinding", "", "viewer-view", "ClusterRole", "view", "viewer");
  EXPECT_EQ(Eventually(200, "view-token", "GET", "/api/v1/namespaces/default/pods").status, 200);
  Response create = As("view-token", "POST", "/api/v1/namespaces/default/pods", Pod("web"));
  EXPECT_EQ(create.status, 403);
  json::object status = Parse(create);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(
      status["message"].as_string(),
      R"(pods is forbidden: User "viewer" cannot create resource "pods" in API group "" in the namespace "default")");
  EXPECT_EQ(status["details"].as_object()["kind"], "pods");
  // Cluster-scoped reads are not in view.
  Response nodes = As("view-token", "GET", "/api/v1/nodes");
  EXPECT_EQ(
      Parse(nodes)["message"].as_string(),
      R"(nodes is forbidden: User "viewer" cannot list resource "nodes" in API group "" at the cluster scope)");
  // system:masters may do anything.
  EXPECT_EQ(As("admin-token", "POST", "/api/v1/namespaces/default/pods", Pod("web")).status, 201);
  // Discovery comes with system:authenticated; /metrics does not.
  EXPECT_EQ(As("view-token", "GET", "/apis").status, 200);
  EXPECT_EQ(Parse(As("view-token", "GET", "/metrics"))["message"].as_string(),
            R"(forbidden: User "viewer" cannot get path "/metrics")");
}

TEST_F(RbacAccessTest, AnonymousRequestsAreJudgedAsSystemAnonymous) {
  EXPECT_EQ(As("", "GET", "/healthz").status, 200);
  EXPECT_EQ(As("", "GET", "/version").status, 200);
  Response pods = As("", "GET", "/api/v1/pods");
  EXPECT_EQ(pods.status, 403);
  EXPECT_NE(pods.body.find(R"(User \"system:anonymous\" cannot list resource \"pods\")"),
            std::string::npos);
  // Discovery is for authenticated users only.
  EXPECT_EQ(As("", "GET", "/api").status, 403);
  // A token nobody knows is not anonymous: 401.
  EXPECT_EQ(As("wrong", "GET", "/healthz").status, 401);
}

TEST_F(RbacAccessTest, AnonymousRequestsFromOffLoopbackGet401) {
  const std::string json = "application/json";
  EXPECT_EQ(As("", "GET", "/api/v1/pods", "", json, "10.1.2.3").status, 401);
  EXPECT_EQ(As("", "GET", "/api", "", json, "2001:db8::1").status, 401);
  // Health and version stay open, as on loopback.
  EXPECT_EQ(As("", "GET", "/healthz", "", json, "10.1.2.3").status, 200);
  EXPECT_EQ(As("", "GET", "/version", "", json, "10.1.2.3").status, 200);
  // Loopback in its IPv4, IPv6 and IPv4-mapped forms is judged as system:anonymous.
  for (const char* peer : {"127.0.0.1", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_EQ(As("", "GET", "/api/v1/pods", "", json, peer).status, 403) << peer;
  }
  // Credentials are judged the same from anywhere.
  EXPECT_EQ(As("admin-token", "GET", "/api/v1/pods", "", json, "10.1.2.3").status, 200);
}

TEST_F(RbacAccessTest, RoleBindingGrantsOnlyInItsNamespace) {
  ASSERT_EQ(
      As("admin-token", "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})").status,
      201);
  Bind("RoleBinding", "team", "lead-admin", "ClusterRole", "admin", "lead");
  EXPECT_EQ(Eventually(201, "lead-token", "POST", "/api/v1/namespaces/team/pods", Pod("a")).status,
            201);
  EXPECT_EQ(As("lead-token", "POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 403);
  // Reading its own namespace object: admin grants namespaces get in the namespace.
  EXPECT_EQ(As("lead-token", "GET", "/api/v1/namespaces/team").status, 200);
  EXPECT_EQ(As("lead-token", "GET", "/api/v1/namespaces/default").status, 403);
}

TEST_F(RbacAccessTest, EscalationNeedsThePermissionsGranted) {
  ASSERT_EQ(
      As("admin-token", "POST", "/api/v1/namespaces", R"({"metadata":{"name":"team"}})").status,
      201);
  Bind("RoleBinding", "team", "lead-admin", "ClusterRole", "admin", "lead");
  const std::string roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles";
  // Held: pods get in team.
  Response held = Eventually(
      201, "lead-token", "POST", roles,
      R"({"metadata":{"name":"reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  EXPECT_EQ(held.status, 201) << held.body;
  // Not held: nodes.
  Response escalate = As(
      "lead-token", "POST", roles,
      R"({"metadata":{"name":"nodes"},"rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["list","get"]}]})");
  EXPECT_EQ(escalate.status, 403);
  EXPECT_EQ(Parse(escalate)["message"].as_string(),
            "roles.rbac.authorization.k8s.io \"nodes\" is forbidden: user \"lead\" "
            "(groups=[\"system:authenticated\"]) "
            "is attempting to grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"list\" \"get\"]}");
  // Binding cluster-admin in team grants more than admin holds.
  json::object binding{{"metadata", json::object{{"name", "grab"}}},
                       {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"},
                                                {"kind", "ClusterRole"},
                                                {"name", "cluster-admin"}}},
                       {"subjects", json::array{json::object{{"kind", "User"}, {"name", "lead"}}}}};
  Response grab =
      As("lead-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
         json::serialize(binding));
  EXPECT_EQ(grab.status, 403);
  EXPECT_NE(grab.body.find("is attempting to grant RBAC permissions not currently held"),
            std::string::npos);
  // Binding view (which admin covers) is fine.
  binding["metadata"] = json::object{{"name", "viewers"}};
  binding["roleRef"].as_object()["name"] = "view";
  EXPECT_EQ(
      As("lead-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
         json::serialize(binding))
          .status,
      201);
}

TEST_F(RbacAccessTest, SelfSubjectAccessReviewAnswersForTheCaller) {
  Bind("ClusterRoleBinding", "", "viewer-view", "ClusterRole", "view", "viewer");
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  auto ask = [&](const std::string& verb) {
    return R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":")" +
           verb + R"(","resource":"pods"}}})";
  };
  Response list = Eventually(201, "view-token", "POST", path, ask("list"));
  ASSERT_EQ(list.status, 201) << list.body;
  json::object status = Parse(list)["status"].as_object();
  for (int i = 0; i < 1000 && !status["allowed"].as_bool();
       ++i) {  // the binding may still be on its way
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = Parse(As("view-token", "POST", path, ask("list")))["status"].as_object();
  }
  EXPECT_TRUE(status["allowed"].as_bool());
  EXPECT_EQ(
      status["reason"],
      R"(RBAC: allowed by ClusterRoleBinding "viewer-view" of ClusterRole "view" to User "viewer")");
  status = Parse(As("view-token", "POST", path, ask("create")))["status"].as_object();
  EXPECT_FALSE(status["allowed"].as_bool());
  EXPECT_FALSE(status.contains("denied"));
  // SubjectAccessReview asks about someone else.
  Response sar = As(
      "admin-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      R"({"spec":{"user":"viewer","resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}}})");
  EXPECT_TRUE(Parse(sar)["status"].as_object()["allowed"].as_bool()) << sar.body;
  // ... which view may not do.
  EXPECT_EQ(As("view-token", "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
               R"({"spec":{"user":"root","resourceAttributes":{"verb":"get","resource":"pods"}}})")
                .status,
            403);
  Response invalid = As("view-token", "POST", path, R"({"spec":{}})");
  EXPECT_EQ(invalid.status, 422);
  EXPECT_NE(invalid.body.find(
                "exactly one of nonResourceAttributes or resourceAttributes must be specified"),
            std::string::npos);
  // Non-resource: discovery is allowed, /metrics not.
  status =
      Parse(As("view-token", "POST", path,
               R"({"spec":{"nonResourceAttributes":{"path":"/apis","verb":"get"}}})"))["status"]
          .as_object();
  EXPECT_TRUE(status["allowed"].as_bool());
  status =
      Parse(As("view-token", "POST", path,
               R"({"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"}}})"))["status"]
          .as_object();
  EXPECT_FALSE(status["allowed"].as_bool());
}

TEST_F(RbacAccessTest, SelfSubjectRulesReviewListsTheCallersRules) {
  Bind("ClusterRoleBinding", "", "viewer-view", "ClusterRole", "view", "viewer");
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
  Response r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  do {
    r = As("view-token", "POST", path, R"({"spec":{"namespace":"default"}})");
    if (r.body.find("\"pods/log\"") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(r.status, 201) << r.body;
  json::object status = Parse(r)["status"].as_object();
  EXPECT_NE(r.body.find("\"pods/log\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("selfsubjectaccessreviews"), std::string::npos);  // system:basic-user
  EXPECT_FALSE(status["incomplete"].as_bool());
  EXPECT_FALSE(status["nonResourceRules"].as_array().empty());  // system:discovery
  EXPECT_EQ(r.body.find("\"secrets\""), std::string::npos);     // view does not read secrets
  EXPECT_EQ(As("view-token", "POST", path, R"({"spec":{}})").status, 400);
}

TEST_F(RbacAccessTest, NewRolesAggregateIntoView) {
  ASSERT_EQ(
      As("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
         R"({"metadata":{"name":"widgets-view","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
                   "rules":[{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}]})")
          .status,
      201);
  std::string body;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    body = As("admin-token", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin").body;
    if (body.find("widgets") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // view, then edit (labelled aggregate-to-admin... through view), then admin.
  EXPECT_NE(body.find("widgets"), std::string::npos) << body;
}

TEST_F(RbacAccessTest, InProcessSchedulerIsAuthorizedAsSystemKubeScheduler) {
  auto in_process = [&](const std::string& user, const std::string& method,
                        const std::string& target, const std::string& body = "") {
    Request r;
    r.method = method;
    r.path = target;
    r.body = body;
    r.content_type = "application/json";
    r.trusted = true;
    r.trusted_user = user;
    return api_->Handle(r);
  };
  Response create =
      in_process("system:kube-scheduler", "POST", "/api/v1/namespaces/default/pods", Pod("p"));
  EXPECT_EQ(create.status, 403);
  EXPECT_NE(create.body.find(R"(User \"system:kube-scheduler\" cannot create resource \"pods\")"),
            std::string::npos);
  EXPECT_EQ(in_process("system:kube-scheduler", "GET", "/api/v1/nodes").status, 200);
  // The controller manager is not authorized (berth lacks kube's per-controller roles).
  EXPECT_EQ(in_process("system:kube-controller-manager", "POST", "/api/v1/namespaces/default/pods",
                       Pod("p"))
                .status,
            201);
  Response whoami = in_process("system:kube-scheduler", "POST",
                               "/apis/authentication.k8s.io/v1/selfsubjectreviews");
  EXPECT_NE(whoami.body.find("system:kube-scheduler"), std::string::npos) << whoami.body;
}

class AlwaysAllowTokensTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    options.tokens["t"] = UserInfo{"alice", "", {}};
  }
};

TEST_F(AlwaysAllowTokensTest, AnonymousRequestsGet401) {
  // kube turns anonymous access off under AlwaysAllow.
  EXPECT_EQ(Call("GET", "/api/v1/pods").status, 401);
  EXPECT_EQ(Call("GET", "/healthz").status, 200);
  Request r;
  r.method = "POST";
  r.path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  r.authorization = "Bearer t";
  r.body = R"({"spec":{"resourceAttributes":{"verb":"delete","resource":"nodes"}}})";
  Response review = api_->Handle(r);
  EXPECT_EQ(review.status, 201);
  EXPECT_NE(review.body.find("\"allowed\":true"), std::string::npos) << review.body;
}

class AlwaysDenyTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    options.tokens["t"] = UserInfo{"alice", "", {}};
    options.tokens["root"] = UserInfo{"root", "", {"system:masters"}};
    options.authorization_modes = {"AlwaysDeny"};
  }
};

TEST_F(AlwaysDenyTest, DeniesAllButSystemMasters) {
  Request r;
  r.method = "GET";
  r.path = "/api/v1/pods";
  r.authorization = "Bearer t";
  Response denied = api_->Handle(r);
  EXPECT_EQ(denied.status, 403);
  EXPECT_NE(denied.body.find("at the cluster scope: Everything is forbidden."), std::string::npos)
      << denied.body;
  r.authorization = "Bearer root";
  EXPECT_EQ(api_->Handle(r).status, 200);
}

}  // namespace
}  // namespace berth::apiserver
