// REST semantics of the API server, through ApiServer::Handle (no sockets).

#include "apiserver/api_server.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include <boost/json.hpp>

#include "apiserver/registry/system_fields.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(store::MemoryStore::Open({})).value();
    ApiServer::Options options;
  options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
    options.seed = 42;
    api_ = std::make_unique<ApiServer>(*store_, options);
    ASSERT_TRUE(api_->Bootstrap().ok());
  }

  Response Call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& content_type = "application/json",
                const std::string& accept = "application/json") {
    Request r;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = accept;
    return api_->Handle(r);
  }

  static json::object Body(const Response& r) { return json::parse(r.body).as_object(); }

  static std::string Pod(const std::string& name, const std::string& extra_spec = "",
                         const std::string& labels = "{}") {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"(","labels":)" + labels + R"(},"spec":{)" + extra_spec +
           R"("containers":[{"name":"c","image":"nginx:1.25"}]}})";
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ApiServer> api_;
};

TEST_F(ApiServerTest, CreateSetsIdentityAndKubeDefaults) {
  Response r = Call("POST", "/api/v1/namespaces/default/pods", Pod("a"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(r.body.ends_with("}\n")) << r.body;
  json::object pod = Body(r);
  json::object& meta = pod["metadata"].as_object();
  EXPECT_EQ(meta["namespace"], "default");
  EXPECT_EQ(meta["uid"].as_string().size(), 36u);
  EXPECT_TRUE(meta.contains("creationTimestamp"));
  EXPECT_FALSE(meta["resourceVersion"].as_string().empty());
  json::object& spec = pod["spec"].as_object();
  EXPECT_EQ(spec["schedulerName"], "default-scheduler");
  EXPECT_EQ(spec["restartPolicy"], "Always");
  EXPECT_EQ(spec["dnsPolicy"], "ClusterFirst");
  EXPECT_EQ(spec["terminationGracePeriodSeconds"], 30);
  EXPECT_EQ(spec["priority"], 0);
  EXPECT_EQ(spec["tolerations"].as_array().size(), 2u) << "DefaultTolerationSeconds";
  EXPECT_EQ(spec["containers"].as_array()[0].as_object()["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(pod["status"].as_object()["phase"], "Pending");
}

// Kube's defaulting: a limit without a request sets the request. Both maps
// present in a parsed body is the case where looking "requests" up grows the
// resources object (Boost.JSON reserves before it finds), which once left the
// limits iterator dangling (caught under AddressSanitizer).
TEST_F(ApiServerTest, CreateDefaultsRequestsFromLimits) {
  auto pod = [](const std::string& name, const std::string& resources) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"("},"spec":{"containers":[{"name":"c","image":"nginx:1.25","resources":)" + resources +
           "}]}}";
  };
  auto requests = [&](const Response& r) {
    return Body(r)["spec"]
        .as_object()["containers"]
        .as_array()[0]
        .as_object()["resources"]
        .as_object()["requests"];
  };
  Response only_limits = Call("POST", "/api/v1/namespaces/default/pods",
                              pod("a", R"({"limits":{"cpu":"1","memory":"1Gi"}})"));
  ASSERT_EQ(only_limits.status, 201) << only_limits.body;
  EXPECT_EQ(requests(only_limits), json::parse(R"({"cpu":"1","memory":"1Gi"})"));
  Response both =
      Call("POST", "/api/v1/namespaces/default/pods",
           pod("b", R"({"limits":{"cpu":"2","memory":"2Gi"},"requests":{"memory":"1Gi"}})"));
  ASSERT_EQ(both.status, 201) << both.body;
  EXPECT_EQ(requests(both), json::parse(R"({"memory":"1Gi","cpu":"2"})"));
}

// A pod without spec or status is refused by validation; defaulting runs
// first and adds both, and reading the spec after adding "status" once read
// freed memory (caught under AddressSanitizer).
TEST_F(ApiServerTest, APodWithoutSpecIsInvalid) {
  Response r = Call("POST", "/api/v1/namespaces/default/pods",
                    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bare"}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(Body(r)["reason"], "Invalid");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/bare").status, 404);
}

TEST_F(ApiServerTest, CreateErrorsAreKubeStatuses) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  Response dup = Call("POST", "/api/v1/namespaces/default/pods", Pod("a"));
  EXPECT_EQ(dup.status, 409);
  // Status bodies, as every JSON answer, end with the newline kube's encoder writes.
  EXPECT_TRUE(dup.body.ends_with("}\n")) << dup.body;
  EXPECT_EQ(Body(dup)["reason"], "AlreadyExists");
  EXPECT_EQ(Body(dup)["message"], "pods \"a\" already exists");

  Response missing_ns = Call("POST", "/api/v1/namespaces/nowhere/pods", Pod("a"));
  EXPECT_EQ(missing_ns.status, 404);
  EXPECT_EQ(Body(missing_ns)["message"], "namespaces \"nowhere\" not found");

  Response malformed = Call("POST", "/api/v1/namespaces/default/pods", "{not json");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(Body(malformed)["reason"], "BadRequest");

  Response wrong_kind = Call("POST", "/api/v1/namespaces/default/pods",
                             R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"x"}})");
  EXPECT_EQ(wrong_kind.status, 400);

  Response yaml = Call("POST", "/api/v1/namespaces/default/pods", Pod("b"), "text/plain");
  EXPECT_EQ(yaml.status, 415);

  Response no_name = Call("POST", "/api/v1/namespaces/default/pods",
                          R"({"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  EXPECT_EQ(no_name.status, 422);
  EXPECT_EQ(Body(no_name)["reason"], "Invalid");

  Response invalid = Call("POST", "/api/v1/namespaces/default/pods",
                          R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad"},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"-1"}}}]}})");
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  auto causes = Body(invalid)["details"].as_object()["causes"].as_array();
  ASSERT_FALSE(causes.empty());
  EXPECT_TRUE(causes[0].as_object()["field"].as_string().starts_with(
      "spec.containers[0].resources.requests"))
      << invalid.body;
  // Nothing was stored by the rejected requests.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/bad").status, 404);
}

TEST_F(ApiServerTest, GenerateNameMakesAUniqueName) {
  std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"c","image":"x"}]}})";
  Response a = Call("POST", "/api/v1/namespaces/default/pods", body);
  Response b = Call("POST", "/api/v1/namespaces/default/pods", body);
  ASSERT_EQ(a.status, 201);
  ASSERT_EQ(b.status, 201);
  std::string na(Body(a)["metadata"].as_object()["name"].as_string());
  std::string nb(Body(b)["metadata"].as_object()["name"].as_string());
  EXPECT_EQ(na.size(), 9u);
  EXPECT_TRUE(na.starts_with("web-"));
  EXPECT_NE(na, nb);
}

