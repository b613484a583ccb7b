// The Endpoints controller: kube's subset repacking and truncation as pure
// functions, then reconciles against a real API server in process.

#include "controllers/endpoints/endpoints_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "controllers/endpoints/subsets.h"
#include "endpoint_test_env.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

// ---- Subsets ----

json::object Address(const std::string& ip, const std::string& uid) {
  return {{"ip", ip}, {"targetRef", json::object{{"kind", "Pod"}, {"name", uid}, {"uid", uid}}}};
}
json::object Port(const std::string& name, int port) {
  return {{"name", name}, {"port", port}, {"protocol", "TCP"}};
}

// "ready ips | not-ready ips | ports" per subset.
std::vector<std::string> Describe(const json::array& subsets) {
  std::vector<std::string> out;
  for (const auto& s : subsets) {
    auto list = [&](const char* field, const char* member) {
      std::string text;
      if (const json::array* items = api::ArrayAt(s.as_object(), field)) {
        for (const auto& item : *items) {
          const json::value& v = item.as_object().at(member);
          text += (text.empty() ? "" : ",") +
                  (v.is_string() ? std::string(v.as_string()) : json::serialize(v));
        }
      }
      return text;
    };
    out.push_back(list("addresses", "ip") + " | " + list("notReadyAddresses", "ip") + " | " +
                  list("ports", "port"));
  }
  return out;
}

TEST(EndpointsSubsets, RepackGroupsAddressesByTheirPorts) {
  std::vector<AddressForPort> shared = {
      {Address("10.0.0.2", "b"), true, Port("http", 8080)},
      {Address("10.0.0.2", "b"), true, Port("metrics", 9100)},
      {Address("10.0.0.1", "a"), true, Port("http", 8080)},
      {Address("10.0.0.1", "a"), true, Port("metrics", 9100)},
      {Address("10.0.0.3", "c"), false, Port("http", 8080)},
      {Address("10.0.0.3", "c"), false, Port("metrics", 9100)},
  };
  // Same addresses behind both ports: one subset, addresses sorted by ip.
  EXPECT_EQ(Describe(RepackSubsets(shared)),
            (std::vector<std::string>{"10.0.0.1,10.0.0.2 | 10.0.0.3 | 8080,9100"}));
  // d resolves only one of the ports: the ports no longer share their addresses.
  shared.push_back({Address("10.0.0.4", "d"), true, Port("http", 8080)});
  EXPECT_EQ(Describe(RepackSubsets(shared)),
            (std::vector<std::string>{"10.0.0.1,10.0.0.2,10.0.0.4 | 10.0.0.3 | 8080",
                                      "10.0.0.1,10.0.0.2 | 10.0.0.3 | 9100"}));
}

TEST(EndpointsSubsets, NotReadyWinsAndPortlessAddressesAreKept) {
  std::vector<AddressForPort> twice = {{Address("10.0.0.1", "a"), true, Port("", 80)},
                                       {Address("10.0.0.1", "a"), false, Port("", 80)},
                                       {Address("10.0.0.1", "a"), true, Port("", 80)}};
  EXPECT_EQ(Describe(RepackSubsets(twice)), (std::vector<std::string>{" | 10.0.0.1 | 80"}));
  // A headless Service without ports: addresses alone.
  std::vector<AddressForPort> headless = {{Address("10.0.0.2", "b"), true, std::nullopt},
                                          {Address("10.0.0.1", "a"), false, std::nullopt}};
  json::array subsets = RepackSubsets(headless);
  EXPECT_EQ(Describe(subsets), (std::vector<std::string>{"10.0.0.2 | 10.0.0.1 | "}));
  EXPECT_FALSE(subsets[0].as_object().contains("ports"));
}

json::array ManyAddresses(const std::vector<std::pair<int, int>>& ready_not_ready) {
  json::array subsets;
  int n = 0;
  for (const auto& [ready, not_ready] : ready_not_ready) {
    json::array r, nr;
    for (int i = 0; i < ready; ++i, ++n)
      r.push_back(Address("10.1.0." + std::to_string(n), std::to_string(n)));
    for (int i = 0; i < not_ready; ++i, ++n)
      nr.push_back(Address("10.2.0." + std::to_string(n), std::to_string(n)));
    json::object subset{{"ports", json::array{Port("", 80 + static_cast<int>(subsets.size()))}}};
    if (!r.empty()) subset["addresses"] = r;
    if (!nr.empty()) subset["notReadyAddresses"] = nr;
    subsets.push_back(subset);
  }
  return subsets;
}

