// The store contract, run against both backends: the embedded store (in
// memory, no data directory) and the etcd backend (an etcd the suite starts
// on free loopback ports; each test has a key prefix of its own). etcd's
// revisions are cluster-wide, so revisions are counted from the store's
// revision when the test opened it (Rev(n)).

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "api/kinds.h"
#include "etcd_server.h"
#include "store/etcd/etcd_store.h"
#include "store/memory/memory_store.h"
#include "test_objects.h"

namespace berth::store {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;

testing::EtcdServer& SharedEtcd() {
  static testing::EtcdServer server;  // stopped when the process exits
  return server;
}

class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "etcd" && !testing::HaveEtcd()) {
      GTEST_SKIP() << testing::kEtcdBinary
                   << " is missing: install etcd-server (scripts/install-deps.sh)";
    }
  }

  std::unique_ptr<Store> Open(int64_t history = 1000) {
    std::unique_ptr<Store> store;
    if (GetParam() == "memory") {
      MemoryStore::Options options;
      options.history = history;
      auto opened = MemoryStore::Open(options);
      EXPECT_TRUE(opened.ok()) << opened.status().ToString();
      store = std::move(opened).value();
    } else {
      static int tests = 0;
      EtcdStore::Options options;
      options.client.endpoints = {SharedEtcd().url()};
      options.prefix = "/contract" + std::to_string(++tests);
      options.history = history;
      options.compaction_interval = 0ms;
      auto opened = EtcdStore::Open(options);
      EXPECT_TRUE(opened.ok()) << opened.status().ToString();
      store = std::move(opened).value();
    }
    base_ = store->CurrentRevision();
    return store;
  }
  // The n-th revision written since Open.
  int64_t Rev(int64_t n) const { return base_ + n; }
  static int64_t Compacted(Store& store) {
    if (auto* m = dynamic_cast<MemoryStore*>(&store)) return m->CompactedRevision();
    return dynamic_cast<EtcdStore&>(store).CompactedRevision();
  }

  int64_t base_ = 0;
};

std::string PodKey(const std::string& ns, const std::string& name) {
  return api::StorageKey(api::Kind::kPod, ns, name);
}

std::vector<WatchEvent> Drain(Watch& w, size_t want) {
  std::vector<WatchEvent> all;
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (all.size() < want && std::chrono::steady_clock::now() < deadline) {
    auto batch = w.Next(deadline);
    all.insert(all.end(), batch.begin(), batch.end());
    if (w.Done()) break;
  }
  return all;
}

TEST_P(StoreContract, CreateAssignsIncreasingRevisions) {
  auto store = Open();
  auto a = store->Create(MakePod("default", "a"));
  auto b = store->Create(MakePod("default", "b"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value()->resource_version(), Rev(1));
  EXPECT_EQ(b.value()->resource_version(), Rev(2));
  EXPECT_EQ(store->CurrentRevision(), Rev(2));
  EXPECT_NE(a.value()->Encoded().find(R"("resourceVersion":")" + std::to_string(Rev(1)) + "\""),
            std::string::npos);
}

TEST_P(StoreContract, CreateOfExistingKeyIsAlreadyExists) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("default", "a")).ok());
  auto again = store->Create(MakePod("default", "a"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store->CurrentRevision(), Rev(1));
}

TEST_P(StoreContract, CreateAsyncAnswersOnceTheObjectIsReadable) {
  auto store = Open();
  constexpr int kCreates = 50;
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  std::vector<std::string> problems;
  std::set<int64_t> revisions;
  for (int i = 0; i < kCreates; ++i) {
    const std::string name = "p" + std::to_string(i);
    store->CreateAsync(MakePod("default", name), [&, key = PodKey("default", name)](Result<ObjectPtr> created) {
      std::string problem;
      if (!created.ok()) {
        problem = key + ": " + created.status().ToString();
      } else {
        auto read = store->Get(key);
        if (!read.ok() || read.value()->resource_version() != created.value()->resource_version()) {
          problem = key + " is not readable at its revision when answered";
        }
      }
      std::lock_guard lk(mu);
      if (!problem.empty()) problems.push_back(problem);
      if (created.ok()) revisions.insert(created.value()->resource_version());
      ++answered;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, 10s, [&] { return answered >= kCreates; })) << answered << " answered";
  }
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(revisions.size(), static_cast<size_t>(kCreates));
  EXPECT_EQ(store->CurrentRevision(), Rev(kCreates));

  // A taken name: AlreadyExists, answered once, nothing written.
  std::promise<Result<ObjectPtr>> again;
  store->CreateAsync(MakePod("default", "p0"), [&](Result<ObjectPtr> r) { again.set_value(std::move(r)); });
  auto answer = again.get_future();
  ASSERT_EQ(answer.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(answer.get().status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store->CurrentRevision(), Rev(kCreates));
}

TEST_P(StoreContract, GetReturnsLatestVersionOrNotFound) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("default", "a", R"({"v":"1"})")).ok());
  ASSERT_TRUE(store->Update(MakePod("default", "a", R"({"v":"2"})"), 0).ok());
  auto got = store->Get(PodKey("default", "a"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value()->labels().Get("v"), "2");
  EXPECT_EQ(got.value()->resource_version(), Rev(2));
  EXPECT_EQ(store->Get(PodKey("default", "zz")).status().code(), StatusCode::kNotFound);
}