TEST_F(ApiServerTest, ListFiltersBySelectorsAndPaginates) {
  for (int i = 0; i < 5; ++i) {
    std::string labels = i % 2 ? R"({"app":"odd"})" : R"({"app":"even"})";
    std::string spec = i == 0 ? R"("nodeName":"n1",)" : "";
    ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("p" + std::to_string(i), spec, labels)).status, 201);
  }
  json::object odd = Body(Call("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dodd"));
  EXPECT_EQ(odd["kind"], "PodList");
  EXPECT_EQ(odd["items"].as_array().size(), 2u);
  json::object on_n1 = Body(Call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1"));
  EXPECT_EQ(on_n1["items"].as_array().size(), 1u);
  json::object unscheduled = Body(Call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D"));
  EXPECT_EQ(unscheduled["items"].as_array().size(), 4u);
  Response bad_field = Call("GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx");
  EXPECT_EQ(bad_field.status, 400);

  json::object page = Body(Call("GET", "/api/v1/namespaces/default/pods?limit=2"));
  EXPECT_EQ(page["items"].as_array().size(), 2u);
  std::string token(page["metadata"].as_object()["continue"].as_string());
  EXPECT_EQ(page["metadata"].as_object()["remainingItemCount"], 3);
  json::object next = Body(Call("GET", "/api/v1/namespaces/default/pods?limit=10&continue=" + token));
  EXPECT_EQ(next["items"].as_array().size(), 3u);
  EXPECT_FALSE(next["metadata"].as_object().contains("continue"));
}

TEST_F(ApiServerTest, TableResponsesCarryKubeColumnsAndResourceVersion) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  Response r = Call("GET", "/api/v1/namespaces/default/pods", "", "",
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  json::object table = Body(r);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_FALSE(table["metadata"].as_object()["resourceVersion"].as_string().empty());
  EXPECT_EQ(table["columnDefinitions"].as_array()[0].as_object()["name"], "Name");
  EXPECT_EQ(table["rows"].as_array().size(), 1u);
}

TEST_F(ApiServerTest, UpdateWithStaleResourceVersionConflictsAndKeepsStatus) {
  json::object created = Body(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")));
  std::string rv(created["metadata"].as_object()["resourceVersion"].as_string());
  created["metadata"].as_object()["labels"].as_object()["v"] = "2";
  created["status"].as_object()["phase"] = "Running";  // ignored on the main resource
  Response ok = Call("PUT", "/api/v1/namespaces/default/pods/a", json::serialize(created));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Body(ok)["status"].as_object()["phase"], "Pending");
  Response stale = Call("PUT", "/api/v1/namespaces/default/pods/a", json::serialize(created));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(Body(stale)["reason"], "Conflict");
  EXPECT_EQ(Body(stale)["message"],
            "Operation cannot be fulfilled on pods \"a\": the object has been modified; please "
            "apply your changes to the latest version and try again");
  // The status subresource changes only status.
  json::object current = Body(Call("GET", "/api/v1/namespaces/default/pods/a"));
  current["status"].as_object()["phase"] = "Running";
  current["metadata"].as_object()["labels"].as_object()["v"] = "ignored";
  Response status = Call("PUT", "/api/v1/namespaces/default/pods/a/status", json::serialize(current));
  ASSERT_EQ(status.status, 200) << status.body;
  json::object after = Body(status);
  EXPECT_EQ(after["status"].as_object()["phase"], "Running");
  EXPECT_EQ(after["metadata"].as_object()["labels"].as_object()["v"], "2");
}

// kube's ValidatePodUpdate: a pod's spec is fixed but for a few fields, and a
// rejected write changes nothing.
TEST_F(ApiServerTest, PodUpdatesMayChangeOnlyWhatKubeAllows) {
  ASSERT_EQ(
      Call(
          "POST", "/api/v1/namespaces/default/pods",
          Pod("a",
              R"("tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":5}],)"))
          .status,
      201);
  const std::string path = "/api/v1/namespaces/default/pods/a";
  const std::string stored_before = Call("GET", path).body;
  auto patch = [&](const std::string& body) {
    return Call("PATCH", path, body, "application/merge-patch+json");
  };
  // Moving a pod to a node (or another one) is what pods/binding is for.
  Response moved = patch(R"({"spec":{"nodeName":"n1"}})");
  ASSERT_EQ(moved.status, 422) << moved.body;
  json::object status = Body(moved);
  EXPECT_EQ(status["reason"], "Invalid");
  const std::string message(status["message"].as_string());
  EXPECT_EQ(
      message.rfind(
          "Pod \"a\" is invalid: spec: Forbidden: pod updates may not change fields other than "
          "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
          "`spec.tolerations` (only additions to existing tolerations),"
          "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
          "negative)\n",
          0),
      0u)
      << message;
  EXPECT_NE(message.find("+ nodeName: \"n1\""), std::string::npos) << message;
  json::object cause = status["details"].as_object()["causes"].as_array()[0].as_object();
  EXPECT_EQ(cause["reason"], "FieldValueForbidden");
  EXPECT_EQ(cause["field"], "spec");
  EXPECT_EQ(patch(R"({"spec":{"restartPolicy":"Never"}})").status, 422);
  EXPECT_EQ(Call("GET", path).body, stored_before);  // nothing stored changed

  // What kube allows: images, a lower or first activeDeadlineSeconds, added
  // tolerations, a changed tolerationSeconds.
  Response image =
      Call("PATCH", path, R"({"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}})",
           "application/strategic-merge-patch+json");
  ASSERT_EQ(image.status, 200) << image.body;
  EXPECT_EQ(Body(image)["spec"].as_object()["containers"].as_array()[0].as_object()["image"],
            "nginx:1.27");
  ASSERT_EQ(patch(R"({"spec":{"activeDeadlineSeconds":100}})").status, 200);
  ASSERT_EQ(patch(R"({"spec":{"activeDeadlineSeconds":50}})").status, 200);
  Response raised = patch(R"({"spec":{"activeDeadlineSeconds":60}})");
  EXPECT_EQ(raised.status, 422);
  EXPECT_EQ(Body(raised)["message"],
            "Pod \"a\" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less "
            "than or equal "
            "to previous value");
  json::object pod = Body(Call("GET", path));
  json::array tolerations = pod["spec"].as_object()["tolerations"].as_array();
  tolerations[0].as_object()["tolerationSeconds"] = 9;
  tolerations.push_back(json::object{{"key", "extra"}, {"operator", "Exists"}});
  json::object next = pod;
  next["spec"].as_object()["tolerations"] = tolerations;
  Response added = Call("PUT", path, json::serialize(next));
  ASSERT_EQ(added.status, 200) << added.body;
  // Removing one is not.
  next = Body(added);
  next["spec"].as_object()["tolerations"].as_array().erase(
      next["spec"].as_object()["tolerations"].as_array().begin());
  Response removed = Call("PUT", path, json::serialize(next));
  EXPECT_EQ(removed.status, 422);
  EXPECT_EQ(Body(removed)["message"],
            "Pod \"a\" is invalid: spec.tolerations: Forbidden: existing toleration can not be "
            "modified except its "
            "tolerationSeconds");

  // A PUT that leaves out defaulted fields (as a client building the pod from
  // scratch does) is defaulted as a create is, so it changes nothing.
  pod = Body(Call("GET", path));
  json::object bare = json::parse(Pod("a")).as_object();
  bare["metadata"].as_object()["resourceVersion"] = pod["metadata"].as_object()["resourceVersion"];
  bare["spec"] = pod["spec"];
  for (std::string_view key : {"dnsPolicy", "restartPolicy", "schedulerName", "securityContext"}) {
    bare["spec"].as_object().erase(key);
  }
  Response same = Call("PUT", path, json::serialize(bare));
  EXPECT_EQ(same.status, 200) << same.body;
}

