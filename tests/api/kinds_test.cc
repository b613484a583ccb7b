// The kind table: the built-ins in Kind's order, and kinds registered while
// the server runs (custom resources), looked up by name and kept by number.

#include "api/kinds.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

TEST(Kinds, BuiltinsAreInKindOrderAndFoundByNameAndResource) {
  std::vector<KindInfo> all = AllKinds();
  ASSERT_GE(all.size(), static_cast<size_t>(kBuiltinKindCount));
  for (int i = 0; i < kBuiltinKindCount; ++i) {
    const KindInfo& info = Info(static_cast<Kind>(i));
    EXPECT_EQ(static_cast<int>(info.kind), i) << info.name;
    EXPECT_TRUE(info.builtin);
    EXPECT_EQ(KindFromApiVersion(info.ApiVersion(), info.name), info.kind) << info.name;
    // Without a version, a resource of several versions is its first (preferred) one.
    if (info.kind != Kind::kHorizontalPodAutoscalerV1) {
      EXPECT_EQ(KindFromResource(info.group, info.resource), info.kind) << info.name;
    }
    EXPECT_EQ(KindFromResource(info.group, info.version, info.resource), info.kind) << info.name;
  }
  EXPECT_EQ(KindFromResource("autoscaling", "horizontalpodautoscalers"), Kind::kHorizontalPodAutoscaler);
  EXPECT_EQ(KindFromResource("autoscaling", "v1", "horizontalpodautoscalers"), Kind::kHorizontalPodAutoscalerV1);
  // A kind stored as another shares its keys.
  EXPECT_EQ(StorageKey(Kind::kEventsEvent, "default", "e"), "/core/events/default/e");
  EXPECT_EQ(StoragePrefix(Kind::kHorizontalPodAutoscalerV1), "/autoscaling/horizontalpodautoscalers/");
  EXPECT_EQ(KindFromApiVersion("batch/v1", "CronJob"), Kind::kCronJob);
  EXPECT_EQ(StoragePrefix(Kind::kService, "default"), "/core/services/default/");
  EXPECT_EQ(Info(Kind::kCustomResourceDefinition).short_names.size(), 2u);
  EXPECT_FALSE(KindFromResource("batch", "v2", "jobs").has_value());
}

TEST(Kinds, RegisteredKindsAreServedUntilUnregisteredAndKeepTheirNumber) {
  KindSpec spec{"example.com", "v1", "MyApp", "myapps", "myapp", true, {"ma"}, {"all"}};
  auto v1 = RegisterKind(spec);
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_FALSE(IsBuiltin(*v1));
  EXPECT_EQ(KindFromApiVersion("example.com/v1", "MyApp"), *v1);
  EXPECT_EQ(KindFromResource("example.com", "myapps"), *v1);
  EXPECT_EQ(StorageKey(*v1, "ns1", "a"), "/example.com/myapps/ns1/a");
  EXPECT_EQ(Info(*v1).short_names[0], "ma");

  KindSpec spec2 = spec;
  spec2.version = "v2";
  auto v2 = RegisterKind(spec2);
  ASSERT_TRUE(v2.ok());
  EXPECT_NE(*v1, *v2);
  EXPECT_EQ(KindFromResource("example.com", "v2", "myapps"), *v2);
  EXPECT_EQ(StoragePrefix(*v2), StoragePrefix(*v1));  // versions share their keys

  UnregisterKind(*v1);
  EXPECT_FALSE(KindFromApiVersion("example.com/v1", "MyApp").has_value());
  EXPECT_EQ(Info(*v1).name, "MyApp");  // still answers for objects decoded under it
  spec.namespaced = false;
  auto again = RegisterKind(spec);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *v1);
  EXPECT_FALSE(Info(*v1).namespaced);
  EXPECT_EQ(KindFromApiVersion("example.com/v1", "MyApp"), *v1);
  bool listed = false;
  for (const auto& info : AllKinds()) listed = listed || info.kind == *v1;
  EXPECT_TRUE(listed);
  UnregisterKind(*v1);
  UnregisterKind(*v2);
}

TEST(Kinds, BuiltinNamesCannotBeRegistered) {
  EXPECT_FALSE(RegisterKind({"", "v1", "Pod", "pods", "pod"}).ok());
  EXPECT_FALSE(RegisterKind({"apps", "v2", "Deployment", "deployments", "deployment"}).ok());
}

}  // namespace
}  // namespace berth::api
