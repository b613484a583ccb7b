// The ServiceAccount admission plugin through the API server's REST
// handlers: kube's defaulting of the account, the projected API token volume
// and its opt-outs, pull secrets, mountable secrets and mirror pods.

#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

constexpr std::string_view kTokenPath = "/var/run/secrets/kubernetes.io/serviceaccount";

class ServiceAccountAdmissionTest : public testing::ApiFixture {
 protected:
  // kube's default plugins, ServiceAccount among them.
  void Configure(ApiServer::Options& options) override { options.admission.disable.clear(); }

  void CreateAccount(const std::string& name, const std::string& extra = "") {
    Response r = Call("POST", "/api/v1/namespaces/default/serviceaccounts",
                      R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")" + name + R"("})" + extra +
                          "}");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  Response CreatePod(const std::string& name, const std::string& spec, const std::string& meta = "") {
    return Call("POST", "/api/v1/namespaces/default/pods",
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + "\"" + meta + R"(},"spec":)" +
                    spec + "}");
  }

  static json::object Spec(const Response& r) { return json::parse(r.body).at("spec").as_object(); }
  static std::string Message(const Response& r) {
    return std::string(json::parse(r.body).at("message").as_string());
  }
};

const std::string kOneContainer = R"({"containers":[{"name":"c","image":"nginx"}]})";

TEST_F(ServiceAccountAdmissionTest, APodRunsAsDefaultAndEveryContainerMountsTheApiAccessVolume) {
  CreateAccount("default");
  Response r = CreatePod("p", R"({"initContainers":[{"name":"i","image":"busybox"}],
                                  "containers":[{"name":"c","image":"nginx"},{"name":"d","image":"nginx"}]})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object spec = Spec(r);
  EXPECT_EQ(spec.at("serviceAccountName"), "default");
  EXPECT_EQ(spec.at("serviceAccount"), "default");  // the deprecated alias, as kube's v1 writes it
  const json::array& volumes = spec.at("volumes").as_array();
  ASSERT_EQ(volumes.size(), 1u);
  const std::string name(volumes[0].at("name").as_string());
  ASSERT_TRUE(name.starts_with("kube-api-access-")) << name;
  EXPECT_EQ(name.size(), std::string("kube-api-access-").size() + 5);
  EXPECT_EQ(volumes[0].at("projected"), json::parse(R"({"defaultMode":420,"sources":[
      {"serviceAccountToken":{"path":"token","expirationSeconds":3607}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}]})"));
  const json::value mount = json::parse(R"({"name":")" + name + R"(","readOnly":true,"mountPath":")" +
                                        std::string(kTokenPath) + R"("})");
  for (const char* list : {"initContainers", "containers"}) {
    for (const auto& c : spec.at(list).as_array()) {
      EXPECT_EQ(c.at("volumeMounts"), json::array{mount}) << list;
    }
  }
}

TEST_F(ServiceAccountAdmissionTest, AMissingAccountIsForbidden) {
  Response r = CreatePod("p", R"({"serviceAccountName":"robot","containers":[{"name":"c","image":"nginx"}]})");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(Message(r),
            "pods \"p\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").status, 404);
}

TEST_F(ServiceAccountAdmissionTest, ThePodsChoiceThenTheAccountsDecideWhetherTheTokenIsMounted) {
  CreateAccount("quiet", R"(,"automountServiceAccountToken":false)");
  Response quiet = CreatePod("a", R"({"serviceAccountName":"quiet","containers":[{"name":"c","image":"nginx"}]})");
  ASSERT_EQ(quiet.status, 201) << quiet.body;
  EXPECT_FALSE(Spec(quiet).contains("volumes"));
  EXPECT_FALSE(Spec(quiet).at("containers").at(0).as_object().contains("volumeMounts"));

  Response wants = CreatePod(
      "b", R"({"serviceAccountName":"quiet","automountServiceAccountToken":true,"containers":[{"name":"c","image":"nginx"}]})");
  ASSERT_EQ(wants.status, 201) << wants.body;
  EXPECT_EQ(Spec(wants).at("volumes").as_array().size(), 1u);

  CreateAccount("default");
  Response declines = CreatePod("c", R"({"automountServiceAccountToken":false,"containers":[{"name":"c","image":"nginx"}]})");
  ASSERT_EQ(declines.status, 201) << declines.body;
  EXPECT_FALSE(Spec(declines).contains("volumes"));
}