TEST_F(ApiServerTest, SchedulingGatesMayOnlyBeRemovedAndAGatedPodsSelectorOnlyGrow) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods",
                 Pod("g", R"("schedulingGates":[{"name":"g1"}],"nodeSelector":{"a":"b"},)"))
                .status,
            201);
  const std::string path = "/api/v1/namespaces/default/pods/g";
  auto patch = [&](const std::string& body) {
    return Call("PATCH", path, body, "application/merge-patch+json");
  };
  Response added = patch(R"({"spec":{"schedulingGates":[{"name":"g1"},{"name":"g2"}]}})");
  EXPECT_EQ(added.status, 422);
  EXPECT_EQ(Body(added)["message"],
            "Pod \"g\" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is "
            "allowed, but found new "
            "scheduling gate 'g2'");
  EXPECT_EQ(patch(R"({"spec":{"nodeSelector":{"a":"b","c":"d"}}})").status, 200);
  Response changed = patch(R"({"spec":{"nodeSelector":{"a":"z","c":"d"}}})");
  EXPECT_EQ(changed.status, 422);
  EXPECT_EQ(
      Body(changed)["message"].as_string(),
      R"(Pod "g" is invalid: spec.nodeSelector: Invalid value: map[string]string{"a":"z", "c":"d"}: )"
      R"(only additions to )"
      "spec.nodeSelector are allowed (no mutations or deletions)");
  ASSERT_EQ(patch(R"({"spec":{"schedulingGates":null}})").status, 200);
  // Ungated, the selector is fixed like the rest.
  EXPECT_EQ(patch(R"({"spec":{"nodeSelector":{"a":"b","c":"d","e":"f"}}})").status, 422);
}

TEST_F(ApiServerTest, PatchTypesAndUnsupportedMediaType) {
  ASSERT_EQ(Call("POST", "/api/v1/nodes", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}})").status, 201);
  Response cordon = Call("PATCH", "/api/v1/nodes/n", R"({"spec":{"unschedulable":true}})",
                         "application/strategic-merge-patch+json");
  ASSERT_EQ(cordon.status, 200) << cordon.body;
  EXPECT_EQ(Body(cordon)["spec"].as_object()["unschedulable"], true);
  Response label = Call("PATCH", "/api/v1/nodes/n", R"({"metadata":{"labels":{"disk":"ssd"}}})",
                        "application/merge-patch+json");
  EXPECT_EQ(Body(label)["metadata"].as_object()["labels"].as_object()["disk"], "ssd");
  Response jp = Call("PATCH", "/api/v1/nodes/n",
                     R"([{"op":"replace","path":"/metadata/labels/disk","value":"hdd"}])",
                     "application/json-patch+json");
  EXPECT_EQ(Body(jp)["metadata"].as_object()["labels"].as_object()["disk"], "hdd");
  EXPECT_EQ(Call("PATCH", "/api/v1/nodes/n", "{}", "application/xml").status, 415);
  Response stale = Call("PATCH", "/api/v1/nodes/n", R"({"metadata":{"resourceVersion":"1"}})",
                        "application/merge-patch+json");
  EXPECT_EQ(stale.status, 409);
}

