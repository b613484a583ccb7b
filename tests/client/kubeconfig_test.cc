// kubeconfig loading as kubectl does it: which file, which context, how a
// KUBECONFIG list merges, what --server and --token override, relative paths,
// the in-cluster fallback, and errors that name the file and key.

#include "client/kubeconfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "api/codec/base64.h"

namespace berth::client {
namespace {

namespace fs = std::filesystem;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("berth-kubeconfig-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  ClientConfigSources Sources() {
    ClientConfigSources s;
    s.home = (dir_ / "home").string();  // no ~/.kube/config unless a test writes one
    s.service_account_dir = (dir_ / "serviceaccount").string();
    return s;
  }

  fs::path dir_;
};

constexpr char kTwoContexts[] = R"(apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: api.prod
- name: dev
  cluster:
    server: http://127.0.0.1:8080
users:
- name: alice
  user:
    token: alice-token
- name: bob
  user:
    client-certificate: certs/bob.crt
    client-key: /abs/bob.key
contexts:
- name: prod-alice
  context: {cluster: prod, user: alice, namespace: team}
- name: dev-bob
  context: {cluster: dev, user: bob}
current-context: prod-alice
)";

TEST_F(KubeconfigTest, ParsesClustersUsersContextsAndResolvesRelativePathsAgainstTheFile) {
  std::string path = Write("conf/config", kTwoContexts);
  auto k = LoadKubeconfigFile(path);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->current_context, "prod-alice");
  ASSERT_EQ(k->clusters.count("prod"), 1u);
  EXPECT_EQ(k->clusters["prod"].server, "https://10.0.0.1:6443");
  EXPECT_EQ(k->clusters["prod"].tls_server_name, "api.prod");
  EXPECT_EQ(k->clusters["prod"].certificate_authority, (dir_ / "conf/certs/ca.crt").string());
  EXPECT_EQ(k->users["bob"].client_certificate, (dir_ / "conf/certs/bob.crt").string());
  EXPECT_EQ(k->users["bob"].client_key, "/abs/bob.key");  // absolute: unchanged
  EXPECT_EQ(k->contexts["prod-alice"].namespace_name, "team");
  EXPECT_EQ(k->users["alice"].token, "alice-token");
}

TEST_F(KubeconfigTest, CurrentContextSelectsClusterAndUserAndReadsTheCaFile) {
  Write("conf/certs/ca.crt", "CA PEM");
  auto s = Sources();
  s.kubeconfig = Write("conf/config", kTwoContexts);
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "CA PEM");
  EXPECT_EQ(c->tls_server_name, "api.prod");
  EXPECT_EQ(c->bearer_token, "alice-token");
}

TEST_F(KubeconfigTest, ContextFlagOverridesCurrentContextAndMissingContextIsAnError) {
  Write("conf/certs/bob.crt", "BOB CERT");
  std::string text = kTwoContexts;
  text.replace(text.find("/abs/bob.key"), 12, "certs/bob.key");
  Write("conf/certs/bob.key", "BOB KEY");
  auto s = Sources();
  s.kubeconfig = Write("conf/config", text);
  s.context = "dev-bob";
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "http://127.0.0.1:8080");
  EXPECT_EQ(c->client_certificate_pem, "BOB CERT");
  EXPECT_EQ(c->client_key_pem, "BOB KEY");
  EXPECT_TRUE(c->bearer_token.empty());

  s.context = "nope";
  auto missing = LoadClientConfig(s);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "context was not found for specified context: nope");
}

TEST_F(KubeconfigTest, ServerAndTokenFlagsOverrideTheKubeconfig) {
  Write("conf/certs/ca.crt", "CA PEM");
  auto s = Sources();
  s.kubeconfig = Write("conf/config", kTwoContexts);
  s.server = "https://127.0.0.1:7443";
  s.token = "flag-token";
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://127.0.0.1:7443");
  EXPECT_EQ(c->bearer_token, "flag-token");
  EXPECT_EQ(c->ca_pem, "CA PEM");  // the cluster's trust stays
}

