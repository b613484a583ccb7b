// Validation of autoscaling/v2 HorizontalPodAutoscalers.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;

std::string Hpa(const std::string& spec) {
  return Obj("autoscaling/v2", "HorizontalPodAutoscaler", "web", R"("spec":)" + spec);
}
const std::string kTarget =
    R"("scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

TEST(AutoscalingValidation, HorizontalPodAutoscalers) {
  const std::string p = "HorizontalPodAutoscaler.autoscaling \"web\" is invalid: ";
  EXPECT_EQ(
      Problems(Hpa(
          "{" + kTarget +
          R"(,"minReplicas":1,"maxReplicas":5,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]})")),
      "");
  EXPECT_EQ(
      Problems(Hpa(R"({"maxReplicas":3})")),
      p + "[spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Required value]");
  EXPECT_EQ(Problems(Hpa("{" + kTarget + R"(,"minReplicas":0,"maxReplicas":3})")),
            p + "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1");
  EXPECT_EQ(
      Problems(Hpa("{" + kTarget + R"(,"minReplicas":4,"maxReplicas":3})")),
      p + "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`");
  EXPECT_EQ(Problems(Hpa("{" + kTarget + "}")),
            p + "spec.maxReplicas: Invalid value: 0: must be greater than 0");
  EXPECT_EQ(Problems(Hpa("{" + kTarget + R"(,"maxReplicas":3,"metrics":[{"type":"Memory"}]})")),
            p + "spec.metrics[0].type: Unsupported value: \"Memory\": supported values: "
                "\"ContainerResource\", "
                "\"External\", \"Object\", \"Pods\", \"Resource\"");
  EXPECT_EQ(Problems(Hpa("{" + kTarget + R"(,"maxReplicas":3,"metrics":[{"type":"Pods"}]})")),
            p + "spec.metrics[0].pods: Required value: must populate information for the given "
                "metric source");
  EXPECT_EQ(
      Problems(
          Hpa("{" + kTarget + R"(,"maxReplicas":3,"behavior":{"scaleDown":{"policies":[]}}})")),
      p + "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy");
}

}  // namespace
}  // namespace berth::api