TEST_F(ApiServerTest, BindingSetsNodeAndConditionOnceOnly) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  std::string binding = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"a"},"target":{"apiVersion":"v1","kind":"Node","name":"n1"}})";
  Response r = Call("POST", "/api/v1/namespaces/default/pods/a/binding", binding);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["status"], "Success");
  json::object pod = Body(Call("GET", "/api/v1/namespaces/default/pods/a"));
  EXPECT_EQ(pod["spec"].as_object()["nodeName"], "n1");
  auto conditions = pod["status"].as_object()["conditions"].as_array();
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].as_object()["type"], "PodScheduled");
  EXPECT_EQ(conditions[0].as_object()["status"], "True");
  Response again = Call("POST", "/api/v1/namespaces/default/bindings", binding);
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(Body(again)["message"],
            "Operation cannot be fulfilled on pods/binding \"a\": pod a is already assigned to node \"n1\"");
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/zz/binding",
                 R"({"metadata":{"name":"zz"},"target":{"name":"n1"}})").status, 404);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/a/binding",
                 R"({"metadata":{"name":"other"},"target":{"name":"n1"}})").status, 400);
}

TEST_F(ApiServerTest, ABindingWithoutATargetIsInvalidNotAnInternalError) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  Response r = Call("POST", "/api/v1/namespaces/default/pods/a/binding",
                    R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"a"},"target":{"name":""}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(Body(r)["reason"], "Invalid");
  EXPECT_EQ(Body(r)["message"], "Binding \"a\" is invalid: target.name: Required value");
  EXPECT_EQ(Body(r)["details"].as_object()["causes"].as_array()[0].as_object()["field"], "target.name");
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/a/binding", R"({"metadata":{"name":"a"}})").status,
            422);
  json::object pod = Body(Call("GET", "/api/v1/namespaces/default/pods/a"));
  EXPECT_FALSE(pod["spec"].as_object().contains("nodeName"));
}

TEST_F(ApiServerTest, BindingLeavesOtherConditionsAlone) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  json::object current = Body(Call("GET", "/api/v1/namespaces/default/pods/a"));
  current["status"].as_object()["conditions"] =
      json::array{json::object{{"status", "True"}},  // no type: not PodScheduled, and not given one
                  json::object{{"type", "Ready"}, {"status", "False"}}};
  ASSERT_EQ(
      Call("PUT", "/api/v1/namespaces/default/pods/a/status", json::serialize(current)).status,
      200);
  Response r = Call("POST", "/api/v1/namespaces/default/pods/a/binding",
                    R"({"metadata":{"name":"a"},"target":{"name":"n1"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod = Body(Call("GET", "/api/v1/namespaces/default/pods/a"));
  auto conditions = pod["status"].as_object()["conditions"].as_array();
  ASSERT_EQ(conditions.size(), 3u);
  EXPECT_EQ(conditions[0].as_object(), (json::object{{"status", "True"}}));
  EXPECT_EQ(conditions[1].as_object()["type"], "Ready");
  EXPECT_EQ(conditions[2].as_object()["type"], "PodScheduled");
}

TEST_F(ApiServerTest, JsonRpcBindAndUnbind) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  json::object r = Body(Call("POST", "/rpc", R"({"jsonrpc":"2.0","method":"bind.pod","params":{"namespace":"default","name":"a","node":"n2"},"id":7})"));
  EXPECT_EQ(r["id"], 7);
  EXPECT_EQ(r["result"].as_object()["spec"].as_object()["nodeName"], "n2");
  json::object again = Body(Call("POST", "/rpc", R"({"jsonrpc":"2.0","method":"bind.pod","params":{"name":"a","node":"n3"},"id":8})"));
  EXPECT_EQ(again["error"].as_object()["code"], 409);
  EXPECT_EQ(again["error"].as_object()["data"].as_object()["reason"], "Conflict");
  json::object unbind = Body(Call("POST", "/rpc", R"({"jsonrpc":"2.0","method":"unbind.pod","params":{"name":"a"},"id":9})"));
  EXPECT_FALSE(unbind["result"].as_object()["spec"].as_object().contains("nodeName"));
  EXPECT_EQ(Body(Call("POST", "/rpc", "{"))["error"].as_object()["code"], -32700);
  EXPECT_EQ(Body(Call("POST", "/rpc", R"({"jsonrpc":"2.0","method":"nope","id":1})"))["error"].as_object()["code"], -32601);
  json::array batch = json::parse(Call("POST", "/rpc", R"([{"jsonrpc":"2.0","method":"bind.pod","params":{"name":"a","node":"n4"},"id":1},{"jsonrpc":"2.0","method":"bind.pod","params":{"name":"missing","node":"n4"},"id":2}])").body).as_array();
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_TRUE(batch[0].as_object().contains("result"));
  EXPECT_EQ(batch[1].as_object()["error"].as_object()["code"], 404);
}

