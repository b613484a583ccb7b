// Service account tokens as kube-apiserver issues and checks them:
// serviceaccounts/token (TokenRequest), the token as a bearer credential,
// TokenReview, bound objects, other keys and OIDC discovery.

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <variant>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/time/rfc3339.h"
#include "apiserver/authz/service_account_tokens.h"
#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// One generated key for the whole binary (RSA generation is slow).
std::shared_ptr<const ServiceAccountTokens> SharedTokens(ServiceAccountTokenOptions options = {}) {
  auto loaded = ServiceAccountTokens::Load(options);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return std::shared_ptr<const ServiceAccountTokens>(std::move(loaded).value());
}

const std::shared_ptr<const ServiceAccountTokens>& DefaultTokens() {
  static const auto tokens = SharedTokens();
  return tokens;
}

json::object Payload(const std::string& token) {
  const size_t first = token.find('.');
  const size_t second = token.find('.', first + 1);
  std::string text = token.substr(first + 1, second - first - 1);
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (text.size() % 4) text += '=';
  auto decoded = api::Base64Decode(text);
  return json::parse(std::get<std::string>(decoded)).as_object();
}

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class ServiceAccountTokenTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override { options.service_account_tokens = tokens_; }

  void SetUp() override {
    testing::ApiFixture::SetUp();
    CreateAccount("robot");
  }

  void CreateAccount(const std::string& name) {
    ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/serviceaccounts",
                   R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")" + name + R"("}})")
                  .status,
              201);
  }

  Response RequestToken(const std::string& account, const std::string& spec = "{}") {
    return Call("POST", "/api/v1/namespaces/default/serviceaccounts/" + account + "/token",
                R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":)" + spec + "}");
  }

  std::string Token(const std::string& account, const std::string& spec = "{}") {
    Response r = RequestToken(account, spec);
    EXPECT_EQ(r.status, 201) << r.body;
    return std::string(json::parse(r.body).at("status").at("token").as_string());
  }

  // The review of `token`'s status.
  json::object Review(const std::string& token, const std::string& audiences = "") {
    Response r = Call("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token +
                          "\"" + (audiences.empty() ? "" : R"(,"audiences":)" + audiences) + "}}");
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body).at("status").as_object();
  }

  // Who the server says the bearer of `token` is.
  Response Whoami(const std::string& token) {
    Request r;
    r.method = "POST";
    r.path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    r.body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
    r.content_type = "application/json";
    r.accept = "application/json";
    r.authorization = "Bearer " + token;
    return api_->Handle(r);
  }

  std::shared_ptr<const ServiceAccountTokens> tokens_ = DefaultTokens();
};

