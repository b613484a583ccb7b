// PodList: a node's pods in copy-on-write chunks, checked against a vector
// under random additions and removals, with copies that must not change.

#include "scheduler/framework/node_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::Pod;

std::vector<std::string> Keys(const PodList& list) {
  std::vector<std::string> keys;
  for (const auto& p : list) keys.push_back(p->key);
  return keys;
}

TEST(PodList, MatchesAVectorUnderRandomChangesAndCopiesStayAsTheyWere) {
  std::vector<PodInfoPtr> pods;
  for (int i = 0; i < 200; ++i) pods.push_back(Pod("p" + std::to_string(i)));
  std::mt19937 rng(7);
  PodList list;
  std::vector<std::string> model;  // the same swap-with-last removal
  std::vector<std::pair<PodList, std::vector<std::string>>> copies;
  for (int step = 0; step < 5000; ++step) {
    const size_t i = rng() % pods.size();
    const std::string& key = pods[i]->key;
    auto at = std::find(model.begin(), model.end(), key);
    if (at == model.end()) {
      list.push_back(pods[i]);
      model.push_back(key);
    } else {
      PodInfoPtr removed = list.Remove(key);
      ASSERT_TRUE(removed);
      EXPECT_EQ(removed->key, key);
      *at = model.back();
      model.pop_back();
    }
    ASSERT_EQ(list.size(), model.size());
    ASSERT_EQ(list.empty(), model.empty());
    ASSERT_EQ(Keys(list), model) << "step " << step;
    if (step % 50 == 0) copies.emplace_back(list, model);  // shares chunks with `list`
  }
  EXPECT_EQ(list.Remove("default/none"), nullptr);
  for (const auto& [copy, keys] : copies) EXPECT_EQ(Keys(copy), keys);
  for (const auto& key : model) {
    const PodInfoPtr* found = list.Find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ((*found)->key, key);
  }
  EXPECT_EQ(list.Find("default/none"), nullptr);
}

TEST(PodList, RemovingDownToEmptyAndGrowingAgain) {
  PodList list;
  std::vector<PodInfoPtr> pods;
  for (int i = 0; i < 3 * static_cast<int>(PodList::kChunk) + 1; ++i)
    pods.push_back(Pod("p" + std::to_string(i)));
  for (const auto& p : pods) list.push_back(p);
  PodList before = list;
  for (const auto& p : pods) ASSERT_TRUE(list.Remove(p->key));
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.begin(), list.end());
  EXPECT_EQ(before.size(), pods.size());
  EXPECT_EQ(Keys(before).front(), pods.front()->key);
  list.push_back(pods[5]);
  EXPECT_EQ(Keys(list), std::vector<std::string>{pods[5]->key});
}

}  // namespace
}  // namespace berth::scheduler