std::vector<std::pair<size_t, size_t>> Sizes(const json::array& subsets) {
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& s : subsets) {
    const json::array* r = api::ArrayAt(s.as_object(), "addresses");
    const json::array* nr = api::ArrayAt(s.as_object(), "notReadyAddresses");
    out.emplace_back(r ? r->size() : 0, nr ? nr->size() : 0);
  }
  return out;
}

TEST(EndpointsSubsets, TruncatesTo1000KeepingReadyAddressesProportionally) {
  json::array small = ManyAddresses({{600, 100}, {300, 0}});
  EXPECT_FALSE(TruncateSubsets(small));
  EXPECT_EQ(CountAddresses(small), 1000u);
  // Too many ready ones: each subset keeps its share (rounded up), not-ready ones go.
  json::array ready = ManyAddresses({{800, 10}, {400, 0}});
  EXPECT_TRUE(TruncateSubsets(ready));
  EXPECT_EQ(Sizes(ready), (std::vector<std::pair<size_t, size_t>>{{667, 0}, {333, 0}}));
  // Room for every ready one: only not-ready ones are cut, in proportion.
  json::array mixed = ManyAddresses({{700, 150}, {200, 150}});
  EXPECT_TRUE(TruncateSubsets(mixed));
  EXPECT_EQ(Sizes(mixed), (std::vector<std::pair<size_t, size_t>>{{700, 50}, {200, 50}}));
}

// ---- The controller against a real API server ----

constexpr char kWebService[] =
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","labels":{"tier":"front"}},
  "spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080}]}})";

class EndpointsControllerTest : public EndpointTestEnv {
 protected:
  EndpointsController& Start() {
    auto& c = Make<EndpointsController>(Context());
    EXPECT_TRUE(informers_->Start().ok());
    return c;
  }
  api::ObjectPtr Get(const std::string& name = "web") {
    auto got = client_->Get(api::Kind::kEndpoints, "default", name);
    return got.ok() ? got.value() : nullptr;
  }
  std::vector<std::string> Subsets(const std::string& name = "web") {
    auto endpoints = Get(name);
    const json::array* subsets = endpoints ? api::ArrayAt(endpoints->json(), "subsets") : nullptr;
    return subsets ? Describe(*subsets) : std::vector<std::string>();
  }
};

TEST_F(EndpointsControllerTest, WritesReadyAndNotReadyAddressesWithLabels) {
  auto& c = Start();
  CreatePod({.name = "b", .ip = "10.244.0.2"});
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  CreatePod({.name = "unready", .ip = "10.244.0.3", .ready = false});
  CreatePod({.name = "stopping", .ip = "10.244.0.4", .held = true});
  Terminate("stopping");
  CreatePod({.name = "no-ip", .ip = ""});
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  auto endpoints = Get();
  ASSERT_TRUE(endpoints);
  // Terminating pods are left out unless the Service publishes not-ready addresses.
  EXPECT_EQ(Subsets(), (std::vector<std::string>{"10.244.0.1,10.244.0.2 | 10.244.0.3 | 8080"}));
  const json::object& port =
      api::ArrayAt(api::ArrayAt(endpoints->json(), "subsets")->at(0).as_object(), "ports")
          ->at(0)
          .as_object();
  EXPECT_EQ(json::serialize(port), R"({"name":"http","port":8080,"protocol":"TCP"})");
  const json::object& address =
      api::ArrayAt(api::ArrayAt(endpoints->json(), "subsets")->at(0).as_object(), "addresses")
          ->at(0)
          .as_object();
  EXPECT_EQ(api::StringAt(address, "nodeName"), "node-a");
  EXPECT_EQ(api::StringAt(api::ObjectAt(address, "targetRef"), "name"), "a");
  EXPECT_EQ(endpoints->labels().Get("endpointslice.kubernetes.io/skip-mirror").value_or(""),
            "true");
  EXPECT_EQ(endpoints->labels().Get("tier").value_or(""), "front");
  EXPECT_FALSE(api::Annotation(*endpoints, kLastChangeTriggerTimeAnnotation).empty());

  // Nothing changed: nothing written.
  WaitCached(endpoints);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(Get()->resource_version(), endpoints->resource_version());

  // publishNotReadyAddresses: every address is ready, terminating ones included.
  CreateService(
      R"({"metadata":{"name":"all"},"spec":{"selector":{"app":"web"},"publishNotReadyAddresses":true,
    "ports":[{"port":80}]}})");
  ASSERT_TRUE(Reconcile(c, "default/all").ok());
  EXPECT_EQ(Subsets("all"),
            (std::vector<std::string>{"10.244.0.1,10.244.0.2,10.244.0.3,10.244.0.4 |  | 80"}));
}

