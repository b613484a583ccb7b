// The EndpointSlice controller: kube's slice packing as a pure plan
// (PlanSlices), then reconciles against a real API server in process.

#include "controllers/endpointslice/endpointslice_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "controllers/endpointslice/slice_plan.h"
#include "controllers/endpointslice/slice_tracker.h"
#include "controllers/owner_references.h"
#include "endpoint_test_env.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

// ---- The plan ----

api::ObjectPtr PlanService(const std::string& labels = "{}") {
  return api::Object::FromJson(json::parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","namespace":"default","uid":"svc-uid","labels":)" +
                                           labels + R"(},
      "spec":{"clusterIP":"10.96.0.9","selector":{"app":"web"},"ports":[{"port":80,"protocol":"TCP","targetPort":8080}]}})"))
      .value();
}

const json::array kPorts = {json::object{{"name", ""}, {"protocol", "TCP"}, {"port", 8080}}};

json::object Endpoint(int i, bool ready = true) {
  char name[16], ip[32];
  std::snprintf(name, sizeof name, "pod-%04d", i);
  std::snprintf(ip, sizeof ip, "10.1.%d.%d", i / 250, i % 250 + 1);
  return {
      {"addresses", json::array{ip}},
      {"conditions", json::object{{"ready", ready}, {"serving", ready}, {"terminating", false}}},
      {"targetRef",
       json::object{{"kind", "Pod"}, {"namespace", "default"}, {"name", name}, {"uid", name}}},
      {"nodeName", "node-a"}};
}

DesiredSlices Desired(const std::vector<int>& pods) {
  DesiredSlices desired;
  auto& groups = desired["IPv4"];
  if (pods.empty()) return desired;
  PortGroup& group = groups[PortsKey(&kPorts)];
  group.ports = kPorts;
  for (int i : pods) group.endpoints[EndpointIdentity(Endpoint(i))] = Endpoint(i);
  return desired;
}

std::vector<int> Range(int from, int to) {
  std::vector<int> out;
  for (int i = from; i < to; ++i) out.push_back(i);
  return out;
}

