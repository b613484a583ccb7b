// Resource names as kube's v1helper tells them apart.

#include "api/resource_names.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

TEST(ResourceNames, ExtendedResourceNamesAreKubes) {
  EXPECT_TRUE(IsExtendedResourceName("example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("cpu"));
  EXPECT_FALSE(IsExtendedResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsExtendedResourceName("kubernetes.io/batch-cpu"));
  EXPECT_FALSE(IsExtendedResourceName("foo.kubernetes.io/bar"));
  EXPECT_FALSE(IsExtendedResourceName("requests.example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("example.com/not a name"));  // not valid as a quota name
}

}  // namespace
}  // namespace berth::api
