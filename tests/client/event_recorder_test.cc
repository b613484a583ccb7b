// Events as kube's recorders write them: the Event's fields, repeats counted
// on one Event, a bounded queue that drops rather than blocks.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/time/rfc3339.h"
#include "client/event_recorder.h"
#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::client {
namespace {

namespace json = boost::json;

class EventRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Open({}).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<apiserver::ApiServer>(*store_, apiserver::ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
    client_ = std::make_unique<RestClient>(cluster::InProcessTransport(*api_));
  }

  api::ObjectPtr Create(api::Kind kind, const std::string& ns, const std::string& json_text) {
    auto created = client_->Create(kind, ns, json::parse(json_text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  std::vector<api::ObjectPtr> Events(const std::string& ns) {
    return client_->List(api::Kind::kEvent, ns).value();
  }
  static const json::object& Json(const api::ObjectPtr& o) { return o->json(); }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  std::unique_ptr<RestClient> client_;
};

constexpr const char* kPod =
    R"({"metadata":{"name":"web-1"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";

TEST_F(EventRecorderTest, WritesKubesEventAboutTheObject) {
  auto pod = Create(api::Kind::kPod, "default", kPod);
  ASSERT_TRUE(pod);
  EventBroadcaster broadcaster(*client_);
  EventRecorder recorder(&broadcaster, {"default-scheduler", ""});
  recorder.Event(*pod, "Normal", "Scheduled", "Successfully assigned default/web-1 to n1");
  broadcaster.Flush();

  auto events = Events("default");
  ASSERT_EQ(events.size(), 1u);
  const json::object& e = Json(events[0]);
  EXPECT_EQ(events[0]->name().rfind("web-1.", 0), 0u) << events[0]->name();
  EXPECT_EQ(e.at("reason"), "Scheduled");
  EXPECT_EQ(e.at("type"), "Normal");
  EXPECT_EQ(e.at("message"), "Successfully assigned default/web-1 to n1");
  EXPECT_EQ(e.at("count"), 1);
  EXPECT_EQ(e.at("source").at("component"), "default-scheduler");
  EXPECT_EQ(e.at("reportingComponent"), "default-scheduler");
  EXPECT_EQ(e.at("firstTimestamp"), e.at("lastTimestamp"));
  const json::object& involved = e.at("involvedObject").as_object();
  EXPECT_EQ(involved.at("kind"), "Pod");
  EXPECT_EQ(involved.at("apiVersion"), "v1");
  EXPECT_EQ(involved.at("name"), "web-1");
  EXPECT_EQ(involved.at("namespace"), "default");
  EXPECT_EQ(involved.at("uid").as_string(), pod->uid());
  EXPECT_EQ(involved.at("resourceVersion").as_string(), std::to_string(pod->resource_version()));
  EXPECT_EQ(broadcaster.dropped(), 0u);
  EXPECT_EQ(broadcaster.failed(), 0u);
}

TEST_F(EventRecorderTest, ClusterScopedObjectsEventsGoToTheDefaultNamespace) {
  auto node = Create(api::Kind::kNode, "", R"({"metadata":{"name":"n1"}})");
  ASSERT_TRUE(node);
  EventBroadcaster broadcaster(*client_);
  EventRecorder(&broadcaster, {"node-controller", ""})
      .Event(*node, "Normal", "NodeNotReady", "Node n1 status is now: NodeNotReady");
  broadcaster.Flush();
  auto events = Events("default");
  ASSERT_EQ(events.size(), 1u);
  const json::object& involved = Json(events[0]).at("involvedObject").as_object();
  EXPECT_EQ(involved.at("kind"), "Node");
  EXPECT_FALSE(involved.contains("namespace"));
  EXPECT_EQ(events[0]->name().rfind("n1.", 0), 0u);
}

TEST_F(EventRecorderTest, RepeatsAreCountedOnOneEvent) {
  auto pod = Create(api::Kind::kPod, "default", kPod);
  ASSERT_TRUE(pod);
  EventBroadcaster broadcaster(*client_);
  EventRecorder scheduler(&broadcaster, {"default-scheduler", ""});
  EventRecorder other(&broadcaster, {"someone-else", ""});
  for (int i = 0; i < 3; ++i)
    scheduler.Event(*pod, "Warning", "FailedScheduling", "0/1 nodes are available.");
  // Another message, or the same from another source, is another Event.
  scheduler.Event(*pod, "Warning", "FailedScheduling", "0/2 nodes are available.");
  other.Event(*pod, "Warning", "FailedScheduling", "0/1 nodes are available.");
  broadcaster.Flush();

  auto events = Events("default");
  ASSERT_EQ(events.size(), 3u);
  int64_t counted = 0;
  for (const auto& e : events) {
    const json::object& o = Json(e);
    if (o.at("message") == "0/1 nodes are available." &&
        o.at("source").at("component") == "default-scheduler") {
      counted = o.at("count").to_number<int64_t>();
    } else {
      EXPECT_EQ(o.at("count"), 1) << json::serialize(o);
    }
  }
  EXPECT_EQ(counted, 3);

  // The counted Event deleted (expired): the next repeat creates a new one.
  for (const auto& e : events) {
    if (Json(e).at("count") == 3) {
      ASSERT_TRUE(client_->Delete(api::Kind::kEvent, "default", e->name()).ok());
    }
  }
  scheduler.Event(*pod, "Warning", "FailedScheduling", "0/1 nodes are available.");
  broadcaster.Flush();
  events = Events("default");
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) EXPECT_EQ(Json(e).at("count"), 1) << json::serialize(Json(e));
  EXPECT_EQ(broadcaster.failed(), 0u);
}

TEST_F(EventRecorderTest, AFullQueueDropsEventsInsteadOfBlocking) {
  auto pod = Create(api::Kind::kPod, "default", kPod);
  ASSERT_TRUE(pod);
  // A transport that holds every request until released: the writer stalls
  // on the first event, and the queue fills behind it.
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  Transport inner = cluster::InProcessTransport(*api_);
  RestClient slow([&](const std::string& method, const std::string& target, const std::string& body,
                      const std::string& content_type) -> Result<RestResponse> {
    std::unique_lock lk(mu);
    cv.wait(lk, [&] { return released; });
    lk.unlock();
    return inner(method, target, body, content_type);
  });
  EventBroadcaster broadcaster(slow, {.max_queued = 3});
  EventRecorder recorder(&broadcaster, {"test", ""});
  for (int i = 0; i < 10; ++i) recorder.Event(*pod, "Normal", "Tick", "tick " + std::to_string(i));
  // At most one taken by the writer and three queued: six or seven dropped.
  const uint64_t dropped = broadcaster.dropped();
  EXPECT_GE(dropped, 6u);
  EXPECT_LE(dropped, 7u);
  {
    std::lock_guard lk(mu);
    released = true;
  }
  cv.notify_all();
  broadcaster.Flush();
  EXPECT_EQ(Events("default").size(), 10u - dropped);
  // Stopped: later events are dropped too, and nothing waits.
  broadcaster.Stop();
  recorder.Event(*pod, "Normal", "Tick", "after stop");
  EXPECT_EQ(broadcaster.dropped(), dropped + 1);
}

TEST_F(EventRecorderTest, WritesAtTheLimitedRate) {
  auto pod = Create(api::Kind::kPod, "default", kPod);
  ASSERT_TRUE(pod);
  // Taken before the writer starts: its bucket fills no earlier than this.
  const auto start = std::chrono::steady_clock::now();
  EventBroadcaster broadcaster(*client_, {.qps = 20, .burst = 2});
  EventRecorder recorder(&broadcaster, {"test", ""});
  for (int i = 0; i < 6; ++i) recorder.Event(*pod, "Normal", "Tick", "tick " + std::to_string(i));
  // However slow this thread is, the writer has had `burst` writes plus one
  // per 1/qps since the start, no more.
  const size_t written = Events("default").size();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LE(written, 2 + static_cast<size_t>(elapsed * 20)) << elapsed;
  broadcaster.Flush();
  EXPECT_EQ(Events("default").size(), 6u);
  // Six writes at a burst of two and 20/s: at least four waits of 50 ms.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(190));
  EXPECT_EQ(broadcaster.dropped(), 0u);
}

// With a FakeClock, tokens come only as the test moves time, and events carry
// the clock's wall time.
TEST_F(EventRecorderTest, TakesTokensAndTimestampsFromTheInjectedClock) {
  auto pod = Create(api::Kind::kPod, "default", kPod);
  ASSERT_TRUE(pod);
  const auto wall = std::chrono::system_clock::time_point(std::chrono::hours(24 * 365 * 50));
  api::FakeClock clock(api::Clock::time_point(std::chrono::hours(1)), wall);
  EventBroadcaster broadcaster(*client_, {.qps = 10, .burst = 2, .clock = &clock});
  EventRecorder recorder(&broadcaster, {"test", ""});
  for (int i = 0; i < 4; ++i) recorder.Event(*pod, "Normal", "Tick", "tick " + std::to_string(i));
  auto wait_for_events = [&](size_t n) {
    for (int i = 0; i < 2000 && Events("default").size() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return Events("default").size();
  };
  EXPECT_EQ(wait_for_events(2), 2u);  // the burst
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Events("default").size(), 2u);  // no time passed: no token
  clock.Step(std::chrono::milliseconds(100));
  EXPECT_EQ(wait_for_events(3), 3u);
  clock.Step(std::chrono::milliseconds(100));
  EXPECT_EQ(wait_for_events(4), 4u);
  for (const auto& e : Events("default")) {
    EXPECT_EQ(Json(e).at("firstTimestamp").as_string(), api::FormatRfc3339(wall)) << e->name();
  }
  EXPECT_EQ(broadcaster.dropped(), 0u);
}

}  // namespace
}  // namespace berth::client
