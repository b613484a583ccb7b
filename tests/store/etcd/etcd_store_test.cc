// What only the etcd backend does (the shared contract is store_contract_test):
// kube's key layout, two stores on one etcd, etcd down and back, compaction,
// Event leases.

#include "store/etcd/etcd_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "api/kinds.h"
#include "etcd_server.h"
#include "test_objects.h"

namespace berth::store {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;

class EtcdStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveEtcd()) {
      GTEST_SKIP() << testing::kEtcdBinary
                   << " is missing: install etcd-server (scripts/install-deps.sh)";
    }
    server_ = std::make_unique<testing::EtcdServer>();
  }

  EtcdStore::Options StoreOptions() {
    EtcdStore::Options options;
    options.client.endpoints = {server_->url()};
    options.client.timeout = 2s;
    options.compaction_interval = 0ms;
    return options;
  }
  std::unique_ptr<EtcdStore> Open(EtcdStore::Options options) {
    auto opened = EtcdStore::Open(options);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return std::move(opened).value();
  }
  std::unique_ptr<EtcdStore> Open() { return Open(StoreOptions()); }
  etcd::Client& RawClient() {
    if (!raw_) {
      etcd::ClientOptions options;
      options.endpoints = {server_->url()};
      raw_ = std::move(etcd::Client::Create(options)).value();
    }
    return *raw_;
  }

  std::unique_ptr<testing::EtcdServer> server_;
  std::unique_ptr<etcd::Client> raw_;
};

std::vector<WatchEvent> Drain(Watch& w, size_t want, std::chrono::seconds within = 10s) {
  std::vector<WatchEvent> all;
  auto deadline = std::chrono::steady_clock::now() + within;
  while (all.size() < want && std::chrono::steady_clock::now() < deadline) {
    auto batch = w.Next(deadline);
    all.insert(all.end(), batch.begin(), batch.end());
    if (w.Done()) break;
  }
  return all;
}

TEST_F(EtcdStoreTest, KeysFollowKubesLayoutAndValuesAreTheObjects) {
  auto store = Open();
  EXPECT_EQ(store->EtcdKey(api::StorageKey(api::Kind::kPod, "ns", "p")), "/registry/pods/ns/p");
  EXPECT_EQ(store->EtcdKey(api::StorageKey(api::Kind::kNode, "", "n")), "/registry/nodes/n");
  ASSERT_TRUE(store->Create(MakePod("ns", "p")).ok());
  etcdserverpb::RangeRequest request;
  request.set_key("/registry/pods/ns/p");
  etcdserverpb::RangeResponse got;
  Status read = RawClient().Range(request, &got);
  ASSERT_TRUE(read.ok()) << read.ToString();
  ASSERT_EQ(got.kvs_size(), 1);
  const auto& kv = got.kvs(0);
  auto decoded = api::Object::Decode(kv.value());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded.value()->name(), "p");
  EXPECT_EQ(kv.mod_revision(),
            store->Get(api::StorageKey(api::Kind::kPod, "ns", "p")).value()->resource_version());
}

TEST_F(EtcdStoreTest, TwoStoresOnOneEtcdAreOneStore) {
  auto a = Open();
  auto b = Open();
  auto w = std::move(b->WatchFrom({.prefix = "/core/pods/"})).value();
  auto created = a->Create(MakePod("ns", "p", R"({"v":"1"})"));
  ASSERT_TRUE(created.ok());
  auto events = Drain(*w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[0].revision, created.value()->resource_version());
  // Written through one, guarded against the other's stale copy.
  const int64_t rv = created.value()->resource_version();
  ASSERT_TRUE(b->Update(MakePod("ns", "p", R"({"v":"2"})"), rv).ok());
  EXPECT_EQ(a->Update(MakePod("ns", "p", R"({"v":"3"})"), rv).status().code(),
            StatusCode::kConflict);
  EXPECT_EQ(a->Create(MakePod("ns", "p")).status().code(), StatusCode::kAlreadyExists);
  // The loser's Conflict came after its cache caught up: a retry reads the winner.
  EXPECT_EQ(a->Get(api::StorageKey(api::Kind::kPod, "ns", "p")).value()->labels().Get("v"), "2");
}

