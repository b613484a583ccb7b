// kube's rules for the pod fields the scheduler and controllers read, and
// nodes' taints, with kube's messages and field paths: one case per rule.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;

// A pod whose spec has one container "c" and then `extra` (JSON members).
std::string Pod(const std::string& extra, const std::string& container_extra = "") {
  std::string container = R"({"name":"c","image":"nginx")" + container_extra + "}";
  std::string spec = R"({"containers":[)" + container + "]";
  if (!extra.empty()) spec += "," + extra;
  return Obj("v1", "Pod", "p", R"("spec":)" + spec + "}");
}

// Each case: the pod, and the one cause expected ("" for a valid pod).
struct Case {
  std::string name, json, cause;
};

void Expect(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    const std::string message = Problems(c.json);
    if (c.cause.empty()) {
      EXPECT_EQ(message, "") << c.name;
    } else {
      EXPECT_EQ(message, "Pod \"p\" is invalid: " + c.cause) << c.name;
    }
  }
}

TEST(PodSpecValidation, Tolerations) {
  Expect({
      {"valid",
       Pod(R"("tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"},)"
           R"({"operator":"Exists"},{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":5}])"),
       ""},
      {"operator Maybe", Pod(R"("tolerations":[{"key":"k","operator":"Maybe"}])"),
       "spec.tolerations[0].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", "
       "\"Exists\""},
      {"bad effect", Pod(R"("tolerations":[{"key":"k","operator":"Exists","effect":"Sometimes"}])"),
       "spec.tolerations[0].effect: Unsupported value: \"Sometimes\": supported values: "
       "\"NoSchedule\", "
       "\"PreferNoSchedule\", \"NoExecute\""},
      {"Exists with a value", Pod(R"("tolerations":[{"key":"k","operator":"Exists","value":"v"}])"),
       "spec.tolerations[0].operator: Invalid value: core.Toleration{Key:\"k\", "
       "Operator:\"Exists\", Value:\"v\", "
       "Effect:\"\", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is "
       "'Exists'"},
      {"tolerationSeconds without NoExecute",
       Pod(R"("tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":5}])"),
       "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
       "`tolerationSeconds` is set"},
      {"empty key needs Exists", Pod(R"("tolerations":[{"operator":"Equal","value":"v"}])"),
       "spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` "
       "is empty, which "
       "means \"match all values and all keys\""},
      {"bad key", Pod(R"("tolerations":[{"key":"a b","operator":"Exists"}])"),
       "spec.tolerations[0].key: Invalid value: \"a b\": name part must consist of alphanumeric "
       "characters, '-', "
       "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
       "'my.name',  or "
       "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
  });
}

TEST(PodSpecValidation, NodeAffinity) {
  auto required = [](const std::string& expression) {
    return Pod(
        R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[)" +
        expression + "]}]}}}");
  };
  const std::string path =
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms["
      "0]."
      "matchExpressions[0]";
  Expect({
      {"valid",
       required(
           R"({"key":"zone","operator":"In","values":["a"]},{"key":"n","operator":"Gt","values":["3"]})"),
       ""},
      {"operator Near", required(R"({"key":"zone","operator":"Near","values":["a"]})"),
       path + ".operator: Invalid value: \"Near\": not a valid selector operator"},
      {"In without values", required(R"({"key":"zone","operator":"In"})"),
       path + ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
      {"Exists with values", required(R"({"key":"zone","operator":"Exists","values":["a"]})"),
       path + ".values: Forbidden: may not be specified when `operator` is 'Exists' or "
              "'DoesNotExist'"},
      {"Gt with two values", required(R"({"key":"n","operator":"Gt","values":["1","2"]})"),
       path + ".values: Required value: must be specified single value when `operator` is 'Lt' or "
              "'Gt'"},
      {"no terms",
       Pod(R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}})"),
       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
       "nodeSelectorTerms: Required "
       "value: must have at least one node selector term"},
      {"weight out of range",
       Pod(R"("affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":101,"preference":{}}]}})"),
       "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
       "Invalid value: 101: "
       "must be in the range 1-100"},
      {"matchFields key",
       Pod(R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.uid","operator":"In","values":["x"]}]}]}}})"),
       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
       "nodeSelectorTerms[0].matchFields["
       "0].key: Invalid value: \"metadata.uid\": not a valid field selector key"},
  });
}

TEST(PodSpecValidation, PodAffinity) {
  Expect({
      {"valid",
       Pod(R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}})"),
       ""},
      {"topologyKey required",
       Pod(R"("affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{}}]}})"),
       "[spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
       "Required value: "
       "can not be empty, "
       "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
       "Invalid value: \"\": name part must be non-empty]"},
      {"selector operator",
       Pod(R"("affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"app","operator":"Near"}]},"topologyKey":"zone"}]}})"),
       "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
       "matchExpressions["
       "0].operator: Invalid value: \"Near\": not a valid selector operator"},
      {"preferred weight",
       Pod(R"("affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":0,"podAffinityTerm":{"topologyKey":"zone"}}]}})"),
       "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
       "Invalid value: 0: "
       "must be in the range 1-100"},
  });
}

