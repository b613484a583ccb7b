// Kinds served over another kind's objects (events.k8s.io/v1 Events over
// core/v1 ones, autoscaling/v1 HorizontalPodAutoscalers over v2): one object,
// written through either API, read through both with kube's field mapping.
// Also kube's kind-with-group in validation messages, and DeleteCollection's
// DeleteOptions.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class ServedVersionsTest : public testing::ApiFixture {
 protected:
  static json::object Body(const Response& r) { return json::parse(r.body).as_object(); }
  // The value at `path` (a string as it is, anything else as JSON), or "<absent>".
  static std::string At(const json::value& root, std::initializer_list<std::string_view> path) {
    const json::value* v = &root;
    for (auto key : path) {
      if (!v->is_object() || !v->as_object().contains(key)) return "<absent>";
      v = &v->as_object().at(key);
    }
    return v->is_string() ? std::string(v->as_string()) : json::serialize(*v);
  }
};

constexpr const char* kEventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events";
constexpr const char* kCoreEvents = "/api/v1/namespaces/default/events";

std::string EventsV1Event(const std::string& name, const std::string& extra = "") {
  return R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":")" + name +
         R"("},"eventTime":"2024-05-01T10:00:00.000000Z","reportingController":"example.com/scaler",)"
         R"("reportingInstance":"scaler-1","action":"Scale","reason":"Scaled","type":"Normal",)"
         R"("regarding":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"web"},)"
         R"("note":"scaled to 3")" + extra + "}";
}