TEST_F(ServiceAccountAdmissionTest, AContainerWithSomethingAtTheTokensPathKeepsIt) {
  CreateAccount("default");
  Response r = CreatePod("p", R"({"volumes":[{"name":"mine","emptyDir":{}}],"containers":[
      {"name":"own","image":"nginx","volumeMounts":[{"name":"mine","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},
      {"name":"plain","image":"nginx"}]})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object spec = Spec(r);
  const json::array& containers = spec.at("containers").as_array();
  EXPECT_EQ(containers[0].at("volumeMounts").as_array().size(), 1u);
  EXPECT_EQ(containers[0].at("volumeMounts").at(0).at("name"), "mine");
  EXPECT_EQ(containers[1].at("volumeMounts").at(0).at("mountPath").as_string(), kTokenPath);
  EXPECT_EQ(spec.at("volumes").as_array().size(), 2u);
}

TEST_F(ServiceAccountAdmissionTest, APodWithoutPullSecretsTakesTheAccounts) {
  CreateAccount("default", R"(,"imagePullSecrets":[{"name":"registry"}])");
  Response takes = CreatePod("a", kOneContainer);
  ASSERT_EQ(takes.status, 201) << takes.body;
  EXPECT_EQ(Spec(takes).at("imagePullSecrets"), json::parse(R"([{"name":"registry"}])"));
  Response keeps = CreatePod("b", R"({"imagePullSecrets":[{"name":"own"}],"containers":[{"name":"c","image":"nginx"}]})");
  ASSERT_EQ(keeps.status, 201) << keeps.body;
  EXPECT_EQ(Spec(keeps).at("imagePullSecrets"), json::parse(R"([{"name":"own"}])"));
}

TEST_F(ServiceAccountAdmissionTest, AnAccountEnforcingMountableSecretsLimitsThePodsSecrets) {
  CreateAccount("strict", R"(,"secrets":[{"name":"allowed"}])");
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/default/serviceaccounts/strict",
                 R"({"metadata":{"annotations":{"kubernetes.io/enforce-mountable-secrets":"true"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  Response volume = CreatePod("a", R"({"serviceAccountName":"strict","volumes":[{"name":"s","secret":{"secretName":"other"}}],
                                       "containers":[{"name":"c","image":"nginx"}]})");
  EXPECT_EQ(volume.status, 403) << volume.body;
  EXPECT_EQ(Message(volume),
            "pods \"a\" is forbidden: volume with secret.secretName=\"other\" is not allowed because service account "
            "strict does not reference that secret");
  Response env = CreatePod("b", R"({"serviceAccountName":"strict","containers":[{"name":"c","image":"nginx",
      "env":[{"name":"X","valueFrom":{"secretKeyRef":{"name":"other","key":"k"}}}]}]})");
  EXPECT_EQ(env.status, 403) << env.body;
  EXPECT_EQ(Message(env),
            "pods \"b\" is forbidden: container c with envVar X referencing secret.secretName=\"other\" is not allowed "
            "because service account strict does not reference that secret");
  Response listed = CreatePod("c", R"({"serviceAccountName":"strict","volumes":[{"name":"s","secret":{"secretName":"allowed"}}],
                                       "containers":[{"name":"c","image":"nginx"}]})");
  EXPECT_EQ(listed.status, 201) << listed.body;
}

TEST_F(ServiceAccountAdmissionTest, MirrorPodsReferenceNoAccountNorSecret) {
  const std::string mirror = R"(,"annotations":{"kubernetes.io/config.mirror":"x"})";
  Response plain = CreatePod("a", kOneContainer, mirror);
  ASSERT_EQ(plain.status, 201) << plain.body;
  EXPECT_FALSE(Spec(plain).contains("serviceAccountName"));
  EXPECT_FALSE(Spec(plain).contains("volumes"));
  Response named = CreatePod("b", R"({"serviceAccountName":"x","containers":[{"name":"c","image":"nginx"}]})", mirror);
  EXPECT_EQ(named.status, 403);
  EXPECT_EQ(Message(named), "pods \"b\" is forbidden: a mirror pod may not reference service accounts");
  Response secret = CreatePod("c", R"({"volumes":[{"name":"s","secret":{"secretName":"x"}}],"containers":[{"name":"c","image":"nginx"}]})",
                              mirror);
  EXPECT_EQ(secret.status, 403);
  EXPECT_EQ(Message(secret), "pods \"c\" is forbidden: a mirror pod may not reference secrets");
}

TEST_F(ServiceAccountAdmissionTest, TheDeprecatedAliasNamesTheAccount) {
  CreateAccount("robot");
  Response r = CreatePod("p", R"({"serviceAccount":"robot","containers":[{"name":"c","image":"nginx"}]})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Spec(r).at("serviceAccountName"), "robot");
  EXPECT_EQ(Spec(r).at("serviceAccount"), "robot");
}

}  // namespace
}  // namespace berth::apiserver