TEST(PodSpecValidation, TopologySpreadConstraints) {
  auto spread = [](const std::string& constraints) {
    return Pod(R"("topologySpreadConstraints":[)" + constraints + "]");
  };
  Expect({
      {"valid",
       spread(
           R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","minDomains":2})"),
       ""},
      {"maxSkew -1",
       spread(R"({"maxSkew":-1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"})"),
       "spec.topologySpreadConstraints[0].maxSkew: Invalid value: -1: must be greater than zero"},
      {"whenUnsatisfiable",
       spread(R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Whenever"})"),
       "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"Whenever\": "
       "supported values: "
       "\"DoNotSchedule\", \"ScheduleAnyway\""},
      {"topologyKey required", spread(R"({"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"})"),
       "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"},
      {"minDomains with ScheduleAnyway",
       spread(
           R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","minDomains":2})"),
       "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if "
       "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"},
      {"minDomains 0",
       spread(
           R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","minDomains":0})"),
       "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero"},
      {"repeated",
       spread(R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"},)"
              R"({"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"})"),
       "spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: "
       "\"{zone, "
       "DoNotSchedule}\""},
      {"policy",
       spread(
           R"({"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","nodeTaintsPolicy":"Maybe"})"),
       "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Maybe\": "
       "supported values: "
       "\"Honor\", \"Ignore\""},
  });
}

TEST(PodSpecValidation, Resources) {
  Expect({
      {"valid",
       Pod("",
           R"(,"resources":{"requests":{"cpu":"1","example.com/gpu":"2"},"limits":{"cpu":"2","example.com/gpu":"2"}})"),
       ""},
      {"requests over limits",
       Pod("", R"(,"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}})"),
       "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to "
       "cpu limit of 1"},
      {"negative", Pod("", R"(,"resources":{"requests":{"memory":"-1"}})"),
       "spec.containers[0].resources.requests[memory]: Invalid value: \"-1\": must be greater than "
       "or equal to 0"},
      {"extended resource not an integer",
       Pod("",
           R"(,"resources":{"requests":{"example.com/gpu":"500m"},"limits":{"example.com/gpu":"500m"}})"),
       "[spec.containers[0].resources.limits[example.com/gpu]: Invalid value: \"500m\": must be an "
       "integer, "
       "spec.containers[0].resources.requests[example.com/gpu]: Invalid value: \"500m\": must be "
       "an integer]"},
      {"extended resource request without limit",
       Pod("", R"(,"resources":{"requests":{"example.com/gpu":"1"}})"),
       "spec.containers[0].resources.limits: Required value: Limit must be set for non "
       "overcommitable resources"},
      {"extended resource request below limit",
       Pod("",
           R"(,"resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"2"}})"),
       "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
       "example.com/gpu limit of 2"},
      {"not a container resource", Pod("", R"(,"resources":{"requests":{"storage":"1Gi"}})"),
       "spec.containers[0].resources.requests[storage]: Invalid value: \"storage\": must be a "
       "standard resource for "
       "containers"},
  });
}

TEST(PodSpecValidation, ContainersAndPorts) {
  Expect({
      {"duplicate across init containers",
       Pod(R"("initContainers":[{"name":"c","image":"busybox"}])"),
       "spec.initContainers[0].name: Duplicate value: \"c\""},
      {"container name not a DNS label",
       Obj("v1", "Pod", "p", R"("spec":{"containers":[{"name":"C_1","image":"nginx"}]})"),
       "spec.containers[0].name: Invalid value: \"C_1\": a lowercase RFC 1123 label must consist "
       "of lower case "
       "alphanumeric characters or '-', and must start and end with an alphanumeric character "
       "(e.g. 'my-name',  or "
       "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"port out of range", Pod("", R"(,"ports":[{"containerPort":70000}])"),
       "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and "
       "65535, inclusive"},
      {"port required", Pod("", R"(,"ports":[{"name":"http"}])"),
       "spec.containers[0].ports[0].containerPort: Required value"},
      {"protocol", Pod("", R"(,"ports":[{"containerPort":80,"protocol":"ICMP"}])"),
       "spec.containers[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: "
       "\"SCTP\", \"TCP\", "
       "\"UDP\""},
      {"duplicate port names",
       Pod("",
           R"(,"ports":[{"name":"http","containerPort":80},{"name":"http","containerPort":81}])"),
       "spec.containers[0].ports[1].name: Duplicate value: \"http\""},
  });
}