TEST_F(ServiceAccountTokenTest, ATokenRequestAnswersASignedTokenForTheAccount) {
  Response r = RequestToken("robot");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object answer = json::parse(r.body).as_object();
  EXPECT_EQ(answer.at("kind"), "TokenRequest");
  EXPECT_EQ(answer.at("metadata").at("name"), "robot");
  EXPECT_EQ(answer.at("metadata").at("namespace"), "default");
  EXPECT_EQ(answer.at("spec").at("expirationSeconds"), 3600);
  EXPECT_EQ(answer.at("spec").at("audiences"), json::array{"https://kubernetes.default.svc.cluster.local"});
  EXPECT_TRUE(answer.at("spec").at("boundObjectRef").is_null());
  const std::string token(answer.at("status").at("token").as_string());
  json::object claims = Payload(token);
  EXPECT_EQ(claims.at("iss"), "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(claims.at("sub"), "system:serviceaccount:default:robot");
  EXPECT_EQ(claims.at("kubernetes.io").at("namespace"), "default");
  EXPECT_EQ(claims.at("kubernetes.io").at("serviceaccount").at("name"), "robot");
  EXPECT_NEAR(static_cast<double>(claims.at("exp").as_int64() - claims.at("iat").as_int64()), 3600, 1);
  EXPECT_NEAR(static_cast<double>(claims.at("iat").as_int64()), static_cast<double>(Now()), 5);

  Response who = Whoami(token);
  ASSERT_EQ(who.status, 201) << who.body;
  json::object user = json::parse(who.body).at("status").at("userInfo").as_object();
  EXPECT_EQ(user.at("username"), "system:serviceaccount:default:robot");
  EXPECT_EQ(user.at("groups"), json::parse(R"(["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"])"));
  EXPECT_TRUE(user.at("extra").at("authentication.kubernetes.io/credential-id").at(0).as_string().starts_with("JTI="));
}

TEST_F(ServiceAccountTokenTest, BadRequestsAreRefusedAsKubeRefusesThem) {
  Response missing = RequestToken("nobody");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body).at("message"), "serviceaccounts \"nobody\" not found");
  Response short_lived = RequestToken("robot", R"({"expirationSeconds":60})");
  EXPECT_EQ(short_lived.status, 422);
  EXPECT_EQ(json::parse(short_lived.body).at("message"),
            "TokenRequest.authentication.k8s.io \"robot\" is invalid: spec.expirationSeconds: Invalid value: 60: may "
            "not specify a duration less than 10 minutes");
  Response other_name = Call("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token",
                             R"({"kind":"TokenRequest","metadata":{"name":"other"},"spec":{}})");
  EXPECT_EQ(other_name.status, 422) << other_name.body;
  Response configmap = RequestToken("robot", R"({"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"x"}})");
  EXPECT_EQ(configmap.status, 400);
  EXPECT_EQ(json::parse(configmap.body).at("message"), "cannot bind token to object of type /v1, Kind=ConfigMap");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/serviceaccounts/robot/token").status, 405);
}

TEST_F(ServiceAccountTokenTest, APodBoundTokenLivesAsLongAsThePod) {
  CreateAccount("default");
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods",
                 R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{"serviceAccountName":"robot",
                     "containers":[{"name":"c","image":"nginx"}]}})")
                .status,
            201);
  Response wrong = RequestToken("default", R"({"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}})");
  EXPECT_EQ(wrong.status, 400);
  EXPECT_EQ(json::parse(wrong.body).at("message"),
            "cannot bind token for serviceaccount \"default\" to pod running with serviceaccount \"robot\"");
  Response other_uid =
      RequestToken("robot", R"({"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p","uid":"not-its-uid"}})");
  EXPECT_EQ(other_uid.status, 409) << other_uid.body;

  const std::string token = Token("robot", R"({"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}})");
  json::object claims = Payload(token);
  EXPECT_EQ(claims.at("kubernetes.io").at("pod").at("name"), "p");
  json::object review = Review(token);
  EXPECT_EQ(review.at("authenticated"), true);
  EXPECT_EQ(review.at("user").at("extra").at("authentication.kubernetes.io/pod-name"), json::array{"p"});

  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/pods/p").status, 200);
  review = Review(token);
  EXPECT_FALSE(review.contains("authenticated"));
  EXPECT_EQ(review.at("error"), "pods \"p\" not found");
  EXPECT_EQ(Whoami(token).status, 401);
}

TEST_F(ServiceAccountTokenTest, AnAccountDeletedAndMadeAgainIsNotTheTokensAccount) {
  const std::string token = Token("robot");
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/serviceaccounts/robot").status, 200);
  CreateAccount("robot");
  json::object review = Review(token);
  EXPECT_TRUE(std::string(review.at("error").as_string()).starts_with("service account UID (")) << review;
  EXPECT_EQ(Whoami(token).status, 401);
}

TEST_F(ServiceAccountTokenTest, ATokenIsOnlyForItsAudiences) {
  const std::string token = Token("robot", R"({"audiences":["vault"]})");
  json::object review = Review(token);
  EXPECT_EQ(review.at("error"),
            "token audiences [\"vault\"] is invalid for the target audiences "
            "[\"https://kubernetes.default.svc.cluster.local\"]");
  EXPECT_EQ(Whoami(token).status, 401);
  json::object for_vault = Review(token, R"(["vault","other"])");
  EXPECT_EQ(for_vault.at("authenticated"), true);
  EXPECT_EQ(for_vault.at("audiences"), json::array{"vault"});
}

