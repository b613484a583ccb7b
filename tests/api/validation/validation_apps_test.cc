// Validation of apps/v1 kinds (Deployment, ReplicaSet, StatefulSet,
// DaemonSet, ControllerRevision) and their update rules.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::Template;
using testing::UpdateProblems;

std::string Apps(const std::string& kind, const std::string& name, const std::string& spec) {
  return Obj("apps/v1", kind, name, R"("spec":)" + spec);
}
std::string StatefulSet(const std::string& extra, const std::string& tmpl = Template()) {
  return Apps("StatefulSet", "db",
              R"({"serviceName":"db","selector":{"matchLabels":{"app":"web"}},"template":)" + tmpl +
                  extra + "}");
}
std::string DaemonSet(const std::string& extra,
                      const std::string& selector = R"({"matchLabels":{"app":"web"}})") {
  return Apps("DaemonSet", "agent",
              R"({"selector":)" + selector + R"(,"template":)" + Template() + extra + "}");
}
std::string Deployment(const std::string& selector, const std::string& extra = "") {
  return Apps("Deployment", "web",
              R"({"selector":)" + selector + R"(,"template":)" + Template() + extra + "}");
}

TEST(AppsValidation, StatefulSets) {
  const std::string p = "StatefulSet.apps \"db\" is invalid: ";
  EXPECT_EQ(Problems(StatefulSet("")), "");
  EXPECT_EQ(Problems(StatefulSet(R"(,"podManagementPolicy":"Random")")),
            p + "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or "
                "'Parallel'");
  EXPECT_EQ(
      Problems(StatefulSet(R"(,"updateStrategy":{"type":"Canary"})")),
      p + "spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:\"Canary\", "
          "RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' "
          "or 'OnDelete'");
  EXPECT_EQ(Problems(StatefulSet(
                R"(,"updateStrategy":{"type":"OnDelete","rollingUpdate":{"partition":1}})")),
            p + "spec.updateStrategy.rollingUpdate: Invalid value: "
                "apps.RollingUpdateStatefulSetStrategy{Partition:1, "
                "MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy "
                "'RollingUpdate'");
  EXPECT_EQ(Problems(StatefulSet(
                R"(,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":-1}})")),
            p + "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater "
                "than or equal to 0");
  EXPECT_EQ(
      Problems(StatefulSet(R"(,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Keep"})")),
      p + "spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": "
          "supported values: "
          "\"Retain\", \"Delete\"");
  EXPECT_EQ(Problems(StatefulSet("", Template("Never"))),
            p + "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: "
                "\"Always\"");
  EXPECT_EQ(Problems(StatefulSet("", Template("", R"({"app":"other"})"))),
            p + "spec.template.metadata.labels: Invalid value: "
                "map[string]string{\"app\":\"other\"}: `selector` does "
                "not match template `labels`");
  EXPECT_EQ(
      Problems(Apps("StatefulSet", "db", R"({"selector":{},"template":)" + Template() + "}")),
      p + "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
          "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
          "statefulset");
  EXPECT_EQ(Problems(Apps("StatefulSet", "db", R"({"template":)" + Template() + "}")),
            p + "spec.selector: Required value");
  EXPECT_EQ(
      Problems(Apps(
          "StatefulSet", "db",
          R"({"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}}}})")),
      p + "spec.template.spec.containers: Required value");
  // StatefulSet names are DNS labels: their pods' hostnames.
  EXPECT_EQ(
      Problems(Apps("StatefulSet", "db.v1",
                    R"({"selector":{"matchLabels":{"app":"web"}},"template":)" + Template() + "}")),
      "StatefulSet.apps \"db.v1\" is invalid: metadata.name: Invalid value: \"db.v1\": a lowercase RFC "
      "1123 label must "
      "consist of lower case alphanumeric characters or '-', and must start and end with an "
      "alphanumeric "
      "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
}

TEST(AppsValidation, StatefulSetUpdatesOnlyTouchTheirMutableFields) {
  const std::string before = StatefulSet(R"(,"replicas":1)");
  EXPECT_EQ(UpdateProblems(StatefulSet(R"(,"replicas":3,"minReadySeconds":5)"), before), "");
  EXPECT_EQ(UpdateProblems(
                StatefulSet(R"(,"replicas":1)", Template("", R"({"app":"web","v":"2"})")), before),
            "");
  EXPECT_EQ(
      UpdateProblems(StatefulSet(R"(,"replicas":1,"podManagementPolicy":"Parallel")"), before),
      "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields "
      "other than "
      "'replicas', 'ordinals', 'template', 'updateStrategy', "
      "'persistentVolumeClaimRetentionPolicy' and "
      "'minReadySeconds' are forbidden");
  const std::string claims =
      R"(,"replicas":1,"volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":{"resources":{"requests":{"storage":"2Gi"}}}}])";
  EXPECT_NE(UpdateProblems(StatefulSet(claims), before), "");
}

