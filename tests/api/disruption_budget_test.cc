// PodDisruptionBudget rules: validation with kube's messages, which pods a
// budget covers, and kube's int-or-percent scaling.

#include "api/disruption_budget.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/validation/validation.h"

namespace berth::api {
namespace {

namespace json = boost::json;

ObjectPtr Budget(const std::string& spec) {
  return Object::Decode(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"web","namespace":"default"},"spec":)" +
                        spec + "}")
      .value();
}

TEST(DisruptionBudgetValidation, KubesRulesAndMessages) {
  struct Case {
    std::string spec;
    std::string message;  // "" when valid
  } cases[] = {
      {R"({"minAvailable":2,"selector":{}})", ""},
      {R"({"maxUnavailable":"25%","selector":{}})", ""},
      {R"({"minAvailable":1,"maxUnavailable":1})",
       "PodDisruptionBudget.policy \"web\" is invalid: spec.minAvailable: Invalid value: 1: minAvailable "
       "and maxUnavailable "
       "cannot be both set"},
      {R"({"minAvailable":-1})",
       "PodDisruptionBudget.policy \"web\" is invalid: spec.minAvailable: Invalid value: -1: must be "
       "greater than or equal "
       "to 0"},
      {R"({"maxUnavailable":"150%"})",
       "PodDisruptionBudget.policy \"web\" is invalid: spec.maxUnavailable: Invalid value: \"150%\": must "
       "not be greater "
       "than 100%"},
      {R"({"minAvailable":1,"unhealthyPodEvictionPolicy":"Sometimes"})",
       "PodDisruptionBudget.policy \"web\" is invalid: spec.unhealthyPodEvictionPolicy: Unsupported "
       "value: \"Sometimes\": "
       "supported values: \"AlwaysAllow\", \"IfHealthyBudget\""},
  };
  for (const auto& c : cases) {
    Status s = ValidateObject(*Budget(c.spec));
    if (c.message.empty()) {
      EXPECT_TRUE(s.ok()) << c.spec << ": " << s.message();
    } else {
      EXPECT_EQ(s.message(), c.message) << c.spec;
    }
  }
}

TEST(DisruptionBudget, NullSelectorCoversNothingAndEmptyCoversEverything) {
  auto pod = Object::Decode(
                 R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
      "labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}})")
                 .value();
  EXPECT_FALSE(BudgetCoversPod(*Budget(R"({"minAvailable":1})"), *pod));
  EXPECT_TRUE(BudgetCoversPod(*Budget(R"({"minAvailable":1,"selector":{}})"), *pod));
  EXPECT_TRUE(BudgetCoversPod(
      *Budget(R"({"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}})"), *pod));
  EXPECT_FALSE(BudgetCoversPod(
      *Budget(R"({"minAvailable":1,"selector":{"matchLabels":{"app":"db"}}})"), *pod));
}

TEST(DisruptionBudget, PercentagesScaleAsKubeRoundsThem) {
  auto scaled = [](json::value v, int64_t total, bool up) {
    return ScaledValueFromIntOrPercent(v, total, up).value();
  };
  EXPECT_EQ(scaled("50%", 3, true), 2);
  EXPECT_EQ(scaled("50%", 3, false), 1);
  EXPECT_EQ(scaled("34%", 3, true), 2);
  EXPECT_EQ(scaled("100%", 7, true), 7);
  EXPECT_EQ(scaled("0%", 7, true), 0);
  EXPECT_EQ(scaled(4, 10, true), 4);
  EXPECT_FALSE(ScaledValueFromIntOrPercent(json::value("half"), 10, true).ok());
  EXPECT_FALSE(ScaledValueFromIntOrPercent(json::value(true), 10, true).ok());
}

TEST(DisruptionBudget, ConditionFollowsDisruptionsAllowed) {
  json::object status{{"disruptionsAllowed", 1}, {"observedGeneration", 3}};
  SetDisruptionAllowedCondition(status, "2026-01-01T00:00:00Z");
  EXPECT_EQ(status["conditions"], json::parse(R"([{"type":"DisruptionAllowed","status":"True",
      "lastTransitionTime":"2026-01-01T00:00:00Z","reason":"SufficientPods","observedGeneration":3,"message":""}])"));
  status["disruptionsAllowed"] = 0;
  SetDisruptionAllowedCondition(status, "2026-01-02T00:00:00Z");
  const json::object& c = status["conditions"].as_array()[0].as_object();
  EXPECT_EQ(c.at("status"), "False");
  EXPECT_EQ(c.at("reason"), "InsufficientPods");
  EXPECT_EQ(c.at("lastTransitionTime"), "2026-01-02T00:00:00Z");
}

}  // namespace
}  // namespace berth::api
