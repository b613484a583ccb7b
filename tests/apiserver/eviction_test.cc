// The eviction subresource and PriorityClass rules, through ApiServer::Handle
// over a memory store (no sockets): kube's answers, codes and messages.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/api_server.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class EvictionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(store::MemoryStore::Open({})).value();
    ApiServer::Options options;
  options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.seed = 7;
    api_ = std::make_unique<ApiServer>(*store_, options);
    ASSERT_TRUE(api_->Bootstrap().ok());
  }

  Response Call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& content_type = "application/json") {
    Request r;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = "application/json";
    return api_->Handle(r);
  }
  static json::object Body(const Response& r) { return json::parse(r.body).as_object(); }

  // A pod labelled app=web on node-a in `phase`, Ready or not.
  void RunningPod(const std::string& name, bool ready = true,
                  const std::string& phase = "Running") {
    Response created = Call("POST", "/api/v1/namespaces/default/pods",
                            R"({"metadata":{"name":")" + name + R"(","labels":{"app":"web"}},
                               "spec":{"nodeName":"node-a","containers":[{"name":"c","image":"nginx"}]}})");
    ASSERT_EQ(created.status, 201) << created.body;
    json::object pod = Body(created);
    pod["status"] = json::object{
        {"phase", phase},
        {"conditions",
         json::array{json::object{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}};
    Response updated =
        Call("PUT", "/api/v1/namespaces/default/pods/" + name + "/status", json::serialize(pod));
    ASSERT_EQ(updated.status, 200) << updated.body;
  }

  // A budget over app=web (`spec` its spec's other fields) whose status says `status`.
  void Budget(const std::string& name, const std::string& spec, const std::string& status) {
    Response created =
        Call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
             R"({"metadata":{"name":")" + name +
                 R"("},"spec":{"selector":{"matchLabels":{"app":"web"}},)" + spec + "}}");
    ASSERT_EQ(created.status, 201) << created.body;
    json::object pdb = Body(created);
    pdb["status"] = json::parse(status);
    Response updated =
        Call("PUT", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/" + name + "/status",
             json::serialize(pdb));
    ASSERT_EQ(updated.status, 200) << updated.body;
  }

  Response Evict(const std::string& name) {
    return Call("POST", "/api/v1/namespaces/default/pods/" + name + "/eviction",
                R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + name +
                    R"(","namespace":"default"}})");
  }
  bool PodExists(const std::string& name) {
    return Call("GET", "/api/v1/namespaces/default/pods/" + name).status == 200;
  }
  json::object BudgetStatus(const std::string& name) {
    return Body(Call("GET",
                     "/apis/policy/v1/namespaces/default/poddisruptionbudgets/" + name))["status"]
        .as_object();
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ApiServer> api_;
};

constexpr char kTwoAllowed[] =
    R"({"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3})";
constexpr char kNoneAllowed[] =
    R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":2,"expectedPods":2})";

TEST_F(EvictionTest, AllowedEvictionTakesFromTheBudgetAndDeletesThePod) {
  RunningPod("web-1");
  Budget("web", R"("minAvailable":2)", kTwoAllowed);
  Response r = Evict("web-1");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(
      Body(r),
      json::parse(
          R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})"));
  EXPECT_FALSE(PodExists("web-1"));
  json::object status = BudgetStatus("web");
  EXPECT_EQ(status["disruptionsAllowed"], 0);
  EXPECT_TRUE(status["disruptedPods"].as_object().contains("web-1"));
  const json::object& condition = status["conditions"].as_array()[0].as_object();
  EXPECT_EQ(condition.at("type"), "DisruptionAllowed");
  EXPECT_EQ(condition.at("status"), "False");
  EXPECT_EQ(condition.at("reason"), "InsufficientPods");
}

TEST_F(EvictionTest, EvictedPodOnANodeWithAKubeletTerminatesGracefullyAsADisruptionTarget) {
  ASSERT_EQ(Call("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                 R"({"metadata":{"name":"node-a"},"spec":{"holderIdentity":"node-a"}})")
                .status,
            201);
  RunningPod("web-1");
  Budget("web", R"("minAvailable":2)", kTwoAllowed);
  Response r = Call("POST", "/api/v1/namespaces/default/pods/web-1/eviction",
                    R"({"metadata":{"name":"web-1"},"deleteOptions":{"gracePeriodSeconds":7}})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod = Body(Call("GET", "/api/v1/namespaces/default/pods/web-1"));
  EXPECT_EQ(pod["metadata"].as_object()["deletionGracePeriodSeconds"], 7);
  bool marked = false;
  for (const auto& c : pod["status"].as_object()["conditions"].as_array()) {
    const json::object& o = c.as_object();
    if (o.at("type").as_string() != "DisruptionTarget") continue;
    marked = true;
    EXPECT_EQ(o.at("status"), "True");
    EXPECT_EQ(o.at("reason"), "EvictionByEvictionAPI");
    EXPECT_EQ(o.at("message"), "Eviction API: evicting");
  }
  EXPECT_TRUE(marked) << json::serialize(pod);
  // Evicting a pod already being deleted uses no budget.
  EXPECT_EQ(Evict("web-1").status, 201);
  EXPECT_EQ(BudgetStatus("web")["disruptionsAllowed"], 0);
}

TEST_F(EvictionTest, BudgetWithoutDisruptionsAnswersTooManyRequestsWithItsNumbers) {
  RunningPod("web-1");
  Budget("web", R"("minAvailable":2)", kNoneAllowed);
  Response r = Evict("web-1");
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(Body(r),
            json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
    "message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
    "details":{"causes":[{"reason":"DisruptionBudget",
      "message":"The disruption budget web needs 2 healthy pods and has 2 currently"}]},"code":429})"))
      << r.body;
  EXPECT_TRUE(PodExists("web-1"));
}

TEST_F(EvictionTest, BudgetStatusOlderThanItsGenerationIsStillBeingProcessed) {
  RunningPod("web-1");
  Budget(
      "web", R"("minAvailable":2)",
      R"({"observedGeneration":0,"disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3})");
  Response r = Evict("web-1");
  ASSERT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(Body(r)["details"].as_object()["causes"].as_array()[0].as_object()["message"],
            "The disruption budget web is still being processed by the server.");
  EXPECT_TRUE(PodExists("web-1"));
}

