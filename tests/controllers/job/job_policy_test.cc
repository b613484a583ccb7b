// The Job controller's pure decisions: completion index sets and their
// status format, the pod failure backoff, and podFailurePolicy matching.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/object.h"
#include "api/time/rfc3339.h"
#include "controllers/job/backoff.h"
#include "controllers/job/indexes.h"
#include "controllers/job/pod_failure_policy.h"

namespace berth::controllers::job {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(JobIndexes, FormatsRunsAsKubeDoes) {
  struct Case {
    std::vector<int64_t> add;
    std::string want;
  } cases[] = {
      {{}, ""},
      {{1}, "1"},
      {{1, 3, 4, 5}, "1,3-5"},
      {{5, 3, 1, 4}, "1,3-5"},  // any order
      {{0, 1}, "0,1"},          // a pair is two indexes, not a range
      {{3, 4, 7, 8, 9}, "3,4,7-9"},
      {{2, 0, 1, 1}, "0-2"},  // duplicates and joining both neighbours
      {{9, 7, 0}, "0,7,9"},
  };
  for (const auto& c : cases) {
    IndexSet s;
    for (auto i : c.add) s.Add(i);
    EXPECT_EQ(s.String(), c.want);
  }
}

TEST(JobIndexes, ParsesWithinCompletionsAndSkipsMalformedParts) {
  EXPECT_EQ(IndexSet::Parse("1,3-5", 10).String(), "1,3-5");
  EXPECT_EQ(IndexSet::Parse("1,3-5", 10).Count(), 4);
  EXPECT_EQ(IndexSet::Parse("0-2,8-12", 10).String(), "0-2,8,9");  // cut at completions
  EXPECT_EQ(IndexSet::Parse("x,2,5-3,-1,4", 10).String(), "2,4");
  EXPECT_TRUE(IndexSet::Parse("1,3-5", 10).Contains(4));
  EXPECT_FALSE(IndexSet::Parse("1,3-5", 10).Contains(2));
}

TEST(JobIndexes, FirstPendingSkipsSucceededAndActive) {
  IndexSet succeeded = IndexSet::Parse("0,2", 10);
  IndexSet active = IndexSet::Parse("1,4", 10);
  EXPECT_EQ(FirstPendingIndexes(10, 3, {&succeeded, &active}), (std::vector<int64_t>{3, 5, 6}));
  EXPECT_EQ(FirstPendingIndexes(5, 9, {&succeeded, &active}), (std::vector<int64_t>{3}));
}

TEST(JobBackoff, DoublesFromTenSecondsUpToTenMinutes) {
  const auto failed_at = std::chrono::system_clock::time_point(1000000s);
  auto remaining = [&](int64_t failures, std::chrono::seconds later) {
    return RemainingBackoff(BackoffRecord{failures, failed_at}, failed_at + later);
  };
  EXPECT_EQ(remaining(0, 0s), 0ns);
  EXPECT_EQ(remaining(1, 0s), 10s);
  EXPECT_EQ(remaining(2, 0s), 20s);
  EXPECT_EQ(remaining(3, 5s), 35s);
  EXPECT_EQ(remaining(6, 0s), 320s);
  EXPECT_EQ(remaining(7, 0s), 600s);  // 640 s capped
  EXPECT_EQ(remaining(60, 0s), 600s);
  EXPECT_EQ(remaining(1, 10s), 0ns);
  EXPECT_EQ(remaining(1, 11s), 0ns);
}

api::ObjectPtr FinishedPod(const std::string& name, const std::string& phase,
                           const std::string& finished_at, int exit_code = 1,
                           json::array conditions = {}, const std::string& container = "c") {
  json::object status{
      {"phase", phase},
      {"containerStatuses",
       json::array{json::object{
           {"name", container},
           {"state", json::object{{"terminated", json::object{{"exitCode", exit_code},
                                                              {"finishedAt", finished_at}}}}}}}}};
  if (!conditions.empty()) status["conditions"] = std::move(conditions);
  return api::Object::FromJson(
             json::object{
                 {"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata", json::object{{"name", name}, {"namespace", "ns"}, {"uid", name}}},
                 {"spec",
                  json::object{{"containers", json::array{json::object{{"name", container}}}}}},
                 {"status", status}})
      .value();
}

TEST(JobBackoff, ASuccessResetsTheCountToLaterFailures) {
  const auto now = api::ParseRfc3339("2026-01-01T00:10:00Z").value();
  BackoffRecord r = NextBackoffRecord({}, {},
                                      {FinishedPod("a", "Failed", "2026-01-01T00:00:00Z"),
                                       FinishedPod("b", "Failed", "2026-01-01T00:00:05Z")},
                                      now);
  EXPECT_EQ(r.failures_after_last_success, 2);
  EXPECT_EQ(r.last_failure, api::ParseRfc3339("2026-01-01T00:00:05Z"));
  r = NextBackoffRecord(r, {FinishedPod("s", "Succeeded", "2026-01-01T00:01:00Z", 0)},
                        {FinishedPod("c", "Failed", "2026-01-01T00:00:30Z"),
                         FinishedPod("d", "Failed", "2026-01-01T00:02:00Z")},
                        now);
  EXPECT_EQ(r.failures_after_last_success, 1);  // only d failed after the success
  EXPECT_EQ(r.last_failure, api::ParseRfc3339("2026-01-01T00:02:00Z"));
}

json::object Policy(const char* text) { return json::parse(text).as_object(); }

TEST(JobPodFailurePolicy, FirstMatchingRuleDecides) {
  const json::object policy = Policy(R"({"rules":[
    {"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]},
    {"action":"FailJob","onExitCodes":{"containerName":"main","operator":"In","values":[42]}},
    {"action":"Count","onExitCodes":{"operator":"NotIn","values":[1,2]}},
    {"action":"FailJob","onExitCodes":{"operator":"In","values":[1]}}]})");
  const std::string t = "2026-01-01T00:00:00Z";
  json::array disrupted{json::object{{"type", "DisruptionTarget"}, {"status", "True"}}};
  struct Case {
    std::string name;
    api::ObjectPtr pod;
    std::string action;
    bool count;
    std::string message;
  } cases[] = {
      {"disruption is ignored", FinishedPod("p", "Failed", t, 42, disrupted, "main"), "Ignore",
       false, ""},
      {"exit 42 of main fails the job", FinishedPod("p", "Failed", t, 42, {}, "main"), "FailJob",
       true,
       "Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1"},
      {"exit 42 of another container is counted by NotIn",
       FinishedPod("p", "Failed", t, 42, {}, "side"), "Count", true, ""},
      {"exit 1 skips NotIn and fails at index 3", FinishedPod("p", "Failed", t, 1), "FailJob", true,
       "Container c for pod ns/p failed with exit code 1 matching FailJob rule at index 3"},
      {"exit 2 matches nothing and counts", FinishedPod("p", "Failed", t, 2), "", true, ""},
      {"exit 0 never matches an exit code rule", FinishedPod("p", "Failed", t, 0), "", true, ""},
  };
  for (const auto& c : cases) {
    PodFailureDecision d = MatchPodFailurePolicy(&policy, *c.pod);
    EXPECT_EQ(d.action, c.action) << c.name;
    EXPECT_EQ(d.count, c.count) << c.name;
    EXPECT_EQ(d.fail_job_message.value_or(""), c.message) << c.name;
  }
}

TEST(JobPodFailurePolicy, PodConditionRuleNamesTheCondition) {
  const json::object policy =
      Policy(R"({"rules":[{"action":"FailJob","onPodConditions":[{"type":"DisruptionTarget"}]}]})");
  json::array disrupted{json::object{{"type", "DisruptionTarget"}, {"status", "True"}}};
  auto d = MatchPodFailurePolicy(
      &policy, *FinishedPod("p", "Failed", "2026-01-01T00:00:00Z", 137, disrupted));
  EXPECT_EQ(d.fail_job_message.value_or(""),
            "Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0");
  // No policy: every failure counts, nothing matched.
  auto none = MatchPodFailurePolicy(
      nullptr, *FinishedPod("p", "Failed", "2026-01-01T00:00:00Z", 137, disrupted));
  EXPECT_TRUE(none.count);
  EXPECT_EQ(none.action, "");
}

}  // namespace berth::controllers::job