TEST_P(StoreContract, UpdateWithStaleRevisionIsConflictAndChangesNothing) {
  auto store = Open();
  auto created = store->Create(MakePod("default", "a", R"({"v":"1"})"));
  ASSERT_TRUE(store->Update(MakePod("default", "a", R"({"v":"2"})"), Rev(1)).ok());
  auto stale = store->Update(MakePod("default", "a", R"({"v":"3"})"), Rev(1));
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_EQ(store->Get(PodKey("default", "a")).value()->labels().Get("v"), "2");
  EXPECT_EQ(store->CurrentRevision(), Rev(2));
}

TEST_P(StoreContract, UpdateOfMissingKeyIsNotFound) {
  auto store = Open();
  EXPECT_EQ(store->Update(MakePod("default", "a"), 0).status().code(), StatusCode::kNotFound);
}

TEST_P(StoreContract, DeleteReturnsLastVersionAtDeletionRevision) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("default", "a", R"({"v":"1"})")).ok());
  EXPECT_EQ(store->Delete(PodKey("default", "a"), Rev(7)).status().code(), StatusCode::kConflict);
  auto deleted = store->Delete(PodKey("default", "a"), Rev(1));
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted.value()->resource_version(), Rev(2));
  EXPECT_EQ(deleted.value()->labels().Get("v"), "1");
  EXPECT_EQ(store->Get(PodKey("default", "a")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Delete(PodKey("default", "a")).status().code(), StatusCode::kNotFound);
  // The key can be created again.
  EXPECT_TRUE(store->Create(MakePod("default", "a")).ok());
}

TEST_P(StoreContract, GuaranteedUpdateRetriesOnConflict) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("default", "a", R"({"n":"0"})")).ok());
  constexpr int kThreads = 4, kEach = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto r = GuaranteedUpdate(
            *store, PodKey("default", "a"),
            [](const ObjectPtr& cur) -> Result<ObjectPtr> {
              int n = std::stoi(std::string(*cur->labels().Get("n")));
              return cur->Edit([n](boost::json::object& o) {
                o["metadata"].as_object()["labels"].as_object()["n"] = std::to_string(n + 1);
              });
            },
            1000);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store->Get(PodKey("default", "a")).value()->labels().Get("n"),
            std::to_string(kThreads * kEach));
}

TEST_P(StoreContract, ListSelectsPrefixAndPredicateInKeyOrder) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("b", "p2", R"({"app":"web"})")).ok());
  ASSERT_TRUE(store->Create(MakePod("a", "p1", R"({"app":"db"})")).ok());
  ASSERT_TRUE(store->Create(MakePod("a", "p0", R"({"app":"web"})")).ok());
  ASSERT_TRUE(store->Create(MakeNode("n1")).ok());

  auto all = store->List({.prefix = api::StoragePrefix(api::Kind::kPod)});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->items.size(), 3u);
  EXPECT_EQ(all->items[0]->name(), "p0");
  EXPECT_EQ(all->items[2]->name(), "p2");
  EXPECT_EQ(all->revision, Rev(4));

  auto in_a = store->List({.prefix = api::StoragePrefix(api::Kind::kPod, "a")});
  EXPECT_EQ(in_a->items.size(), 2u);

  ListOptions web{.prefix = api::StoragePrefix(api::Kind::kPod)};
  web.predicate = [](const api::Object& o) { return o.labels().Get("app") == "web"; };
  auto webs = store->List(web);
  ASSERT_EQ(webs->items.size(), 2u);
}

TEST_P(StoreContract, PaginatedListIsConsistentAtItsRevision) {
  auto store = Open();
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  ListOptions page{.prefix = api::StoragePrefix(api::Kind::kPod), .limit = 4};
  auto first = store->List(page);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->items.size(), 4u);
  EXPECT_EQ(first->remaining, 6);
  ASSERT_FALSE(first->continue_token.empty());

  // Changes after the first page do not show up in later pages.
  ASSERT_TRUE(store->Delete(PodKey("ns", "p5")).ok());
  ASSERT_TRUE(store->Create(MakePod("ns", "p55")).ok());

  std::vector<std::string> names;
  for (auto& o : first->items) names.push_back(o->name());
  std::string token = first->continue_token;
  while (!token.empty()) {
    page.continue_token = token;
    auto next = store->List(page);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    EXPECT_EQ(next->revision, first->revision);
    for (auto& o : next->items) names.push_back(o->name());
    token = next->continue_token;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
}