api::ObjectPtr ExistingSlice(const api::Object& service, const std::string& name,
                             const std::vector<int>& pods,
                             const std::string& owner_uid = "svc-uid") {
  json::array endpoints;
  for (int i : pods) endpoints.push_back(Endpoint(i));
  json::object slice{
      {"apiVersion", "discovery.k8s.io/v1"},
      {"kind", "EndpointSlice"},
      {"metadata",
       json::object{{"name", name},
                    {"namespace", "default"},
                    {"uid", name + "-uid"},
                    {"labels", SliceLabels(nullptr, service, nullptr)},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                 {"kind", "Service"},
                                                                 {"name", "web"},
                                                                 {"uid", owner_uid},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"addressType", "IPv4"},
      {"endpoints", endpoints.empty() ? json::value(nullptr) : json::value(endpoints)}};
  if (!pods.empty()) slice["ports"] = kPorts;
  return api::Object::FromJson(json::value(slice)).value();
}

size_t Count(const json::object& slice) {
  const json::array* endpoints = api::ArrayAt(slice, "endpoints");
  return endpoints ? endpoints->size() : 0;
}
std::string NameOf(const json::object& slice) {
  return std::string(api::StringAt(api::ObjectAt(slice, "metadata"), "name"));
}

TEST(EndpointSlicePlan, SplitsIntoSlicesOfAtMost100) {
  auto service = PlanService();
  SlicePlan plan = PlanSlices(*service, Desired(Range(0, 250)), {}, 100);
  ASSERT_EQ(plan.create.size(), 3u);
  EXPECT_TRUE(plan.update.empty());
  EXPECT_TRUE(plan.remove.empty());
  std::vector<size_t> sizes;
  for (const auto& s : plan.create) sizes.push_back(Count(s));
  EXPECT_EQ(sizes, (std::vector<size_t>{100, 100, 50}));
  for (const auto& s : plan.create) {
    EXPECT_EQ(api::StringAt(api::ObjectAt(s, "metadata"), "generateName"), "web-");
    EXPECT_EQ(api::StringAt(s, "addressType"), "IPv4");
  }
  // The maximum is a setting (--max-endpoints-per-slice).
  EXPECT_EQ(PlanSlices(*service, Desired(Range(0, 250)), {}, 50).create.size(), 5u);
}

TEST(EndpointSlicePlan, NewEndpointsGoToTheUnchangedSliceTheyFitBest) {
  auto service = PlanService();
  std::vector<api::ObjectPtr> existing = {ExistingSlice(*service, "web-a", Range(0, 100)),
                                          ExistingSlice(*service, "web-b", Range(100, 160)),
                                          ExistingSlice(*service, "web-c", Range(160, 190))};
  SlicePlan plan = PlanSlices(*service, Desired(Range(0, 220)), existing, 100);
  // 30 new: web-a is full, web-b (60) ends closest to full, web-c is untouched.
  EXPECT_TRUE(plan.create.empty());
  EXPECT_TRUE(plan.remove.empty());
  ASSERT_EQ(plan.update.size(), 1u);
  EXPECT_EQ(NameOf(plan.update[0]), "web-b");
  EXPECT_EQ(Count(plan.update[0]), 90u);
}

TEST(EndpointSlicePlan, RemovalsUpdateTheirSliceWhichTakesNewEndpointsFirst) {
  auto service = PlanService();
  std::vector<api::ObjectPtr> existing = {ExistingSlice(*service, "web-a", Range(0, 100)),
                                          ExistingSlice(*service, "web-b", Range(100, 150))};
  std::vector<int> desired = Range(10, 150);
  for (int i = 200; i < 205; ++i) desired.push_back(i);
  SlicePlan plan = PlanSlices(*service, Desired(desired), existing, 100);
  EXPECT_TRUE(plan.create.empty());
  ASSERT_EQ(plan.update.size(), 1u);
  EXPECT_EQ(NameOf(plan.update[0]), "web-a");
  EXPECT_EQ(Count(plan.update[0]), 95u);  // 90 kept + 5 new; web-b untouched
}

TEST(EndpointSlicePlan, AnEmptiedSliceIsReusedForANewOne) {
  auto service = PlanService();
  std::vector<api::ObjectPtr> existing = {ExistingSlice(*service, "web-a", Range(0, 50))};
  SlicePlan plan = PlanSlices(*service, Desired(Range(300, 450)), existing, 100);
  // web-a loses every endpoint; of the two slices needed, one is web-a rewritten.
  EXPECT_TRUE(plan.remove.empty());
  ASSERT_EQ(plan.create.size(), 1u);
  ASSERT_EQ(plan.update.size(), 1u);
  EXPECT_EQ(NameOf(plan.update[0]), "web-a");
  EXPECT_EQ(Count(plan.create[0]) + Count(plan.update[0]), 150u);
}

TEST(EndpointSlicePlan, AServiceWithoutEndpointsKeepsOnePlaceholder) {
  auto service = PlanService();
  SlicePlan fresh = PlanSlices(*service, Desired({}), {}, 100);
  ASSERT_EQ(fresh.create.size(), 1u);
  EXPECT_EQ(Count(fresh.create[0]), 0u);
  EXPECT_FALSE(fresh.create[0].contains("ports"));
  // An existing placeholder is left alone.
  SlicePlan kept = PlanSlices(*service, Desired({}), {ExistingSlice(*service, "web-p", {})}, 100);
  EXPECT_TRUE(kept.create.empty() && kept.update.empty() && kept.remove.empty());
  // A slice whose endpoints all went becomes the placeholder.
  SlicePlan emptied =
      PlanSlices(*service, Desired({}), {ExistingSlice(*service, "web-a", Range(0, 3))}, 100);
  EXPECT_TRUE(emptied.create.empty() && emptied.remove.empty());
  ASSERT_EQ(emptied.update.size(), 1u);
  EXPECT_EQ(NameOf(emptied.update[0]), "web-a");
  EXPECT_EQ(Count(emptied.update[0]), 0u);
}

TEST(EndpointSlicePlan, ChangesInPlaceLabelsAndForeignOwners) {
  auto service = PlanService();
  // A changed condition updates the endpoint where it is.
  DesiredSlices desired = Desired(Range(0, 3));
  auto& group = desired["IPv4"].begin()->second;
  group.endpoints[EndpointIdentity(Endpoint(1))] = Endpoint(1, false);
  SlicePlan changed = PlanSlices(*service, std::move(desired),
                                 {ExistingSlice(*service, "web-a", Range(0, 3))}, 100);
  ASSERT_EQ(changed.update.size(), 1u);
  EXPECT_EQ(Count(changed.update[0]), 3u);
  EXPECT_TRUE(changed.create.empty());
  // Unchanged endpoints and labels: nothing to write.
  SlicePlan same = PlanSlices(*service, Desired(Range(0, 3)),
                              {ExistingSlice(*service, "web-a", Range(0, 3))}, 100);
  EXPECT_TRUE(same.create.empty() && same.update.empty() && same.remove.empty());
  // The Service's labels are copied onto its slices.
  auto labelled = PlanService(R"({"tier":"front"})");
  SlicePlan relabel = PlanSlices(*labelled, Desired(Range(0, 3)),
                                 {ExistingSlice(*service, "web-a", Range(0, 3))}, 100);
  ASSERT_EQ(relabel.update.size(), 1u);
  EXPECT_EQ(
      api::StringAt(api::ObjectAt(api::ObjectAt(relabel.update[0], "metadata"), "labels"), "tier"),
      "front");
  // A slice of an earlier Service of the same name is deleted, not reused.
  SlicePlan foreign = PlanSlices(*service, Desired(Range(0, 3)),
                                 {ExistingSlice(*service, "web-old", Range(0, 3), "old-uid")}, 100);
  ASSERT_EQ(foreign.remove.size(), 1u);
  EXPECT_EQ(foreign.remove[0]->name(), "web-old");
  ASSERT_EQ(foreign.create.size(), 1u);
  EXPECT_EQ(Count(foreign.create[0]), 3u);
}

// ---- The trackers ----

api::ObjectPtr SliceAt(const std::string& uid, int64_t version) {
  auto o = api::Object::FromJson(json::parse(
                                     R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":")" + uid + R"(","namespace":"default","uid":")" +
                                     uid + R"("},"addressType":"IPv4"})"))
               .value();
  return o->WithResourceVersion(version);
}