TEST_F(EtcdStoreTest, EtcdDownFailsPromptlyAndTheCacheResumesAfterItsRestart) {
  auto store = Open();
  auto w = std::move(store->WatchFrom({.prefix = "/core/nodes/"})).value();
  ASSERT_TRUE(store->Create(MakeNode("before")).ok());
  server_->Kill();
  const auto start = std::chrono::steady_clock::now();
  auto failed = store->Create(MakeNode("while-down"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_TRUE(failed.status().code() == StatusCode::kUnavailable ||
              failed.status().code() == StatusCode::kTimeout)
      << failed.status().ToString();
  // Reads are served by the cache meanwhile.
  EXPECT_TRUE(store->Get(api::StorageKey(api::Kind::kNode, "", "before")).ok());
  server_->Start();
  auto after = store->Create(MakeNode("after"));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  auto events = Drain(*w, 2);
  ASSERT_EQ(events.size(), 2u) << "the watch went on from its revision";
  EXPECT_EQ(events[0].object->name(), "before");
  EXPECT_EQ(events[1].object->name(), "after");
}

TEST_F(EtcdStoreTest, AsynchronousCreatesFailPromptlyWhileEtcdIsDownAndCloseWaitsForThem) {
  auto store = Open();
  server_->Kill();
  std::promise<Result<ObjectPtr>> down;
  const auto start = std::chrono::steady_clock::now();
  store->CreateAsync(MakeNode("while-down"), [&](Result<ObjectPtr> r) { down.set_value(std::move(r)); });
  auto answer = down.get_future();
  ASSERT_EQ(answer.wait_for(5s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  const StatusCode code = answer.get().status().code();
  EXPECT_TRUE(code == StatusCode::kUnavailable || code == StatusCode::kTimeout) << static_cast<int>(code);

  // Creates in flight when the store closes are answered before Close returns.
  server_->Start();
  std::atomic<int> answered{0};
  for (int i = 0; i < 20; ++i) {
    store->CreateAsync(MakeNode("n" + std::to_string(i)), [&](Result<ObjectPtr>) { answered++; });
  }
  store->Close();
  EXPECT_EQ(answered.load(), 20);
}

TEST_F(EtcdStoreTest, WritesThroughAnotherStoreArriveAsEvents) {
  auto store = Open();
  auto w = std::move(store->WatchFrom({.prefix = "/core/nodes/"})).value();
  auto other = Open();
  ASSERT_TRUE(other->Create(MakeNode("a")).ok());
  ASSERT_TRUE(other->Delete(api::StorageKey(api::Kind::kNode, "", "a")).ok());
  auto events = Drain(*w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(events[1].object->name(), "a");
}

TEST_F(EtcdStoreTest, CompactionPastTheCacheReloadsItAndExpiresItsWatches) {
  auto options = StoreOptions();
  auto store = Open(options);
  ASSERT_TRUE(store->Create(MakeNode("a")).ok());
  auto w = std::move(store->WatchFrom({.prefix = "/core/nodes/"})).value();
  // Another server writes and compacts while this one's cache watch is
  // stopped by etcd going away: on its return, the cache's revision is gone.
  server_->Kill();
  server_->Start();
  auto other = Open(options);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(other->Create(MakeNode("n" + std::to_string(i))).ok());
  ASSERT_TRUE(other->Compact(other->CurrentRevision()).ok());
  // Either the cache resumed before the compaction (all events arrive) or it
  // was reloaded (its watches end with Expired); both keep the contract, and
  // the cache ends up with every node.
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline &&
         store->CountByResource() != other->CountByResource()) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(store->CountByResource(), other->CountByResource());
  auto events = Drain(*w, 3);
  ASSERT_FALSE(events.empty());
  if (events.back().type == EventType::kError) {
    EXPECT_EQ(events.back().error.code(), StatusCode::kExpired);
  } else {
    EXPECT_EQ(events.size(), 3u);
  }
  EXPECT_EQ(store->Create(MakeNode("a")).status().code(), StatusCode::kAlreadyExists);
}

TEST_F(EtcdStoreTest, TheCacheKeepsItsOwnWindowWhenEtcdCompacts) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakeNode("a")).ok());
  const int64_t old = store->CurrentRevision();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store->Create(MakeNode("n" + std::to_string(i))).ok());
  ASSERT_TRUE(store->Compact(store->CurrentRevision()).ok());
  // The cache still holds its own window above `old`.
  EXPECT_TRUE(store->WatchFrom({.prefix = "/", .resource_version = old}).ok());
  EXPECT_EQ(store->Compact(old).code(), StatusCode::kExpired) << "etcd: already compacted";
}