TEST_F(EndpointsControllerTest, FollowsReadinessAndDeletesWithTheService) {
  auto& c = Start();
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(Subsets(), (std::vector<std::string>{"10.244.0.1 |  | 8080"}));
  WaitCached(Get());
  SetPodStatus("a", "10.244.0.1", false, "2026-01-01T00:05:00Z");
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(Subsets(), (std::vector<std::string>{" | 10.244.0.1 | 8080"}));
  EXPECT_EQ(api::Annotation(*Get(), kLastChangeTriggerTimeAnnotation), "2026-01-01T00:05:00Z");

  ASSERT_TRUE(client_->Delete(api::Kind::kService, "default", "web").ok());
  WaitCached(api::Kind::kService, "default/web", 0);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(Get(), nullptr);
}

TEST_F(EndpointsControllerTest, ServicesWithoutSelectorKeepTheirOwnEndpoints) {
  auto& c = Start();
  CreatePod({.name = "a", .ip = "10.244.0.1"});
  CreateService(R"({"metadata":{"name":"manual"},"spec":{"ports":[{"port":80}]}})");
  auto mine = MustCreate(api::Kind::kEndpoints, "default",
                         json::parse(R"({"metadata":{"name":"manual"},
    "subsets":[{"addresses":[{"ip":"192.0.2.1"}],"ports":[{"port":80}]}]})")
                             .as_object());
  ASSERT_TRUE(Reconcile(c, "default/manual").ok());
  EXPECT_EQ(Get("manual")->resource_version(), mine->resource_version());
  EXPECT_EQ(Subsets("manual"), (std::vector<std::string>{"192.0.2.1 |  | 80"}));
}

TEST_F(EndpointsControllerTest, OverCapacityIsTruncatedAndAnnotated) {
  auto& c = Start();
  for (int i = 0; i < 1001; ++i) {
    CreatePod({.name = "p" + std::to_string(i),
               .ip = "10.244." + std::to_string(i / 200) + "." + std::to_string(i % 200 + 1)});
  }
  CreateService(kWebService);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  auto endpoints = Get();
  ASSERT_TRUE(endpoints);
  EXPECT_EQ(CountAddresses(*api::ArrayAt(endpoints->json(), "subsets")), 1000u);
  EXPECT_EQ(api::Annotation(*endpoints, kOverCapacityAnnotation), "truncated");
  // Back under capacity: the annotation goes.
  ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", "p0").ok());
  WaitCached(api::Kind::kPod, "default/p0", 0);
  WaitCached(endpoints);
  ASSERT_TRUE(Reconcile(c, "default/web").ok());
  EXPECT_EQ(CountAddresses(*api::ArrayAt(Get()->json(), "subsets")), 1000u);
  EXPECT_EQ(api::Annotation(*Get(), kOverCapacityAnnotation), "");
}

TEST_F(EndpointsControllerTest, HeadlessServiceWithoutPortsAndLeftoverEndpoints) {
  // Endpoints whose Service is gone are deleted when the controller starts.
  ASSERT_TRUE(client_
                  ->Create(api::Kind::kEndpoints, "default",
                           json::parse(R"({"metadata":{"name":"gone"}})").as_object())
                  .ok());
  auto& c = Make<EndpointsController>(Context());
  ASSERT_TRUE(informers_->Start().ok());
  CreatePod(
      {.name = "a", .ip = "10.244.0.1", .spec_extra = {{"hostname", "h0"}, {"subdomain", "web"}}});
  CreateService(
      R"({"metadata":{"name":"web"},"spec":{"clusterIP":"None","selector":{"app":"web"}}})");
  c.Start();
  for (int i = 0; i < 5000 && (Get("gone") || !Get("web")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(Get("gone"), nullptr);
  auto web = Get("web");
  ASSERT_TRUE(web);
  EXPECT_EQ(Subsets(), (std::vector<std::string>{"10.244.0.1 |  | "}));
  EXPECT_EQ(web->labels().Get("service.kubernetes.io/headless").value_or("unset"), "");
  const json::object& address =
      api::ArrayAt(api::ArrayAt(web->json(), "subsets")->at(0).as_object(), "addresses")
          ->at(0)
          .as_object();
  EXPECT_EQ(api::StringAt(address, "hostname"), "h0");
}

}  // namespace
}  // namespace berth::controllers
