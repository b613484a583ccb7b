// KubeSchedulerConfiguration parsing: what a valid file turns into, and for
// each mistake the exact message (kube's field path and wording) a user sees.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "scheduler/framework/config.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;

const char kFullExample[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 32
percentageOfNodesToScore: 40
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
leaderElection:
  leaderElect: false
  resourceNamespace: kube-system
clientConnection:
  contentType: application/json
enableProfiling: false
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        enabled:
          - name: MyPlugin
            weight: 3
        disabled:
          - name: ImageLocality
      score:
        enabled:
          - name: NodeResourcesFit
            weight: 2
          - name: TaintToleration
        disabled:
          - name: "*"
      preEnqueue:
        enabled: [{name: SchedulingGates}]
      queueSort: {enabled: [{name: PrioritySort}]}
      preFilter: {disabled: [{name: NodePorts}]}
      filter: {enabled: [{name: NodeName}]}
      postFilter: {enabled: [{name: DefaultPreemption}]}
      preScore: {enabled: [{name: InterPodAffinity}]}
      reserve: {enabled: [{name: VolumeBinding}]}
      permit: {enabled: [{name: Gate}]}
      preBind: {enabled: [{name: VolumeBinding}]}
      bind: {enabled: [{name: DefaultBinder}]}
      postBind: {enabled: [{name: Audit}]}
    pluginConfig:
      - name: NodeResourcesFit
        args:
          apiVersion: kubescheduler.config.k8s.io/v1
          kind: NodeResourcesFitArgs
          scoringStrategy:
            type: MostAllocated
            resources:
              - name: cpu
                weight: 1
  - schedulerName: batch-scheduler
    percentageOfNodesToScore: 100
)";

TEST(ParseSchedulerConfig, ReadsExtenders) {
  auto parsed = ParseSchedulerConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: http://127.0.0.1:8888/
  filterVerb: filter
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->extenders.size(), 1u);
  EXPECT_EQ(parsed->extenders[0].url_prefix, "http://127.0.0.1:8888/");
  EXPECT_EQ(parsed->extenders[0].filter_verb, "filter");
  // An empty list asks for nothing. (Every field and its validation: extender_test.)
  auto empty = ParseSchedulerConfig(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders: []
)");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->extenders.empty());
}

TEST(ParseSchedulerConfig, ReadsAFullExample) {
  auto parsed = ParseSchedulerConfig(kFullExample);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const SchedulerConfig& c = *parsed;
  EXPECT_EQ(c.parallelism, 32);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 40);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 2);
  EXPECT_EQ(c.pod_max_backoff_seconds, 20);
  ASSERT_EQ(c.profiles.size(), 2u);

  const ProfileConfig& p = c.profiles[0];
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_FALSE(p.percentage_of_nodes_to_score.has_value());
  ASSERT_EQ(p.plugins.multi_point.enabled.size(), 1u);
  EXPECT_EQ(p.plugins.multi_point.enabled[0].name, "MyPlugin");
  EXPECT_EQ(p.plugins.multi_point.enabled[0].weight, 3);
  ASSERT_EQ(p.plugins.multi_point.disabled.size(), 1u);
  EXPECT_EQ(p.plugins.multi_point.disabled[0].name, "ImageLocality");
  ASSERT_EQ(p.plugins.score.enabled.size(), 2u);
  EXPECT_EQ(p.plugins.score.enabled[0].name, "NodeResourcesFit");
  EXPECT_EQ(p.plugins.score.enabled[0].weight, 2);
  EXPECT_EQ(p.plugins.score.enabled[1].name, "TaintToleration");
  EXPECT_EQ(p.plugins.score.enabled[1].weight, 0);  // unset: the plugin's default
  ASSERT_EQ(p.plugins.score.disabled.size(), 1u);
  EXPECT_EQ(p.plugins.score.disabled[0].name, "*");

  // Every extension point lands in its own set.
  struct Point {
    const char* name;
    const PluginSet& set;
    const char* plugin;
    bool enabled;
  };
  const Point points[] = {
      {"preEnqueue", p.plugins.pre_enqueue, "SchedulingGates", true},
      {"queueSort", p.plugins.queue_sort, "PrioritySort", true},
      {"preFilter", p.plugins.pre_filter, "NodePorts", false},
      {"filter", p.plugins.filter, "NodeName", true},
      {"postFilter", p.plugins.post_filter, "DefaultPreemption", true},
      {"preScore", p.plugins.pre_score, "InterPodAffinity", true},
      {"reserve", p.plugins.reserve, "VolumeBinding", true},
      {"permit", p.plugins.permit, "Gate", true},
      {"preBind", p.plugins.pre_bind, "VolumeBinding", true},
      {"bind", p.plugins.bind, "DefaultBinder", true},
      {"postBind", p.plugins.post_bind, "Audit", true},
  };
  for (const auto& point : points) {
    const auto& list = point.enabled ? point.set.enabled : point.set.disabled;
    const auto& other = point.enabled ? point.set.disabled : point.set.enabled;
    ASSERT_EQ(list.size(), 1u) << point.name;
    EXPECT_EQ(list[0].name, point.plugin) << point.name;
    EXPECT_TRUE(other.empty()) << point.name;
  }

  ASSERT_EQ(p.plugin_config.size(), 1u);
  EXPECT_EQ(p.plugin_config[0].first, "NodeResourcesFit");
  EXPECT_EQ(json::value(p.plugin_config[0].second),
            json::parse(R"({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}})"));

  EXPECT_EQ(c.profiles[1].scheduler_name, "batch-scheduler");
  EXPECT_EQ(c.profiles[1].percentage_of_nodes_to_score, 100);
}