TEST_F(ServedVersionsTest, AnEventCreatedThroughEventsV1IsACoreEvent) {
  Response created = Call("POST", kEventsV1, EventsV1Event("scaled"));
  ASSERT_EQ(created.status, 201) << created.body;
  json::object answer = Body(created);
  EXPECT_EQ(At(answer, {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(At(answer, {"note"}), "scaled to 3");
  EXPECT_EQ(At(answer, {"regarding", "name"}), "web");

  Response core = Call("GET", std::string(kCoreEvents) + "/scaled");
  ASSERT_EQ(core.status, 200) << core.body;
  json::object c = Body(core);
  EXPECT_EQ(At(c, {"apiVersion"}), "v1");
  EXPECT_EQ(At(c, {"message"}), "scaled to 3");
  EXPECT_EQ(At(c, {"involvedObject", "kind"}), "Deployment");
  EXPECT_EQ(At(c, {"reportingComponent"}), "example.com/scaler");
  EXPECT_EQ(At(c, {"note"}), "<absent>");
  EXPECT_EQ(At(c, {"metadata", "resourceVersion"}), At(answer, {"metadata", "resourceVersion"}));
}

TEST_F(ServedVersionsTest, ACoreEventIsListedThroughEventsV1WithItsNames) {
  ASSERT_EQ(Call("POST", kCoreEvents,
                 R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"pulled"},"reason":"Pulled",)"
                 R"("message":"pulled nginx","type":"Normal","count":2,"source":{"component":"kubelet"},)"
                 R"("firstTimestamp":"2024-05-01T10:00:00Z","lastTimestamp":"2024-05-01T10:01:00Z",)"
                 R"("involvedObject":{"kind":"Pod","namespace":"default","name":"p"}})")
                .status,
            201);
  Response listed = Call("GET", kEventsV1);
  ASSERT_EQ(listed.status, 200) << listed.body;
  json::object list = Body(listed);
  EXPECT_EQ(At(list, {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(At(list, {"kind"}), "EventList");
  const json::array& items = list.at("items").as_array();
  ASSERT_EQ(items.size(), 1u);
  const json::object& e = items[0].as_object();
  EXPECT_EQ(At(e, {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(At(e, {"note"}), "pulled nginx");
  EXPECT_EQ(At(e, {"regarding", "name"}), "p");
  EXPECT_EQ(At(e, {"deprecatedCount"}), "2");
  EXPECT_EQ(At(e, {"deprecatedSource", "component"}), "kubelet");
  EXPECT_EQ(At(e, {"deprecatedFirstTimestamp"}), "2024-05-01T10:00:00Z");
  EXPECT_EQ(At(e, {"message"}), "<absent>");

  // kubectl get events.events.k8s.io: the core printer's columns.
  Response table = Call("GET", kEventsV1, "", "application/json",
                        "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200);
  json::object t = Body(table);
  ASSERT_EQ(t.at("rows").as_array().size(), 1u);
  std::string cells = json::serialize(t.at("rows").as_array()[0].at("cells"));
  EXPECT_NE(cells.find("pulled nginx"), std::string::npos) << cells;
  EXPECT_NE(cells.find("Pulled"), std::string::npos) << cells;
}

TEST_F(ServedVersionsTest, AWatchThroughEventsV1SeesCoreEventsInItsForm) {
  ASSERT_EQ(Call("POST", kCoreEvents,
                 R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"w"},"reason":"Pulled","message":"m",)"
                 R"("involvedObject":{"kind":"Pod","namespace":"default","name":"p"}})")
                .status,
            201);
  Response r = Call("GET", std::string(kEventsV1) + "?watch=true&timeoutSeconds=5");
  ASSERT_TRUE(r.stream);
  r.stream->Start([] {});
  std::string chunk = r.stream->Pump().data;
  r.stream->Cancel();
  json::object event = json::parse(chunk.substr(0, chunk.find('\n'))).as_object();
  EXPECT_EQ(At(event, {"type"}), "ADDED");
  EXPECT_EQ(At(event, {"object", "apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(At(event, {"object", "note"}), "m");
  EXPECT_EQ(At(event, {"object", "regarding", "name"}), "p");
}

TEST_F(ServedVersionsTest, EventsV1CreatesGetKubesStricterValidation) {
  // No eventTime, a type kube does not know, a deprecated field set.
  std::string bad = R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"bad"},)"
                    R"("reason":"R","type":"Odd","deprecatedCount":3,)"
                    R"("regarding":{"kind":"Pod","namespace":"default","name":"p"}})";
  Response r = Call("POST", kEventsV1, bad);
  ASSERT_EQ(r.status, 422) << r.body;
  std::string message = At(Body(r), {"message"});
  EXPECT_NE(message.find("Event \"bad\" is invalid: "), std::string::npos) << message;
  EXPECT_NE(message.find("eventTime: Required value"), std::string::npos) << message;
  EXPECT_NE(message.find("type: Invalid value: \"\": has invalid value: Odd"), std::string::npos) << message;
  EXPECT_NE(message.find("count: Invalid value: \"\": needs to be unset"), std::string::npos) << message;
  // The same through core/v1 passes: its rules are the legacy ones.
  std::string core = R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"bad"},"reason":"R","type":"Odd",)"
                     R"("count":3,"involvedObject":{"kind":"Pod","namespace":"default","name":"p"}})";
  EXPECT_EQ(Call("POST", kCoreEvents, core).status, 201);
  // Updates through events.k8s.io/v1 may not change what kube keeps immutable.
  ASSERT_EQ(Call("POST", kEventsV1, EventsV1Event("fixed")).status, 201);
  Response changed = Call("PATCH", std::string(kEventsV1) + "/fixed", R"({"note":"other"})",
                          "application/merge-patch+json");
  ASSERT_EQ(changed.status, 422) << changed.body;
  EXPECT_NE(At(Body(changed), {"message"}).find("message: Invalid value: \"other\": field is immutable"),
            std::string::npos)
      << changed.body;
  Response series = Call("PATCH", std::string(kEventsV1) + "/fixed",
                         R"({"series":{"count":2,"lastObservedTime":"2024-05-01T10:05:00.000000Z"}})",
                         "application/merge-patch+json");
  EXPECT_EQ(series.status, 200) << series.body;
  EXPECT_EQ(At(Body(series), {"series", "count"}), "2");
}

TEST_F(ServedVersionsTest, LegacyEventsMustMatchTheirObjectsNamespace) {
  Response r = Call("POST", kCoreEvents,
                    R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"x"},"reason":"R",)"
                    R"("involvedObject":{"kind":"Pod","namespace":"other","name":"p"}})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(At(Body(r), {"message"}),
            "Event \"x\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace");
}

constexpr const char* kHpaV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
constexpr const char* kHpaV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

TEST_F(ServedVersionsTest, AnHpaCreatedThroughV1IsReadThroughV2) {
  Response created = Call("POST", kHpaV1,
                          R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},)"
                          R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)"
                          R"("minReplicas":2,"maxReplicas":5,"targetCPUUtilizationPercentage":80}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(At(Body(created), {"apiVersion"}), "autoscaling/v1");
  EXPECT_EQ(At(Body(created), {"spec", "targetCPUUtilizationPercentage"}), "80");
  EXPECT_EQ(At(Body(created), {"metadata", "generation"}), "1");

  Response v2 = Call("GET", std::string(kHpaV2) + "/web");
  ASSERT_EQ(v2.status, 200);
  EXPECT_EQ(json::serialize(Body(v2).at("spec").at("metrics")),
            R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}])");

  // A merge patch through v1 changes the v2 metric.
  Response patched = Call("PATCH", std::string(kHpaV1) + "/web", R"({"spec":{"targetCPUUtilizationPercentage":50}})",
                          "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(At(Body(patched), {"spec", "targetCPUUtilizationPercentage"}), "50");
  EXPECT_EQ(At(Body(Call("GET", std::string(kHpaV2) + "/web")),
               {"spec", "metrics"}),
            R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}])");

  // Both versions list the one object; the v1 table has the HPA columns.
  EXPECT_EQ(Body(Call("GET", kHpaV1)).at("items").as_array().size(), 1u);
  json::object table = Body(Call("GET", kHpaV1, "", "application/json", "application/json;as=Table;v=v1;g=meta.k8s.io"));
  std::string columns = json::serialize(table.at("columnDefinitions"));
  EXPECT_NE(columns.find("Targets"), std::string::npos) << columns;
  EXPECT_NE(json::serialize(table.at("rows")).find("Deployment/web"), std::string::npos);
}