TEST_F(ServiceAccountTokenTest, ATamperedOrForeignTokenIsRefusedAndAnUnknownOneIsNotOurs) {
  std::string token = Token("robot");
  std::string tampered = token;
  tampered[tampered.size() - 5] = tampered[tampered.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(Review(tampered).at("error"), "token could not be verified: invalid signature");
  EXPECT_EQ(Whoami(tampered).status, 401);
  // Signed by another key for the same issuer.
  auto other = SharedTokens();
  TokenClaims claims;
  claims.ns = "default";
  claims.account = {"robot", "x"};
  claims.audiences = {"https://kubernetes.default.svc.cluster.local"};
  claims.issued_at = Now();
  claims.expires_at = Now() + 3600;
  auto foreign = other->Sign(claims);
  ASSERT_TRUE(foreign.ok());
  EXPECT_EQ(Review(foreign.value()).at("error"), "token could not be verified: invalid signature");
  // Not a token of any authenticator: no error, not authenticated; the
  // request itself stays anonymous (no authenticator is configured).
  json::object unknown = Review("abc");
  EXPECT_FALSE(unknown.contains("authenticated"));
  EXPECT_FALSE(unknown.contains("error"));
  Response anonymous = Whoami("abc");
  ASSERT_EQ(anonymous.status, 201);
  EXPECT_EQ(json::parse(anonymous.body).at("status").at("userInfo").at("username"), "system:anonymous");
}

// kube's legacy tokens (a service-account-token Secret's): its legacy
// claims, no audience or expiry, valid while the Secret holds exactly this
// token and the account is there with the token's uid.
TEST_F(ServiceAccountTokenTest, ALegacyTokenIsValidWhileItsSecretHoldsIt) {
  Response account = Call("GET", "/api/v1/namespaces/default/serviceaccounts/robot");
  const std::string uid(json::parse(account.body).at("metadata").at("uid").as_string());
  TokenClaims claims;
  claims.legacy = true;
  claims.ns = "default";
  claims.account = {"robot", uid};
  claims.secret = TokenBinding{"robot-token", ""};
  auto signed_token = tokens_->Sign(claims);
  ASSERT_TRUE(signed_token.ok());
  const std::string token = signed_token.value();
  json::object payload = Payload(token);
  EXPECT_EQ(payload.at("iss"), "kubernetes/serviceaccount");
  EXPECT_EQ(payload.at("kubernetes.io/serviceaccount/service-account.uid").as_string(), uid);
  EXPECT_EQ(payload.at("kubernetes.io/serviceaccount/secret.name"), "robot-token");
  EXPECT_FALSE(payload.contains("exp"));
  EXPECT_FALSE(payload.contains("aud"));

  EXPECT_EQ(Review(token).at("error"), "Token has been invalidated");  // no Secret yet
  auto secret = [&](const std::string& held) {
    return R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token",)"
           R"("metadata":{"name":"robot-token","annotations":{"kubernetes.io/service-account.name":"robot"}},)"
           R"("data":{"token":")" + api::Base64Encode(held) + R"("}})";
  };
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/secrets", secret("another")).status, 201);
  EXPECT_EQ(Review(token).at("error"), "Token does not match server's copy");
  ASSERT_EQ(Call("PUT", "/api/v1/namespaces/default/secrets/robot-token", secret(token)).status, 200);
  json::object review = Review(token, R"(["vault"])");
  EXPECT_EQ(review.at("authenticated"), true) << review;
  EXPECT_EQ(review.at("user").at("username"), "system:serviceaccount:default:robot");
  EXPECT_EQ(review.at("audiences"), json::array{"vault"});  // audience-agnostic
  EXPECT_EQ(Whoami(token).status, 201);
  // Its use is tracked by the day, as kube's legacy token tracking does.
  json::value used = json::parse(Call("GET", "/api/v1/namespaces/default/secrets/robot-token").body);
  const std::string today = api::FormatRfc3339(std::chrono::system_clock::now()).substr(0, 10);
  const std::string label(used.at("metadata").at("labels").at("kubernetes.io/legacy-token-last-used").as_string());
  EXPECT_TRUE(label == today || label == api::FormatRfc3339(std::chrono::system_clock::now() - std::chrono::hours(1))
                                              .substr(0, 10))
      << label;
  // Marked invalid: refused until the label goes.
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/default/secrets/robot-token",
                 R"({"metadata":{"labels":{"kubernetes.io/legacy-token-invalid-since":"2026-01-01"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(Review(token).at("error"),
            "the token in secret default/robot-token for service account default/robot has been marked invalid. Use "
            "tokens from the TokenRequest API or manually created secret-based tokens, or remove the "
            "'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token");
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/default/secrets/robot-token",
                 R"({"metadata":{"labels":{"kubernetes.io/legacy-token-invalid-since":null}}})",
                 "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(Review(token).at("authenticated"), true);

  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/serviceaccounts/robot").status, 200);
  EXPECT_EQ(Review(token).at("error"), "ServiceAccount default/robot has been deleted");
  CreateAccount("robot");
  EXPECT_TRUE(std::string(Review(token).at("error").as_string()).starts_with("ServiceAccount UID ("));
  EXPECT_EQ(Whoami(token).status, 401);
}

