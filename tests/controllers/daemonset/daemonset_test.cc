// The DaemonSet controller: where daemon pods may run (selector, affinity,
// taints with the daemon tolerations), how they are pinned, the rolling
// update and manage plans and the status counts as pure functions, then
// reconciles against a real API server in process (memory store).

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <thread>

#include "api/json_fields.h"
#include "api/node_view.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "controllers/daemonset/daemon_pod.h"
#include "controllers/daemonset/daemonset_controller.h"
#include "controllers/daemonset/daemonset_sync.h"
#include "controllers/owner_references.h"
#include "in_process_api.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

api::ObjectPtr Decode(const std::string& text) {
  auto o = api::Object::FromJson(json::parse(text));
  EXPECT_TRUE(o.ok()) << o.status().message() << " in " << text;
  return o.ok() ? o.value() : nullptr;
}

api::ObjectPtr DaemonSet(const std::string& pod_spec, const std::string& strategy = "") {
  return Decode(
      R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds","namespace":"default","uid":"u1"},
    "spec":{"selector":{"matchLabels":{"app":"d"}},)" +
      (strategy.empty() ? "" : R"("updateStrategy":)" + strategy + ",") +
      R"("template":{"metadata":{"labels":{"app":"d"}},"spec":)" + pod_spec + "}}}");
}

api::ObjectPtr Node(const std::string& name, const std::string& labels = "{}",
                    const std::string& taints = "[]") {
  return Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                R"(","labels":)" + labels + R"(},"spec":{"taints":)" + taints + "}}");
}

constexpr char kContainers[] = R"("containers":[{"name":"c","image":"i"}])";

TEST(DaemonPlacement, NodeSelectorAffinityAndTaintsWithTheDaemonTolerations) {
  auto ds = DaemonSet(std::string("{") + kContainers + R"(,"nodeSelector":{"role":"edge"},
    "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}}},
    "tolerations":[{"key":"dedicated","operator":"Equal","value":"agents","effect":"NoSchedule"}]})");
  auto placement = DaemonPlacement::For(*ds).value();
  using Fit = DaemonPlacement::Fit;
  const Fit run{true, true}, stay{false, true}, none{false, false};
  struct Case {
    const char* name;
    api::ObjectPtr node;
    Fit want;
  } cases[] = {
      {"fits", Node("n", R"({"role":"edge","zone":"a"})"), run},
      {"selector mismatch", Node("n", R"({"role":"core","zone":"a"})"), none},
      {"affinity mismatch", Node("n", R"({"role":"edge","zone":"c"})"), none},
      {"tolerated NoSchedule taint",
       Node("n", R"({"role":"edge","zone":"b"})",
            R"([{"key":"dedicated","value":"agents","effect":"NoSchedule"}])"),
       run},
      {"untolerated NoSchedule: no new pod, an old one stays",
       Node("n", R"({"role":"edge","zone":"a"})", R"([{"key":"gpu","effect":"NoSchedule"}])"),
       stay},
      {"untolerated NoExecute: none at all",
       Node("n", R"({"role":"edge","zone":"a"})",
            R"([{"key":"gpu","value":"x","effect":"NoExecute"}])"),
       none},
      {"PreferNoSchedule is ignored",
       Node("n", R"({"role":"edge","zone":"a"})", R"([{"key":"gpu","effect":"PreferNoSchedule"}])"),
       run},
      {"not-ready NoExecute tolerated",
       Node("n", R"({"role":"edge","zone":"a"})",
            R"([{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}])"),
       run},
      {"unreachable NoExecute tolerated",
       Node("n", R"({"role":"edge","zone":"a"})",
            R"([{"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}])"),
       run},
      {"pressure and unschedulable tolerated",
       Node("n", R"({"role":"edge","zone":"a"})",
            R"([{"key":"node.kubernetes.io/disk-pressure","effect":"NoSchedule"},
                {"key":"node.kubernetes.io/memory-pressure","effect":"NoSchedule"},
                {"key":"node.kubernetes.io/pid-pressure","effect":"NoSchedule"},
                {"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}])"),
       run},
      {"network-unavailable only for hostNetwork pods",
       Node("n", R"({"role":"edge","zone":"a"})",
            R"([{"key":"node.kubernetes.io/network-unavailable","effect":"NoSchedule"}])"),
       stay},
  };
  for (const auto& c : cases) EXPECT_EQ(placement->Evaluate(*c.node), c.want) << c.name;

  auto host =
      DaemonPlacement::For(*DaemonSet(std::string("{") + kContainers + R"(,"hostNetwork":true})"))
          .value();
  EXPECT_EQ(host->Evaluate(*Node(
                "n", "{}",
                R"([{"key":"node.kubernetes.io/network-unavailable","effect":"NoSchedule"}])")),
            run);
  // The template's nodeName names the only node.
  auto named =
      DaemonPlacement::For(*DaemonSet(std::string("{") + kContainers + R"(,"nodeName":"n2"})"))
          .value();
  EXPECT_EQ(named->Evaluate(*Node("n1")), none);
  EXPECT_EQ(named->Evaluate(*Node("n2")), run);
}