TEST_F(KubeconfigTest, KubeconfigListMergesFirstDefinitionWinsAndFirstCurrentContext) {
  // The first file sets no current-context and defines cluster "c" one way;
  // the second defines "c" differently, a user and a context, and sets
  // current-context; the third sets another current-context.
  std::string first = Write("a", R"(clusters:
- name: c
  cluster: {server: "http://first:1"}
)");
  std::string second = Write("b", R"(clusters:
- name: c
  cluster: {server: "http://second:2"}
users:
- name: u
  user: {token: from-b}
contexts:
- name: ctx
  context: {cluster: c, user: u}
- name: other
  context: {cluster: c}
current-context: ctx
)");
  std::string third = Write("c", R"(users:
- name: u
  user: {token: from-c}
current-context: other
)");
  auto s = Sources();
  s.kubeconfig_env = first + ":" + (dir_ / "missing").string() + "::" + second + ":" + third;
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "http://first:1");
  EXPECT_EQ(c->bearer_token, "from-b");
}

TEST_F(KubeconfigTest, ExplicitKubeconfigWinsOverEnvironmentAndHome) {
  std::string explicit_file =
      Write("explicit", R"(clusters: [{name: c, cluster: {server: "http://explicit:1"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)");
  std::string env_file = Write("env", R"(clusters: [{name: c, cluster: {server: "http://env:1"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)");
  Write("home/.kube/config", R"(clusters: [{name: c, cluster: {server: "http://home:1"}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)");
  auto s = Sources();
  EXPECT_EQ(LoadClientConfig(s)->server, "http://home:1");
  s.kubeconfig_env = env_file;
  EXPECT_EQ(LoadClientConfig(s)->server, "http://env:1");
  s.kubeconfig = explicit_file;
  EXPECT_EQ(LoadClientConfig(s)->server, "http://explicit:1");
}

TEST_F(KubeconfigTest, InlineDataWinsOverFilesAndIsBase64Decoded) {
  std::string text = std::string(R"(clusters:
- name: c
  cluster:
    server: https://h:1
    certificate-authority: missing-ca.crt
    certificate-authority-data: )") +
                     api::Base64Encode("INLINE CA") + R"(
users:
- name: u
  user:
    client-certificate-data: )" +
                     api::Base64Encode("INLINE CERT") + R"(
    client-key-data: )" +
                     api::Base64Encode("INLINE KEY") + R"(
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)";
  auto s = Sources();
  s.kubeconfig = Write("config", text);
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_pem, "INLINE CA");
  EXPECT_EQ(c->client_certificate_pem, "INLINE CERT");
  EXPECT_EQ(c->client_key_pem, "INLINE KEY");
}

TEST_F(KubeconfigTest, TokenFileIsReadRelativeToTheKubeconfig) {
  Write("conf/token", "tok\n");
  auto s = Sources();
  s.kubeconfig = Write("conf/config", R"(clusters: [{name: c, cluster: {server: "https://h:1"}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
)");
  auto c = LoadClientConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->bearer_token_file, (dir_ / "conf/token").string());
}

