// kube's warnings about valid pods and pod templates (api/validation/warnings.h),
// reached through the kinds' rules as the strategies reach them: texts and
// field paths as kube's pkg/api/pod/warnings.go writes them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation/kind_rules.h"
#include "validation_cases.h"

namespace berth::api {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::MustDecode;
using testing::Obj;

std::vector<std::string> WarningsOf(const std::string& json, const std::string& current = "") {
  ObjectPtr next = MustDecode(json);
  if (!next) return {"<does not decode>"};
  ObjectPtr before = current.empty() ? nullptr : MustDecode(current);
  const KindRules& rules = RulesOf(next->kind());
  if (!rules.warnings) return {"<no warnings rule>"};
  return rules.warnings(*next, before.get());
}

std::string Pod(const std::string& spec_members, const std::string& meta = "") {
  std::string spec = R"({"containers":[{"name":"c","image":"nginx"}])";
  if (!spec_members.empty()) spec += "," + spec_members;
  return Obj("v1", "Pod", "p", R"("spec":)" + spec + "}", true, meta);
}

TEST(PodWarnings, AnOrdinaryPodHasNone) { EXPECT_THAT(WarningsOf(Pod("")), IsEmpty()); }

TEST(PodWarnings, DeprecatedNodeLabelsInSelectorsAffinityAndSpread) {
  EXPECT_THAT(WarningsOf(Pod(R"("nodeSelector":{"beta.kubernetes.io/arch":"amd64","zone":"a"})")),
              ElementsAre("spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "
                          "\"kubernetes.io/arch\" instead"));
  EXPECT_THAT(
      WarningsOf(Pod(R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{)"
                     R"("nodeSelectorTerms":[{"matchExpressions":[{"key":"failure-domain.beta.kubernetes.io/zone",)"
                     R"("operator":"Exists"}]}]}}})")),
      ElementsAre("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                  ".matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "
                  "\"topology.kubernetes.io/zone\" instead"));
  EXPECT_THAT(WarningsOf(Pod(R"("topologySpreadConstraints":[{"maxSkew":1,)"
                             R"("topologyKey":"failure-domain.beta.kubernetes.io/region",)"
                             R"("whenUnsatisfiable":"DoNotSchedule"}])")),
              ElementsAre("spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region "
                          "is deprecated since v1.17; use \"topology.kubernetes.io/region\" instead",
                          "spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in "
                          "matching no pod"));
}

TEST(PodWarnings, DeprecatedAnnotationsAndVolumes) {
  EXPECT_THAT(WarningsOf(Pod("", R"("annotations":{"scheduler.alpha.kubernetes.io/critical-pod":""})")),
              ElementsAre("metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in "
                          "v1.16+; use the \"priorityClassName\" field instead"));
  EXPECT_THAT(WarningsOf(Pod(R"("volumes":[{"name":"a","emptyDir":{}},)"
                             R"({"name":"g","gitRepo":{"repository":"https://example.com/r.git"}}])")),
              ElementsAre("spec.volumes[1].gitRepo: deprecated in v1.11"));
  EXPECT_THAT(WarningsOf(Pod("", R"("annotations":{"seccomp.security.alpha.kubernetes.io/pod":"runtime/default"})")),
              ElementsAre("metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in "
                          "v1.27+; use the \"seccompProfile\" field instead"));
  // With the field set, the annotation is not warned about.
  EXPECT_THAT(WarningsOf(Pod(R"("securityContext":{"seccompProfile":{"type":"RuntimeDefault"}})",
                             R"("annotations":{"seccomp.security.alpha.kubernetes.io/pod":"runtime/default"})")),
              IsEmpty());
}

TEST(PodWarnings, DuplicatesApplyWouldLose) {
  EXPECT_THAT(WarningsOf(Pod(R"("imagePullSecrets":[{"name":"a"},{"name":"a"},{"name":""}])")),
              ElementsAre("spec.imagePullSecrets[1].name: duplicate name \"a\"",
                          "spec.imagePullSecrets[2].name: invalid empty name \"\""));
  EXPECT_THAT(WarningsOf(Pod(R"("hostAliases":[{"ip":"10.0.0.1"},{"ip":"10.0.0.1"}])")),
              ElementsAre("spec.hostAliases[1].ip: duplicate ip \"10.0.0.1\""));
  const std::string env = Obj("v1", "Pod", "p",
                              R"("spec":{"containers":[{"name":"c","image":"nginx","env":[)"
                              R"({"name":"A","value":"1"},{"name":"A","value":"$(A)2"},{"name":"A","value":"3"}]}]})");
  EXPECT_THAT(WarningsOf(env), ElementsAre("spec.containers[0].env[2]: hides previous definition of \"A\", which may "
                                           "be dropped when using apply"));
}

TEST(PodWarnings, FractionalBytesAndPorts) {
  const std::string pod = Obj("v1", "Pod", "p",
                              R"("spec":{"containers":[{"name":"c","image":"nginx",)"
                              R"("resources":{"requests":{"memory":"100m","cpu":"100m"}},)"
                              R"("ports":[{"containerPort":80,"protocol":"TCP"},)"
                              R"({"containerPort":80,"protocol":"TCP","hostPort":8080}]}]})");
  EXPECT_THAT(WarningsOf(pod),
              ElementsAre("spec.containers[0].resources.requests[memory]: fractional byte value \"100m\" is "
                          "invalid, must be an integer",
                          "spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]"));
  EXPECT_THAT(WarningsOf(Pod(R"("terminationGracePeriodSeconds":-5)")),
              ElementsAre("spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will "
                          "be treated as 1"));
}

TEST(PodWarnings, NullAffinitySelectorsMatchNoPod) {
  EXPECT_THAT(WarningsOf(Pod(R"("affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[)"
                             R"({"weight":1,"podAffinityTerm":{"topologyKey":"kubernetes.io/hostname"}}]}})")),
              ElementsAre("spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
                          ".podAffinityTerm.labelSelector: a null labelSelector results in matching no pod"));
}

std::string Deployment(const std::string& node_selector, int generation) {
  return Obj("apps/v1", "Deployment", "d",
             R"("spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
             R"("spec":{"containers":[{"name":"c","image":"nginx"}],"nodeSelector":)" +
                 node_selector + "}}}",
             true, R"("generation":)" + std::to_string(generation));
}

TEST(PodWarnings, WorkloadsWarnAboutTheirTemplateWhenTheirSpecChanges) {
  const std::string old_label = R"({"beta.kubernetes.io/os":"linux"})";
  const std::string warning =
      "spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use \"kubernetes.io/os\" "
      "instead";
  EXPECT_THAT(WarningsOf(Deployment(old_label, 1)), ElementsAre(warning));
  // A write that leaves the spec (the generation) alone: no warning again.
  EXPECT_THAT(WarningsOf(Deployment(old_label, 1), Deployment(old_label, 1)), IsEmpty());
  EXPECT_THAT(WarningsOf(Deployment(old_label, 2), Deployment(old_label, 1)), ElementsAre(warning));

  const std::string cronjob = Obj(
      "batch/v1", "CronJob", "c",
      R"("spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",)"
      R"("containers":[{"name":"c","image":"nginx"}],"volumes":[{"name":"r","rbd":{"image":"i","monitors":["m"]}}]}}}}})");
  EXPECT_THAT(WarningsOf(cronjob),
              ElementsAre("spec.jobTemplate.spec.template.spec.volumes[0].rbd: deprecated in v1.28, non-functional "
                          "in v1.31+"));
}

TEST(PodWarnings, APodTemplateWarnsWhenItsTemplateChanges) {
  auto tmpl = [](const std::string& annotations) {
    return Obj("v1", "PodTemplate", "t",
               R"("template":{"metadata":{"annotations":)" + annotations +
                   R"(},"spec":{"containers":[{"name":"c","image":"nginx"}]}})");
  };
  const std::string deprecated = tmpl(R"({"security.alpha.kubernetes.io/sysctls":"a=b"})");
  EXPECT_THAT(WarningsOf(deprecated),
              ElementsAre("template.metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in "
                          "v1.11+; use the \"sysctls\" field instead"));
  EXPECT_THAT(WarningsOf(deprecated, deprecated), IsEmpty());
  EXPECT_THAT(WarningsOf(deprecated, tmpl("{}")), ::testing::SizeIs(1));
}

}  // namespace
}  // namespace berth::api