TEST_F(EtcdStoreTest, EventsExpireThroughTheirLease) {
  auto options = StoreOptions();
  options.event_ttl = 2s;
  auto store = Open(options);
  auto event = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"ns"},)"
      R"("involvedObject":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"R","message":"m"})");
  ASSERT_TRUE(event.ok()) << event.status().ToString();
  ASSERT_TRUE(store->Create(event.value()).ok());
  ASSERT_TRUE(store->Create(MakeNode("stays")).ok());
  const std::string key = event.value()->StorageKey();
  EXPECT_TRUE(store->Get(key).ok());
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline && store->Get(key).ok()) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(store->Get(key).status().code(), StatusCode::kNotFound) << "etcd deleted it";
  EXPECT_TRUE(store->Get(api::StorageKey(api::Kind::kNode, "", "stays")).ok());
}

TEST_F(EtcdStoreTest, AnEndpointNobodyListensOnIsPassedOver) {
  EtcdStore::Options options = StoreOptions();
  options.client.endpoints = {"http://127.0.0.1:" + std::to_string(testing::FreePort()),
                              server_->url()};
  auto store = Open(options);
  ASSERT_TRUE(store);
  auto w = std::move(store->WatchFrom({.prefix = "/core/nodes/"})).value();
  auto created = store->Create(MakeNode("n"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto events = Drain(*w, 1);
  ASSERT_EQ(events.size(), 1u) << "the cache's watch reached the live endpoint too";
  EXPECT_EQ(events[0].revision, created.value()->resource_version());
}

TEST(EtcdStoreTls, TalksToEtcdOverTlsWithAClientCertificate) {
  if (!testing::HaveEtcd()) GTEST_SKIP() << testing::kEtcdBinary << " is missing";
  testing::EtcdServer server(/*tls=*/true);
  EtcdStore::Options options;
  options.client.endpoints = {server.url()};
  options.client.ca_file = server.dir() + "/ca.crt";
  options.client.cert_file = server.dir() + "/client.crt";
  options.client.key_file = server.dir() + "/client.key";
  options.compaction_interval = 0ms;
  auto store = EtcdStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto w = std::move(store.value()->WatchFrom({.prefix = "/core/nodes/"})).value();
  ASSERT_TRUE(store.value()->Create(MakeNode("n")).ok());
  EXPECT_EQ(Drain(*w, 1).size(), 1u) << "the cache's watch streams over TLS too";
  // Without the client certificate etcd refuses the handshake.
  options.client.cert_file.clear();
  options.client.key_file.clear();
  options.client.timeout = 2s;
  EXPECT_EQ(EtcdStore::Open(options).status().code(), StatusCode::kUnavailable);
  // A CA that did not sign etcd's certificate: refused.
  options.client.ca_file = server.dir() + "/client.crt";
  EXPECT_FALSE(EtcdStore::Open(options).ok());
}

TEST_F(EtcdStoreTest, BadServersAreRefused) {
  EtcdStore::Options options;
  options.client.endpoints = {"127.0.0.1:2379"};
  EXPECT_EQ(EtcdStore::Open(options).status().code(), StatusCode::kBadRequest);
  options.client.endpoints = {"http://127.0.0.1:" + std::to_string(testing::FreePort())};
  options.client.timeout = 1s;
  auto start = std::chrono::steady_clock::now();
  auto opened = EtcdStore::Open(options);
  EXPECT_EQ(opened.status().code(), StatusCode::kUnavailable) << opened.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

}  // namespace
}  // namespace berth::store