TEST(EndpointSliceTracker, ACacheBehindTheControllersOwnWritesIsStale) {
  SliceTracker tracker;
  tracker.Wrote("default/web", *SliceAt("s1", 10));
  EXPECT_TRUE(tracker.Stale("default/web", {}));                    // not seen yet
  EXPECT_TRUE(tracker.Stale("default/web", {SliceAt("s1", 9)}));    // an older version
  EXPECT_FALSE(tracker.Stale("default/web", {SliceAt("s1", 10)}));  // caught up
  EXPECT_FALSE(tracker.Stale("default/other", {}));
  // The informer event of its own write needs no sync; someone else's does.
  EXPECT_FALSE(tracker.ShouldSync("default/web", *SliceAt("s1", 10), false));
  EXPECT_TRUE(tracker.ShouldSync("default/web", *SliceAt("s1", 11), false));
  // A deletion it made: stale while the cache still holds the slice.
  tracker.Deleted("default/web", *SliceAt("s1", 11));
  EXPECT_TRUE(tracker.Stale("default/web", {SliceAt("s1", 11)}));
  EXPECT_FALSE(tracker.ShouldSync("default/web", *SliceAt("s1", 11), true));
  EXPECT_FALSE(tracker.Stale("default/web", {}));
  // A deletion by someone else needs a sync.
  EXPECT_TRUE(tracker.ShouldSync("default/web", *SliceAt("s2", 3), true));
}