TEST(ParseSchedulerConfig, AMinimalFileKeepsKubesDefaults) {
  auto parsed = ParseSchedulerConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->parallelism, 16);
  EXPECT_EQ(parsed->percentage_of_nodes_to_score, 0);
  EXPECT_EQ(parsed->pod_initial_backoff_seconds, 1);
  EXPECT_EQ(parsed->pod_max_backoff_seconds, 10);
  EXPECT_TRUE(parsed->profiles.empty());  // the caller adds the default profile

  auto empty_list = ParseSchedulerConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: []\nparallelism:\n");
  ASSERT_TRUE(empty_list.ok()) << empty_list.status().message();
  EXPECT_TRUE(empty_list->profiles.empty());
  EXPECT_EQ(empty_list->parallelism, 16);  // null: unset
}

TEST(ParseSchedulerConfig, ASingleProfileWithoutANameIsTheDefaultScheduler) {
  auto parsed = ParseSchedulerConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- plugins:\n"
      "    score:\n"
      "      disabled: [{name: ImageLocality}]\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->profiles.size(), 1u);
  EXPECT_EQ(parsed->profiles[0].scheduler_name, "default-scheduler");
}

struct ErrorCase {
  std::string name;
  std::string body;  // after the apiVersion and kind lines, unless it starts with "apiVersion"
  std::string message;
};

std::string Document(const std::string& body) {
  if (body.rfind("apiVersion", 0) == 0 || body.rfind("kind", 0) == 0) return body;
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + body;
}

