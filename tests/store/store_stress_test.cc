// Concurrency: writers (half of them with deferred acknowledgement),
// compare-and-swap updaters and watchers at once, on the in-memory and the
// durable store. Run under ThreadSanitizer in CI.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <thread>

#include "api/kinds.h"
#include "store/memory/memory_store.h"
#include "test_objects.h"

namespace berth::store {
namespace {

using namespace std::chrono_literals;
using testing::MakePod;

void RunStress(MemoryStore& store) {
  constexpr int kWriters = 4, kPodsEach = 150, kCounterUpdaters = 3, kIncrements = 100, kWatchers = 6;
  ASSERT_TRUE(store.Create(MakePod("ns", "counter", R"({"n":"0"})")).ok());
  const int64_t start = store.CurrentRevision();

  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < kWatchers; ++i) {
    watches.push_back(std::move(store.WatchFrom({.prefix = "/core/pods/", .resource_version = start})).value());
  }
  const int64_t expected_events = kWriters * kPodsEach * 2 + kCounterUpdaters * kIncrements;

  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPodsEach; ++i) {
        std::string name = "w" + std::to_string(w) + "-" + std::to_string(i);
        const std::string key = api::StorageKey(api::Kind::kPod, "ns", name);
        if (w % 2 == 0) {
          if (!store.Create(MakePod("ns", name)).ok()) failures++;
        } else {
          // Half the writers defer the acknowledgement, as the HTTP create
          // path does, and wait for the store's callback instead.
          int64_t revision;
          {
            DeferAcknowledgement defer;
            if (!store.Create(MakePod("ns", name)).ok()) failures++;
            revision = defer.revision();
          }
          std::promise<void> visible;
          store.WhenVisible(revision, [&] { visible.set_value(); });
          if (visible.get_future().wait_for(30s) != std::future_status::ready) failures++;
          if (store.CurrentRevision() < revision || !store.Get(key).ok()) failures++;
        }
        if (!store.Delete(key).ok()) failures++;
      }
    });
  }
  for (int u = 0; u < kCounterUpdaters; ++u) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        auto r = GuaranteedUpdate(store, api::StorageKey(api::Kind::kPod, "ns", "counter"),
                                  [](const ObjectPtr& cur) -> Result<ObjectPtr> {
                                    int n = std::stoi(std::string(*cur->labels().Get("n")));
                                    return cur->Edit([n](boost::json::object& o) {
                                      o["metadata"].as_object()["labels"].as_object()["n"] =
                                          std::to_string(n + 1);
                                    });
                                  },
                                  10'000);
        if (!r.ok()) failures++;
      }
    });
  }
  // Watchers consume concurrently, each on its own thread, and check order.
  std::vector<int64_t> seen(kWatchers, 0);
  std::vector<std::thread> consumers;
  for (int i = 0; i < kWatchers; ++i) {
    consumers.emplace_back([&, i] {
      int64_t last = start;
      auto deadline = std::chrono::steady_clock::now() + 60s;
      while (seen[i] < expected_events && std::chrono::steady_clock::now() < deadline) {
        for (const auto& e : watches[i]->Next(std::chrono::steady_clock::now() + 100ms)) {
          if (e.type == EventType::kError || e.revision <= last) failures++;
          last = e.revision;
          seen[i]++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& c : consumers) c.join();

  EXPECT_EQ(failures.load(), 0);
  for (int i = 0; i < kWatchers; ++i) EXPECT_EQ(seen[i], expected_events) << "watcher " << i;
  EXPECT_EQ(store.CurrentRevision(), start + expected_events);
  auto counter = store.Get(api::StorageKey(api::Kind::kPod, "ns", "counter"));
  ASSERT_TRUE(counter.ok());
  EXPECT_EQ(counter.value()->labels().Get("n"), std::to_string(kCounterUpdaters * kIncrements));
  auto left = store.List({.prefix = "/core/pods/"});
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->items.size(), 1u);
}

// Paginated lists and gets while writers create and delete keys in an order
// unlike the keys' sorted order, with a history short enough that deleted
// keys leave the index during the run: every page is in key order, pages of
// one list never repeat or go back, and each list ends.
TEST(StoreStress, ListsWhileKeysComeAndGo) {
  auto store = std::move(MemoryStore::Open({.history = 300})).value();
  constexpr int kWriters = 3, kPodsEach = 400, kListers = 2;
  std::atomic<bool> writing{true};
  std::atomic<int> failures{0}, listers_ready{0};
  std::vector<std::thread> writers, readers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      // Writes start once every lister runs (on a busy host the writers could
      // otherwise finish before a lister was ever scheduled).
      while (listers_ready.load() < kListers) std::this_thread::yield();
      for (int i = 0; i < kPodsEach; ++i) {
        // Descending names: each new key sorts before the ones already made.
        const std::string name = "p" + std::to_string(kPodsEach - i) + "-w" + std::to_string(w);
        if (!store->Create(MakePod("ns", name)).ok()) failures++;
        if (i % 3 == 0 && !store->Delete(api::StorageKey(api::Kind::kPod, "ns", name)).ok())
          failures++;
      }
    });
  }
  for (int r = 0; r < kListers; ++r) {
    readers.emplace_back([&] {
      listers_ready++;
      do {
        std::string token, last;
        for (int page = 0; page < 10'000; ++page) {
          auto result =
              store->List({.prefix = "/core/pods/ns/", .limit = 25, .continue_token = token});
          if (!result.ok()) {
            if (result.status().code() != StatusCode::kExpired) failures++;
            break;  // the window moved past the list's revision: start again
          }
          for (const auto& item : result->items) {
            if (item->StorageKey() <= last || !item->StorageKey().starts_with("/core/pods/ns/"))
              failures++;
            last = item->StorageKey();
            if (!store->Get(last).ok() && store->CurrentRevision() == result->revision) failures++;
          }
          token = result->continue_token;
          if (token.empty()) break;
        }
      } while (writing.load());
    });
  }
  for (auto& t : writers) t.join();
  writing = false;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto left = store->List({.prefix = "/core/pods/ns/"});
  ASSERT_TRUE(left.ok());
  // Of each writer's 400 pods, those with i % 3 == 0 (134) were deleted.
  EXPECT_EQ(left->items.size(), static_cast<size_t>(kWriters * (kPodsEach - 134)));
  for (size_t i = 1; i < left->items.size(); ++i) {
    EXPECT_LT(left->items[i - 1]->StorageKey(), left->items[i]->StorageKey());
  }
}

TEST(StoreStress, InMemoryWritersUpdatersAndWatchers) {
  auto store = std::move(MemoryStore::Open({.history = 1'000'000})).value();
  RunStress(*store);
}

TEST(StoreStress, DurableWritersUpdatersAndWatchers) {
  auto dir = std::filesystem::temp_directory_path() / ("berth-stress-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    MemoryStore::Options options;
    options.data_dir = dir.string();
    options.history = 1'000'000;
    options.snapshot_every = 500;  // snapshots race with writers too
    auto store = std::move(MemoryStore::Open(options)).value();
    RunStress(*store);
  }
  MemoryStore::Options reopen;
  reopen.data_dir = dir.string();
  auto store = std::move(MemoryStore::Open(reopen)).value();
  EXPECT_EQ(store->List({.prefix = "/core/pods/"})->items.size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace berth::store
