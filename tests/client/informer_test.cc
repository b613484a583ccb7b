// Shared informers over the store: the initial list and the watch fill an
// indexed cache, handlers see adds, updates and deletes, and a watch lost
// because the consumer fell behind the store's history window is resumed by
// listing again.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "client/informer_factory.h"
#include "client/store_informer.h"
#include "store/memory/memory_store.h"
#include "../store/test_objects.h"

namespace berth::client {
namespace {

using store::testing::MakeNode;
using store::testing::MakePod;

std::unique_ptr<InformerFactory> Factory(store::Store& s) {
  return std::make_unique<InformerFactory>([&s](api::Kind kind, InformerHandlers handlers) {
    return std::make_unique<StoreInformer>(s, kind, std::move(handlers));
  });
}

// Polls until `done` (at most 5 s).
template <typename F>
bool Eventually(F done) {
  for (int i = 0; i < 5000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

TEST(StoreInformer, ListsThenWatchesIntoAnIndexedCache) {
  auto s = store::MemoryStore::Open({}).value();
  ASSERT_TRUE(s->Create(MakePod("a", "p1", "{}", "n1")).ok());
  ASSERT_TRUE(s->Create(MakeNode("n1")).ok());  // another kind: not seen by the pod informer
  auto factory = Factory(*s);
  SharedInformer& pods = factory->For(api::Kind::kPod);
  std::atomic<int> adds{0}, updates{0}, deletes{0};
  pods.AddHandlers({[&](const api::ObjectPtr&) { adds++; }, [&](const api::ObjectPtr&) { updates++; },
                    [&](const api::ObjectPtr&) { deletes++; }});
  pods.AddIndex("app", [](const api::Object& o) {
    auto app = o.labels().Get("app");
    return app ? std::vector<std::string>{std::string(*app)} : std::vector<std::string>{};
  });
  ASSERT_TRUE(factory->Start().ok());
  EXPECT_EQ(pods.Size(), 1u) << "the initial list is in the cache when Start returns";
  EXPECT_EQ(adds.load(), 1);

  ASSERT_TRUE(s->Create(MakePod("a", "p2", R"({"app":"web"})", "n1")).ok());
  ASSERT_TRUE(s->Create(MakePod("b", "p3", R"({"app":"web"})", "n2")).ok());
  ASSERT_TRUE(Eventually([&] { return pods.Size() == 3; }));
  EXPECT_EQ(pods.ByIndex(kNamespaceIndex, "a").size(), 2u);
  EXPECT_EQ(pods.ByIndex(kNodeNameIndex, "n2").size(), 1u);
  EXPECT_EQ(pods.ByIndex("app", "web").size(), 2u);

  // A label change moves the pod between index values.
  auto p2 = pods.Get(ObjectKey("a", "p2"));
  ASSERT_NE(p2, nullptr);
  ASSERT_TRUE(s->Update(MakePod("a", "p2", R"({"app":"db"})", "n1"), p2->resource_version()).ok());
  ASSERT_TRUE(Eventually([&] { return pods.ByIndex("app", "db").size() == 1; }));
  EXPECT_EQ(pods.ByIndex("app", "web").size(), 1u);
  EXPECT_EQ(updates.load(), 1);

  ASSERT_TRUE(s->Delete(api::StorageKey(api::Kind::kPod, "b", "p3")).ok());
  ASSERT_TRUE(Eventually([&] { return pods.Size() == 2; }));
  EXPECT_TRUE(pods.ByIndex(kNodeNameIndex, "n2").empty());
  EXPECT_EQ(deletes.load(), 1);
  factory->Stop();
}

TEST(StoreInformer, ResumesByListingAgainWhenItsWatchFellBehind) {
  // A history window of 8 revisions: a consumer stalled for more writes than
  // that loses its watch (too old resource version) and must list again.
  store::MemoryStore::Options options;
  options.history = 8;
  auto s = store::MemoryStore::Open(options).value();
  auto factory = Factory(*s);
  SharedInformer& pods = factory->For(api::Kind::kPod);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> stalled{false};
  pods.AddHandlers({[&](const api::ObjectPtr& o) {
                      if (o->name() == "first" && !stalled.exchange(true)) released.wait();
                    },
                    nullptr, nullptr});
  ASSERT_TRUE(factory->Start().ok());
  ASSERT_TRUE(s->Create(MakePod("a", "first")).ok());
  ASSERT_TRUE(Eventually([&] { return stalled.load(); }));
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(s->Create(MakePod("a", "p" + std::to_string(i))).ok());
  ASSERT_TRUE(s->Delete(api::StorageKey(api::Kind::kPod, "a", "p0")).ok());
  release.set_value();
  ASSERT_TRUE(Eventually([&] { return pods.Size() == 50; })) << pods.Size();
  EXPECT_EQ(pods.Get(ObjectKey("a", "p0")), nullptr) << "the deletion it missed is seen after the relist";
  EXPECT_NE(pods.Get(ObjectKey("a", "p49")), nullptr);
  factory->Stop();
}

TEST(SharedInformer, ResyncRedeliversCachedObjectsAsUpdates) {
  auto s = store::MemoryStore::Open({}).value();
  ASSERT_TRUE(s->Create(MakePod("a", "p1")).ok());
  ASSERT_TRUE(s->Create(MakePod("a", "p2")).ok());
  SharedInformer pods(
      [&](InformerHandlers handlers) {
        return std::make_unique<StoreInformer>(*s, api::Kind::kPod, std::move(handlers));
      },
      std::chrono::milliseconds(20));
  std::atomic<int> updates{0};
  pods.AddHandlers({nullptr, [&](const api::ObjectPtr&) { updates++; }, nullptr});
  ASSERT_TRUE(pods.Start().ok());
  // Nothing changes in the store, yet both pods come again, periodically.
  EXPECT_TRUE(Eventually([&] { return updates.load() >= 4; })) << updates.load();
  pods.Stop();
}

}  // namespace
}  // namespace berth::client