TEST(DaemonPod, TolerationsAreAddedOrReplacedOnce) {
  json::object spec = json::parse(R"({"tolerations":[
    {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":30},
    {"key":"mine","operator":"Exists"}]})")
                          .as_object();
  AddDaemonPodTolerations(spec);
  AddDaemonPodTolerations(spec);  // idempotent
  const json::array& t = spec.at("tolerations").as_array();
  ASSERT_EQ(t.size(), 7u);  // mine + the six
  EXPECT_EQ(
      t[0],
      json::parse(
          R"({"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"})"));
  EXPECT_EQ(t[1], json::parse(R"({"key":"mine","operator":"Exists"})"));
  std::vector<std::string> keys;
  for (const auto& e : t) keys.emplace_back(e.at("key").as_string());
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "node.kubernetes.io/network-unavailable"), 0);
  spec["hostNetwork"] = true;
  AddDaemonPodTolerations(spec);
  EXPECT_EQ(spec.at("tolerations").as_array().size(), 8u);
}

TEST(DaemonPod, PinningReplacesRequiredTermsAndKeepsTheRest) {
  json::object spec = json::parse(R"({"containers":[{"name":"c","image":"i"}],"affinity":{
    "nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
        {"matchFields":[{"key":"metadata.name","operator":"In","values":["old"]}]},
        {"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"k","operator":"Exists"}]}}]},
    "podAntiAffinity":{}}})")
                          .as_object();
  PinToNode(spec, "node-7");
  const json::value& node_affinity = spec.at("affinity").at("nodeAffinity");
  EXPECT_EQ(
      node_affinity.at("requiredDuringSchedulingIgnoredDuringExecution"),
      json::parse(
          R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-7"]}]}]})"));
  EXPECT_EQ(node_affinity.at("preferredDuringSchedulingIgnoredDuringExecution").as_array().size(),
            1u);
  EXPECT_TRUE(spec.at("affinity").as_object().contains("podAntiAffinity"));

  auto pod = Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":)" +
      json::serialize(spec) + "}");
  EXPECT_EQ(TargetNodeName(*pod), "node-7");
  json::object bare = json::parse(R"({"containers":[{"name":"c","image":"i"}]})").as_object();
  PinToNode(bare, "n1");
  EXPECT_EQ(bare.at("affinity")
                .at("nodeAffinity")
                .at("requiredDuringSchedulingIgnoredDuringExecution")
                .at("nodeSelectorTerms")
                .at(0)
                .at("matchFields")
                .at(0)
                .at("values"),
            json::array{"n1"});
}

// ---- plans ----

constexpr char kNow[] = "2026-01-01T00:10:00Z";

