// kube's PreFilterResult: NodeAffinity's PreFilter names the only nodes a
// pod can run on (required terms with matchFields metadata.name In, as
// DaemonSet pods have); Filter runs on those alone, and the FitError counts
// the others as "node(s) didn't satisfy plugin(s) [NodeAffinity]".

#include <gtest/gtest.h>

#include <string>

#include "fake_cluster.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::FakeCluster;
using testing::FakeHandle;
using testing::NodeObject;

// A pod asking for `cpu`, whose required node affinity has the given terms
// (each a JSON list of matchFields requirements).
api::ObjectPtr PinnedPod(const std::string& name, const std::string& cpu,
                         const std::vector<std::string>& terms) {
  std::string selector_terms;
  for (const auto& t : terms)
    selector_terms +=
        (selector_terms.empty() ? "" : ",") + std::string(R"({"matchFields":)") + t + "}";
  auto o = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
      R"(","namespace":"default","uid":"u-)" + name +
      R"("},"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)" +
      selector_terms +
      R"(]}}},"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":")" + cpu +
      R"("}}}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

std::string NameIn(const std::string& values) {
  return R"([{"key":"metadata.name","operator":"In","values":)" + values + "}]";
}

struct ThreeNodes {
  ThreeNodes() {
    c.scheduler->OnNodeAdd(NodeObject("n1", "1"));
    c.scheduler->OnNodeAdd(NodeObject("n2", "1"));
    c.scheduler->OnNodeAdd(NodeObject("n3", "4"));
    c.scheduler->Start();
  }
  std::string Fails(const api::ObjectPtr& pod) {
    c.scheduler->OnPodAdd(pod);
    EXPECT_TRUE(c.WaitIdle());
    return c.FailureOf("default/" + pod->name());
  }
  FakeCluster c;
};

TEST(PreFilterNodes, OnlyTheNamedNodesAreFilteredTheOthersCountAsNotSatisfyingThePlugIn) {
  ThreeNodes t;
  EXPECT_EQ(t.Fails(PinnedPod("pinned", "2", {NameIn(R"(["n1"])"), NameIn(R"(["n2"])")})),
            "Unschedulable: 0/3 nodes are available: 1 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity], 2 "
            "Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful "
            "for scheduling, 2 No "
            "preemption victims found for incoming pod..");
}

TEST(PreFilterNodes, TermsAreORedTheirRequirementsANDed) {
  ThreeNodes t;
  // Term 1 names n1 and n2 but also requires n2 alone: n2. Term 2 names n3. Union: n2, n3.
  t.c.scheduler->OnPodAdd(
      PinnedPod("either", "2",
                {R"([{"key":"metadata.name","operator":"In","values":["n1","n2"]},)"
                 R"({"key":"metadata.name","operator":"In","values":["n2"]}])",
                 NameIn(R"(["n3"])")}));
  ASSERT_TRUE(t.c.WaitIdle());
  EXPECT_EQ(t.c.Placements()["default/either"], "n3");
  // A term without a name requirement lets every node through: nothing is restricted.
  EXPECT_EQ(t.Fails(PinnedPod("open", "8",
                              {NameIn(R"(["n1"])"),
                               R"([{"key":"metadata.name","operator":"NotIn","values":["n9"]}])"})),
            "Unschedulable: 0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are "
            "available: 3 No "
            "preemption victims found for incoming pod..");
}

TEST(PreFilterNodes, NamesWithNothingInCommonAndNamesOfNoNode) {
  ThreeNodes t;
  EXPECT_EQ(t.Fails(PinnedPod("conflict", "1",
                              {R"([{"key":"metadata.name","operator":"In","values":["n1"]},)"
                               R"({"key":"metadata.name","operator":"In","values":["n2"]}])"})),
            "Unschedulable: 0/3 nodes are available: pod affinity terms conflict. preemption: 0/3 "
            "nodes are "
            "available: 3 Preemption is not helpful for scheduling..");
  EXPECT_EQ(t.Fails(PinnedPod("gone", "1", {NameIn(R"(["n9"])")})),
            "Unschedulable: 0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity]. preemption: "
            "0/3 nodes are available: 3 Preemption is not helpful for scheduling..");
}

// Two PreFilter plugins naming nodes with nothing in common: kube's message
// names both ("simultaneously"); one plugin alone is named on its own.
class NamingPlugin final : public PreFilterPlugin {
 public:
  NamingPlugin(std::string name, std::vector<std::string> nodes)
      : name_(std::move(name)), nodes_(std::move(nodes)) {}
  std::string_view Name() const override { return name_; }
  PluginStatus PreFilter(CycleState& state, const PodInfo&) const override {
    state.RestrictNodes(name_, nodes_);
    return {};
  }

 private:
  std::string name_;
  std::vector<std::string> nodes_;
};

TEST(PreFilterNodes, TheIntersectionOfEveryPluginsNames) {
  Registry registry = InTreeRegistry();
  auto add = [&](const std::string& name, std::vector<std::string> nodes) {
    registry.Register(name,
                      [name, nodes](const boost::json::object&,
                                    const Handle&) -> Result<std::shared_ptr<Plugin>> {
                        return std::shared_ptr<Plugin>(std::make_shared<NamingPlugin>(name, nodes));
                      });
  };
  add("NamesAB", {"b", "a", "a"});
  add("NamesBC", {"c", "b"});
  add("NamesC", {"c"});
  add("NamesNone", {});
  FakeHandle handle;
  auto run = [&](std::vector<PluginRef> plugins) {
    ProfileConfig profile;
    profile.plugins.pre_filter.disabled = {{"*", 0}};  // only the naming plugins
    profile.plugins.pre_filter.enabled = std::move(plugins);
    auto fw = Framework::Build(profile, registry, handle);
    EXPECT_TRUE(fw.ok()) << fw.status().message();
    CycleState state;
    PluginStatus s = fw.value()->RunPreFilter(state, *testing::Pod("p"));
    return std::make_pair(s, state.node_restriction());
  };
  auto [ok, names] = run({{"NamesAB", 0}, {"NamesBC", 0}});
  EXPECT_TRUE(ok.ok());
  ASSERT_TRUE(names.has_value());
  EXPECT_EQ(*names, (std::vector<std::string>{"b"}));
  auto [both, none] = run({{"NamesAB", 0}, {"NamesBC", 0}, {"NamesC", 0}});
  EXPECT_EQ(both.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(both.Message(),
            "node(s) didn't satisfy plugin(s) [NamesAB NamesBC NamesC] simultaneously");
  auto [one, empty] = run({{"NamesC", 0}, {"NamesAB", 0}});
  EXPECT_EQ(one.Message(), "node(s) didn't satisfy plugin(s) [NamesC NamesAB] simultaneously");
  auto [alone, nothing] = run({{"NamesNone", 0}});
  EXPECT_EQ(alone.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(alone.Message(), "node(s) didn't satisfy plugin NamesNone");
}

}  // namespace
}  // namespace berth::scheduler