TEST_F(ServedVersionsTest, AV2HpaReadThroughV1CarriesItsOtherMetricsInAnnotations) {
  ASSERT_EQ(Call("POST", kHpaV2,
                 R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"mem"},)"
                 R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4,)"
                 R"("metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}}]}})")
                .status,
            201);
  Response v1 = Call("GET", std::string(kHpaV1) + "/mem");
  ASSERT_EQ(v1.status, 200);
  json::object o = Body(v1);
  EXPECT_EQ(At(o, {"spec", "targetCPUUtilizationPercentage"}), "<absent>");
  EXPECT_EQ(At(o, {"metadata", "annotations", "autoscaling.alpha.kubernetes.io/metrics"}),
            R"([{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}])");
  // Put back unchanged (kubectl edit, replace): the v2 metric survives.
  Response put = Call("PUT", std::string(kHpaV1) + "/mem", v1.body);
  ASSERT_EQ(put.status, 200) << put.body;
  json::object v2 = Body(Call("GET", std::string(kHpaV2) + "/mem"));
  EXPECT_EQ(At(v2, {"spec", "metrics"}),
            R"([{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}}])");
  EXPECT_EQ(At(v2, {"metadata", "annotations"}), "<absent>");
}

TEST_F(ServedVersionsTest, HpasGetKubesDefaultsWhicheverVersionWritesThem) {
  ASSERT_EQ(Call("POST", kHpaV2,
                 R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"bare"},)"
                 R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3}})")
                .status,
            201);
  json::object v1 = Body(Call("GET", std::string(kHpaV1) + "/bare"));
  EXPECT_EQ(At(v1, {"spec", "minReplicas"}), "1");
  EXPECT_EQ(At(v1, {"spec", "targetCPUUtilizationPercentage"}), "80");
  ASSERT_EQ(Call("POST", kHpaV1,
                 R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"old"},)"
                 R"("spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3}})")
                .status,
            201);
  EXPECT_EQ(At(Body(Call("GET", std::string(kHpaV2) + "/old")), {"spec", "minReplicas"}), "1");
}

TEST_F(ServedVersionsTest, DiscoveryPrefersAutoscalingV2AndServesEventsV1) {
  json::object group = Body(Call("GET", "/apis/autoscaling"));
  EXPECT_EQ(At(group, {"preferredVersion", "version"}), "v2");
  EXPECT_EQ(json::serialize(group.at("versions")).find("autoscaling/v1") != std::string::npos, true);
  json::object events = Body(Call("GET", "/apis/events.k8s.io/v1"));
  ASSERT_EQ(events.at("resources").as_array().size(), 1u);
  EXPECT_EQ(At(events.at("resources").as_array()[0].as_object(), {"name"}), "events");
}

