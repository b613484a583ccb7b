#include "api/once.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace berth::api {
namespace {

TEST(OnceTest, RunsTheFunctionOnce) {
  Once once;
  int runs = 0;
  EXPECT_FALSE(once.done());
  once.Call([&] { ++runs; });
  once.Call([&] { ++runs; });
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(once.done());
}

TEST(OnceTest, AThrowLeavesItForTheNextCaller) {
  Once once;
  int runs = 0;
  EXPECT_THROW(once.Call([&] {
    ++runs;
    throw std::runtime_error("no");
  }),
               std::runtime_error);
  EXPECT_FALSE(once.done());
  once.Call([&] { ++runs; });
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(once.done());
}

}  // namespace
}  // namespace berth::api