TEST(ParseSchedulerConfig, RejectsMistakesWithKubesFieldPaths) {
  const std::vector<ErrorCase> cases = {
      {"wrong apiVersion", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       R"(apiVersion: Unsupported value: "kubescheduler.config.k8s.io/v1beta3": supported values: )"
       R"("kubescheduler.config.k8s.io/v1")"},
      {"wrong kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeProxyConfiguration\n",
       R"(kind: Unsupported value: "KubeProxyConfiguration": supported values: "KubeSchedulerConfiguration")"},
      {"missing apiVersion", "kind: KubeSchedulerConfiguration\n", "apiVersion: Required value"},
      {"non-integer parallelism", "parallelism: many\n",
       R"(parallelism: Invalid value: "many": must be an integer)"},
      {"quoted parallelism is a string", "parallelism: \"8\"\n",
       R"(parallelism: Invalid value: "8": must be an integer)"},
      {"fractional parallelism", "parallelism: 1.5\n", "parallelism: Invalid value: 1.5: must be an integer"},
      {"zero parallelism", "parallelism: 0\n",
       "parallelism: Invalid value: 0: should be an integer value greater than zero"},
      {"negative parallelism", "parallelism: -4\n",
       "parallelism: Invalid value: -4: should be an integer value greater than zero"},
      {"parallelism beyond int32", "parallelism: 4294967296\n",
       "parallelism: Invalid value: 4294967296: must fit in a 32-bit integer"},
      {"percentage above 100", "percentageOfNodesToScore: 101\n",
       "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
      {"negative percentage", "percentageOfNodesToScore: -1\n",
       "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"},
      {"profile percentage above 100", "profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 150\n",
       "profiles[0].percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]"},
      {"zero initial backoff", "podInitialBackoffSeconds: 0\n",
       "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"},
      {"max backoff below initial", "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 3\n",
       "podMaxBackoffSeconds: Invalid value: 3: must be greater than or equal to PodInitialBackoffSeconds"},
      {"duplicate schedulerName", "profiles:\n- schedulerName: x\n- schedulerName: x\n",
       R"(profiles[1].schedulerName: Duplicate value: "x")"},
      {"empty schedulerName", "profiles:\n- schedulerName: \"\"\n", "profiles[0].schedulerName: Required value"},
      {"unnamed profile among several", "profiles:\n- schedulerName: a\n- plugins: {}\n",
       "profiles[1].schedulerName: Required value"},
      {"plugin without a name",
       "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: NodeResourcesFit\n"
       "      - weight: 2\n",
       "profiles[0].plugins.score.enabled[1].name: Required value"},
      {"disabled plugin with an empty name", "profiles:\n- plugins:\n    filter:\n      disabled: [{name: ''}]\n",
       "profiles[0].plugins.filter.disabled[0].name: Required value"},
      {"negative weight",
       "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeAffinity, weight: -2}]\n",
       "profiles[0].plugins.multiPoint.enabled[0].weight: Invalid value: -2: must be greater than or equal to 0"},
      {"non-integer weight", "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, weight: heavy}]\n",
       R"(profiles[0].plugins.score.enabled[0].weight: Invalid value: "heavy": must be an integer)"},
      {"duplicate pluginConfig",
       "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {}\n  - name: NodeResourcesFit\n",
       R"(profiles[0].pluginConfig[1]: Duplicate value: "NodeResourcesFit")"},
      {"pluginConfig without a name", "profiles:\n- pluginConfig:\n  - args: {a: 1}\n",
       "profiles[0].pluginConfig[0].name: Required value"},
      {"args that are not a map", "profiles:\n- pluginConfig:\n  - name: X\n    args: [1, 2]\n",
       "profiles[0].pluginConfig[0].args: Invalid value: [...]: must be a map"},
      {"profiles that are not a list", "profiles: default-scheduler\n",
       R"(profiles: Invalid value: "default-scheduler": must be a list)"},
      {"misspelt top-level field", "parallelsim: 4\n", R"(unknown field "parallelsim")"},
      // Settings berth's scheduler does not act on are refused, not dropped.
      {"leader election asked for", "leaderElection:\n  leaderElect: true\n",
       "leaderElection.leaderElect: Forbidden: must be false: berth's scheduler does not do leader election yet "
       "(kube's default is true)"},
      {"leader election by default", "leaderElection:\n  leaseDuration: 15s\n",
       "leaderElection.leaderElect: Forbidden: must be false: berth's scheduler does not do leader election yet "
       "(kube's default is true)"},
      {"misspelt lease field", "leaderElection:\n  leaderElect: false\n  leaseDuraton: 15s\n",
       R"(unknown field "leaderElection.leaseDuraton")"},
      {"a kubeconfig to read", "clientConnection:\n  kubeconfig: /etc/kubernetes/scheduler.conf\n",
       "clientConnection.kubeconfig: Forbidden: berth's scheduler does not read kubeconfig files yet: use --server"},
      {"client rate limits", "clientConnection:\n  qps: 50\n",
       "clientConnection.qps: Forbidden: berth's scheduler does not rate-limit its requests; leave it unset"},
      {"protobuf content", "clientConnection:\n  contentType: application/vnd.kubernetes.protobuf\n",
       R"(clientConnection.contentType: Unsupported value: "application/vnd.kubernetes.protobuf": supported )"
       R"(values: "application/json")"},
      {"profiling asked for", "enableProfiling: true\n",
       "enableProfiling: Forbidden: may only be false: berth does not serve profiling endpoints from the "
       "scheduler yet"},
      {"contention profiling that is not a bool", "enableContentionProfiling: sometimes\n",
       R"(enableContentionProfiling: Invalid value: "sometimes": must be a boolean)"},
      {"cache delayed until active", "delayCacheUntilActive: true\n",
       "delayCacheUntilActive: Forbidden: may only be false: it applies only with leader election, which "
       "berth's scheduler does not do yet"},
      {"misspelt extension point", "profiles:\n- plugins:\n    scroe:\n      enabled: [{name: A}]\n",
       R"(unknown field "profiles[0].plugins.scroe")"},
      {"unknown field in a plugin entry", "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, wieght: 2}]\n",
       R"(unknown field "profiles[0].plugins.score.enabled[0].wieght")"},
      {"a field given twice", "parallelism: 4\nparallelism: 8\n", R"(line 4, column 1: key "parallelism" already set in map)"},
      {"two mistakes are both reported", "parallelism: 0\npercentageOfNodesToScore: 200\n",
       "[parallelism: Invalid value: 0: should be an integer value greater than zero, "
       "percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]]"},
      {"not a map at all", "- just\n- a list\n",
       "Invalid value: [...]: a KubeSchedulerConfiguration must be a YAML map"},
      {"malformed YAML", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [\n",
       "line 4, column 1: end of sequence flow not found"},
      {"bad indentation", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                          "parallelism: 4\n  podMaxBackoffSeconds: 5\n",
       "line 4, column 23: illegal map value"},
  };
  for (const auto& c : cases) {
    std::string doc = c.name == "not a map at all" ? c.body : Document(c.body);
    auto parsed = ParseSchedulerConfig(doc);
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_EQ(parsed.status().code(), StatusCode::kBadRequest) << c.name;
    EXPECT_EQ(parsed.status().message(), c.message) << c.name;
  }
}

TEST(ParseSchedulerConfig, FieldErrorsCarryTheirPathAsACause) {
  auto parsed = ParseSchedulerConfig(Document("profiles:\n- schedulerName: x\n- schedulerName: x\n"));
  ASSERT_FALSE(parsed.ok());
  ASSERT_EQ(parsed.status().causes().size(), 1u);
  EXPECT_EQ(parsed.status().causes()[0],
            (StatusCause{"FieldValueDuplicate", R"(Duplicate value: "x")", "profiles[1].schedulerName"}));
}

TEST(ParseSchedulerConfig, UnknownPluginNamesAreLeftToTheFramework) {
  auto parsed = ParseSchedulerConfig(Document("profiles:\n- plugins:\n    score:\n      enabled: [{name: NoSuchPlugin}]\n"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->profiles[0].plugins.score.enabled[0].name, "NoSuchPlugin");
}

// The args of one pluginConfig entry, as JSON.
json::value ArgsOf(const std::string& args_yaml) {
  std::string doc = Document("profiles:\n- pluginConfig:\n  - name: P\n    args:\n" + args_yaml);
  auto parsed = ParseSchedulerConfig(doc);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << doc;
  if (!parsed.ok()) return nullptr;
  return parsed->profiles.at(0).plugin_config.at(0).second;
}

TEST(ParseSchedulerConfig, ConvertsArgsToJson) {
  struct Case {
    std::string name;
    std::string args;  // indented under "args:"
    std::string json;
  };
  const std::vector<Case> cases = {
      {"integers stay integers", "      a: 1\n      b: -7\n      c: 0x1F\n      d: 1_000\n",
       R"({"a": 1, "b": -7, "c": 31, "d": 1000})"},
      {"quoted numbers and bools stay strings", "      a: \"1\"\n      b: 'true'\n      c: \"1.5\"\n",
       R"({"a": "1", "b": "true", "c": "1.5"})"},
      {"floats", "      a: 1.5\n      b: -2.5e3\n      c: .25\n", R"({"a": 1.5, "b": -2500.0, "c": 0.25})"},
      {"bools, including YAML 1.1's yes and off", "      a: true\n      b: False\n      c: yes\n      d: off\n",
       R"({"a": true, "b": false, "c": true, "d": false})"},
      {"nulls", "      a: null\n      b: ~\n      c:\n      d: \"null\"\n",
       R"({"a": null, "b": null, "c": null, "d": "null"})"},
      {"plain strings", "      a: LeastAllocated\n      b: 1.2.3\n      c: 10Gi\n      d: !!str 42\n",
       R"({"a": "LeastAllocated", "b": "1.2.3", "c": "10Gi", "d": "42"})"},
      {"block scalars are strings", "      a: |\n        12\n", R"({"a": "12\n"})"},
      {"nested maps and lists",
       "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n"
       "          shape:\n          - {utilization: 0, score: 10}\n          - {utilization: 100, score: 0}\n"
       "        resources:\n        - name: nvidia.com/gpu\n          weight: 3\n      ignoredResources: [a, \"2\", 3]\n",
       R"({"scoringStrategy": {"type": "RequestedToCapacityRatio",
           "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]},
           "resources": [{"name": "nvidia.com/gpu", "weight": 3}]},
          "ignoredResources": ["a", "2", 3]})"},
      {"apiVersion and kind are dropped at the top only",
       "      apiVersion: kubescheduler.config.k8s.io/v1\n      kind: NodeAffinityArgs\n"
       "      addedAffinity: {kind: keep, apiVersion: keep}\n",
       R"({"addedAffinity": {"kind": "keep", "apiVersion": "keep"}})"},
      {"aliases expand", "      a: &x [1, 2]\n      b: *x\n", R"({"a": [1, 2], "b": [1, 2]})"},
      {"huge integers", "      a: 18446744073709551615\n      b: 99999999999999999999\n",
       R"({"a": 18446744073709551615, "b": 99999999999999999999})"},
  };
  for (const auto& c : cases) {
    json::value want = json::parse(c.json);
    EXPECT_EQ(ArgsOf(c.args), want) << c.name << ": got " << json::serialize(ArgsOf(c.args));
  }
  // Numbers keep their JSON kind, which the plugins check (is_int64, not is_double).
  EXPECT_TRUE(ArgsOf("      a: 5\n").at("a").is_int64());
  EXPECT_TRUE(ArgsOf("      a: 5.0\n").at("a").is_double());
  EXPECT_TRUE(ArgsOf("      a: 18446744073709551615\n").at("a").is_uint64());
  // Empty args are an empty object.
  EXPECT_EQ(ArgsOf("      {}\n"), json::object());
}

TEST(ParseSchedulerConfig, RejectsArgsThatExpandWithoutBound) {
  // Each level doubles the one before: 2^30 nodes if expanded.
  std::string args = "      l0: &l0 [x, x]\n";
  for (int i = 1; i <= 30; ++i) {
    args += "      l" + std::to_string(i) + ": &l" + std::to_string(i) + " [*l" + std::to_string(i - 1) + ", *l" +
            std::to_string(i - 1) + "]\n";
  }
  auto parsed = ParseSchedulerConfig(Document("profiles:\n- pluginConfig:\n  - name: P\n    args:\n" + args));
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("too large"), std::string::npos) << parsed.status().message();
}

}  // namespace
}  // namespace berth::scheduler
