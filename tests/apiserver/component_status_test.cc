// componentstatuses as kube-apiserver answers it: the control plane's parts
// and the store as etcd-0, as objects or as kubectl's Table, with kube's
// deprecation warning; listed in discovery as get and list only.

#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class ComponentStatusTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    options.components = {{"scheduler", [] { return Status::Ok(); }},
                           {"controller-manager", [] { return Status(StatusCode::kUnavailable, "not running"); }}};
  }
  static bool Deprecated(const Response& r) {
    for (const auto& [name, value] : r.headers) {
      if (name == "Warning" && value == "299 - \"v1 ComponentStatus is deprecated in v1.19+\"") return true;
    }
    return false;
  }
};

TEST_F(ComponentStatusTest, ListsEachPartsHealthAsKubeDoes) {
  Response r = Call("GET", "/api/v1/componentstatuses");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Deprecated(r));
  EXPECT_EQ(json::parse(r.body), json::parse(R"({"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[
      {"kind":"ComponentStatus","apiVersion":"v1","metadata":{"name":"scheduler","creationTimestamp":null},
       "conditions":[{"type":"Healthy","status":"True","message":"ok"}]},
      {"kind":"ComponentStatus","apiVersion":"v1","metadata":{"name":"controller-manager","creationTimestamp":null},
       "conditions":[{"type":"Healthy","status":"False","error":"not running"}]},
      {"kind":"ComponentStatus","apiVersion":"v1","metadata":{"name":"etcd-0","creationTimestamp":null},
       "conditions":[{"type":"Healthy","status":"True","message":"{\"health\":\"true\",\"reason\":\"\"}"}]}]})"));
}

TEST_F(ComponentStatusTest, GetsOneAndRefusesWhatIsNotServed) {
  Response one = Call("GET", "/api/v1/componentstatuses/etcd-0");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(json::parse(one.body).at("metadata").at("name"), "etcd-0");
  Response missing = Call("GET", "/api/v1/componentstatuses/dns");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body).at("message"), "componentstatuses \"dns\" not found");
  EXPECT_EQ(Call("DELETE", "/api/v1/componentstatuses/etcd-0").status, 405);
  EXPECT_EQ(Call("POST", "/api/v1/componentstatuses", "{}").status, 405);
}

TEST_F(ComponentStatusTest, KubectlGetsATable) {
  Response r = Call("GET", "/api/v1/componentstatuses", "", "application/json",
                    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  ASSERT_EQ(r.status, 200) << r.body;
  json::value table = json::parse(r.body);
  EXPECT_EQ(table.at("kind"), "Table");
  std::vector<std::string> names;
  for (const auto& c : table.at("columnDefinitions").as_array()) names.emplace_back(c.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Status", "Message", "Error"}));
  EXPECT_EQ(table.at("rows").at(1).at("cells"), json::parse(R"(["controller-manager","Unhealthy","","not running"])"));
  EXPECT_EQ(table.at("rows").at(0).at("cells"), json::parse(R"(["scheduler","Healthy","ok",""])"));
}

TEST_F(ComponentStatusTest, DiscoveryListsItAsGetAndList) {
  Response r = Call("GET", "/api/v1");
  ASSERT_EQ(r.status, 200) << r.body;
  bool found = false;
  const json::value list = json::parse(r.body);
  for (const auto& resource : list.at("resources").as_array()) {
    if (resource.at("name") != "componentstatuses") continue;
    found = true;
    EXPECT_EQ(resource.at("verbs"), json::parse(R"(["get","list"])"));
    EXPECT_EQ(resource.at("shortNames"), json::parse(R"(["cs"])"));
    EXPECT_EQ(resource.at("namespaced"), false);
  }
  EXPECT_TRUE(found) << r.body;
}

}  // namespace
}  // namespace berth::apiserver