TEST_F(ServiceAccountTokenTest, AnExpiredTokenIsRefused) {
  TokenClaims claims;
  auto account = Call("GET", "/api/v1/namespaces/default/serviceaccounts/robot");
  claims.ns = "default";
  claims.account = {"robot", std::string(json::parse(account.body).at("metadata").at("uid").as_string())};
  claims.audiences = {"https://kubernetes.default.svc.cluster.local"};
  claims.issued_at = Now() - 7200;
  claims.expires_at = Now() - 3600;
  auto token = tokens_->Sign(claims);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(Review(token.value()).at("error"), "service account token has expired");
  claims.expires_at = Now() + 3600;
  auto valid = tokens_->Sign(claims);
  EXPECT_EQ(Review(valid.value()).at("authenticated"), true);
}

TEST_F(ServiceAccountTokenTest, DiscoveryPublishesTheIssuerAndItsKeys) {
  Response config = Call("GET", "/.well-known/openid-configuration");
  ASSERT_EQ(config.status, 200) << config.body;
  json::object c = json::parse(config.body).as_object();
  EXPECT_EQ(c.at("issuer"), "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(c.at("jwks_uri"), "https://kubernetes.default.svc.cluster.local/openid/v1/jwks");
  EXPECT_EQ(c.at("id_token_signing_alg_values_supported"), json::array{"RS256"});
  Response jwks = Call("GET", "/openid/v1/jwks");
  ASSERT_EQ(jwks.status, 200);
  EXPECT_EQ(jwks.content_type, "application/jwk-set+json");
  const json::value published = json::parse(jwks.body);
  const json::array& keys = published.at("keys").as_array();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].at("kty"), "RSA");
  EXPECT_EQ(keys[0].at("e"), "AQAB");
  // The token's header names the published key.
  const std::string token = Token("robot");
  std::string header = token.substr(0, token.find('.'));
  while (header.size() % 4) header += '=';
  for (char& ch : header) {
    if (ch == '-') ch = '+';
    if (ch == '_') ch = '/';
  }
  json::object h = json::parse(std::get<std::string>(api::Base64Decode(header))).as_object();
  EXPECT_EQ(h.at("alg"), "RS256");
  EXPECT_EQ(h.at("kid"), keys[0].at("kid"));
}

