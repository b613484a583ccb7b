// The store's key index against std::map as the reference: lookups, erasure
// (linear probing's backward shift), growth, and the lazily kept key order.

#include "store/memory/key_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace berth::store {
namespace {

using Index = KeyIndex<int>;

// The keys a walk visits, in its order.
std::vector<std::string> Walked(const Index& index, std::string_view prefix = "",
                                std::string_view start = "", bool after = false) {
  std::vector<std::string> keys;
  index.Walk(prefix, start.empty() ? prefix : start, after, [&](const Index::Entry& e) {
    keys.push_back(e.key);
    return true;
  });
  return keys;
}
std::vector<std::string> OrderedKeys(const Index& index) { return Walked(index); }

std::vector<std::string> MapKeys(const std::map<std::string, int>& reference) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : reference) keys.push_back(key);
  return keys;
}

TEST(KeyIndex, FindsWhatWasInsertedAndNothingElse) {
  Index index;
  EXPECT_EQ(index.Find("/pods/default/a"), nullptr);
  Index::Entry* a = index.FindOrInsert("/pods/default/a");
  a->value = 1;
  EXPECT_EQ(index.FindOrInsert("/pods/default/a"), a);  // found, not made again
  EXPECT_EQ(index.Find("/pods/default/a"), a);
  EXPECT_EQ(index.Find("/pods/default/b"), nullptr);
  EXPECT_EQ(index.Find("/pods/default/"), nullptr);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(a->value, 1);
}

TEST(KeyIndex, AscendingKeysNeedNoSort) {
  Index index;
  for (const char* key : {"/a", "/b", "/c"}) index.FindOrInsert(key);
  EXPECT_TRUE(index.Sorted(""));
  EXPECT_EQ(OrderedKeys(index), (std::vector<std::string>{"/a", "/b", "/c"}));
  index.FindOrInsert("/aa");  // sorts before "/c": waits for Sort
  EXPECT_FALSE(index.Sorted(""));
  EXPECT_NE(index.Find("/aa"), nullptr);  // found before it is ordered
  index.Sort();
  EXPECT_TRUE(index.Sorted(""));
  EXPECT_EQ(OrderedKeys(index), (std::vector<std::string>{"/a", "/aa", "/b", "/c"}));
}

TEST(KeyIndex, LoadedKeysAreFoundOnceLoadingFinishes) {
  Index index;
  for (int i = 0; i < 5000; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "/k/%05d", i);
    index.Load(key)->value = i;
  }
  // Out of order (and a duplicate): inserted as FindOrInsert would.
  index.Load("/k/00000")->value = -1;
  index.Load("/k/00001")->value = 1;
  index.Load("/a")->value = -2;
  index.FinishLoad();
  EXPECT_EQ(index.size(), 5001u);
  for (int i = 1; i < 5000; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "/k/%05d", i);
    const Index::Entry* e = index.Find(key);
    ASSERT_NE(e, nullptr) << key;
    EXPECT_EQ(e->value, i);
  }
  EXPECT_EQ(index.Find("/k/00000")->value, -1);
  EXPECT_EQ(index.Find("/a")->value, -2);
  // The duplicates counted once: erasing 2,501 of the part's 5,000 keys (more
  // than half, and over 1,024) frees them, leaving the part ordered.
  for (int i = 0; i < 2501; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "/k/%05d", i);
    index.Erase(index.Find(key));
  }
  EXPECT_TRUE(index.Sorted("/k/"));
  EXPECT_EQ(index.size(), 2500u);
  index.Sort();
  auto keys = OrderedKeys(index);
  ASSERT_EQ(keys.size(), 2500u);
  EXPECT_EQ(keys.front(), "/a");
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST(KeyIndex, WalksAPrefixFromAStartKey) {
  Index index;
  for (const char* key :
       {"/core/pods/b/x", "/core/pods/a/y", "/core/nodes/n1", "/core/pods/a/x", "/core/pods/c/z",
        "/apps/replicasets/a/r", "/apps/replicasets/a/a", "/core/pods/a/z"}) {
    index.FindOrInsert(key);
  }
  EXPECT_FALSE(index.Sorted("/core/pods/"));
  EXPECT_TRUE(index.Sorted("/core/nodes/"));  // its one key needs no ordering
  index.Sort("/core/pods/a/");
  EXPECT_TRUE(index.Sorted("/core/pods/"));
  EXPECT_FALSE(index.Sorted(""));  // the ReplicaSets are not ordered yet
  EXPECT_EQ(Walked(index, "/core/pods/a/"),
            (std::vector<std::string>{"/core/pods/a/x", "/core/pods/a/y", "/core/pods/a/z"}));
  // After a continue token's last key.
  EXPECT_EQ(Walked(index, "/core/pods/a/", "/core/pods/a/x", true),
            (std::vector<std::string>{"/core/pods/a/y", "/core/pods/a/z"}));
  EXPECT_EQ(Walked(index, "/core/pods/", "/core/pods/b/", false),
            (std::vector<std::string>{"/core/pods/b/x", "/core/pods/c/z"}));
  EXPECT_TRUE(Walked(index, "/core/pods/d/").empty());
  // Across parts (a prefix shorter than a resource): one order.
  index.Sort();
  EXPECT_EQ(Walked(index, "/core/"),
            (std::vector<std::string>{"/core/nodes/n1", "/core/pods/a/x", "/core/pods/a/y",
                                      "/core/pods/a/z", "/core/pods/b/x", "/core/pods/c/z"}));
  EXPECT_EQ(OrderedKeys(index).front(), "/apps/replicasets/a/a");
  // The walk stops when told to.
  int visited = 0;
  index.Walk("", "", false, [&](const Index::Entry&) { return ++visited < 2; });
  EXPECT_EQ(visited, 2);
}