TEST(EndpointSliceTracker, TriggerTimeIsTheEarliestChangeSinceTheLastSync) {
  auto service = PlanService();
  auto pod = [](const std::string& name, const std::string& transition) {
    return api::Object::FromJson(
               json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                           R"(","namespace":"default"},"status":{"conditions":[{"type":"Ready",
        "status":"True","lastTransitionTime":")" +
                           transition + R"("}]}})"))
        .value();
  };
  json::object created = service->json();
  api::MutableObject(created, "metadata")["creationTimestamp"] = "2026-01-01T00:00:00Z";
  auto svc = api::Object::FromJson(json::value(created)).value();
  TriggerTimeTracker tracker;
  auto a = pod("a", "2026-01-01T00:01:00Z"), b = pod("b", "2026-01-01T00:02:00Z");
  EXPECT_EQ(tracker.Compute(*svc, {a, b}),
            "2026-01-01T00:00:00Z");             // first sync: the Service's creation
  EXPECT_EQ(tracker.Compute(*svc, {a, b}), "");  // nothing changed
  auto b2 = pod("b", "2026-01-01T00:05:00Z"), c = pod("c", "2026-01-01T00:04:00Z");
  EXPECT_EQ(tracker.Compute(*svc, {a, b2, c}),
            "2026-01-01T00:04:00Z");  // the earliest of the changes
  tracker.Forget("default/web");
  EXPECT_EQ(tracker.Compute(*svc, {a, b2, c}), "2026-01-01T00:00:00Z");
}

// ---- The controller against a real API server ----

constexpr char kWebService[] =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"tier":"front"}},
  "spec":{"selector":{"app":"web"},"ports":[{"port":80,"targetPort":8080}]}})";

class EndpointSliceControllerTest : public EndpointTestEnv {
 protected:
  EndpointSliceController& Start(EndpointSliceOptions options = {}) {
    auto& c = Make<EndpointSliceController>(Context(), options);
    EXPECT_TRUE(informers_->Start().ok());
    CreateNode("node-a", "zone-a");
    CreateNode("node-b", "zone-b");
    return c;
  }
  std::vector<api::ObjectPtr> Slices(const std::string& service = "web") {
    auto list = client_->List(api::Kind::kEndpointSlice, "default",
                              "kubernetes.io/service-name=" + service);
    EXPECT_TRUE(list.ok());
    return list.ok() ? list.value() : std::vector<api::ObjectPtr>();
  }
  // Every endpoint of the Service's slices, by pod name.
  std::map<std::string, json::object> Endpoints(const std::string& service = "web") {
    std::map<std::string, json::object> out;
    for (const auto& slice : Slices(service)) {
      if (const json::array* list = api::ArrayAt(slice->json(), "endpoints")) {
        for (const auto& e : *list) {
          out[std::string(api::StringAt(api::ObjectAt(e.as_object(), "targetRef"), "name"))] =
              e.as_object();
        }
      }
    }
    return out;
  }
  static std::string Conditions(const json::object& endpoint) {
    const json::object* c = api::ObjectAt(endpoint, "conditions");
    auto flag = [&](const char* name) {
      return api::BoolAt(c, name) ? std::string(name) : "!" + std::string(name);
    };
    return flag("ready") + "," + flag("serving") + "," + flag("terminating");
  }
};

TEST_F(EndpointSliceControllerTest, PublishesSelectedPodsWithAddressesNodesZonesAndOwners) {
  auto& c = Start();
  CreatePod({.name = "a", .ip = "10.244.0.1", .node = "node-a"});
  CreatePod({.name = "b", .ip = "10.244.0.2", .node = "node-b"});
  CreatePod({.name = "no-ip", .ip = ""});
  CreatePod({.name = "other", .ip = "10.244.0.9", .labels = {{"app", "db"}}});
  auto service = CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());

  auto slices = Slices();
  ASSERT_EQ(slices.size(), 1u);
  const api::Object& slice = *slices[0];
  EXPECT_TRUE(slice.name().starts_with("web-"));
  EXPECT_EQ(api::StringAt(slice.json(), "addressType"), "IPv4");
  EXPECT_EQ(slice.labels().Get("endpointslice.kubernetes.io/managed-by").value_or(""),
            "endpointslice-controller.k8s.io");
  EXPECT_EQ(slice.labels().Get("tier").value_or(""), "front");  // the Service's labels
  EXPECT_EQ(ControllerUid(slice, "Service"), service->uid());
  EXPECT_EQ(api::Annotation(slice, kLastChangeTriggerTimeAnnotation),
            api::StringAt(api::Metadata(*service), "creationTimestamp"));
  EXPECT_EQ(json::serialize(*api::ArrayAt(slice.json(), "ports")),
            R"([{"name":"","protocol":"TCP","port":8080}])");

  auto endpoints = Endpoints();
  ASSERT_EQ(endpoints.size(), 2u);  // no IP, other labels: left out
  EXPECT_EQ(json::serialize(endpoints["a"].at("addresses")), R"(["10.244.0.1"])");
  EXPECT_EQ(api::StringAt(endpoints["a"], "nodeName"), "node-a");
  EXPECT_EQ(api::StringAt(endpoints["b"], "zone"), "zone-b");
  EXPECT_EQ(api::StringAt(api::ObjectAt(endpoints["a"], "targetRef"), "kind"), "Pod");
  EXPECT_FALSE(endpoints["a"].contains("hostname"));

  // A second sync with nothing changed writes nothing.
  const int64_t version = slice.resource_version();
  WaitCached(slices[0]);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(Slices()[0]->resource_version(), version);
}

