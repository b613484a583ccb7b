// The ServiceAccounts controller running against a real API server in
// process: every Active namespace gets its "default" ServiceAccount, one
// deleted is created again, and a terminating namespace gets none.

#include "controllers/serviceaccount/service_accounts_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "api/json_fields.h"
#include "controllers/for_update.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

class ServiceAccountsControllerTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    // The real clock: a create that meets a stale cache is retried after a backoff.
    controller_ =
        std::make_unique<ServiceAccountsController>(ControllerContext{*client_, *informers_});
    ASSERT_TRUE(informers_->Start().ok());
    controller_->Run();
  }
  // Informers first: their threads call the controller's handlers.
  void TearDown() override {
    informers_->Stop();
    if (controller_) controller_->Stop();
  }

  void CreateNamespace(const std::string& name, json::array finalizers = {}) {
    json::object meta{{"name", name}};
    if (!finalizers.empty()) meta["finalizers"] = std::move(finalizers);
    auto created = client_->Create(api::Kind::kNamespace, "", json::object{{"metadata", meta}});
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  api::ObjectPtr DefaultAccount(const std::string& ns) {
    auto got = client_->Get(api::Kind::kServiceAccount, ns, "default");
    return got.ok() ? got.value() : nullptr;
  }
  std::unique_ptr<ServiceAccountsController> controller_;
};

TEST_F(ServiceAccountsControllerTest, EveryActiveNamespaceGetsADefaultServiceAccount) {
  CreateNamespace("team-a");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease", "team-a"}) {
    EXPECT_TRUE(Eventually([&] { return DefaultAccount(ns) != nullptr; })) << ns;
  }
  // Only "default": nothing else is created.
  auto accounts = client_->List(api::Kind::kServiceAccount, "team-a");
  ASSERT_TRUE(accounts.ok());
  EXPECT_EQ(accounts->size(), 1u);
}

TEST_F(ServiceAccountsControllerTest, ADeletedDefaultServiceAccountIsCreatedAgain) {
  CreateNamespace("team-a");
  ASSERT_TRUE(Eventually([&] { return DefaultAccount("team-a") != nullptr; }));
  const std::string first_uid = DefaultAccount("team-a")->uid();
  ASSERT_TRUE(client_->Delete(api::Kind::kServiceAccount, "team-a", "default").ok());
  EXPECT_TRUE(Eventually([&] {
    api::ObjectPtr again = DefaultAccount("team-a");
    return again && again->uid() != first_uid;
  }));
}

TEST_F(ServiceAccountsControllerTest, AnExistingDefaultServiceAccountIsLeftAsItIs) {
  CreateNamespace("team-a");
  ASSERT_TRUE(Eventually([&] { return DefaultAccount("team-a") != nullptr; }));
  json::object edited = ForUpdate(*DefaultAccount("team-a"));
  api::MutableObject(api::MutableObject(edited, "metadata"), "labels")["owner"] = "team-a";
  auto written = client_->Update(api::Kind::kServiceAccount, edited);
  ASSERT_TRUE(written.ok()) << written.status().message();
  // Handled once the cache holds the edit; the reconcile must not touch it.
  ASSERT_TRUE(Eventually([&] {
    auto cached = informers_->For(api::Kind::kServiceAccount).Get("team-a/default");
    return cached && cached->resource_version() == written.value()->resource_version();
  }));
  ASSERT_TRUE(controller_->ReconcileForTest("team-a").ok());
  EXPECT_EQ(DefaultAccount("team-a")->resource_version(), written.value()->resource_version());
}

TEST_F(ServiceAccountsControllerTest, ATerminatingNamespaceGetsNone) {
  // A finalizer of someone else's keeps the namespace Terminating once deleted.
  CreateNamespace("leaving", json::array{"example.com/hold"});
  ASSERT_TRUE(Eventually([&] { return DefaultAccount("leaving") != nullptr; }));
  // The deletion removes the namespace's contents, its ServiceAccount too.
  ASSERT_TRUE(client_->Delete(api::Kind::kNamespace, "", "leaving").ok());
  ASSERT_TRUE(Eventually([&] {
    auto ns = informers_->For(api::Kind::kNamespace).Get("leaving");
    return ns && api::StringAt(api::StatusOf(*ns), "phase") == "Terminating" &&
           !informers_->For(api::Kind::kServiceAccount).Get("leaving/default");
  }));
  EXPECT_TRUE(controller_->ReconcileForTest("leaving").ok());
  EXPECT_EQ(DefaultAccount("leaving"), nullptr);
  auto accounts = client_->List(api::Kind::kServiceAccount, "leaving");
  ASSERT_TRUE(accounts.ok());
  EXPECT_TRUE(accounts->empty());
}

}  // namespace
}  // namespace berth::controllers