// A PEM file of a new RSA key (private, or its public half).
// `key` (taken) written as a PEM private or public key file.
std::string WriteKey(EVP_PKEY* key, const std::string& name, bool private_key) {
  const std::string path = ::testing::TempDir() + "/" + name;
  FILE* f = std::fopen(path.c_str(), "w");
  if (private_key) {
    PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_PUBKEY(f, key);
  }
  std::fclose(f);
  EVP_PKEY_free(key);
  return path;
}

std::string WriteKeyFile(const std::string& name, bool private_key) {
  return WriteKey(EVP_RSA_gen(2048), name, private_key);
}
// An ECDSA key on `curve`.
std::string WriteEcKeyFile(const std::string& name, const char* curve, bool private_key) {
  return WriteKey(EVP_EC_gen(curve), name, private_key);
}

std::string Header(const std::string& token) {
  std::string text = token.substr(0, token.find('.'));
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (text.size() % 4) text += '=';
  return std::get<std::string>(api::Base64Decode(text));
}

TEST(ServiceAccountTokensTest, EcdsaKeysSignAndVerifyAsJwsSaysForTheirCurve) {
  struct Case {
    const char* curve;
    const char* alg;
    const char* crv;
    size_t signature_bytes;
  };
  for (const Case& c : {Case{"P-256", "ES256", "P-256", 64}, Case{"P-384", "ES384", "P-384", 96},
                        Case{"P-521", "ES512", "P-521", 132}}) {
    ServiceAccountTokenOptions options;
    options.signing_key_file = WriteEcKeyFile(std::string("sa-") + c.curve + ".key", c.curve, true);
    options.key_files = {WriteKeyFile("sa-rsa-too.pub", false)};
    auto tokens = ServiceAccountTokens::Load(options);
    ASSERT_TRUE(tokens.ok()) << tokens.status().message();
    TokenClaims claims;
    claims.ns = "default";
    claims.account = {"robot", "u"};
    claims.audiences = {std::string(kDefaultServiceAccountIssuer)};
    claims.issued_at = Now();
    claims.expires_at = Now() + 600;
    auto token = tokens.value()->Sign(claims);
    ASSERT_TRUE(token.ok());
    EXPECT_EQ(json::parse(Header(token.value())).at("alg"), c.alg);
    // JWS's r || s, each the curve's size (not OpenSSL's DER).
    std::string signature = token.value().substr(token.value().rfind('.') + 1);
    EXPECT_EQ(signature.size(), (c.signature_bytes * 4 + 2) / 3) << c.curve;
    auto verified = tokens.value()->Verify(token.value(), Now());
    ASSERT_TRUE(verified.has_value() && verified->ok()) << c.curve;
    // Tampered: refused.
    std::string tampered = token.value();
    tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
    auto refused = tokens.value()->Verify(tampered, Now());
    ASSERT_TRUE(refused.has_value());
    EXPECT_FALSE(refused->ok()) << c.curve;
    // The JWKS has both keys, the EC one with its curve and coordinates.
    const json::object jwks = tokens.value()->Jwks();
    const json::array& keys = jwks.at("keys").as_array();
    ASSERT_EQ(keys.size(), 2u);
    EXPECT_EQ(keys[0].at("kty"), "EC");
    EXPECT_EQ(keys[0].at("crv"), c.crv);
    EXPECT_EQ(keys[0].at("alg"), c.alg);
    EXPECT_EQ(keys[1].at("alg"), "RS256");
    options.issuers = {"https://issuer.example"};
    auto discovery = ServiceAccountTokens::Load(options).value()->OpenIdConfiguration();
    ASSERT_TRUE(discovery.has_value());
    EXPECT_EQ(discovery->at("id_token_signing_alg_values_supported"), (json::array{c.alg, "RS256"}));
  }
  // A curve kube does not take is no key.
  ServiceAccountTokenOptions options;
  options.signing_key_file = WriteEcKeyFile("sa-k256.key", "secp256k1", true);
  EXPECT_EQ(ServiceAccountTokens::Load(options).status().message(),
            "--service-account-signing-key-file: " + options.signing_key_file + " holds no RSA or ECDSA private key");
}