api::ObjectPtr Pod(const std::string& name, const std::string& node, const std::string& hash,
                   bool ready, const std::string& phase = "Running",
                   const std::string& created = "2026-01-01T00:00:00Z") {
  json::object status{{"phase", phase}};
  if (ready) {
    status["conditions"] = json::array{json::object{
        {"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-01-01T00:05:00Z"}}};
  }
  return api::Object::FromJson(
             json::object{
                 {"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata",
                  json::object{{"name", name},
                               {"namespace", "default"},
                               {"creationTimestamp", created},
                               {"labels", json::object{{kControllerRevisionHashLabel, hash}}}}},
                 {"spec", json::object{{"nodeName", node},
                                       {"containers",
                                        json::array{json::object{{"name", "c"}, {"image", "i"}}}}}},
                 {"status", status}})
      .value();
}

WallTime Now() { return *api::ParseRfc3339(kNow); }

DaemonNode Wanted(const std::string& name, std::vector<api::ObjectPtr> pods = {}) {
  return DaemonNode{name, true, {true, true}, std::move(pods)};
}

std::vector<std::string> Names(const std::vector<api::ObjectPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->name());
  return out;
}

TEST(DaemonRollingUpdate, MaxUnavailableBoundsDeletionsAndUnavailableOldPodsAlwaysGo) {
  std::vector<DaemonNode> nodes = {
      Wanted("a", {Pod("a-old", "a", "old", true)}),  Wanted("b", {Pod("b-old", "b", "old", true)}),
      Wanted("c", {Pod("c-old", "c", "old", false)}),  // not available: replaced regardless
      Wanted("d", {Pod("d-old", "d", "old", true)}),  Wanted("e", {Pod("e-new", "e", "new", true)}),
  };
  auto plan = PlanRollingUpdate(nodes, "new", {0, 2}, 0, Now());
  EXPECT_EQ(Names(plan.delete_pods), (std::vector<std::string>{"c-old", "a-old", "b-old"}));
  EXPECT_TRUE(plan.create_on.empty());

  // A new pod that is not yet available uses up the budget.
  nodes[4] = Wanted("e", {Pod("e-new", "e", "new", false)});
  nodes.push_back(Wanted("f"));  // no pod yet: the manage step's, counted unavailable
  plan = PlanRollingUpdate(nodes, "new", {0, 2}, 0, Now());
  EXPECT_EQ(Names(plan.delete_pods), (std::vector<std::string>{"c-old"}));

  // minReadySeconds: pods ready for 5 minutes are not available when 10 are asked, so
  // the old ones are replaced regardless of the budget.
  std::vector<DaemonNode> fresh = {Wanted("a", {Pod("a-old", "a", "old", true)}),
                                   Wanted("b", {Pod("b-old", "b", "old", true)}),
                                   Wanted("c", {Pod("c-new", "c", "new", true)})};
  EXPECT_EQ(Names(PlanRollingUpdate(fresh, "new", {0, 1}, 60, Now()).delete_pods),
            (std::vector<std::string>{"a-old"}));
  EXPECT_EQ(Names(PlanRollingUpdate(fresh, "new", {0, 1}, 600, Now()).delete_pods),
            (std::vector<std::string>{"a-old", "b-old"}));
}

TEST(DaemonRollingUpdate, MaxSurgeCreatesBesideOldPodsThenDeletesThem) {
  std::vector<DaemonNode> nodes = {
      Wanted("a", {Pod("a-old", "a", "old", true)}),
      Wanted("b", {Pod("b-old", "b", "old", true)}),
      Wanted("c", {Pod("c-old", "c", "old", false)}),  // unavailable: surged at once
      Wanted("d", {Pod("d-old", "d", "old", true)}),
  };
  auto plan = PlanRollingUpdate(nodes, "new", {1, 0}, 0, Now());
  EXPECT_EQ(plan.create_on, (std::vector<std::string>{"c", "a"}));
  EXPECT_TRUE(plan.delete_pods.empty());

  // Surged on a (available: its old pod goes) and b (not yet available: uses the surge).
  nodes[0].pods.push_back(Pod("a-new", "a", "new", true));
  nodes[1].pods.push_back(Pod("b-new", "b", "new", false));
  plan = PlanRollingUpdate(nodes, "new", {1, 0}, 0, Now());
  EXPECT_EQ(Names(plan.delete_pods), (std::vector<std::string>{"a-old"}));
  EXPECT_EQ(plan.create_on, (std::vector<std::string>{"c"}));
  EXPECT_EQ(
      RollingUpdateLimits(
          *DaemonSet(
              "{}",
              R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":"10%","maxUnavailable":0}})"),
          15)
          .value()
          .max_surge,
      2);  // percentages round up
}