TEST_P(StoreContract, ListRejectsMalformedAndCompactedContinueTokens) {
  auto store = Open(/*history=*/3);
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  ListOptions page{.prefix = api::StoragePrefix(api::Kind::kPod), .limit = 1};
  auto first = store->List(page);
  page.continue_token = "!!not-a-token";
  EXPECT_EQ(store->List(page).status().code(), StatusCode::kBadRequest);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store->Create(MakePod("ns", "q" + std::to_string(i))).ok());
  page.continue_token = first->continue_token;
  EXPECT_EQ(store->List(page).status().code(), StatusCode::kExpired);
}

TEST_P(StoreContract, ListAtExactRevisionSeesThePast) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("ns", "a", R"({"v":"1"})")).ok());
  ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"v":"2"})"), 0).ok());
  ASSERT_TRUE(store->Create(MakePod("ns", "b")).ok());
  ListOptions at1{.prefix = api::StoragePrefix(api::Kind::kPod),
                  .resource_version = Rev(1),
                  .match = ResourceVersionMatch::kExact};
  auto past = store->List(at1);
  ASSERT_TRUE(past.ok());
  ASSERT_EQ(past->items.size(), 1u);
  EXPECT_EQ(past->items[0]->labels().Get("v"), "1");
  at1.resource_version = Rev(99);
  EXPECT_EQ(store->List(at1).status().code(), StatusCode::kTimeout);
}

TEST_P(StoreContract, WatchReplaysFromRevisionInOrder) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("ns", "a")).ok());                     // Rev(1)
  ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"x":"y"})"), 0).ok());  // Rev(2)
  ASSERT_TRUE(store->Create(MakeNode("n")).ok());                          // Rev(3)
  ASSERT_TRUE(store->Delete(PodKey("ns", "a")).ok());                      // Rev(4)
  auto w = store->WatchFrom({.prefix = api::StoragePrefix(api::Kind::kPod), .resource_version = 0});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w.value()->Poll().empty()) << "resource_version 0 starts at the current revision";

  auto from0 =
      store->WatchFrom({.prefix = api::StoragePrefix(api::Kind::kPod), .resource_version = Rev(1)});
  auto events = Drain(**from0, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, EventType::kModified);
  EXPECT_EQ(events[0].revision, Rev(2));
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(events[1].object->resource_version(), Rev(4));
  EXPECT_EQ(events[1].object->labels().Get("x"), "y");
}

TEST_P(StoreContract, WatchDeliversLiveEventsToManyWatchers) {
  auto store = Open();
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < 50; ++i) {
    watches.push_back(std::move(store->WatchFrom({.prefix = "/core/pods/"})).value());
  }
  std::thread writer([&] {
    for (int i = 0; i < 20; ++i)
      ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  });
  for (auto& w : watches) {
    auto events = Drain(*w, 20);
    ASSERT_EQ(events.size(), 20u);
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(events[i].revision, Rev(i + 1));
      EXPECT_EQ(events[i].type, EventType::kAdded);
    }
  }
  writer.join();
}

TEST_P(StoreContract, FilteredWatchTurnsTransitionsIntoAddedAndDeleted) {
  auto store = Open();
  WatchOptions options{.prefix = "/core/pods/"};
  options.predicate = [](const api::Object& o) { return o.labels().Get("app") == "web"; };
  auto w = std::move(store->WatchFrom(options)).value();
  ASSERT_TRUE(store->Create(MakePod("ns", "a", R"({"app":"db"})")).ok());              // no event
  ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"app":"web"})"), 0).ok());          // ADDED
  ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"app":"web","v":"2"})"), 0).ok());  // MODIFIED
  ASSERT_TRUE(store->Update(MakePod("ns", "a", R"({"app":"db"})"), 0).ok());           // DELETED
  auto events = Drain(*w, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kAdded);
  EXPECT_EQ(events[1].type, EventType::kModified);
  EXPECT_EQ(events[2].type, EventType::kDeleted);
  EXPECT_EQ(events[2].revision, Rev(4));
  EXPECT_EQ(events[2].object->resource_version(), Rev(4));
  EXPECT_EQ(events[2].object->labels().Get("app"), "web") << "the last matching state";
}

TEST_P(StoreContract, WatchFromCompactedRevisionIsExpired) {
  auto store = Open(/*history=*/5);
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
  EXPECT_EQ(Compacted(*store), Rev(5));
  EXPECT_EQ(store->WatchFrom({.prefix = "/", .resource_version = Rev(2)}).status().code(),
            StatusCode::kExpired);
  EXPECT_TRUE(store->WatchFrom({.prefix = "/", .resource_version = Rev(5)}).ok());
}

