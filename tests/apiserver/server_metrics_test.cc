// kube-apiserver's request labels (verb, group, version, resource,
// subresource, scope, dry_run) as ServerMetrics derives them.

#include "apiserver/server_metrics.h"

#include <gtest/gtest.h>

#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

Request Req(std::string method, std::string path, std::vector<std::pair<std::string, std::string>> query = {},
            std::string content_type = "") {
  Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(query);
  r.content_type = std::move(content_type);
  return r;
}

std::string Show(const RequestLabels& l) {
  return l.verb + "|" + l.dry_run + "|" + l.group + "|" + l.version + "|" + l.resource + "|" + l.subresource + "|" +
         l.scope;
}

TEST(ServerMetrics, RequestLabelsFollowKube) {
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/api/v1/namespaces/default/pods"))), "LIST|||v1|pods||namespace");
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/api/v1/pods"))), "LIST|||v1|pods||cluster");
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/api/v1/namespaces/default/pods", {{"watch", "true"}}))),
            "WATCH|||v1|pods||namespace");
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/api/v1/nodes/n1"))), "GET|||v1|nodes||resource");
  EXPECT_EQ(Show(LabelsOf(Req("POST", "/api/v1/namespaces/ns/pods/p/binding"))), "POST|||v1|pods|binding|namespace");
  EXPECT_EQ(Show(LabelsOf(Req("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status"))),
            "PUT||apps|v1|deployments|status|namespace");
  EXPECT_EQ(Show(LabelsOf(Req("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", {},
                              "application/apply-patch+yaml"))),
            "APPLY||apps|v1|deployments||namespace");
  EXPECT_EQ(Show(LabelsOf(Req("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", {},
                              "application/merge-patch+json"))),
            "PATCH||apps|v1|deployments||namespace");
  EXPECT_EQ(Show(LabelsOf(Req("DELETE", "/api/v1/namespaces/ns/pods"))), "DELETECOLLECTION|||v1|pods||namespace");
  EXPECT_EQ(Show(LabelsOf(Req("DELETE", "/api/v1/namespaces/ns/pods/p", {{"dryRun", "All"}}))),
            "DELETE|All||v1|pods||namespace");
  // Non-resource paths: their path as subresource (known ones), no scope.
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/healthz"))), "GET|||||/healthz|");
  EXPECT_EQ(Show(LabelsOf(Req("GET", "/no/such/thing/42"))), "GET|||||other|");
}

TEST(ServerMetrics, RendersKubesFamiliesAndTheStoresObjects) {
  auto store = store::MemoryStore::Open({});
  ASSERT_TRUE(store.ok()) << store.status().message();
  ServerMetrics m;
  m.ObserveRequest(Req("GET", "/api/v1/namespaces/default/pods"), 200, 0.003);
  m.ObserveRequest(Req("GET", "/api/v1/namespaces/default/pods"), 200, 0.03);
  m.ObserveFsync(0.0004);
  const std::string text = m.Render(**store, nullptr);
  for (const char* line : {
           R"(apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",code="200"} 2)",
           R"(apiserver_request_duration_seconds_bucket{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",le="0.005"} 1)",
           R"(apiserver_request_duration_seconds_bucket{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",le="0.05"} 2)",
           R"(berth_store_wal_fsync_duration_seconds_count 1)",
           R"(berth_store_snapshot_duration_seconds_count 0)",
           "# TYPE process_cpu_seconds_total counter",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace berth::apiserver