TEST_F(ApiServerTest, DeleteHonoursPreconditionsAndFinalizers) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("a")).status, 201);
  Response wrong_uid = Call("DELETE", "/api/v1/namespaces/default/pods/a",
                            R"({"preconditions":{"uid":"not-it"}})");
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/default/pods/a", R"({"propagationPolicy":"Background"})").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/a").status, 404);

  std::string held = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"held","finalizers":["example.com/keep"]},"spec":{"containers":[{"name":"c","image":"x"}]}})";
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", held).status, 201);
  Response marked = Call("DELETE", "/api/v1/namespaces/default/pods/held");
  ASSERT_EQ(marked.status, 200);
  EXPECT_TRUE(Body(marked)["metadata"].as_object().contains("deletionTimestamp"));
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/held").status, 200);
  Response release = Call("PATCH", "/api/v1/namespaces/default/pods/held",
                          R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  EXPECT_EQ(release.status, 200) << release.body;
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/held").status, 404);
}

TEST_F(ApiServerTest, DeletingANamespaceDeletesItsObjects) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}})").status, 201);
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/shop/pods", Pod("a")).status, 201);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/shop").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/shop/pods/a").status, 404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/shop").status, 404);
}

TEST_F(ApiServerTest, ATerminatingNamespaceTakesNothingNewAndGoesOnceFinalized) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}})").status, 201);
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/shop/pods",
                 R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"held","finalizers":["example.com/hold"]},
                     "spec":{"containers":[{"name":"c","image":"i"}]}})").status, 201);
  Response deleted = Call("DELETE", "/api/v1/namespaces/shop");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  json::object ns = Body(deleted);
  EXPECT_EQ(ns["status"].as_object()["phase"], "Terminating");
  EXPECT_TRUE(ns["metadata"].as_object().contains("deletionTimestamp"));
  EXPECT_EQ(ns["spec"].as_object()["finalizers"], json::array{"kubernetes"});

  Response refused = Call("POST", "/api/v1/namespaces/shop/pods", Pod("late"));
  EXPECT_EQ(refused.status, 403);
  json::object status = Body(refused);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["message"],
            "pods \"late\" is forbidden: unable to create new content in namespace shop because it is being terminated");
  EXPECT_EQ(status["details"].as_object()["causes"].as_array()[0].as_object()["reason"], "NamespaceTerminating");

  Response again = Call("DELETE", "/api/v1/namespaces/shop");
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.body.find("The system is ensuring all content is removed from this namespace"), std::string::npos);

  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/shop/pods/held", R"({"metadata":{"finalizers":null}})",
                 "application/merge-patch+json").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/shop").status, 200) << "only the namespace controller finalizes";
  // /finalize changes spec.finalizers only; then the namespace can go.
  json::object finalized = Body(Call("GET", "/api/v1/namespaces/shop"));
  finalized["spec"].as_object()["finalizers"] = json::array();
  finalized["metadata"].as_object()["labels"] = json::object{{"ignored", "yes"}};
  Response put = Call("PUT", "/api/v1/namespaces/shop/finalize", json::serialize(finalized));
  ASSERT_EQ(put.status, 200) << put.body;
  json::object after = Body(put);
  EXPECT_TRUE(after["spec"].as_object()["finalizers"].as_array().empty());
  EXPECT_EQ(json::serialize(after["metadata"].as_object()["labels"]), R"({"kubernetes.io/metadata.name":"shop"})");
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/shop").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/shop").status, 404);
}

TEST_F(ApiServerTest, ANamespaceIsLabelledWithItsName) {
  Response created = Call("POST", "/api/v1/namespaces",
                          R"({"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"team-",)"
                          R"("labels":{"kubernetes.io/metadata.name":"other","tier":"a"}}})");
  ASSERT_EQ(created.status, 201) << created.body;
  json::object ns = Body(created);
  const std::string name(ns["metadata"].as_object()["name"].as_string());
  ASSERT_TRUE(name.starts_with("team-")) << name;
  json::object& labels = ns["metadata"].as_object()["labels"].as_object();
  EXPECT_EQ(labels["kubernetes.io/metadata.name"].as_string(), name) << "the generated name, not the one sent";
  EXPECT_EQ(labels["tier"].as_string(), "a");

  // An update cannot take the label away or change it.
  labels.erase("kubernetes.io/metadata.name");
  Response put = Call("PUT", "/api/v1/namespaces/" + name, json::serialize(ns));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Body(put)["metadata"].as_object()["labels"].as_object()["kubernetes.io/metadata.name"].as_string(), name);
  Response patched = Call("PATCH", "/api/v1/namespaces/" + name,
                          R"({"metadata":{"labels":{"kubernetes.io/metadata.name":"x"}}})",
                          "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Body(patched)["metadata"].as_object()["labels"].as_object()["kubernetes.io/metadata.name"].as_string(),
            name);
  EXPECT_EQ(Body(Call("GET", "/api/v1/namespaces/default"))["metadata"].as_object()["labels"].as_object()
                ["kubernetes.io/metadata.name"].as_string(),
            "default");
}

TEST_F(ApiServerTest, ANamespaceWaitsForBothKindsOfFinalizers) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces",
                 R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"held","finalizers":["example.com/x"]}})")
                .status,
            201);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/held").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/held").status, 200) << "a metadata finalizer holds it";
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/held", R"({"metadata":{"finalizers":null}})",
                 "application/merge-patch+json").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/held").status, 200) << "spec.finalizers still holds it";
  json::object ns = Body(Call("GET", "/api/v1/namespaces/held"));
  ns["spec"].as_object()["finalizers"] = json::array();
  ASSERT_EQ(Call("PUT", "/api/v1/namespaces/held/finalize", json::serialize(ns)).status, 200);
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/held").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/held").status, 404);
}

