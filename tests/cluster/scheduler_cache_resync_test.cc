// The scheduler's drift guard: watch events dropped on purpose (the
// informer source loses them) leave the cache different from the store; a
// resync finds each difference, repairs it and counts it in
// berth_scheduler_cache_drift_total{kind}, and finds nothing where nothing
// was lost (pods the scheduler itself bound included).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <boost/json.hpp>

#include "apiserver/api_server.h"
#include "client/rest_client.h"
#include "cluster/in_process_transport.h"
#include "cluster/informer_sources.h"
#include "cluster/scheduler_clients.h"
#include "cluster/scheduler_runner.h"
#include "store/memory/memory_store.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

template <typename F>
bool Eventually(F done) {
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

// Which events the informer sources lose: the next add, update or delete of
// an object with one of these names.
struct Dropper {
  std::mutex mu;
  std::set<std::string> add, update, remove;
  bool Take(std::set<std::string>& names, const api::ObjectPtr& o) {
    std::lock_guard lock(mu);
    return names.erase(o->name()) > 0;
  }
  void Drop(std::set<std::string>& names, std::string name) {
    std::lock_guard lock(mu);
    names.insert(std::move(name));
  }
  // Every event asked for has been lost.
  bool Done() {
    std::lock_guard lock(mu);
    return add.empty() && update.empty() && remove.empty();
  }
};

class CacheResyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Open({}).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<apiserver::ApiServer>(*store_, apiserver::ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
    client_ = std::make_unique<client::RestClient>(InProcessTransport(*api_, "test"));
  }
  void TearDown() override {
    if (runner_) runner_->Stop();
  }

  void StartRunner(std::chrono::milliseconds period) {
    auto store_sources = StoreInformerSources(*store_);
    auto sources = [this, store_sources](api::Kind kind, client::InformerHandlers h) {
      client::InformerHandlers lossy{
          [this, h](const api::ObjectPtr& o) { if (!dropper_.Take(dropper_.add, o)) h.on_add(o); },
          [this, h](const api::ObjectPtr& o) { if (!dropper_.Take(dropper_.update, o)) h.on_update(o); },
          [this, h](const api::ObjectPtr& o) { if (!dropper_.Take(dropper_.remove, o)) h.on_delete(o); }};
      return store_sources(kind, std::move(lossy));
    };
    CacheResync resync{.list = [this](api::Kind kind) -> Result<std::pair<std::vector<api::ObjectPtr>, int64_t>> {
                         auto listed = store_->List({.prefix = api::StoragePrefix(kind)});
                         if (!listed.ok()) return listed.status();
                         return std::pair{std::move(listed->items), listed->revision};
                       },
                       .period = period,
                       .grace = 20ms};
    scheduler::SchedulerOptions options;
    options.seed = 3;
    auto runner = SchedulerRunner::Create({}, options, sources, std::make_unique<InProcessSchedulerClient>(*api_),
                                          scheduler::InTreeRegistry(), std::move(resync));
    ASSERT_TRUE(runner.ok()) << runner.status().message();
    runner_ = std::move(runner).value();
    ASSERT_TRUE(runner_->Start().ok());
  }

  void CreateNode(const std::string& name) {
    auto created = client_->Create(
        api::Kind::kNode, "",
        json::parse(R"({"metadata":{"name":")" + name +
                    R"("},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},
                       "conditions":[{"type":"Ready","status":"True"}]}})")
            .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  void CreatePod(const std::string& name, const std::string& node) {
    std::string node_name = node.empty() ? "" : R"("nodeName":")" + node + R"(",)";
    auto created = client_->Create(api::Kind::kPod, "default",
                                   json::parse(R"({"metadata":{"name":")" + name + R"("},"spec":{)" + node_name +
                                               R"("containers":[{"name":"c","image":"i",
                                                  "resources":{"requests":{"cpu":"100m"}}}]}})")
                                       .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  const scheduler::Cache& cache() { return runner_->scheduler().cache(); }
  std::string Drift(const std::string& kind) {
    std::string metrics = runner_->scheduler().RenderMetrics();
    std::string prefix = "berth_scheduler_cache_drift_total{kind=\"" + kind + "\"} ";
    auto at = metrics.find(prefix);
    if (at == std::string::npos) return "none";
    return metrics.substr(at + prefix.size(), metrics.find('\n', at) - at - prefix.size());
  }

  Dropper dropper_;
  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<SchedulerRunner> runner_;
};

