// Encryption at rest: kube's EncryptionConfiguration parsed and refused with
// the field named, kube's stored form, key rotation, identity, and the
// embedded store writing no Secret in plain text to its log or snapshots.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/codec/base64.h"
#include "api/kinds.h"
#include "store/encryption.h"
#include "store/memory/memory_store.h"
#include "test_objects.h"

namespace berth::store {
namespace {

namespace fs = std::filesystem;

const std::string kKey1 = api::Base64Encode(std::string(32, 'k'));
const std::string kKey2 = api::Base64Encode(std::string(16, 'j'));

std::string Config(const std::string& providers) {
  return "apiVersion: apiserver.config.k8s.io/v1\n"
         "kind: EncryptionConfiguration\n"
         "resources:\n"
         "  - resources: [secrets]\n"
         "    providers:\n" +
         providers;
}

std::string AesGcm(const std::string& keys) { return "      - aesgcm:\n          keys:\n" + keys; }
std::string Key(const std::string& name, const std::string& secret) {
  return "            - name: " + name + "\n              secret: " + secret + "\n";
}
const std::string kIdentity = "      - identity: {}\n";

std::shared_ptr<const Encryption> MustParse(const std::string& text) {
  auto parsed = Encryption::Parse(text, "enc.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? parsed.value() : nullptr;
}

std::string ParseError(const std::string& text) {
  auto parsed = Encryption::Parse(text, "enc.yaml");
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.status().message();
}

const std::string kSecretKey = "/core/secrets/ns/s";

TEST(Encryption, StoresKubesPrefixAndRoundTrips) {
  auto enc = MustParse(Config(AesGcm(Key("key1", kKey1))));
  ASSERT_TRUE(enc);
  auto sealed = enc->ToStorage(kSecretKey, "plain text");
  ASSERT_TRUE(sealed.ok());
  ASSERT_TRUE(sealed.value().starts_with("k8s:enc:aesgcm:v1:key1:"));
  // prefix + 12-byte nonce + ciphertext + 16-byte tag
  EXPECT_EQ(sealed.value().size(), std::string("k8s:enc:aesgcm:v1:key1:").size() + 12 + 10 + 16);
  EXPECT_EQ(sealed.value().find("plain text"), std::string::npos);
  auto plain = enc->FromStorage(kSecretKey, sealed.value());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain.value(), "plain text");
  // Nonces differ: the same text never encrypts the same way twice.
  EXPECT_NE(enc->ToStorage(kSecretKey, "plain text").value(), sealed.value());
  // The key is authenticated: the value moved under another key does not decrypt.
  EXPECT_FALSE(enc->FromStorage("/core/secrets/ns/other", sealed.value()).ok());
  // An altered byte fails the tag.
  std::string altered = sealed.value();
  altered.back() ^= 1;
  EXPECT_FALSE(enc->FromStorage(kSecretKey, altered).ok());
}

TEST(Encryption, OnlyConfiguredResourcesAreEncrypted) {
  auto enc = MustParse(Config(AesGcm(Key("key1", kKey1))));
  ASSERT_TRUE(enc);
  EXPECT_TRUE(enc->Covers(kSecretKey));
  EXPECT_FALSE(enc->Covers("/core/pods/ns/p"));
  EXPECT_FALSE(enc->Covers("/apps/secrets/ns/s"));  // secrets of another group
  EXPECT_EQ(enc->ToStorage("/core/pods/ns/p", "{}").value(), "{}");
  auto wide = MustParse("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"
                        "resources:\n  - resources: ['*.apps', configmaps]\n    providers:\n" +
                        AesGcm(Key("k", kKey1)));
  ASSERT_TRUE(wide);
  EXPECT_TRUE(wide->Covers("/apps/deployments/ns/d"));
  EXPECT_TRUE(wide->Covers("/core/configmaps/ns/c"));
  EXPECT_FALSE(wide->Covers(kSecretKey));
}

TEST(Encryption, EveryKeyAndProviderDecryptsTheFirstEncrypts) {
  auto old_config = MustParse(Config(AesGcm(Key("key1", kKey1))));
  auto written = old_config->ToStorage(kSecretKey, "v1").value();
  // Rotation: key2 first, key1 still listed.
  auto rotated = MustParse(Config(AesGcm(Key("key2", kKey2) + Key("key1", kKey1))));
  ASSERT_TRUE(rotated);
  EXPECT_EQ(rotated->FromStorage(kSecretKey, written).value(), "v1");
  EXPECT_TRUE(rotated->ToStorage(kSecretKey, "v2").value().starts_with("k8s:enc:aesgcm:v1:key2:"));
  // Identity first: new values plain, old ones still read.
  auto identity_first = MustParse(Config(kIdentity + AesGcm(Key("key1", kKey1))));
  ASSERT_TRUE(identity_first);
  EXPECT_EQ(identity_first->ToStorage(kSecretKey, "v3").value(), "v3");
  EXPECT_EQ(identity_first->FromStorage(kSecretKey, written).value(), "v1");
  EXPECT_EQ(identity_first->FromStorage(kSecretKey, "v3").value(), "v3");
  // Without identity listed, a plain value is refused (kube: no matching prefix).
  EXPECT_FALSE(old_config->FromStorage(kSecretKey, "{}").ok());
  // A key no longer configured.
  auto other = MustParse(Config(AesGcm(Key("key9", kKey2))));
  auto refused = other->FromStorage(kSecretKey, written);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("k8s:enc:aesgcm:v1:key1:"), std::string::npos)
      << refused.status().message();
}

TEST(Encryption, BadConfigsNameTheFileAndField) {
  EXPECT_NE(ParseError("{{{").find("enc.yaml: cannot be parsed"), std::string::npos);
  EXPECT_NE(ParseError("kind: Other\n").find("enc.yaml: kind:"), std::string::npos);
  EXPECT_NE(ParseError(Config(AesGcm(Key("key1", "not base64!"))))
                .find("resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": "
                      "secrets must be base64 encoded"),
            std::string::npos);
  EXPECT_NE(ParseError(Config(AesGcm(Key("key1", api::Base64Encode("short")))))
                .find("resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": "
                      "secret is not of the expected length, got 5, expected one of [16 24 32]"),
            std::string::npos);
  EXPECT_NE(ParseError(Config(kIdentity + "      - aescbc:\n          keys: []\n"))
                .find("resources[0].providers[1].aescbc: provider aescbc is not supported"),
            std::string::npos);
  EXPECT_NE(ParseError(Config(AesGcm(Key("a", kKey1) + Key("a", kKey2))))
                .find("resources[0].providers[0].aesgcm.keys[1].name: Duplicate value: \"a\""),
            std::string::npos);
  EXPECT_NE(ParseError(Config("      - identity: {}\n        aesgcm: {}\n"))
                .find("resources[0].providers[0]: more than one provider"),
            std::string::npos);
  EXPECT_NE(ParseError(Config("")).find("resources[0].providers: Required value"), std::string::npos);
  auto missing = Encryption::LoadFile("/nonexistent/enc.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/enc.yaml"), std::string::npos);
}

