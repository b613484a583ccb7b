// The tokens controller running against a real API server in process, with a
// signer of its own: a token Secret of an existing account is filled in
// (token, namespace, ca.crt, the account's uid), one of no account or of an
// account deleted is deleted, and an account made again does not take the
// old one's Secrets.

#include "controllers/serviceaccount/tokens_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

std::string Decoded(const api::Object& secret, std::string_view key) {
  auto decoded = api::Base64Decode(api::StringAt(api::ObjectAt(secret.json(), "data"), key));
  const std::string* bytes = std::get_if<std::string>(&decoded);
  return bytes ? *bytes : std::string();
}

class TokensControllerTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    TokensControllerOptions options;
    options.root_ca = "-----BEGIN CERTIFICATE-----\nroot\n-----END CERTIFICATE-----\n";
    // The token names what it was signed for, so the test can read it back.
    options.sign = [](const LegacyToken& t) -> Result<std::string> {
      return "token-for:" + t.ns + "/" + t.account + "/" + t.account_uid + "/" + t.secret;
    };
    controller_ = std::make_unique<TokensController>(ControllerContext{*client_, *informers_}, options);
    ASSERT_TRUE(informers_->Start().ok());
    controller_->Run();
  }
  void TearDown() override {
    informers_->Stop();
    if (controller_) controller_->Stop();
  }

  std::string CreateAccount(const std::string& name) {
    auto created = client_->Create(api::Kind::kServiceAccount, "default", json::object{{"metadata", {{"name", name}}}});
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value()->uid() : "";
  }
  void CreateTokenSecret(const std::string& name, const std::string& account) {
    json::object secret{{"type", TokensController::kSecretType},
                        {"metadata",
                         {{"name", name}, {"annotations", {{TokensController::kNameAnnotation, account}}}}}};
    auto created = client_->Create(api::Kind::kSecret, "default", std::move(secret));
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  api::ObjectPtr Secret(const std::string& name) {
    auto got = client_->Get(api::Kind::kSecret, "default", name);
    return got.ok() ? got.value() : nullptr;
  }
  std::unique_ptr<TokensController> controller_;
};

TEST_F(TokensControllerTest, ATokenSecretOfAnAccountIsFilledIn) {
  const std::string uid = CreateAccount("robot");
  CreateTokenSecret("robot-token", "robot");
  ASSERT_TRUE(Eventually([&] {
    api::ObjectPtr s = Secret("robot-token");
    return s && !Decoded(*s, "token").empty();
  }));
  api::ObjectPtr secret = Secret("robot-token");
  EXPECT_EQ(Decoded(*secret, "token"), "token-for:default/robot/" + uid + "/robot-token");
  EXPECT_EQ(Decoded(*secret, "namespace"), "default");
  EXPECT_EQ(Decoded(*secret, "ca.crt"), "-----BEGIN CERTIFICATE-----\nroot\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(api::Annotation(*secret, TokensController::kUidAnnotation), uid);
  // A Secret of another type is not the controller's.
  auto opaque = client_->Create(api::Kind::kSecret, "default",
                                json::object{{"metadata", {{"name", "plain"}, {"annotations",
                                                                              {{TokensController::kNameAnnotation,
                                                                                "nobody"}}}}}});
  ASSERT_TRUE(opaque.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_NE(Secret("plain"), nullptr);
  EXPECT_TRUE(Decoded(*Secret("plain"), "token").empty());
}

TEST_F(TokensControllerTest, ATokenSecretOfNoAccountIsDeleted) {
  CreateTokenSecret("ghost-token", "ghost");
  EXPECT_TRUE(Eventually([&] { return Secret("ghost-token") == nullptr; }));
}

TEST_F(TokensControllerTest, AnAccountsTokenSecretsGoWithItAndAreNotItsSuccessorsTokens) {
  CreateAccount("robot");
  CreateTokenSecret("robot-token", "robot");
  ASSERT_TRUE(Eventually([&] {
    api::ObjectPtr s = Secret("robot-token");
    return s && !api::Annotation(*s, TokensController::kUidAnnotation).empty();
  }));
  ASSERT_TRUE(client_->Delete(api::Kind::kServiceAccount, "default", "robot").ok());
  EXPECT_TRUE(Eventually([&] { return Secret("robot-token") == nullptr; }));

  // A Secret naming the uid of an account gone, its name taken again: not the new one's.
  const std::string old_uid = CreateAccount("reborn");
  ASSERT_TRUE(client_->Delete(api::Kind::kServiceAccount, "default", "reborn").ok());
  CreateAccount("reborn");
  json::object stale{{"type", TokensController::kSecretType},
                     {"metadata",
                      {{"name", "stale-token"},
                       {"annotations",
                        {{TokensController::kNameAnnotation, "reborn"}, {TokensController::kUidAnnotation, old_uid}}}}}};
  ASSERT_TRUE(client_->Create(api::Kind::kSecret, "default", std::move(stale)).ok());
  EXPECT_TRUE(Eventually([&] { return Secret("stale-token") == nullptr; }));
}

}  // namespace
}  // namespace berth::controllers