TEST_F(EvictionTest, MoreThanOneBudgetIsRefusedAsKubeDoes) {
  RunningPod("web-1");
  Budget("a", R"("minAvailable":1)", kTwoAllowed);
  Budget("b", R"("maxUnavailable":1)", kTwoAllowed);
  Response r = Evict("web-1");
  ASSERT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(Body(r)["message"],
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
            "not support.");
  EXPECT_TRUE(PodExists("web-1"));
}

TEST_F(EvictionTest, TerminalPodsIgnoreTheBudget) {
  RunningPod("done", true, "Succeeded");
  Budget("web", R"("minAvailable":2)", kNoneAllowed);
  Response r = Evict("done");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_FALSE(PodExists("done"));
  EXPECT_EQ(BudgetStatus("web")["disruptionsAllowed"], 0);
}

TEST_F(EvictionTest, UnreadyPodGoesWithoutUsingASatisfiedBudget) {
  RunningPod("sick", false);
  Budget(
      "web", R"("minAvailable":2)",
      R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":2,"expectedPods":3})");
  Response r = Evict("sick");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_FALSE(PodExists("sick"));
  EXPECT_FALSE(BudgetStatus("web").contains("disruptedPods"));
}

TEST_F(EvictionTest, UnreadyPodOfAnUnsatisfiedBudgetNeedsAlwaysAllow) {
  RunningPod("sick", false);
  Budget(
      "web", R"("minAvailable":3)",
      R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":3,"expectedPods":3})");
  EXPECT_EQ(Evict("sick").status, 429);
  RunningPod("sick2", false);
  ASSERT_EQ(Call("DELETE", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web").status,
            200);
  Budget(
      "web", R"("minAvailable":3,"unhealthyPodEvictionPolicy":"AlwaysAllow")",
      R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":3,"expectedPods":3})");
  EXPECT_EQ(Evict("sick2").status, 201);
  EXPECT_FALSE(PodExists("sick2"));
}

TEST_F(EvictionTest, PodWithoutABudgetIsDeleted) {
  RunningPod("lonely");
  EXPECT_EQ(Evict("lonely").status, 201);
  EXPECT_FALSE(PodExists("lonely"));
  EXPECT_EQ(Evict("lonely").status, 404);
}

TEST_F(EvictionTest, NameMismatchIsABadRequest) {
  RunningPod("web-1");
  Response r = Call("POST", "/api/v1/namespaces/default/pods/web-1/eviction",
                    R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other"}})");
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(Body(r)["message"], "name in URL does not match name in Eviction object");
}

TEST_F(EvictionTest, DryRunChangesNothing) {
  RunningPod("web-1");
  Budget("web", R"("minAvailable":2)", kTwoAllowed);
  Response r = Call("POST", "/api/v1/namespaces/default/pods/web-1/eviction",
                    R"({"metadata":{"name":"web-1"},"deleteOptions":{"dryRun":["All"]}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(PodExists("web-1"));
  EXPECT_EQ(BudgetStatus("web")["disruptionsAllowed"], 1);
}

TEST_F(EvictionTest, ProtobufEvictionAsKubectlDrainSendsIt) {
  RunningPod("web-1");
  // Envelope {TypeMeta{policy/v1, Eviction}, raw Eviction{metadata{name, namespace},
  // deleteOptions{}}}.
  std::string meta = std::string("\x0a\x05web-1\x1a\x07") + "default";
  std::string raw =
      "\x0a" + std::string(1, static_cast<char>(meta.size())) + meta + std::string("\x12\x00", 2);
  std::string type_meta = std::string("\x0a\x09policy/v1\x12\x08") + "Eviction";
  std::string body = std::string("k8s\0", 4) + "\x0a" +
                     std::string(1, static_cast<char>(type_meta.size())) + type_meta + "\x12" +
                     std::string(1, static_cast<char>(raw.size())) + raw;
  Response r = Call("POST", "/api/v1/namespaces/default/pods/web-1/eviction", body,
                    "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_FALSE(PodExists("web-1"));
}

// kubectl drain --dry-run=server's DELETE: protobuf DeleteOptions{dryRun: [All]},
// which was ignored (the pod deleted for real).
TEST_F(EvictionTest, ProtobufDeleteOptionsAreHonoured) {
  RunningPod("web-1");
  std::string dry_run(
      "k8s\0\n\x13\n\x02v1\x12\rDeleteOptions\x12\x05*\x03"
      "All\x1a\x00\"\x00",
      36);
  Response r = Call("DELETE", "/api/v1/namespaces/default/pods/web-1", dry_run,
                    "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(PodExists("web-1"));
  // Without dryRun (DeleteOptions{gracePeriodSeconds: 0}) it deletes.
  std::string now =
      std::string("k8s\0\n\x13\n\x02v1\x12\rDeleteOptions\x12\x02\x08", 28) + std::string(1, '\0');
  r = Call("DELETE", "/api/v1/namespaces/default/pods/web-1", now,
           "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(PodExists("web-1"));
}

TEST_F(EvictionTest, DiscoveryServesPodsEvictionAsPolicyV1) {
  Response r = Call("GET", "/api/v1");
  ASSERT_EQ(r.status, 200);
  bool found = false;
  const json::object list = Body(r);
  for (const auto& resource : list.at("resources").as_array()) {
    const json::object& o = resource.as_object();
    if (o.at("name").as_string() != "pods/eviction") continue;
    found = true;
    EXPECT_EQ(o.at("group"), "policy");
    EXPECT_EQ(o.at("version"), "v1");
    EXPECT_EQ(o.at("kind"), "Eviction");
    EXPECT_EQ(o.at("verbs"), json::array{"create"});
  }
  EXPECT_TRUE(found) << r.body;
}

// PriorityClasses: the built-in ones and kube's validation.
TEST_F(EvictionTest, SystemPriorityClassesExistAndResolve) {
  Response r = Call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["value"], 2000001000);
  EXPECT_EQ(Body(r)["preemptionPolicy"], "PreemptLowerPriority");
  Response pod =
      Call("POST", "/api/v1/namespaces/kube-system/pods",
           R"({"metadata":{"name":"dns"},"spec":{"priorityClassName":"system-cluster-critical",
                          "containers":[{"name":"c","image":"coredns"}]}})");
  ASSERT_EQ(pod.status, 201) << pod.body;
  EXPECT_EQ(Body(pod)["spec"].as_object()["priority"], 2000000000);
  Response del = Call("DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical");
  EXPECT_EQ(del.status, 403);
  EXPECT_EQ(Body(del)["message"],
            "priorityclasses.scheduling.k8s.io \"system-node-critical\" is forbidden: "
            "this is a system priority class and cannot be deleted");
}

TEST_F(EvictionTest, PriorityClassValidationUsesKubesMessages) {
  auto create = [&](const std::string& body) {
    return Call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", body);
  };
  struct Case {
    std::string body;
    int code;
    std::string message;
  } cases[] = {
      {R"({"metadata":{"name":"huge"},"value":1000000001})", 422,
       "PriorityClass.scheduling.k8s.io \"huge\" is invalid: value: Forbidden: maximum allowed value of a user "
       "defined priority is "
       "1000000000"},
      {R"({"metadata":{"name":"system-mine"},"value":10})", 422,
       "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid: metadata.name: Forbidden: priority class names "
       "with 'system-' "
       "prefix are reserved for system use only. error: system-mine is not a known system priority "
       "class"},
      {R"({"metadata":{"name":"odd"},"value":10,"preemptionPolicy":"Sometimes"})", 422,
       "PriorityClass.scheduling.k8s.io \"odd\" is invalid: preemptionPolicy: Unsupported value: \"Sometimes\": "
       "supported values: "
       "\"Never\", \"PreemptLowerPriority\""},
      {R"({"metadata":{"name":"top"},"value":1000000000,"preemptionPolicy":"Never"})", 201, ""},
      {R"({"metadata":{"name":"first"},"value":5,"globalDefault":true})", 201, ""},
      {R"({"metadata":{"name":"second"},"value":6,"globalDefault":true})", 403,
       "priorityclasses.scheduling.k8s.io \"second\" is forbidden: PriorityClass first is already "
       "marked as "
       "default. Only one default can exist"},
  };
  for (const auto& c : cases) {
    Response r = create(c.body);
    EXPECT_EQ(r.status, c.code) << c.body << " → " << r.body;
    if (!c.message.empty()) {
      EXPECT_EQ(Body(r)["message"], json::value(c.message)) << r.body;
    }
  }
  Response top = Call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses/top");
  json::object changed = Body(top);
  changed["value"] = 7;
  Response r =
      Call("PUT", "/apis/scheduling.k8s.io/v1/priorityclasses/top", json::serialize(changed));
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(Body(r)["message"],
            "PriorityClass.scheduling.k8s.io \"top\" is invalid: value: Forbidden: may not be changed in an update.");
}

}  // namespace
}  // namespace berth::apiserver