TEST_F(ServedVersionsTest, InvalidMessagesNameTheKindWithItsGroup) {
  Response r = Call("POST", "/apis/apps/v1/namespaces/default/deployments",
                    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
                    R"("spec":{"replicas":-1,"selector":{"matchLabels":{"app":"web"}},)"
                    R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  ASSERT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(At(Body(r), {"message"}).rfind("Deployment.apps \"web\" is invalid: spec.replicas: ", 0), 0u) << r.body;
  EXPECT_EQ(At(Body(r), {"details", "kind"}), "Deployment");
  EXPECT_EQ(At(Body(r), {"details", "group"}), "apps");
  // Core kinds have no suffix; NotFound names the resource with its group.
  Response pod = Call("POST", "/api/v1/namespaces/default/pods",
                      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]}})");
  EXPECT_EQ(At(Body(pod), {"message"}).rfind("Pod \"p\" is invalid: ", 0), 0u) << pod.body;
  EXPECT_EQ(At(Body(Call("GET", "/apis/apps/v1/namespaces/default/deployments/none")), {"message"}),
            "deployments.apps \"none\" not found");
  // The scale subresource's Scale is autoscaling's.
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments",
                 R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ok"},)"
                 R"("spec":{"selector":{"matchLabels":{"app":"ok"}},)"
                 R"("template":{"metadata":{"labels":{"app":"ok"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
                .status,
            201);
  Response scale = Call("PUT", "/apis/apps/v1/namespaces/default/deployments/ok/scale",
                        R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"ok"},"spec":{"replicas":-1}})");
  ASSERT_EQ(scale.status, 422) << scale.body;
  EXPECT_EQ(At(Body(scale), {"message"}),
            "Scale.autoscaling \"ok\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  Response unnamed = Call("POST", "/apis/apps/v1/namespaces/default/deployments",
                          R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{}})");
  EXPECT_EQ(At(Body(unnamed), {"message"}),
            "Deployment.apps \"\" is invalid: metadata.name: Required value: name or generateName is required");
}

std::string Config(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"(","labels":{"set":"a"}},"data":{"k":"v"}})";
}

TEST_F(ServedVersionsTest, DeleteCollectionHonoursPropagationPolicyAndDryRun) {
  const std::string path = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(Call("POST", path, Config("a")).status, 201);
  ASSERT_EQ(Call("POST", path, Config("b")).status, 201);
  Response dry = Call("DELETE", path + "?labelSelector=set%3Da&dryRun=All");
  ASSERT_EQ(dry.status, 200) << dry.body;
  EXPECT_EQ(Body(dry).at("items").as_array().size(), 2u);
  EXPECT_EQ(Call("GET", path + "/a").status, 200);

  // Orphan: kube's "orphan" finalizer holds each object (the garbage
  // collector would remove it after orphaning the dependents).
  Response orphaned = Call("DELETE", path, R"({"propagationPolicy":"Orphan"})");
  ASSERT_EQ(orphaned.status, 200) << orphaned.body;
  json::object a = Body(Call("GET", path + "/a"));
  EXPECT_EQ(At(a, {"metadata", "finalizers"}), R"(["orphan"])");
  EXPECT_NE(At(a, {"metadata", "deletionTimestamp"}), "<absent>");
}

TEST_F(ServedVersionsTest, DeleteCollectionChecksPreconditionsAsText) {
  const std::string path = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(Call("POST", path, Config("a")).status, 201);
  // kube compares the precondition's text with the record's: one that is not
  // a number never holds, and the answer is a Conflict naming the kind.
  Response r = Call("DELETE", path, R"({"preconditions":{"resourceVersion":"abc"}})");
  ASSERT_EQ(r.status, 409) << r.body;
  std::string rv = At(Body(Call("GET", path + "/a")), {"metadata", "resourceVersion"});
  EXPECT_EQ(At(Body(r), {"message"}),
            "Operation cannot be fulfilled on ConfigMap \"a\": the ResourceVersion in the precondition (abc) does "
            "not match the ResourceVersion in record (" + rv + "). The object might have been modified");
  EXPECT_EQ(Call("DELETE", path + "/a", R"({"preconditions":{"resourceVersion":"abc"}})").status, 409);
  Response ok = Call("DELETE", path, R"({"preconditions":{"resourceVersion":")" + rv + R"("}})");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Call("GET", path + "/a").status, 404);
}

}  // namespace
}  // namespace berth::apiserver