TEST_P(StoreContract, SlowWatcherEndsWithExpiredWithoutBlockingWriters) {
  auto store = Open(/*history=*/16);
  auto slow = std::move(store->WatchFrom({.prefix = "/"})).value();
  auto fast = std::move(store->WatchFrom({.prefix = "/"})).value();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(store->Create(MakePod("ns", "p" + std::to_string(i))).ok());
    if (i % 8 == 0) {
      auto got = fast->Poll();
      ASSERT_FALSE(got.empty());
    }
  }
  auto events = slow->Poll();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kError);
  EXPECT_EQ(events[0].error.code(), StatusCode::kExpired);
  EXPECT_TRUE(slow->Done());
  // The fast watcher kept up and has the rest.
  auto rest = fast->Poll();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().revision, Rev(100));
}

TEST_P(StoreContract, WatchSendsBookmarksWhenIdle) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakeNode("n")).ok());
  auto w =
      std::move(store->WatchFrom({.prefix = "/core/pods/", .bookmark_interval = 20ms})).value();
  ASSERT_TRUE(store->Create(MakeNode("m")).ok());  // not a pod: no event, but revision Rev(2)
  auto events = w->Next(std::chrono::steady_clock::now() + 2s);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kBookmark);
  EXPECT_EQ(events[0].revision, Rev(2));
}

TEST_P(StoreContract, NotifyIsCalledForNewEventsAndStopEndsTheStream) {
  auto store = Open();
  auto w = std::move(store->WatchFrom({.prefix = "/"})).value();
  std::atomic<int> notified{0};
  w->SetNotify([&] { notified++; });
  ASSERT_TRUE(store->Create(MakeNode("a")).ok());
  ASSERT_TRUE(store->Create(MakeNode("b")).ok());
  EXPECT_EQ(notified.load(), 1) << "notifications coalesce until the watcher polls";
  EXPECT_EQ(w->Poll().size(), 2u);
  ASSERT_TRUE(store->Create(MakeNode("c")).ok());
  EXPECT_EQ(notified.load(), 2);
  w->Stop();
  EXPECT_TRUE(w->Done());
  EXPECT_TRUE(w->Next(std::chrono::steady_clock::now() + 1s).empty());
}

TEST_P(StoreContract, OnlyWritesUnderTheWatchedPrefixNotify) {
  auto store = Open();
  auto w = std::move(store->WatchFrom({.prefix = "/core/pods/"})).value();
  std::atomic<int> notified{0};
  w->SetNotify([&] { notified++; });
  ASSERT_TRUE(store->Create(MakeNode("n")).ok());
  EXPECT_EQ(notified.load(), 0) << "a node is not under /core/pods/";
  ASSERT_TRUE(store->Create(MakePod("a", "p")).ok());
  EXPECT_EQ(notified.load(), 1);
  EXPECT_EQ(w->Poll().size(), 1u);
}

TEST_P(StoreContract, CountsLiveObjectsByResource) {
  auto store = Open();
  ASSERT_TRUE(store->Create(MakePod("a", "p")).ok());
  ASSERT_TRUE(store->Create(MakePod("b", "p")).ok());
  ASSERT_TRUE(store->Create(MakeNode("n")).ok());
  ASSERT_TRUE(store->Delete(PodKey("a", "p")).ok());
  auto counts = store->CountByResource();
  EXPECT_EQ(counts, (std::vector<std::pair<std::string, int64_t>>{{"/core/nodes/", 1},
                                                                  {"/core/pods/", 1}}));
}

TEST_P(StoreContract, HistoryWindowPrunesOldVersions) {
  auto store = Open(/*history=*/4);
  ASSERT_TRUE(store->Create(MakePod("ns", "a", R"({"v":"0"})")).ok());
  for (int i = 1; i <= 20; ++i) {
    ASSERT_TRUE(
        store->Update(MakePod("ns", "a", R"({"v":")" + std::to_string(i) + R"("})"), 0).ok());
  }
  ASSERT_TRUE(store->Delete(PodKey("ns", "a")).ok());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(store->Create(MakeNode("n" + std::to_string(i))).ok());
  // A list at a revision inside the window still works, older ones are Expired.
  ListOptions at{.prefix = "/core/pods/",
                 .resource_version = Compacted(*store),
                 .match = ResourceVersionMatch::kExact};
  EXPECT_TRUE(store->List(at).ok());
  at.resource_version = Compacted(*store) - 1;
  EXPECT_EQ(store->List(at).status().code(), StatusCode::kExpired);
  EXPECT_TRUE(store->List({.prefix = "/core/pods/"})->items.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreContract, ::testing::Values("memory", "etcd"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace berth::store