// Every byte of every file under `dir`.
std::string AllBytes(const fs::path& dir) {
  std::string all;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    all += s.str();
  }
  return all;
}

class EncryptedStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("berth-encrypted-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<MemoryStore> Open(std::shared_ptr<const Encryption> encryption) {
    MemoryStore::Options options;
    options.data_dir = dir_.string();
    options.snapshot_every = 0;
    options.encryption = std::move(encryption);
    auto store = MemoryStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  fs::path dir_;
};

api::ObjectPtr MakeSecret(const std::string& name, const std::string& value) {
  auto o = api::Object::Decode(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")" + name +
                               R"(","namespace":"ns"},"stringData":{"password":")" + value + R"("}})");
  if (!o.ok()) throw std::runtime_error(o.status().ToString());
  return o.value();
}

TEST_F(EncryptedStore, NoPlaintextInLogOrSnapshotAndReadsDecrypt) {
  const std::string password = "hunter2-plaintext-marker";
  const std::string key = api::StorageKey(api::Kind::kSecret, "ns", "s1");
  auto enc = MustParse(Config(AesGcm(Key("key1", kKey1))));
  {
    auto store = Open(enc);
    ASSERT_TRUE(store->Create(MakeSecret("s1", password)).ok());
    ASSERT_TRUE(store->Create(testing::MakePod("ns", "p")).ok());
    auto read = store->Get(key);
    ASSERT_TRUE(read.ok());
    EXPECT_NE(read.value()->Encoded().find(password), std::string::npos);  // plain in memory
    std::string files = AllBytes(dir_);
    EXPECT_EQ(files.find(password), std::string::npos);
    EXPECT_EQ(files.find(api::Base64Encode(password)), std::string::npos);
    EXPECT_NE(files.find("k8s:enc:aesgcm:v1:key1:"), std::string::npos);
    EXPECT_NE(files.find("\"name\":\"p\""), std::string::npos);  // pods stay plain
    ASSERT_TRUE(store->Snapshot().ok());
    files = AllBytes(dir_);
    EXPECT_EQ(files.find(password), std::string::npos);
    EXPECT_EQ(files.find(api::Base64Encode(password)), std::string::npos);
  }
  {
    auto store = Open(enc);  // recovered from the snapshot
    auto read = store->Get(key);
    ASSERT_TRUE(read.ok());
    EXPECT_NE(read.value()->Encoded().find(password), std::string::npos);
  }
  // Identity first: new writes plain, the old one still read.
  auto identity_first = MustParse(Config(kIdentity + AesGcm(Key("key1", kKey1))));
  {
    auto store = Open(identity_first);
    ASSERT_TRUE(store->Create(MakeSecret("s2", "second-plain-marker")).ok());
    EXPECT_NE(AllBytes(dir_).find("second-plain-marker"), std::string::npos);
  }
  {
    auto store = Open(identity_first);
    EXPECT_TRUE(store->Get(key).ok());
    EXPECT_TRUE(store->Get(api::StorageKey(api::Kind::kSecret, "ns", "s2")).ok());
  }
  // Without the configuration the encrypted data cannot be recovered, and the error says why.
  MemoryStore::Options plain;
  plain.data_dir = dir_.string();
  auto refused = MemoryStore::Open(plain);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--encryption-provider-config"), std::string::npos);
}

}  // namespace
}  // namespace berth::store