TEST_F(ApiServerTest, AGeneratedNameThatCollidesIsGeneratedAgain) {
  const std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"g-","labels":{"a":"b"}},)"
                           R"("spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  ApiServer::Options options;
  options.admission.disable = {"ServiceAccount"};  // no serviceaccount controller runs
  options.seed = 7;
  // The name a fresh server with this seed generates first (a dry run stores nothing)...
  api_ = std::make_unique<ApiServer>(*store_, options);
  Response dry = Call("POST", "/api/v1/namespaces/default/pods?dryRun=All", body);
  ASSERT_EQ(dry.status, 201) << dry.body;
  std::string taken(Body(dry)["metadata"].as_object()["name"].as_string());
  // ...is taken: a real create by another fresh server collides, and generates again.
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod(taken)).status, 201);
  api_ = std::make_unique<ApiServer>(*store_, options);
  Response again = Call("POST", "/api/v1/namespaces/default/pods?dryRun=All", body);
  ASSERT_EQ(std::string(Body(again)["metadata"].as_object()["name"].as_string()), taken) << "deterministic";
  api_ = std::make_unique<ApiServer>(*store_, options);
  Response second = Call("POST", "/api/v1/namespaces/default/pods", body);
  ASSERT_EQ(second.status, 201) << second.body;
  json::object created = Body(second);
  std::string name(created["metadata"].as_object()["name"].as_string());
  EXPECT_NE(name, taken);
  EXPECT_TRUE(name.starts_with("g-"));
  EXPECT_EQ(created["metadata"].as_object()["labels"].as_object()["a"], "b") << "the retry keeps the object";
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/" + name).status, 200);
}

TEST_F(ApiServerTest, ScaleSubresource) {
  std::string deploy = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})";
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", deploy).status, 201);
  json::object scale = Body(Call("GET", "/apis/apps/v1/namespaces/default/deployments/d/scale"));
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["spec"].as_object()["replicas"], 2);
  EXPECT_EQ(scale["status"].as_object()["selector"], "app=d");
  Response patched = Call("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale",
                          R"({"spec":{"replicas":7}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  json::object d = Body(Call("GET", "/apis/apps/v1/namespaces/default/deployments/d"));
  EXPECT_EQ(d["spec"].as_object()["replicas"], 7);
  EXPECT_EQ(d["metadata"].as_object()["generation"], 2);
}

// core/v1's selector is a label map: the Scale shows it as kube's
// labels.SelectorFromSet does.
TEST_F(ApiServerTest, AReplicationControllersScaleShowsItsMapSelector) {
  std::string rc = R"({"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},"spec":{"replicas":1,"selector":{"b":"2","a":"1"},"template":{"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})";
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/replicationcontrollers", rc).status, 201);
  json::object scale = Body(Call("GET", "/api/v1/namespaces/default/replicationcontrollers/rc/scale"));
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["status"].as_object()["selector"], "a=1,b=2");
  Response put = Call("PUT", "/api/v1/namespaces/default/replicationcontrollers/rc/scale",
                      R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"rc"},"spec":{"replicas":4}})");
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(Body(Call("GET", "/api/v1/namespaces/default/replicationcontrollers/rc"))["spec"].as_object()["replicas"], 4);
}

TEST_F(ApiServerTest, UnknownPathsAndMethods) {
  EXPECT_EQ(Call("GET", "/api/v1/widgets").status, 404);
  EXPECT_EQ(Body(Call("GET", "/nope"))["message"], "the server could not find the requested resource");
  EXPECT_EQ(Call("PUT", "/api/v1/namespaces/default/pods").status, 405);
  EXPECT_EQ(Call("GET", "/version").status, 200);
  EXPECT_EQ(Body(Call("GET", "/version"))["minor"], "32");
}

TEST_F(ApiServerTest, WatchFromCompactedRevisionIsOneErrorEvent) {
  api_.reset();  // before the store it watches
  store_ = std::move(store::MemoryStore::Open({.history = 2})).value();
  api_ = std::make_unique<ApiServer>(*store_, ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
  ASSERT_TRUE(api_->Bootstrap().ok());
  for (int i = 0; i < 5; ++i) Call("POST", "/api/v1/namespaces/default/pods", Pod("p" + std::to_string(i)));
  Response r = Call("GET", "/api/v1/namespaces/default/pods?watch=true&resourceVersion=1");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.stream, nullptr);
  json::object event = json::parse(r.body).as_object();
  EXPECT_EQ(event["type"], "ERROR");
  EXPECT_EQ(event["object"].as_object()["code"], 410);
  EXPECT_EQ(event["object"].as_object()["reason"], "Expired");
}

}  // namespace
}  // namespace berth::apiserver

namespace berth::apiserver {
namespace {

// Uids are RFC 4122 version 4 UUIDs: the same text printf's
// "%08x-%04x-%04x-%04x-%012llx" gives for the version and variant bits set.
TEST(SystemFieldsTest, UidsAreVersion4UuidsInLowerCaseHex) {
  constexpr uint64_t kSeed = 7;
  SystemFields admission(kSeed);
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < 1000; ++i) {
    uint64_t hi = rng(), lo = rng();
    hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
    lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    char want[40];
    std::snprintf(want, sizeof want, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                  static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                  static_cast<unsigned>(lo >> 48),
                  static_cast<unsigned long long>(lo & 0xffffffffffffULL));
    const std::string uid = admission.NewUid();
    ASSERT_EQ(uid, want);
    ASSERT_EQ(uid[14], '4');
    ASSERT_NE(std::string("89ab").find(uid[19]), std::string::npos) << uid;
  }
}

}  // namespace
}  // namespace berth::apiserver

