// Store informers under concurrent writers (run under ThreadSanitizer in CI):
// the cache converges to the store's contents, and informers stopped while
// writes are in flight stop cleanly.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "client/informer_factory.h"
#include "client/store_informer.h"
#include "store/memory/memory_store.h"
#include "../store/test_objects.h"

namespace berth::client {
namespace {

using store::testing::MakePod;

std::unique_ptr<InformerFactory> Factory(store::Store& s) {
  return std::make_unique<InformerFactory>([&s](api::Kind kind, InformerHandlers handlers) {
    return std::make_unique<StoreInformer>(s, kind, std::move(handlers));
  });
}

// Each writer creates its pods, updates every second one and deletes every fourth.
void Write(store::Store& s, int writer, int pods) {
  for (int i = 0; i < pods; ++i) {
    std::string name = "w" + std::to_string(writer) + "-" + std::to_string(i);
    auto created = s.Create(MakePod("ns", name));
    ASSERT_TRUE(created.ok()) << created.status().message();
    if (i % 2 == 0) {
      ASSERT_TRUE(s.Update(MakePod("ns", name, R"({"v":"2"})"), created.value()->resource_version()).ok());
    }
    if (i % 4 == 0) {
      ASSERT_TRUE(s.Delete(api::StorageKey(api::Kind::kPod, "ns", name)).ok());
    }
  }
}

TEST(InformerStress, CacheConvergesToTheStoreUnderConcurrentWriters) {
  auto s = store::MemoryStore::Open({}).value();
  auto factory = Factory(*s);
  SharedInformer& pods = factory->For(api::Kind::kPod);
  std::atomic<int> events{0};
  auto count = [&](const api::ObjectPtr&) { events++; };
  pods.AddHandlers({count, count, count});
  ASSERT_TRUE(factory->Start().ok());
  const int writers = 4, per_writer = 200;
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) threads.emplace_back([&, w] { Write(*s, w, per_writer); });
  for (auto& t : threads) t.join();
  auto listed = s->List({.prefix = api::StoragePrefix(api::Kind::kPod, "")}).value();
  ASSERT_EQ(listed.items.size(), static_cast<size_t>(writers * per_writer * 3 / 4));
  auto converged = [&] {
    if (pods.Size() != listed.items.size()) return false;
    for (const auto& o : listed.items) {
      auto cached = pods.Get(ObjectKey(*o));
      if (!cached || cached->resource_version() != o->resource_version()) return false;
    }
    return true;
  };
  for (int i = 0; i < 5000 && !converged(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(converged());
  EXPECT_GE(events.load(), writers * per_writer);
  factory->Stop();
}

TEST(InformerStress, StopsCleanlyWhileWritesAreInFlight) {
  auto s = store::MemoryStore::Open({}).value();
  std::atomic<bool> done{false};
  // Bounded: well inside the store's history window, so an informer starting
  // between a list and its watch never finds its revision compacted.
  std::thread writer([&] {
    for (int i = 0; !done.load() && i < 20'000; ++i) {
      if (!s->Create(MakePod("ns", "p" + std::to_string(i))).ok()) break;
      if (i % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  for (int round = 0; round < 20; ++round) {
    auto factory = Factory(*s);
    factory->For(api::Kind::kPod);
    EXPECT_TRUE(factory->Start().ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    auto started = std::chrono::steady_clock::now();
    factory->Stop();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1)) << "Stop waits for no timeout";
  }
  done = true;
  writer.join();
}

}  // namespace
}  // namespace berth::client
