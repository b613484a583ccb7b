// Pods waiting at Permit settled from many threads at once (Allow, Reject,
// RejectWaitingPod, timeouts, deletion and Stop), for TSan: every pod ends
// bound or rejected exactly once, nothing stays assumed or parked, and
// Stop never hangs.

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "fake_cluster.h"
#include "permit_plugins.h"
#include "scheduler/framework/waiting_pods.h"

namespace berth::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ConfigWithPermits;
using testing::FakeCluster;
using testing::NodeObject;
using testing::PermitPod;
using testing::PermitRecord;
using testing::RegistryWithPermits;

TEST(PermitStress, ConcurrentAllowRejectAndTimeoutsSettleEachPodOnce) {
  constexpr int kPods = 300;
  auto record = std::make_shared<PermitRecord>();
  SchedulerOptions options;
  options.concurrent = 4;
  options.binding_workers = 3;
  options.seed = 7;
  // A: long wait, settled by the threads below; B: times out now and then.
  FakeCluster c(options, ConfigWithPermits({"A", "B"}),
                RegistryWithPermits({{"A", seconds(60)}, {"B", milliseconds(40)}}, record));
  for (int n = 0; n < 4; ++n)
    c.scheduler->OnNodeAdd(NodeObject("n" + std::to_string(n), "64", "64Gi", "{}", "{}", "1000"));
  c.scheduler->Start();

  std::atomic<bool> done{false};
  std::vector<std::thread> settlers;
  for (int t = 0; t < 4; ++t) {
    settlers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      while (!done.load()) {
        c.scheduler->handle().IterateOverWaitingPods([&](WaitingPod& pod) {
          switch (rng() % 8) {
            case 0:
              pod.Reject("A", "no");
              break;
            case 1:
              c.scheduler->handle().RejectWaitingPod(pod.GetPod()->uid());
              break;
            default:
              pod.Allow("A");
              pod.Allow("B");
              (void)pod.GetPendingPlugins();
          }
        });
        std::this_thread::yield();
      }
    });
  }
  for (int i = 0; i < kPods; ++i) {
    c.scheduler->OnPodAdd(PermitPod("p" + std::to_string(i), i % 5 == 0 ? "" : "wait"));
  }
  // Every pod is eventually bound: rejected ones come back through backoff
  // and cluster events until an Allow wins.
  auto deadline = std::chrono::steady_clock::now() + seconds(120);
  for (int tick = 0; c.Placements().size() < kPods && std::chrono::steady_clock::now() < deadline; ++tick) {
    // A cluster event: a node's labels change (an update that changes
    // nothing the scheduler reads moves no pod, as in kube).
    c.scheduler->OnNodeUpdate(
        NodeObject("n0", "64", "64Gi", R"({"tick":")" + std::to_string(tick) + R"("})", "{}", "1000"));
    std::this_thread::sleep_for(milliseconds(20));
  }
  done = true;
  for (auto& t : settlers) t.join();
  EXPECT_EQ(c.Placements().size(), static_cast<size_t>(kPods));
  ASSERT_TRUE(c.WaitIdle());
  // Each pod was bound once; each failed attempt was unreserved once.
  {
    std::lock_guard lock(c.mu);
    for (const auto& [pod, nodes] : c.binds) EXPECT_EQ(nodes.size(), 1u) << pod;
  }
  EXPECT_EQ(record->reserved.load() - record->unreserved.load(),
            2 * kPods);  // two plugins reserve each
  EXPECT_EQ(c.scheduler->cache().PodCount(), static_cast<size_t>(kPods));
}

TEST(PermitStress, StopWhileSettlingNeverHangsOrLeaks) {
  for (int round = 0; round < 5; ++round) {
    auto record = std::make_shared<PermitRecord>();
    SchedulerOptions options;
    options.concurrent = 2;
    options.binding_workers = 2;
    auto c = std::make_unique<FakeCluster>(
        options, ConfigWithPermits({"A"}),
        RegistryWithPermits({{"A", milliseconds(5 + round)}}, record));
    c->scheduler->OnNodeAdd(NodeObject("n", "64", "64Gi", "{}", "{}", "1000"));
    c->scheduler->Start();
    std::atomic<bool> done{false};
    std::thread allower([&] {
      while (!done.load()) {
        c->scheduler->handle().IterateOverWaitingPods([](WaitingPod& pod) { pod.Allow("A"); });
      }
    });
    for (int i = 0; i < 100; ++i)
      c->scheduler->OnPodAdd(PermitPod("p" + std::to_string(i), "wait"));
    std::this_thread::sleep_for(milliseconds(round * 3));
    c->scheduler->Stop();
    done = true;
    allower.join();
    // Whatever was not bound was unreserved and forgotten.
    size_t bound = c->Placements().size();
    EXPECT_EQ(static_cast<size_t>(record->reserved.load() - record->unreserved.load()), bound)
        << round;
    EXPECT_EQ(c->scheduler->cache().PodCount(), bound) << round;
    size_t waiting = 0;
    c->scheduler->handle().IterateOverWaitingPods([&](WaitingPod&) { waiting++; });
    EXPECT_EQ(waiting, 0u) << round;
  }
}

}  // namespace
}  // namespace berth::scheduler