TEST(ServiceAccountTokensTest, KeysComeFromTheFlagsFiles) {
  const std::string signing = WriteKeyFile("sa-signing.key", true);
  const std::string verifying = WriteKeyFile("sa-other.pub", false);
  ServiceAccountTokenOptions options;
  options.signing_key_file = signing;
  options.key_files = {verifying};
  options.issuers = {"https://issuer.example", "https://old.example"};
  auto tokens = ServiceAccountTokens::Load(options);
  ASSERT_TRUE(tokens.ok()) << tokens.status().message();
  EXPECT_EQ(tokens.value()->Jwks().at("keys").as_array().size(), 2u);
  EXPECT_EQ(tokens.value()->audiences(), options.issuers);
  TokenClaims claims;
  claims.ns = "default";
  claims.account = {"robot", "u"};
  claims.audiences = {"https://old.example"};
  claims.issued_at = Now();
  claims.expires_at = Now() + 600;
  auto token = tokens.value()->Sign(claims);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(Payload(token.value()).at("iss"), "https://issuer.example");
  auto verified = tokens.value()->Verify(token.value(), Now());
  ASSERT_TRUE(verified.has_value());
  ASSERT_TRUE(verified->ok()) << verified->status().message();
  EXPECT_EQ(verified->value().account.name, "robot");

  options.signing_key_file = verifying;  // a public key cannot sign
  auto refused = ServiceAccountTokens::Load(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().message().starts_with("--service-account-signing-key-file: ")) << refused.status().message();
  options.signing_key_file = ::testing::TempDir() + "/no-such.key";
  EXPECT_EQ(ServiceAccountTokens::Load(options).status().message(),
            "--service-account-signing-key-file: cannot read " + options.signing_key_file);
}

TEST(ServiceAccountTokensTest, AGeneratedKeyIsKeptInItsFile) {
  ServiceAccountTokenOptions options;
  options.generated_key_file = ::testing::TempDir() + "/sa-generated.key";
  std::remove(options.generated_key_file.c_str());
  auto first = ServiceAccountTokens::Load(options);
  ASSERT_TRUE(first.ok());
  auto again = ServiceAccountTokens::Load(options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first.value()->Jwks(), again.value()->Jwks());
  std::remove(options.generated_key_file.c_str());
}

class MaxExpirationTest : public ServiceAccountTokenTest {
 protected:
  MaxExpirationTest() {
    ServiceAccountTokenOptions options;
    options.max_expiration_seconds = 3600;
    tokens_ = SharedTokens(options);
  }
};

TEST_F(MaxExpirationTest, ALongerRequestIsShortenedWithAWarning) {
  Response r = RequestToken("robot", R"({"expirationSeconds":7200})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json::parse(r.body).at("spec").at("expirationSeconds"), 3600);
  bool warned = false;
  for (const auto& [name, value] : r.headers) {
    warned |= name == "Warning" && value.find("requested expiration of 7200 seconds shortened to 3600 seconds") !=
                                       std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST_F(ServiceAccountTokenTest, KubesDefaultProjectionOfAPodIsExtendedToAYear) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods",
                 R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{"serviceAccountName":"robot",
                     "containers":[{"name":"c","image":"nginx"}]}})")
                .status,
            201);
  Response r = RequestToken("robot", R"({"expirationSeconds":3607,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object answer = json::parse(r.body).as_object();
  json::object claims = Payload(std::string(answer.at("status").at("token").as_string()));
  EXPECT_EQ(claims.at("exp").as_int64() - claims.at("iat").as_int64(), 365 * 24 * 3600);
  EXPECT_EQ(claims.at("kubernetes.io").at("warnafter").as_int64() - claims.at("iat").as_int64(), 3607);
}

}  // namespace
}  // namespace berth::apiserver