TEST_F(CacheResyncTest, DroppedEventsAreRepairedAndCounted) {
  StartRunner(0ms);  // resync only when the test asks
  CreateNode("n1");
  CreateNode("n2");
  CreatePod("stays", "n1");
  CreatePod("gone", "n1");
  ASSERT_TRUE(Eventually([&] { return cache().PodCount() == 2 && cache().NodeCount() == 2; }));

  // Lost: a pod's deletion, a new node, a node's label change, a bound pod.
  dropper_.Drop(dropper_.remove, "gone");
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "gone", {.grace_period_seconds = 0}).ok());
  dropper_.Drop(dropper_.add, "n3");
  CreateNode("n3");
  dropper_.Drop(dropper_.update, "n2");
  ASSERT_TRUE(client_->Patch(api::Kind::kNode, "", "n2", R"({"metadata":{"labels":{"zone":"b"}}})").ok());
  dropper_.Drop(dropper_.add, "late");
  CreatePod("late", "n2");
  ASSERT_TRUE(Eventually([&] { return dropper_.Done(); }));
  EXPECT_EQ(cache().NodeOf("default/gone"), "n1");
  EXPECT_EQ(cache().NodeOf("default/late"), "");
  EXPECT_EQ(cache().NodeCount(), 2u);
  EXPECT_FALSE(cache().GetNode("n2")->labels().Get("zone"));

  auto repaired = runner_->ResyncCache();
  ASSERT_TRUE(repaired.ok()) << repaired.status().message();
  EXPECT_EQ(*repaired, 4);
  EXPECT_EQ(cache().NodeOf("default/gone"), "");
  EXPECT_EQ(cache().NodeOf("default/late"), "n2");
  EXPECT_EQ(cache().NodeCount(), 3u);
  EXPECT_EQ(cache().GetNode("n2")->labels().Get("zone").value_or(""), "b");
  EXPECT_EQ(Drift("pod"), "2");
  EXPECT_EQ(Drift("node"), "2");

  // Nothing lost since: nothing found.
  repaired = runner_->ResyncCache();
  ASSERT_TRUE(repaired.ok());
  EXPECT_EQ(*repaired, 0);
}

TEST_F(CacheResyncTest, VolumesAndClaimsAreComparedToo) {
  StartRunner(0ms);
  auto pv = [&](const std::string& name) {
    auto created = client_->Create(api::Kind::kPersistentVolume, "",
                                   json::parse(R"({"metadata":{"name":")" + name + R"("},"spec":{
                                       "capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
                                       "hostPath":{"path":"/x"}}})")
                                       .as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  };
  auto volumes = [&] {
    std::vector<std::string> names;
    for (const auto& v : runner_->scheduler().handle().Volumes()->Volumes()) names.push_back(v->name());
    std::sort(names.begin(), names.end());
    return names;
  };
  pv("kept");
  ASSERT_TRUE(Eventually([&] { return volumes() == std::vector<std::string>{"kept"}; }));
  dropper_.Drop(dropper_.add, "lost");
  pv("lost");
  dropper_.Drop(dropper_.add, "claim");
  ASSERT_TRUE(client_->Create(api::Kind::kPersistentVolumeClaim, "default",
                              json::parse(R"({"metadata":{"name":"claim"},"spec":{"accessModes":["ReadWriteOnce"],
                                  "resources":{"requests":{"storage":"1Gi"}}}})").as_object())
                  .ok());
  ASSERT_TRUE(Eventually([&] { return dropper_.Done(); }));
  EXPECT_EQ(runner_->scheduler().handle().Volumes()->Claim("default", "claim"), nullptr);

  auto repaired = runner_->ResyncCache();
  ASSERT_TRUE(repaired.ok()) << repaired.status().message();
  EXPECT_EQ(*repaired, 2);
  EXPECT_EQ(volumes(), (std::vector<std::string>{"kept", "lost"}));
  EXPECT_NE(runner_->scheduler().handle().Volumes()->Claim("default", "claim"), nullptr);
  EXPECT_EQ(Drift("persistentvolume"), "1");
  EXPECT_EQ(Drift("persistentvolumeclaim"), "1");
}

TEST_F(CacheResyncTest, PodsTheSchedulerBoundAreNotDrift) {
  StartRunner(0ms);
  CreateNode("n1");
  CreateNode("n2");
  for (int i = 0; i < 40; ++i) CreatePod("p" + std::to_string(i), "");
  ASSERT_TRUE(Eventually([&] { return runner_->scheduler().stats().scheduled == 40; }));
  // Their bound versions (and status changes) have been observed.
  ASSERT_TRUE(Eventually([&] {
    for (const auto& v : cache().PodVersions()) {
      if (v.assumed) return false;
    }
    return cache().PodCount() == 40;
  }));
  auto repaired = runner_->ResyncCache();
  ASSERT_TRUE(repaired.ok());
  EXPECT_EQ(*repaired, 0);
  EXPECT_EQ(Drift("pod"), "none");
}

TEST_F(CacheResyncTest, ThePeriodicResyncRepairsALostDeletion) {
  StartRunner(50ms);
  CreateNode("n1");
  CreatePod("gone", "n1");
  ASSERT_TRUE(Eventually([&] { return cache().NodeOf("default/gone") == "n1"; }));
  dropper_.Drop(dropper_.remove, "gone");
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "gone", {.grace_period_seconds = 0}).ok());
  ASSERT_TRUE(Eventually([&] { return cache().NodeOf("default/gone").empty(); }));
  EXPECT_EQ(Drift("pod"), "1");
}

}  // namespace
}  // namespace berth::cluster