TEST(PodSpecValidation, VolumesAndMounts) {
  Expect({
      {"valid",
       Pod(R"("volumes":[{"name":"data","emptyDir":{}}])",
           R"(,"volumeMounts":[{"name":"data","mountPath":"/d"}])"),
       ""},
      {"two sources", Pod(R"("volumes":[{"name":"data","emptyDir":{},"configMap":{"name":"x"}}])"),
       "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type"},
      {"no source", Pod(R"("volumes":[{"name":"data"}])"),
       "spec.volumes[0]: Required value: must specify a volume type"},
      {"duplicate names",
       Pod(R"("volumes":[{"name":"d","emptyDir":{}},{"name":"d","emptyDir":{}}])"),
       "spec.volumes[1].name: Duplicate value: \"d\""},
      {"mount of no volume", Pod("", R"(,"volumeMounts":[{"name":"data","mountPath":"/d"}])"),
       "spec.containers[0].volumeMounts[0].name: Not found: \"data\""},
      {"mount paths unique",
       Pod(R"("volumes":[{"name":"d","emptyDir":{}}])",
           R"(,"volumeMounts":[{"name":"d","mountPath":"/d"},{"name":"d","mountPath":"/d"}])"),
       "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/d\": must be unique"},
  });
}

TEST(PodSpecValidation, PolicyFieldsAndPriorityClassName) {
  Expect({
      {"dnsPolicy", Pod(R"("dnsPolicy":"Sometimes")"),
       "spec.dnsPolicy: Unsupported value: \"Sometimes\": supported values: "
       "\"ClusterFirstWithHostNet\", "
       "\"ClusterFirst\", \"Default\", \"None\""},
      {"restartPolicy", Pod(R"("restartPolicy":"Sometimes")"),
       "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
       "\"Never\", "
       "\"OnFailure\""},
      {"priorityClassName", Pod(R"("priorityClassName":"High_Priority")"),
       "spec.priorityClassName: Invalid value: \"High_Priority\": a lowercase RFC 1123 subdomain "
       "must consist of "
       "lower case alphanumeric characters, '-' or '.', and must start and end with an "
       "alphanumeric character "
       "(e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
  });
}

TEST(PodSpecValidation, TemplatesOfWorkloadsGetTheSameRules) {
  const std::string deployment = Obj(
      "apps/v1", "Deployment", "web",
      R"("spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
      R"("spec":{"containers":[{"name":"c","image":"nginx"}],"tolerations":[{"key":"k","operator":"Maybe"}]}}})");
  EXPECT_EQ(Problems(deployment),
            "Deployment.apps \"web\" is invalid: spec.template.spec.tolerations[0].operator: "
            "Unsupported value: "
            "\"Maybe\": supported values: \"Equal\", \"Exists\"");
}

TEST(PodSpecValidation, StatefulSetPodsMountTheirClaimTemplates) {
  auto statefulset = [](const std::string& claim) {
    return Obj(
        "apps/v1", "StatefulSet", "db",
        R"("spec":{"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},)"
        R"("spec":{"containers":[{"name":"c","image":"i","volumeMounts":[{"name":"data","mountPath":"/d"}]}]}},)"
        R"("volumeClaimTemplates":[{"metadata":{"name":")" +
            claim + R"("},"spec":{"accessModes":["ReadWriteOnce"]}}]})");
  };
  EXPECT_EQ(Problems(statefulset("data")), "");
  EXPECT_EQ(Problems(statefulset("other")),
            "StatefulSet.apps \"db\" is invalid: "
            "spec.template.spec.containers[0].volumeMounts[0].name: Not found: "
            "\"data\"");
}

TEST(NodeValidation, Taints) {
  auto node = [](const std::string& taints) {
    return Obj("v1", "Node", "n", R"("spec":{"taints":[)" + taints + "]}", false);
  };
  EXPECT_EQ(Problems(node(R"({"key":"k","effect":"NoSchedule"},{"key":"k","effect":"NoExecute"})")),
            "");
  EXPECT_EQ(Problems(node(R"({"key":"k","effect":"Sometimes"})")),
            "Node \"n\" is invalid: spec.taints[0].effect: Unsupported value: \"Sometimes\": "
            "supported values: "
            "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
  EXPECT_EQ(Problems(node(R"({"key":"k"})")),
            "Node \"n\" is invalid: spec.taints[0].effect: Required value");
  EXPECT_EQ(
      Problems(node(
          R"({"key":"k","effect":"NoSchedule"},{"key":"k","value":"v","effect":"NoSchedule"})")),
      "Node \"n\" is invalid: spec.taints[1]: Duplicate value: core.Taint{Key:\"k\", Value:\"v\", "
      "Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect "
      "pair");
  EXPECT_NE(Problems(node(R"({"key":"a b","effect":"NoSchedule"})"))
                .find("spec.taints[0].key: Invalid value: \"a b\""),
            std::string::npos);
}

}  // namespace
}  // namespace berth::api
