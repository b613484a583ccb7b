// status.conditions by kube's rule: lastTransitionTime moves only when a
// condition's status does.

#include "api/conditions.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::api {
namespace {

namespace json = boost::json;

constexpr std::string_view kT1 = "2026-01-01T00:00:00Z";
constexpr std::string_view kT2 = "2026-01-01T00:05:00Z";

std::string_view Field(const json::object& status, std::string_view type, std::string_view field) {
  const json::object* c = FindCondition(&status, type);
  return c ? StringAt(*c, field) : std::string_view("<absent>");
}

TEST(SetCondition, AddsANewConditionWithTheTransitionTimeNow) {
  json::object status;
  EXPECT_TRUE(SetCondition(status, {"Ready", "True", "KubeletReady", "ready"}, kT1));
  ASSERT_EQ(status.at("conditions").as_array().size(), 1u);
  EXPECT_EQ(Field(status, "Ready", "status"), "True");
  EXPECT_EQ(Field(status, "Ready", "reason"), "KubeletReady");
  EXPECT_EQ(Field(status, "Ready", "message"), "ready");
  EXPECT_EQ(Field(status, "Ready", "lastTransitionTime"), kT1);
  // Another type is another entry; empty reason and message are left out.
  EXPECT_TRUE(SetCondition(status, {"Initialized", "True", "", ""}, kT1));
  ASSERT_EQ(status.at("conditions").as_array().size(), 2u);
  const json::object* initialized = FindCondition(&status, "Initialized");
  ASSERT_NE(initialized, nullptr);
  EXPECT_FALSE(initialized->contains("reason"));
  EXPECT_FALSE(initialized->contains("message"));
}

TEST(SetCondition, StatusChangeMovesTheTransitionTime) {
  json::object status;
  SetCondition(status, {"Ready", "True", "KubeletReady", ""}, kT1);
  EXPECT_TRUE(SetCondition(status, {"Ready", "False", "KubeletNotReady", "PLEG"}, kT2));
  EXPECT_EQ(Field(status, "Ready", "status"), "False");
  EXPECT_EQ(Field(status, "Ready", "reason"), "KubeletNotReady");
  EXPECT_EQ(Field(status, "Ready", "lastTransitionTime"), kT2);
  EXPECT_EQ(status.at("conditions").as_array().size(), 1u);
}

TEST(SetCondition, SameStatusWithANewReasonKeepsTheTransitionTime) {
  json::object status;
  SetCondition(status, {"Progressing", "True", "ReplicaSetUpdated", "progressing"}, kT1);
  EXPECT_TRUE(SetCondition(status, {"Progressing", "True", "NewReplicaSetAvailable", "done"}, kT2));
  EXPECT_EQ(Field(status, "Progressing", "reason"), "NewReplicaSetAvailable");
  EXPECT_EQ(Field(status, "Progressing", "message"), "done");
  EXPECT_EQ(Field(status, "Progressing", "lastTransitionTime"), kT1);
  // A reason cleared is removed.
  EXPECT_TRUE(SetCondition(status, {"Progressing", "True", "", "done"}, kT2));
  EXPECT_FALSE(FindCondition(&status, "Progressing")->contains("reason"));
}

TEST(SetCondition, NothingNewIsNoChange) {
  json::object status;
  SetCondition(status, {"Ready", "True", "R", "M"}, kT1);
  const json::object before = status;
  EXPECT_FALSE(SetCondition(status, {"Ready", "True", "R", "M"}, kT2));
  EXPECT_EQ(status, before);
}

TEST(SetCondition, StampsHeartbeatsAndNullProbeTimes) {
  json::object status;
  EXPECT_TRUE(SetCondition(status, {"Ready", "True", "R", ""}, kT1, {.heartbeat = true}));
  EXPECT_EQ(Field(status, "Ready", "lastHeartbeatTime"), kT1);
  // A heartbeat always changes the condition, and never its transition time.
  EXPECT_TRUE(SetCondition(status, {"Ready", "True", "R", ""}, kT2, {.heartbeat = true}));
  EXPECT_EQ(Field(status, "Ready", "lastHeartbeatTime"), kT2);
  EXPECT_EQ(Field(status, "Ready", "lastTransitionTime"), kT1);

  json::object pod_status;
  SetCondition(pod_status, {"PodScheduled", "False", "Unschedulable", "0/3 nodes"}, kT1);
  EXPECT_TRUE(
      SetCondition(pod_status, {"PodScheduled", "True", "", ""}, kT2, {.null_probe_time = true}));
  const json::object* scheduled = FindCondition(&pod_status, "PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_TRUE(scheduled->at("lastProbeTime").is_null());
  EXPECT_FALSE(scheduled->contains("reason"));
  EXPECT_FALSE(scheduled->contains("message"));
  EXPECT_EQ(StringAt(*scheduled, "lastTransitionTime"), kT2);
}

TEST(SetCondition, ReplacesAConditionsFieldThatIsNotAnArray) {
  json::object status{{"conditions", "garbage"}};
  EXPECT_TRUE(SetCondition(status, {"Ready", "True", "", ""}, kT1));
  EXPECT_EQ(Field(status, "Ready", "status"), "True");
}

TEST(FindCondition, FindsByTypeAndToleratesMissingParts) {
  EXPECT_EQ(FindCondition(nullptr, "Ready"), nullptr);
  const json::object empty;
  EXPECT_EQ(FindCondition(&empty, "Ready"), nullptr);
  const json::object status =
      json::parse(
          R"({"conditions":[1,{"type":"A","status":"True"},{"type":"Ready","status":"False"}]})")
          .as_object();
  const json::object* ready = FindCondition(&status, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(StringAt(*ready, "status"), "False");
  EXPECT_EQ(FindCondition(&status, "B"), nullptr);
}

}  // namespace
}  // namespace berth::api