TEST(DaemonManage, CreatesWhereMissingDeletesMisplacedExcessAndFinished) {
  std::vector<DaemonNode> nodes = {
      Wanted("a"),
      Wanted("b", {Pod("b-2", "b", "h", true, "Running", "2026-01-01T00:02:00Z"),
                   Pod("b-1", "b", "h", true, "Running", "2026-01-01T00:01:00Z")}),
      DaemonNode{"c", true, {false, false}, {Pod("c-1", "c", "h", true)}},  // no longer fits
      DaemonNode{
          "d", true, {false, true}, {Pod("d-1", "d", "h", true)}},  // NoSchedule taint: stays
      Wanted("e", {Pod("e-1", "e", "h", false, "Failed")}),
      Wanted("f", {Pod("f-1", "f", "h", false, "Succeeded")}),
      DaemonNode{"gone", false, {}, {Pod("g-1", "", "h", false, "Pending")}},
  };
  SortDaemonPods(nodes[1].pods);
  auto plan = PlanManage(nodes, "h", false, 0, Now());
  EXPECT_EQ(plan.create_on, (std::vector<std::string>{"a"}));
  EXPECT_EQ(Names(plan.delete_pods), (std::vector<std::string>{"b-2", "c-1", "g-1"}));
  EXPECT_EQ(Names(plan.failed_pods), (std::vector<std::string>{"e-1"}));
  EXPECT_EQ(Names(plan.succeeded_pods), (std::vector<std::string>{"f-1"}));

  // With surge an old ready pod stays beside a new one until that is available.
  constexpr char kLater[] = "2026-01-01T00:01:00Z";
  std::vector<DaemonNode> surged = {Wanted(
      "a", {Pod("a-old", "a", "old", true), Pod("a-new", "a", "new", false, "Running", kLater)})};
  EXPECT_TRUE(PlanManage(surged, "new", true, 0, Now()).delete_pods.empty());
  EXPECT_EQ(Names(PlanManage(surged, "new", false, 0, Now()).delete_pods),
            (std::vector<std::string>{"a-new"}));
  surged[0].pods[1] = Pod("a-new", "a", "new", true, "Running", kLater);
  EXPECT_EQ(Names(PlanManage(surged, "new", true, 0, Now()).delete_pods),
            (std::vector<std::string>{"a-old"}));
}

TEST(DaemonStatus, CountsOverTheNodesThatExist) {
  std::vector<DaemonNode> nodes = {
      Wanted("a", {Pod("a-1", "a", "new", true)}),
      Wanted("b", {Pod("b-1", "b", "old", true)}),
      Wanted("c", {Pod("c-1", "c", "new", false)}),
      Wanted("d"),
      DaemonNode{"e", true, {false, true}, {Pod("e-1", "e", "new", true)}},  // misscheduled
      DaemonNode{"gone", false, {}, {Pod("g-1", "gone", "new", true)}},
  };
  DaemonCounts want;
  want.desired = 4;
  want.current = 3;
  want.misscheduled = 1;
  want.ready = 2;
  want.updated = 2;
  want.available = 2;
  want.unavailable = 2;
  EXPECT_EQ(CountDaemonPods(nodes, "new", 0, Now()), want);
  want.available = 0;  // ready for 5 minutes, 10 asked
  want.unavailable = 4;
  EXPECT_EQ(CountDaemonPods(nodes, "new", 600, Now()), want);
}

}  // namespace
}  // namespace berth::controllers
