// Recorders on many threads at once while the writer writes (run under
// ThreadSanitizer in CI): every event is written once, repeats are counted,
// nothing is dropped below the queue's bound.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>
#include <vector>

#include "client/event_recorder.h"
#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::client {
namespace {

namespace json = boost::json;

TEST(EventRecorderStress, ManyThreadsRecordWhileTheWriterWrites) {
  auto store = store::MemoryStore::Open({}).value();
  // No serviceaccount controller runs: without ServiceAccount admission, as
  // kube's integration tests run kube-apiserver.
  apiserver::ApiServer api(*store, apiserver::ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
  ASSERT_TRUE(api.Bootstrap().ok());
  RestClient client(cluster::InProcessTransport(api));
  auto pod = client.Create(
      api::Kind::kPod, "default",
      json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})")
          .as_object());
  ASSERT_TRUE(pod.ok()) << pod.status().message();

  constexpr int kThreads = 4, kEach = 150, kRepeats = 3;
  EventBroadcaster broadcaster(client, {.max_queued = 100000, .qps = 0});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      EventRecorder recorder(&broadcaster, {"thread-" + std::to_string(t), ""});
      for (int i = 0; i < kEach; ++i) {
        // Each message kRepeats times in a row: one Event with that count.
        for (int r = 0; r < kRepeats; ++r)
          recorder.Event(*pod.value(), "Normal", "Tick", "tick " + std::to_string(i));
      }
    });
  }
  // Flushes race with the recording threads and the writer.
  for (int i = 0; i < 20; ++i) broadcaster.Flush();
  for (auto& t : threads) t.join();
  broadcaster.Flush();

  auto events = client.List(api::Kind::kEvent, "default");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events.value().size(), static_cast<size_t>(kThreads * kEach));
  for (const auto& e : events.value()) EXPECT_EQ(e->json().at("count"), kRepeats) << e->name();
  EXPECT_EQ(broadcaster.dropped(), 0u);
  EXPECT_EQ(broadcaster.failed(), 0u);
}

}  // namespace
}  // namespace berth::client