TEST_F(KubeconfigTest, ErrorsNameTheFileAndTheKey) {
  struct Case {
    const char* name;
    std::string text;
    std::string want;  // a part of the message
  };
  const std::string cfg = (dir_ / "bad").string();
  std::vector<Case> cases = {
      {"clusters not a list", "clusters: {a: b}\n", cfg + ": clusters: expected a list"},
      {"entry without a name", "users: [{user: {token: x}}]\n", cfg + ": users[0].name: required"},
      {"bad base64", "clusters: [{name: c, cluster: {certificate-authority-data: '!!!'}}]\n",
       cfg + ": clusters[c].certificate-authority-data: illegal base64 data at input byte 0"},
      {"bad bool", "clusters: [{name: c, cluster: {insecure-skip-tls-verify: maybe}}]\n",
       cfg + ": clusters[c].insecure-skip-tls-verify: expected true or false"},
      {"missing CA file",
       "clusters: [{name: c, cluster: {server: 'https://h:1', certificate-authority: nope.crt}}]\n"
       "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n",
       cfg + ": clusters[c].certificate-authority: open " + (dir_ / "nope.crt").string() +
           ": no such file or directory"},
      {"missing client key",
       "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
       "users: [{name: u, user: {client-certificate-data: Y2VydA==, client-key: k.pem}}]\n"
       "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
       cfg + ": users[u].client-key: open " + (dir_ / "k.pem").string()},
      {"unknown cluster", "contexts: [{name: x, context: {cluster: gone}}]\ncurrent-context: x\n",
       cfg + ": contexts[x].cluster: cluster \"gone\" not found"},
      {"unknown current context", "current-context: gone\n",
       cfg + ": current-context: context \"gone\" does not exist"},
      {"no server",
       "clusters: [{name: c, cluster: {}}]\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "current-context: x\n",
       cfg + ": clusters[c].server: cluster has no server defined"},
      {"insecure with a CA",
       "clusters: [{name: c, cluster: {server: 'https://h:1', insecure-skip-tls-verify: true, "
       "certificate-authority-data: Y2E=}}]\ncontexts: [{name: x, context: {cluster: "
       "c}}]\ncurrent-context: x\n",
       "specifying a root certificates file with the insecure flag is not allowed"},
      {"not YAML", "clusters: [\n", cfg + ": "},
      {"exec plugin", "users: [{name: u, user: {exec: {command: x}}}]\n",
       cfg + ": users[u].exec: not supported"},
  };
  for (const auto& c : cases) {
    std::ofstream(cfg) << c.text;
    auto s = Sources();
    s.kubeconfig = cfg;
    auto loaded = LoadClientConfig(s);
    ASSERT_FALSE(loaded.ok()) << c.name;
    EXPECT_NE(loaded.status().message().find(c.want), std::string::npos)
        << c.name << ": " << loaded.status().message();
  }
}

TEST_F(KubeconfigTest, MissingExplicitKubeconfigIsAnErrorButMissingHomeConfigFallsBack) {
  auto s = Sources();
  auto none = LoadClientConfig(s);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no configuration has been provided"), std::string::npos);
  auto fallback = LoadClientConfig(s, "http://127.0.0.1:8080");
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(fallback->server, "http://127.0.0.1:8080");

  s.kubeconfig = (dir_ / "absent").string();
  auto missing = LoadClientConfig(s, "http://127.0.0.1:8080");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(
      missing.status().message().find("--kubeconfig: open " + s.kubeconfig + ": no such file"),
      std::string::npos)
      << missing.status().message();
}

TEST_F(KubeconfigTest, InClusterConfigWhenNothingElseIsGiven) {
  Write("serviceaccount/token", "sa-token\n");
  Write("serviceaccount/ca.crt", "SA CA");
  auto s = Sources();
  s.service_host = "10.96.0.1";
  s.service_port = "443";
  auto c = LoadClientConfig(s, "http://127.0.0.1:8080");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://10.96.0.1:443");
  EXPECT_EQ(c->ca_pem, "SA CA");
  EXPECT_EQ(c->bearer_token_file, (dir_ / "serviceaccount/token").string());

  // IPv6 hosts are bracketed.
  s.service_host = "fd00::1";
  EXPECT_EQ(LoadClientConfig(s)->server, "https://[fd00::1]:443");

  // A kubeconfig (here in ~/.kube) takes precedence over the service account.
  Write("home/.kube/config",
        "clusters: [{name: c, cluster: {server: 'http://home:1'}}]\n"
        "contexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n");
  EXPECT_EQ(LoadClientConfig(s)->server, "http://home:1");

  // Only the host given: kube's message.
  ClientConfigSources half = Sources();
  half.service_host = "10.96.0.1";
  auto err = InClusterConfig(half);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(),
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
            "KUBERNETES_SERVICE_PORT must be "
            "defined");
}

}  // namespace
}  // namespace berth::client