namespace berth::apiserver {
namespace {

// kube's no-op rule: an update, patch or apply that changes nothing writes
// nothing and answers the object at the resourceVersion it had.
TEST_F(ApiServerTest, AnUpdateThatChangesNothingWritesNothing) {
  json::object created = Body(Call("POST", "/api/v1/namespaces/default/configmaps",
                                   R"({"metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}})"));
  const std::string rv(created["metadata"].as_object()["resourceVersion"].as_string());
  Response same = Call("PUT", "/api/v1/namespaces/default/configmaps/c", json::serialize(created));
  ASSERT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(Body(same)["metadata"].as_object()["resourceVersion"].as_string(), rv);
  Response patched = Call("PATCH", "/api/v1/namespaces/default/configmaps/c", R"({"data":{"k":"v"}})",
                          "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(Body(patched)["metadata"].as_object()["resourceVersion"].as_string(), rv);
  Response changed = Call("PATCH", "/api/v1/namespaces/default/configmaps/c", R"({"data":{"k":"w"}})",
                          "application/merge-patch+json");
  ASSERT_EQ(changed.status, 200) << changed.body;
  EXPECT_NE(Body(changed)["metadata"].as_object()["resourceVersion"].as_string(), rv);
  EXPECT_EQ(Body(changed)["data"].as_object()["k"], "w");
}

}  // namespace
}  // namespace berth::apiserver

namespace berth::apiserver {
namespace {

// kube-apiserver's allocators: the `kubernetes` Service holds the range's
// first address; others get the next free one, NodePorts the next free port,
// and an address asked for must be in the range and free.
TEST_F(ApiServerTest, ServicesGetClusterIpsAndNodePortsFromTheirRanges) {
  json::object kubernetes = Body(Call("GET", "/api/v1/namespaces/default/services/kubernetes"));
  EXPECT_EQ(kubernetes["spec"].as_object()["clusterIP"], "10.96.0.1");
  auto create = [&](const std::string& name, const std::string& spec) {
    return Call("POST", "/api/v1/namespaces/default/services",
                R"({"metadata":{"name":")" + name + R"("},"spec":)" + spec + "}");
  };
  Response web = create("web", R"({"type":"NodePort","ports":[{"port":80}]})");
  ASSERT_EQ(web.status, 201) << web.body;
  json::object spec = Body(web)["spec"].as_object();
  EXPECT_EQ(spec["clusterIP"], "10.96.0.2");
  EXPECT_EQ(spec["clusterIPs"], json::array{"10.96.0.2"});
  EXPECT_EQ(spec["ports"].as_array()[0].as_object()["nodePort"], 30000);
  EXPECT_EQ(spec["ports"].as_array()[0].as_object()["targetPort"], 80);  // kube's default
  Response taken = create("taken", R"({"clusterIP":"10.96.0.2","ports":[{"port":80}]})");
  EXPECT_EQ(taken.status, 422);
  EXPECT_EQ(Body(taken)["message"],
            "Service \"taken\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.2\"}: failed to "
            "allocate IP 10.96.0.2: provided IP is already allocated");
  Response outside = create("outside", R"({"clusterIP":"10.0.0.9","ports":[{"port":80}]})");
  EXPECT_EQ(Body(outside)["message"],
            "Service \"outside\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.9\"}: failed to "
            "allocate IP 10.0.0.9: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12");
  Response port = create("port", R"({"type":"NodePort","ports":[{"port":80,"nodePort":30000}]})");
  EXPECT_EQ(Body(port)["message"],
            "Service \"port\" is invalid: spec.ports[0].nodePort: Invalid value: 30000: provided port is already "
            "allocated");
  Response headless = create("headless", R"({"clusterIP":"None","ports":[{"port":80}]})");
  ASSERT_EQ(headless.status, 201) << headless.body;
  EXPECT_EQ(Body(headless)["spec"].as_object()["clusterIP"], "None");
  EXPECT_EQ(Body(create("next", R"({"ports":[{"port":80}]})"))["spec"].as_object()["clusterIP"], "10.96.0.3");
}

// kube's Service updates: a type change gives the Service what the new type
// needs (an address, node ports) and drops what it no longer needs; an update
// that leaves allocated values out keeps them (kubectl replace of a manifest).
TEST_F(ApiServerTest, ServiceTypeChangesAllocateAndReleaseAsKubes) {
  const std::string path = "/api/v1/namespaces/default/services/ext";
  auto put = [&](const std::string& spec) {
    json::object current = Body(Call("GET", path));
    json::object next{{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", current["metadata"]},
                      {"spec", json::parse(spec)}};
    return Call("PUT", path, json::serialize(next));
  };
  Response created = Call("POST", "/api/v1/namespaces/default/services",
                          R"({"metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(Body(created)["spec"].as_object().contains("clusterIP"));

  Response to_cluster = put(R"({"type":"ClusterIP","ports":[{"name":"http","port":80}]})");
  ASSERT_EQ(to_cluster.status, 200) << to_cluster.body;
  json::object spec = Body(to_cluster)["spec"].as_object();
  EXPECT_EQ(spec["clusterIP"], "10.96.0.2");
  EXPECT_EQ(spec["clusterIPs"], json::array{"10.96.0.2"});
  EXPECT_EQ(spec["ipFamilies"], json::array{"IPv4"});

  Response to_node_port = put(R"({"type":"NodePort","ports":[{"name":"http","port":80}]})");
  ASSERT_EQ(to_node_port.status, 200) << to_node_port.body;
  spec = Body(to_node_port)["spec"].as_object();
  EXPECT_EQ(spec["clusterIP"], "10.96.0.2") << "kept though the update left it out";
  EXPECT_EQ(spec["ports"].as_array()[0].as_object()["nodePort"], 30000);
  Response again = put(R"({"type":"NodePort","ports":[{"name":"http","port":80}]})");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(Body(again)["spec"].as_object()["ports"].as_array()[0].as_object()["nodePort"], 30000)
      << "the port keeps its node port";

  Response back = put(R"({"type":"ClusterIP","clusterIP":"10.96.0.2","ports":[{"name":"http","port":80,"nodePort":30000}]})");
  ASSERT_EQ(back.status, 200) << back.body;
  EXPECT_FALSE(Body(back)["spec"].as_object()["ports"].as_array()[0].as_object().contains("nodePort"));

  Response to_external = put(R"({"type":"ExternalName","externalName":"example.org","clusterIP":"10.96.0.2",)"
                             R"("clusterIPs":["10.96.0.2"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",)"
                             R"("internalTrafficPolicy":"Cluster"})");
  ASSERT_EQ(to_external.status, 200) << to_external.body;
  spec = Body(to_external)["spec"].as_object();
  EXPECT_FALSE(spec.contains("clusterIP"));
  EXPECT_FALSE(spec.contains("clusterIPs"));
  EXPECT_FALSE(spec.contains("ipFamilies"));
  EXPECT_FALSE(spec.contains("internalTrafficPolicy"));
  // Its address is free again.
  Response other = Call("POST", "/api/v1/namespaces/default/services",
                        R"({"metadata":{"name":"other"},"spec":{"clusterIP":"10.96.0.2","ports":[{"port":80}]}})");
  EXPECT_EQ(other.status, 201) << other.body;
  // Back to ClusterIP asking for a taken address: kube's error, nothing stored.
  Response taken = put(R"({"type":"ClusterIP","clusterIP":"10.96.0.2","ports":[{"port":80}]})");
  EXPECT_EQ(taken.status, 422);
  EXPECT_EQ(Body(taken)["message"],
            "Service \"ext\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.2\"}: failed to "
            "allocate IP 10.96.0.2: provided IP is already allocated");
  EXPECT_EQ(Body(Call("GET", path))["spec"].as_object()["type"], "ExternalName");
}

}  // namespace
}  // namespace berth::apiserver

namespace berth::apiserver {
namespace {

// What kube-apiserver forwards to a kubelet: pods/log answers with the
// simulated output (none yet for a pod on no node, as kube); exec and the
// like get a clear refusal instead of a bare 404.
TEST_F(ApiServerTest, KubeletSubresourcesAnswerWhyTheyAreNotServed) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("p")).status, 201);
  Response logs = Call("GET", "/api/v1/namespaces/default/pods/p/log");
  EXPECT_EQ(logs.status, 200) << logs.body;
  EXPECT_EQ(logs.body, "");
  Response exec = Call("POST", "/api/v1/namespaces/default/pods/p/exec");
  EXPECT_EQ(exec.status, 400);
  EXPECT_EQ(Body(exec)["message"],
            "cannot exec into pod \"p\": simulated pods run no processes (berth's simulated kubelets only "
            "report their status); pods/exec is not served");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p/log?tailLines=-1").status, 422);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/missing/log").status, 404);
  // The proxy names its pod as kube's [scheme:]name[:port].
  for (const char* id : {"p", "p:8080", "https:p:443", "http:p:"}) {
    Response proxy = Call("GET", std::string("/api/v1/namespaces/default/pods/") + id + "/proxy/healthz");
    EXPECT_EQ(proxy.status, 400) << id;
    EXPECT_EQ(Body(proxy)["message"],
              "cannot proxy to pod \"p\": simulated pods run no processes (berth's simulated kubelets only "
              "report their status); pods/proxy is not served")
        << id;
  }
  EXPECT_EQ(Body(Call("GET", "/api/v1/namespaces/default/pods/ftp:p:21/proxy/"))["message"],
            "invalid pod request \"ftp:p:21\"");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/missing:80/proxy/").status, 404);
}