TEST(AppsValidation, DaemonSets) {
  const std::string p = "DaemonSet.apps \"agent\" is invalid: ";
  EXPECT_EQ(Problems(DaemonSet("")), "");
  EXPECT_EQ(Problems(DaemonSet(R"(,"updateStrategy":{"type":"OnDelete"})")), "");
  EXPECT_EQ(Problems(DaemonSet(R"(,"updateStrategy":{"type":"Blue"})")),
            p + "spec.updateStrategy: Unsupported value: \"Blue\": supported values: "
                "\"RollingUpdate\", \"OnDelete\"");
  EXPECT_EQ(Problems(DaemonSet(
                R"(,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}})")),
            p + "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when "
                "maxUnavailable is "
                "non-zero");
  EXPECT_EQ(Problems(DaemonSet(R"(,"updateStrategy":{"rollingUpdate":{"maxUnavailable":0}})")),
            p + "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 "
                "when maxSurge is 0");
  EXPECT_EQ(Problems(DaemonSet(R"(,"updateStrategy":{"rollingUpdate":{"maxUnavailable":"120%"}})")),
            p + "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"120%\": must "
                "not be greater than "
                "100%");
  EXPECT_EQ(
      Problems(DaemonSet("", "{}")),
      p + "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
          "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for "
          "daemonset");
}

TEST(AppsValidation, ControllerRevisions) {
  EXPECT_EQ(Problems(Obj("apps/v1", "ControllerRevision", "r", R"("revision":1)")),
            "ControllerRevision.apps \"r\" is invalid: data: Required value: data is mandatory");
  const std::string before =
      Obj("apps/v1", "ControllerRevision", "r", R"("revision":1,"data":{"a":1})");
  EXPECT_EQ(
      UpdateProblems(Obj("apps/v1", "ControllerRevision", "r", R"("revision":2,"data":{"a":1})"),
                     before),
      "");
  EXPECT_EQ(
      UpdateProblems(Obj("apps/v1", "ControllerRevision", "r", R"("revision":1,"data":{"a":2})"),
                     before),
      "ControllerRevision.apps \"r\" is invalid: data: Invalid value: {\"a\":2}: field is immutable");
}

TEST(AppsValidation, DeploymentStrategies) {
  const std::string selector = R"({"matchLabels":{"app":"web"}})";
  EXPECT_EQ(Problems(Deployment(selector, R"(,"strategy":{"type":"Recreate","rollingUpdate":{}})")),
            "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be "
            "specified when strategy "
            "`type` is 'Recreate'");
  EXPECT_EQ(Problems(Deployment(
                selector, R"(,"strategy":{"rollingUpdate":{"maxUnavailable":0,"maxSurge":0}})")),
            "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid "
            "value: 0: may not be 0 "
            "when `maxSurge` is 0");
}

TEST(AppsValidation, SelectorsNeverChange) {
  const std::string before = Deployment(R"({"matchLabels":{"app":"web"}})");
  EXPECT_EQ(
      UpdateProblems(Deployment(R"({"matchLabels":{"app":"web"}})", R"(,"replicas":5)"), before),
      "");
  EXPECT_EQ(UpdateProblems(Deployment(R"({"matchLabels":{"app":"web","tier":"fe"}})"), before),
            "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: "
            "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"fe\"}, "
            "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
  const std::string with_expression =
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]})";
  EXPECT_EQ(
      UpdateProblems(DaemonSet("", with_expression), DaemonSet("")),
      "DaemonSet.apps \"agent\" is invalid: spec.selector: Invalid value: "
      "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\"}, "
      "MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:\"tier\", "
      "Operator:\"In\", Values:[]string{\"a\", \"b\"}}}}: field is immutable");
  const std::string rs_before =
      Apps("ReplicaSet", "rs",
           R"({"selector":{"matchLabels":{"app":"web"}},"template":)" + Template() + "}");
  const std::string rs_after =
      Apps("ReplicaSet", "rs",
           R"({"selector":{"matchLabels":{"app":"web","x":"y"}},"template":)" +
               Template("", R"({"app":"web","x":"y"})") + "}");
  EXPECT_NE(UpdateProblems(rs_after, rs_before).find("spec.selector: Invalid value"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::api
