// The root CA publisher running against a real API server in process: every
// namespace gets "kube-root-ca.crt" with the bundle and kube's description,
// one deleted comes back, one whose data was changed is restored, and a
// terminating namespace gets none. And the bundle as read from a PEM file.

#include "controllers/rootcacert/root_ca_cert_publisher.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "api/json_fields.h"
#include "controllers/for_update.h"
#include "in_process_api.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

constexpr char kBundle[] =
    "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIUTESTONLY\n-----END CERTIFICATE-----\n";

class RootCaCertPublisherTest : public InProcessApiTest {
 protected:
  void Start(std::string root_ca = kBundle) {
    // The real clock: a create that meets a stale cache is retried after a backoff.
    publisher_ = std::make_unique<RootCaCertPublisher>(
        ControllerContext{*client_, *informers_, &registry_}, RootCaCertPublisherOptions{root_ca});
    ASSERT_TRUE(informers_->Start().ok());
    publisher_->Run();
  }
  // Informers first: their threads call the controller's handlers.
  void TearDown() override {
    informers_->Stop();
    if (publisher_) publisher_->Stop();
  }

  void CreateNamespace(const std::string& name, json::array finalizers = {}) {
    json::object meta{{"name", name}};
    if (!finalizers.empty()) meta["finalizers"] = std::move(finalizers);
    auto created = client_->Create(api::Kind::kNamespace, "", json::object{{"metadata", meta}});
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  api::ObjectPtr Published(const std::string& ns) {
    auto got = client_->Get(api::Kind::kConfigMap, ns, RootCaCertPublisher::kConfigMapName);
    return got.ok() ? got.value() : nullptr;
  }
  // The ConfigMap holds exactly `bundle` as ca.crt, with kube's description.
  static bool PublishedAs(const api::ObjectPtr& cm, const std::string& bundle) {
    const json::object* data = cm ? api::ObjectAt(cm->json(), "data") : nullptr;
    return data && *data == json::object{{"ca.crt", bundle}} &&
           api::Annotation(*cm, RootCaCertPublisher::kDescriptionAnnotation) ==
               RootCaCertPublisher::kDescription;
  }
  metrics::Registry registry_;
  std::unique_ptr<RootCaCertPublisher> publisher_;
};

TEST_F(RootCaCertPublisherTest, EveryNamespaceGetsTheBundleWithKubesDescription) {
  Start();
  CreateNamespace("team-a");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease", "team-a"}) {
    EXPECT_TRUE(Eventually([&] { return PublishedAs(Published(ns), kBundle); })) << ns;
  }
  EXPECT_NE(registry_.Render().find("root_ca_cert_publisher_sync_total{code=\"200\"}"),
            std::string::npos);
}

TEST_F(RootCaCertPublisherTest, WithoutABundleCaCrtIsEmptyButTheConfigMapExists) {
  Start("");
  CreateNamespace("team-a");
  EXPECT_TRUE(Eventually([&] { return PublishedAs(Published("team-a"), ""); }));
}

TEST_F(RootCaCertPublisherTest, ADeletedConfigMapIsCreatedAgain) {
  Start();
  CreateNamespace("team-a");
  ASSERT_TRUE(Eventually([&] { return Published("team-a") != nullptr; }));
  const std::string first_uid = Published("team-a")->uid();
  ASSERT_TRUE(
      client_->Delete(api::Kind::kConfigMap, "team-a", RootCaCertPublisher::kConfigMapName).ok());
  EXPECT_TRUE(Eventually([&] {
    api::ObjectPtr again = Published("team-a");
    return again && again->uid() != first_uid && PublishedAs(again, kBundle);
  }));
}

TEST_F(RootCaCertPublisherTest, AChangedConfigMapIsRestoredKeepingItsOtherMetadata) {
  Start();
  CreateNamespace("team-a");
  ASSERT_TRUE(Eventually([&] { return Published("team-a") != nullptr; }));
  json::object changed = ForUpdate(*Published("team-a"));
  changed["data"] = json::object{{"ca.crt", "not a certificate"}, {"extra", "x"}};
  json::object& meta = api::MutableObject(changed, "metadata");
  meta.erase("annotations");
  api::MutableObject(meta, "labels")["owner"] = "team-a";
  auto written = client_->Update(api::Kind::kConfigMap, changed);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_TRUE(Eventually([&] { return PublishedAs(Published("team-a"), kBundle); }));
  EXPECT_EQ(api::StringAt(api::ObjectAt(api::Metadata(*Published("team-a")), "labels"), "owner"),
            "team-a");
}

TEST_F(RootCaCertPublisherTest, ATerminatingNamespaceGetsNone) {
  Start();
  // A finalizer of someone else's keeps the namespace Terminating once deleted.
  CreateNamespace("leaving", json::array{"example.com/hold"});
  ASSERT_TRUE(Eventually([&] { return Published("leaving") != nullptr; }));
  // The deletion removes the namespace's contents, the ConfigMap too.
  ASSERT_TRUE(client_->Delete(api::Kind::kNamespace, "", "leaving").ok());
  ASSERT_TRUE(Eventually([&] {
    auto ns = informers_->For(api::Kind::kNamespace).Get("leaving");
    return ns && api::StringAt(api::StatusOf(*ns), "phase") == "Terminating" &&
           !informers_->For(api::Kind::kConfigMap).Get("leaving/kube-root-ca.crt");
  }));
  // The create is refused and dropped, not retried as a failure.
  EXPECT_TRUE(publisher_->ReconcileForTest("leaving").ok());
  EXPECT_EQ(Published("leaving"), nullptr);
}

class ReadRootCaFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

TEST_F(ReadRootCaFileTest, KeepsTheCertificatesAndNothingElse) {
  const std::string second = "-----BEGIN CERTIFICATE-----\nMIIBSECOND\n-----END CERTIFICATE-----";
  const std::string path = Write("bundle.pem", std::string("subject=CN=berth\n") + kBundle +
                                                   "-----BEGIN PRIVATE KEY-----\nMIIKEY\n"
                                                   "-----END PRIVATE KEY-----\n" +
                                                   second);
  auto read = ReadRootCaFile(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, std::string(kBundle) + second + "\n");
}

TEST_F(ReadRootCaFileTest, RefusesAMissingFileOrOneWithoutACertificate) {
  auto missing = ReadRootCaFile(::testing::TempDir() + "/absent.pem");
  EXPECT_EQ(missing.status().code(), StatusCode::kBadRequest);
  const std::string key_only =
      Write("key.pem", "-----BEGIN PRIVATE KEY-----\nMIIKEY\n-----END PRIVATE KEY-----\n");
  auto no_certificate = ReadRootCaFile(key_only);
  EXPECT_EQ(no_certificate.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(no_certificate.status().message().find(key_only), std::string::npos);
}

}  // namespace
}  // namespace berth::controllers