TEST_F(EndpointSliceControllerTest, ConditionsFollowReadinessTerminationAndPublishNotReady) {
  auto& c = Start();
  CreatePod({.name = "ready", .ip = "10.244.0.1"});
  CreatePod({.name = "unready", .ip = "10.244.0.2", .ready = false});
  CreatePod({.name = "stopping", .ip = "10.244.0.3", .held = true});
  Terminate("stopping");
  CreateService(kWebService);
  CreateService(
      R"({"metadata":{"name":"all"},"spec":{"selector":{"app":"web"},"publishNotReadyAddresses":true,
    "ports":[{"port":80}]}})");
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  ASSERT_TRUE(Reconcile(c, "default/all").ok());
  auto web = Endpoints("web");
  EXPECT_EQ(Conditions(web["ready"]), "ready,serving,!terminating");
  EXPECT_EQ(Conditions(web["unready"]), "!ready,!serving,!terminating");
  EXPECT_EQ(Conditions(web["stopping"]), "!ready,serving,terminating");
  auto all = Endpoints("all");
  EXPECT_EQ(Conditions(all["unready"]), "ready,!serving,!terminating");
  EXPECT_EQ(Conditions(all["stopping"]), "ready,serving,terminating");
}

TEST_F(EndpointSliceControllerTest, NamedTargetPortIsResolvedPerPod) {
  auto& c = Start();
  auto port = [](int n) {
    return json::array{json::object{{"name", "http"}, {"containerPort", n}}};
  };
  CreatePod({.name = "v1-a", .ip = "10.244.0.1", .ports = port(8080)});
  CreatePod({.name = "v1-b", .ip = "10.244.0.2", .ports = port(8080)});
  CreatePod({.name = "v2", .ip = "10.244.0.3", .ports = port(9090)});
  CreatePod({.name = "unnamed", .ip = "10.244.0.4"});
  CreateService(R"({"metadata":{"name":"web"},"spec":{"selector":{"app":"web"},
    "ports":[{"name":"web","port":80,"targetPort":"http"}]}})");
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  std::map<std::string, std::vector<std::string>> by_port;  // port → pods
  for (const auto& slice : Slices()) {
    const json::array* ports = api::ArrayAt(slice->json(), "ports");
    std::string port =
        ports ? std::to_string(api::IntAt(&(*ports)[0].as_object(), "port")) : "none";
    for (const auto& e : *api::ArrayAt(slice->json(), "endpoints")) {
      by_port[port].emplace_back(api::StringAt(api::ObjectAt(e.as_object(), "targetRef"), "name"));
    }
  }
  EXPECT_EQ(by_port, (std::map<std::string, std::vector<std::string>>{
                         {"8080", {"v1-a", "v1-b"}}, {"9090", {"v2"}}, {"none", {"unnamed"}}}));
}

TEST_F(EndpointSliceControllerTest, SplitsAtTheMaximumPerSlice) {
  auto& c = Start();
  for (int i = 0; i < 150; ++i) {
    CreatePod({.name = "p" + std::to_string(i),
               .ip = "10.244." + std::to_string(i / 200) + "." + std::to_string(i % 200 + 1)});
  }
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  std::vector<size_t> sizes;
  for (const auto& slice : Slices())
    sizes.push_back(api::ArrayAt(slice->json(), "endpoints")->size());
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<size_t>{50, 100}));
}

