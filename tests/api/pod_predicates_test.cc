// Ready, available and active pods as kube's controllers count them.

#include <gtest/gtest.h>

#include <string>

#include "api/object.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"

namespace berth::api {
namespace {

using std::chrono::seconds;

ObjectPtr Pod(const std::string& status, const std::string& metadata_extra = "") {
  auto pod = Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p")" + metadata_extra +
      R"(},"spec":{"containers":[{"name":"c","image":"i"}]},"status":)" + status + "}");
  EXPECT_TRUE(pod.ok()) << pod.status().message();
  return pod.ok() ? pod.value() : nullptr;
}

std::string ReadySince(const std::string& status, const std::string& since) {
  return R"({"phase":"Running","conditions":[{"type":"Ready","status":")" + status +
         R"(","lastTransitionTime":")" + since + R"("}]})";
}

TEST(PodPredicates, ReadyMeansTheReadyConditionIsTrue) {
  const auto since = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  const std::string t = FormatRfc3339(since);
  struct Case {
    const char* name;
    std::string status;
    bool ready;
  };
  const Case cases[] = {
      {"ready", ReadySince("True", t), true},
      {"not ready", ReadySince("False", t), false},
      {"unknown", ReadySince("Unknown", t), false},
      {"no conditions", R"({"phase":"Running"})", false},
      {"other condition only", R"({"conditions":[{"type":"ContainersReady","status":"True"}]})",
       false},
  };
  for (const auto& c : cases) {
    auto pod = Pod(c.status);
    ASSERT_TRUE(pod) << c.name;
    EXPECT_EQ(IsPodReady(*pod), c.ready) << c.name;
    EXPECT_EQ(PodReadySince(*pod), c.ready ? t : "") << c.name;
  }
}

TEST(PodPredicates, AvailableAfterMinReadySecondsOfReadiness) {
  const auto since = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  auto pod = Pod(ReadySince("True", FormatRfc3339(since)));
  ASSERT_TRUE(pod);
  EXPECT_TRUE(IsPodAvailable(*pod, 0, since));  // ready is enough without minReadySeconds
  EXPECT_FALSE(IsPodAvailable(*pod, 10, since + seconds(9)));
  EXPECT_TRUE(IsPodAvailable(*pod, 10, since + seconds(10)));
  auto not_ready = Pod(ReadySince("False", FormatRfc3339(since)));
  ASSERT_TRUE(not_ready);
  EXPECT_FALSE(IsPodAvailable(*not_ready, 0, since + seconds(100)));
  // Ready, but since when is unknown: only available without minReadySeconds.
  auto untimed = Pod(R"({"conditions":[{"type":"Ready","status":"True"}]})");
  ASSERT_TRUE(untimed);
  EXPECT_TRUE(IsPodAvailable(*untimed, 0, since));
  EXPECT_FALSE(IsPodAvailable(*untimed, 1, since + seconds(1000)));
}

TEST(PodPredicates, ActiveUnlessFinishedOrBeingDeleted) {
  struct Case {
    const char* name;
    std::string status, metadata_extra;
    bool active;
  };
  const Case cases[] = {
      {"pending", R"({"phase":"Pending"})", "", true},
      {"running", R"({"phase":"Running"})", "", true},
      {"no phase", R"({})", "", true},
      {"succeeded", R"({"phase":"Succeeded"})", "", false},
      {"failed", R"({"phase":"Failed"})", "", false},
      {"being deleted", R"({"phase":"Running"})", R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")",
       false},
  };
  for (const auto& c : cases) {
    auto pod = Pod(c.status, c.metadata_extra);
    ASSERT_TRUE(pod) << c.name;
    EXPECT_EQ(IsPodActive(*pod), c.active) << c.name;
  }
}

}  // namespace
}  // namespace berth::api
