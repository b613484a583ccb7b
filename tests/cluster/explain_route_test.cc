// The explain endpoint's HTTP contract, without a socket: 503 while no
// scheduler runs, 404 for a path that names no pod or a pod the scheduler does
// not hold, 405 for a write, and the explanation as JSON otherwise.

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "api/object.h"
#include "cluster/explain_route.h"
#include "scheduler/framework/registry.h"

namespace berth::cluster {
namespace {

// A scheduler that writes nothing (the route only reads it).
class NoWrites : public scheduler::SchedulerClient {
 public:
  Status BindPod(const api::Object&, const std::string&) override { return Status::Ok(); }
  Status ReportFailure(const api::Object&, std::string_view, const std::string&,
                       const std::optional<std::string>&) override {
    return Status::Ok();
  }
  void ReportScheduled(const api::Object&, const std::string&) override {}
};

apiserver::Response Get(const apiserver::Route& route, const std::string& path,
                        const std::string& method = "GET") {
  apiserver::Request request;
  request.method = method;
  request.path = path;
  return route.handler(request);
}

TEST(ExplainRoute, AnswersUnavailableWithoutAScheduler) {
  apiserver::Route route = ExplainRoute([] { return nullptr; });
  EXPECT_EQ(route.prefix, "/debug/explain/");
  EXPECT_EQ(Get(route, "/debug/explain/namespaces/default/pods/p").status, 503);
}

TEST(ExplainRoute, AnswersThePodOrNotFound) {
  NoWrites client;
  auto created = scheduler::Scheduler::Create({}, scheduler::InTreeRegistry(), {}, &client);
  ASSERT_TRUE(created.ok()) << created.status().message();
  scheduler::Scheduler* s = created.value().get();
  auto node = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":)"
      R"({"cpu":"1","memory":"1Gi","pods":"10"}}})");
  ASSERT_TRUE(node.ok());
  s->OnNodeAdd(node.value());
  auto pod = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","namespace":"team","uid":"u1"},)"
      R"("spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"2"}}}]}})");
  ASSERT_TRUE(pod.ok());
  s->OnPodAdd(pod.value());
  apiserver::Route route = ExplainRoute([s] { return s; });

  apiserver::Response ok = Get(route, "/debug/explain/namespaces/team/pods/big");
  ASSERT_EQ(ok.status, 200) << ok.body;
  boost::json::object body = boost::json::parse(ok.body).as_object();
  EXPECT_EQ(body.at("summary").as_string(), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_TRUE(body.at("suggestions").is_array());

  apiserver::Response missing = Get(route, "/debug/explain/namespaces/default/pods/big");
  EXPECT_EQ(missing.status, 404);
  boost::json::object status = boost::json::parse(missing.body).as_object();
  EXPECT_EQ(status.at("reason").as_string(), "NotFound");
  EXPECT_EQ(status.at("message").as_string(), "pods \"big\" not found");
  EXPECT_EQ(Get(route, "/debug/explain/pods/big").status, 404);
  EXPECT_EQ(Get(route, "/debug/explain/namespaces/team/pods/big", "DELETE").status, 405);
}

}  // namespace
}  // namespace berth::cluster
