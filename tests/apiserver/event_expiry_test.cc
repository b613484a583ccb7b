// Events expire --event-ttl after their newest time, as kube-apiserver's
// leases make them; other objects and fresh Events stay.

#include "apiserver/event_expiry.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using SysClock = std::chrono::system_clock;

class EventExpiryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Open({}).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<ApiServer>(*store_, ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
  }
  int Post(const std::string& path, const json::object& body) {
    Request r;
    r.method = "POST";
    r.path = path;
    r.content_type = "application/json";
    r.accept = "application/json";
    r.body = json::serialize(body);
    Response response = api_->Handle(r);
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status;
  }
  void Event(const std::string& name, const json::object& times) {
    json::object e{
        {"metadata", json::object{{"name", name}}},
        {"involvedObject", json::object{{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
        {"reason", "Test"},
        {"message", "m"}};
    for (const auto& [k, v] : times) e[k] = v;
    Post("/api/v1/namespaces/default/events", e);
  }
  std::vector<std::string> EventNames() {
    store::ListOptions options;
    options.prefix = api::StoragePrefix(api::Kind::kEvent);
    std::vector<std::string> names;
    auto listed = store_->List(options);
    EXPECT_TRUE(listed.ok());
    for (const auto& o : listed.value().items) names.push_back(o->name());
    return names;
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ApiServer> api_;
};

// An Event lives the TTL from its last write: its creation, or a later
// repeat (lastTimestamp, series.lastObservedTime), whichever is newest.
TEST_F(EventExpiryTest, DeletesEventsOlderThanTheTtlByTheirNewestTime) {
  const auto now = SysClock::now();
  auto in = [&](std::chrono::minutes m) { return api::FormatRfc3339(now + m); };
  // eventTime and series.lastObservedTime are MicroTimes: six fractional digits.
  auto micro = [&](std::chrono::minutes m) { return api::FormatMicroTime(now + m); };
  // First and last seen long before it was written here: its creation counts.
  Event("quiet", {{"firstTimestamp", in(std::chrono::minutes(-200))},
                  {"lastTimestamp", in(std::chrono::minutes(-90))}});
  // Repeated (count patched) half an hour after it was created.
  Event("repeated", {{"firstTimestamp", in(std::chrono::minutes(0))},
                     {"lastTimestamp", in(std::chrono::minutes(30))}});
  Event("series",
        {{"eventTime", micro(std::chrono::minutes(0))},
         {"series", json::object{{"count", 2}, {"lastObservedTime", micro(std::chrono::minutes(40))}}},
         {"reportingComponent", "c"},
         {"reportingInstance", "i"},
         {"action", "a"}});
  Event("untimed", {});
  Post("/api/v1/namespaces/default/pods",
       json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})")
           .as_object());

  EventExpiry expiry(*store_, std::chrono::hours(1));
  EXPECT_EQ(expiry.Sweep(now + std::chrono::minutes(59)), 0u);
  EXPECT_EQ(expiry.Sweep(now + std::chrono::minutes(62)), 2u);
  EXPECT_EQ(EventNames(), (std::vector<std::string>{"repeated", "series"}));
  EXPECT_EQ(expiry.Sweep(now + std::chrono::minutes(92)), 1u);
  EXPECT_EQ(EventNames(), std::vector<std::string>{"series"});
  EXPECT_EQ(expiry.Sweep(now + std::chrono::minutes(102)), 1u);
  EXPECT_TRUE(EventNames().empty());
  EXPECT_TRUE(store_->Get(api::StorageKey(api::Kind::kPod, "default", "p")).ok());
}

TEST_F(EventExpiryTest, TheSweeperRunsOnItsOwn) {
  Event("e", {});
  EventExpiry expiry(*store_, std::chrono::seconds(1));  // sweeps every 100 ms
  for (int i = 0; i < 1000 && !EventNames().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(EventNames().empty());
}

TEST_F(EventExpiryTest, SweepsOnTheInjectedClock) {
  const auto wall = SysClock::now();
  Event("old", {{"lastTimestamp", api::FormatRfc3339(wall - std::chrono::minutes(30))}});
  api::FakeClock clock(api::Clock::time_point(std::chrono::hours(1)), wall + std::chrono::minutes(58));
  EventExpiry expiry(*store_, std::chrono::hours(1), clock);  // sweeps every minute
  clock.Step(std::chrono::minutes(1));  // a sweep 59 minutes after its creation
  EXPECT_EQ(EventNames(), std::vector<std::string>{"old"});
  clock.Step(std::chrono::minutes(3));  // and 62 minutes after
  EXPECT_TRUE(EventNames().empty());
}

}  // namespace
}  // namespace berth::apiserver