TEST_F(EndpointSliceControllerTest, ServiceWithoutSelectorIsLeftAlone) {
  auto& c = Start();
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  CreateService(R"({"metadata":{"name":"manual"},"spec":{"ports":[{"port":80}]}})");
  ASSERT_TRUE(Reconcile(c, "default/manual").ok());
  EXPECT_TRUE(Slices("manual").empty());
  ASSERT_TRUE(Reconcile(c, "default/kubernetes").ok());  // berth's bootstrap Service
  EXPECT_TRUE(Slices("kubernetes").empty());
}

TEST_F(EndpointSliceControllerTest, PodTurningUnreadyUpdatesItsSliceInPlace) {
  auto& c = Start();
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  CreatePod({.name = "b", .ip = "10.244.0.2"});
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  auto before = Slices();
  ASSERT_EQ(before.size(), 1u);
  SetPodStatus("b", "10.244.0.2", false, "2026-01-01T00:05:00Z");
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  auto after = Slices();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0]->name(), before[0]->name());
  EXPECT_GT(after[0]->resource_version(), before[0]->resource_version());
  EXPECT_EQ(Conditions(Endpoints()["b"]), "!ready,!serving,!terminating");
  // The pod's transition is the change that triggered this write.
  EXPECT_EQ(api::Annotation(*after[0], kLastChangeTriggerTimeAnnotation), "2026-01-01T00:05:00Z");
}

TEST_F(EndpointSliceControllerTest, HostnameZoneChangesAndServiceDeletion) {
  auto& c = Start();
  json::object hostname{{"hostname", "h0"}, {"subdomain", "web"}};
  CreatePod({.name = "a", .ip = "10.244.0.1", .spec_extra = hostname});
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(api::StringAt(Endpoints()["a"], "hostname"), "h0");
  EXPECT_EQ(api::StringAt(Endpoints()["a"], "zone"), "zone-a");

  // The node moves zone.
  auto node = client_->Get(api::Kind::kNode, "", "node-a").value();
  json::object next = node->json();
  api::MutableObject(api::MutableObject(next, "metadata"),
                     "labels")["topology.kubernetes.io/zone"] = "zone-c";
  auto moved = client_->Update(api::Kind::kNode, next);
  ASSERT_TRUE(moved.ok());
  WaitCached(moved.value());
  WaitCached(Slices()[0]);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(api::StringAt(Endpoints()["a"], "zone"), "zone-c");

  // The Service goes: so do its slices.
  ASSERT_TRUE(client_->Delete(api::Kind::kService, "default", "web").ok());
  WaitCached(api::Kind::kService, "default/web", 0);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_TRUE(Slices().empty());
}

TEST_F(EndpointSliceControllerTest, FollowsPodEventsWhenRunning) {
  auto& c = Start({.batch_period = std::chrono::milliseconds(20)});
  c.Run();
  CreateService(kWebService);
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  auto count = [&] { return Endpoints().size(); };
  for (int i = 0; i < 5000 && count() != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(count(), 1u);
  CreatePod({.name = "b", .ip = "10.244.0.2"});
  for (int i = 0; i < 5000 && count() != 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(count(), 2u);
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "a").ok());
  for (int i = 0; i < 5000 && count() != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(Endpoints().count("b"), 1u);
  EXPECT_EQ(Slices().size(), 1u);
  // b's labels no longer match: the Service it left drops it (the informer
  // delivers only the new pod, which matches no Service).
  auto b = client_->Get(api::Kind::kPod, "default", "b").value();
  json::object relabelled = b->json();
  api::MutableObject(api::MutableObject(relabelled, "metadata"), "labels")["app"] = "db";
  ASSERT_TRUE(client_->Update(api::Kind::kPod, relabelled).ok());
  for (int i = 0; i < 5000 && count() != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(count(), 0u);
  EXPECT_EQ(Slices().size(), 1u);  // the placeholder
}

}  // namespace
}  // namespace berth::controllers
