// The subresources each kind's strategy holds (apiserver/registry/subresource.h),
// as kube-apiserver serves them, and what a write through status or finalize
// may change.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "api/kinds.h"
#include "apiserver/registry/registry.h"
#include "apiserver/registry/service_alloc.h"
#include "apiserver/registry/strategies.h"
#include "apiserver/registry/subresource.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// The registry of an API server: built-in strategies and those with rules of their own.
class SubresourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(store::MemoryStore::Open({})).value();
    services_ = std::make_unique<ServiceAllocator>(ServiceRanges{});
    RegisterBuiltinStrategies(registry_, {*store_, *services_});
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ServiceAllocator> services_;
  ResourceRegistry registry_;
};

struct Expected {
  std::string name;
  std::string response;  // group/version/kind it answers with
  std::vector<std::string> verbs;
  bool listed;  // in discovery and OpenAPI
};

std::string ResponseOf(const Subresource::Description& d) { return d.group + "/" + d.version + "/" + d.kind; }

TEST_F(SubresourcesTest, EachKindHoldsKubesSubresourcesWithTheirVerbs) {
  const std::vector<std::string> read_write = {"get", "patch", "update"};
  struct Case {
    std::string name;
    api::Kind kind;
    std::vector<Expected> subresources;  // in discovery's order
  };
  const std::vector<Case> cases = {
      {"pods",
       api::Kind::kPod,
       {{"binding", "/v1/Binding", {"create"}, true},
        {"eviction", "policy/v1/Eviction", {"create"}, true},
        {"log", "/v1/Pod", {"get"}, false},
        {"exec", "/v1/PodExecOptions", {"create", "get"}, false},
        {"attach", "/v1/PodAttachOptions", {"create", "get"}, false},
        {"portforward", "/v1/PodPortForwardOptions", {"create", "get"}, false},
        {"proxy", "/v1/PodProxyOptions", {"create", "delete", "get", "patch", "update"}, false},
        {"status", "/v1/Pod", read_write, true}}},
      {"namespaces",
       api::Kind::kNamespace,
       {{"finalize", "/v1/Namespace", {"update"}, false}, {"status", "/v1/Namespace", read_write, true}}},
      {"deployments",
       api::Kind::kDeployment,
       {{"scale", "autoscaling/v1/Scale", read_write, true}, {"status", "apps/v1/Deployment", read_write, true}}},
      {"replicationcontrollers (kubectl scale rc)",
       api::Kind::kReplicationController,
       {{"scale", "autoscaling/v1/Scale", read_write, true}, {"status", "/v1/ReplicationController", read_write, true}}},
      {"autoscaling/v1 horizontalpodautoscalers answer with their own version",
       api::Kind::kHorizontalPodAutoscalerV1,
       {{"status", "autoscaling/v1/HorizontalPodAutoscaler", read_write, true}}},
      {"configmaps have none", api::Kind::kConfigMap, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ResourceStrategy& strategy = registry_.For(c.kind);
    ASSERT_EQ(strategy.subresources().size(), c.subresources.size());
    for (size_t i = 0; i < c.subresources.size(); ++i) {
      const Expected& want = c.subresources[i];
      const Subresource::Description& got = strategy.subresources()[i]->description();
      EXPECT_EQ(got.name, want.name);
      EXPECT_EQ(ResponseOf(got), want.response) << want.name;
      EXPECT_EQ(got.verbs, want.verbs) << want.name;
      EXPECT_EQ(got.listed, want.listed) << want.name;
      EXPECT_EQ(strategy.FindSubresource(want.name), strategy.subresources()[i].get()) << want.name;
    }
    EXPECT_EQ(strategy.FindSubresource("nope"), nullptr);
    EXPECT_EQ(strategy.HasStatus(), strategy.FindSubresource("status") != nullptr);
  }
}

TEST_F(SubresourcesTest, DiscoveryListsOnlyTheListedOnesInOrder) {
  std::vector<std::string> names;
  for (const Subresource* s : registry_.ListedSubresources(api::Kind::kPod)) names.push_back(s->name());
  EXPECT_EQ(names, (std::vector<std::string>{"binding", "eviction", "status"}));
  EXPECT_TRUE(registry_.ListedSubresources(api::Kind::kConfigMap).empty());
}

TEST_F(SubresourcesTest, AWriteThroughStatusChangesOnlyTheStatus) {
  const json::object current = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":1},"status":{"replicas":0}})")
                                   .as_object();
  struct Case {
    std::string name;
    std::string sent;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"the status is taken, spec and metadata stay",
       R"({"metadata":{"name":"web","labels":{"app":"other"}},"spec":{"replicas":5},"status":{"replicas":3}})",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
           "spec":{"replicas":1},"status":{"replicas":3}})"},
      {"a body without status clears it",
       R"({"metadata":{"name":"web"},"spec":{"replicas":5}})",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
           "spec":{"replicas":1}})"},
  };
  const Subresource* status = registry_.For(api::Kind::kDeployment).FindSubresource("status");
  ASSERT_NE(status, nullptr);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto merged = status->MergeWrite(current, json::parse(c.sent).as_object());
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    EXPECT_EQ(merged.value(), json::parse(c.want));
  }
}

TEST_F(SubresourcesTest, AWriteThroughFinalizeChangesOnlySpecFinalizers) {
  const json::object current = json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"team","finalizers":["example.com/hold"]},
      "spec":{"finalizers":["kubernetes"]},"status":{"phase":"Terminating"}})")
                                   .as_object();
  struct Case {
    std::string name;
    std::string sent;
    std::string want_spec;
  };
  const std::vector<Case> cases = {
      {"the finalizers are taken",
       R"({"metadata":{"name":"team","finalizers":[]},"spec":{"finalizers":[]},"status":{"phase":"Active"}})",
       R"({"finalizers":[]})"},
      {"a body without them clears them", R"({"metadata":{"name":"team"},"status":{"phase":"Active"}})", "{}"},
  };
  const Subresource* finalize = registry_.For(api::Kind::kNamespace).FindSubresource("finalize");
  ASSERT_NE(finalize, nullptr);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto merged = finalize->MergeWrite(current, json::parse(c.sent).as_object());
    ASSERT_TRUE(merged.ok()) << merged.status().message();
    json::object want = current;
    want["spec"] = json::parse(c.want_spec);
    EXPECT_EQ(merged.value(), json::value(want)) << "metadata and status stay as stored";
  }
}

TEST_F(SubresourcesTest, SubresourcesThatAreNotWrittenThroughTheUpdateRefuseToMerge) {
  const json::object pod = json::parse(R"({"metadata":{"name":"p"}})").as_object();
  for (const char* name : {"binding", "eviction", "log", "exec"}) {
    SCOPED_TRACE(name);
    const Subresource* subresource = registry_.For(api::Kind::kPod).FindSubresource(name);
    ASSERT_NE(subresource, nullptr);
    auto merged = subresource->MergeWrite(pod, pod);
    ASSERT_FALSE(merged.ok());
    EXPECT_EQ(merged.status().code(), StatusCode::kMethodNotAllowed);
  }
}

}  // namespace
}  // namespace berth::apiserver