// Over WebSocket, exec and attach answer on the error channel (3) of kube's
// channel protocols: a Status from v4 on, its text before; a protocol berth
// does not speak gets the plain 400.
TEST_F(ApiServerTest, ExecOverWebSocketGetsTheRefusalOnItsErrorChannel) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/pods", Pod("p")).status, 201);
  auto upgrade = [&](const std::string& subresource, const std::string& protocols) {
    Request r;
    r.method = "GET";
    r.path = "/api/v1/namespaces/default/pods/p/" + subresource;
    r.accept = "*/*";
    r.websocket_protocols = protocols;
    return api_->Handle(r);
  };
  Response v5 = upgrade("exec", "v5.channel.k8s.io, v4.channel.k8s.io");
  EXPECT_EQ(v5.status, 101);
  ASSERT_TRUE(v5.websocket);
  EXPECT_EQ(v5.websocket->protocol, "v5.channel.k8s.io");
  ASSERT_EQ(v5.websocket->messages.size(), 1u);
  const std::string& message = v5.websocket->messages[0];
  ASSERT_FALSE(message.empty());
  EXPECT_EQ(message[0], '\x03');
  json::object status = json::parse(message.substr(1)).as_object();
  EXPECT_EQ(status["status"], "Failure");
  EXPECT_EQ(status["code"], 400);
  EXPECT_TRUE(std::string(status["message"].as_string()).starts_with("cannot exec into pod \"p\""));

  Response v3 = upgrade("attach", "v3.channel.k8s.io");
  ASSERT_TRUE(v3.websocket);
  EXPECT_TRUE(v3.websocket->messages[0].substr(1).starts_with("cannot attach to pod \"p\"")) << v3.websocket->messages[0];
  Response other = upgrade("exec", "base64.channel.k8s.io");
  EXPECT_FALSE(other.websocket);
  EXPECT_EQ(other.status, 400);
}

}  // namespace
}  // namespace berth::apiserver