TEST(KeyIndex, KeysWithFewSlashesShareAPart) {
  Index index;
  for (const char* key : {"/b", "/a/2", "/a/1", "c", "/a"}) index.FindOrInsert(key);
  index.Sort();
  EXPECT_EQ(OrderedKeys(index), (std::vector<std::string>{"/a", "/a/1", "/a/2", "/b", "c"}));
  EXPECT_EQ(Walked(index, "/a"), (std::vector<std::string>{"/a", "/a/1", "/a/2"}));
}

TEST(KeyIndex, AnErasedKeyCanBeMadeAgain) {
  Index index;
  Index::Entry* first = index.FindOrInsert("/k");
  first->value = 1;
  index.Erase(first);
  EXPECT_EQ(index.Find("/k"), nullptr);
  EXPECT_EQ(index.size(), 0u);
  EXPECT_FALSE(index.Sorted(""));  // the erased entry is still in the order
  Index::Entry* second = index.FindOrInsert("/k");
  EXPECT_EQ(second->value, 0);
  EXPECT_EQ(index.Find("/k"), second);
  index.Sort();
  EXPECT_EQ(OrderedKeys(index), (std::vector<std::string>{"/k"}));
}

TEST(KeyIndex, ErasedEntriesAreFreedOnceTheyOutnumberLiveOnes) {
  Index index;
  std::vector<Index::Entry*> entries;
  for (int i = 0; i < 3000; ++i) entries.push_back(index.FindOrInsert("/k/" + std::to_string(i)));
  index.Sort();
  // Erasing the first 1,024 leaves 1,976 live: nothing freed yet.
  for (int i = 0; i < 1024; ++i) index.Erase(entries[static_cast<size_t>(i)]);
  EXPECT_FALSE(index.Sorted(""));
  // Past the point where erased outnumber live (and at least 1,024), Erase sorts.
  int erased = 1024;
  while (!index.Sorted("")) index.Erase(entries[static_cast<size_t>(erased++)]);
  EXPECT_GT(erased, 1500);
  EXPECT_EQ(index.size(), 3000u - static_cast<size_t>(erased));
  EXPECT_EQ(OrderedKeys(index).size(), index.size());
}

// Random inserts, lookups and erasures of keys from a small set (so probe runs
// collide, wrap around the table and shift back on erase), checked step by
// step against std::map; the order against the map's after each Sort.
TEST(KeyIndex, AgreesWithAMapUnderRandomOperations) {
  std::mt19937 rng(20261123);
  Index index;
  std::map<std::string, int> reference;
  auto key = [&] {
    return "/pods/ns-" + std::to_string(rng() % 7) + "/p" + std::to_string(rng() % 500);
  };
  for (int step = 0; step < 200'000; ++step) {
    const std::string k = key();
    switch (rng() % 4) {
      case 0:
      case 1: {  // insert (or find) and write
        Index::Entry* e = index.FindOrInsert(k);
        const int v = static_cast<int>(rng() % 1000);
        e->value = v;
        reference[k] = v;
        break;
      }
      case 2: {  // erase
        Index::Entry* e = index.Find(k);
        ASSERT_EQ(e != nullptr, reference.count(k) == 1) << k;
        if (e != nullptr) {
          index.Erase(e);
          reference.erase(k);
        }
        break;
      }
      case 3: {  // look up
        const Index::Entry* e = index.Find(k);
        auto it = reference.find(k);
        ASSERT_EQ(e != nullptr, it != reference.end()) << k;
        if (e != nullptr) {
          ASSERT_EQ(e->value, it->second) << k;
        }
        break;
      }
    }
    ASSERT_EQ(index.size(), reference.size());
    if (step % 20'000 == 0) {
      index.Sort();
      ASSERT_EQ(OrderedKeys(index), MapKeys(reference));
    }
  }
  size_t live = 0;
  index.ForEach([&](const Index::Entry& e) {
    ++live;
    EXPECT_EQ(reference.at(e.key), e.value);
  });
  EXPECT_EQ(live, reference.size());
  index.Sort();
  EXPECT_EQ(OrderedKeys(index), MapKeys(reference));
}

}  // namespace
}  // namespace berth::store
