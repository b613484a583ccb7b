// Permit as kube-scheduler runs it: a pod asked to wait stays assumed on its
// node, without holding a thread, until every waiting plugin allows it, any
// rejection or a plugin's timeout fails its binding, or the scheduler stops.

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "api/time/clock.h"
#include "fake_cluster.h"
#include "permit_plugins.h"
#include "scheduler/framework/waiting_pods.h"

namespace berth::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::ConfigWithPermits;
using testing::FakeCluster;
using testing::NodeObject;
using testing::PermitPod;
using testing::PermitRecord;
using testing::RegistryWithPermits;

// Polls `done` for up to ten seconds of real time.
template <typename Done>
bool Eventually(Done done) {
  auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

struct PermitCluster {
  explicit PermitCluster(std::vector<std::pair<std::string, milliseconds>> plugins,
                         SchedulerOptions options = {})
      : record(std::make_shared<PermitRecord>()),
        names(Names(plugins)),
        cluster(options, ConfigWithPermits(names), RegistryWithPermits(plugins, record)) {
    cluster.scheduler->OnNodeAdd(NodeObject("n1"));
    cluster.scheduler->Start();
  }
  static std::vector<std::string> Names(
      const std::vector<std::pair<std::string, milliseconds>>& plugins) {
    std::vector<std::string> out;
    for (const auto& p : plugins) out.push_back(p.first);
    return out;
  }
  Scheduler& s() { return *cluster.scheduler; }
  bool Bound(const std::string& name) { return cluster.Placements().count("default/" + name) > 0; }

  std::shared_ptr<PermitRecord> record;
  std::vector<std::string> names;
  FakeCluster cluster;
};

TEST(Permit, AWaitingPodBindsOnceEveryWaitingPluginAllowsIt) {
  PermitCluster c({{"WaitA", seconds(60)}, {"WaitB", seconds(60)}});
  c.s().OnPodAdd(PermitPod("p", "wait"));
  // Idle while it waits: nothing the scheduler can do on its own.
  ASSERT_TRUE(c.cluster.WaitIdle());
  std::shared_ptr<WaitingPod> waiting = c.s().handle().GetWaitingPod("u-p");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(waiting->GetPod()->key, "default/p");
  EXPECT_EQ(waiting->GetPendingPlugins(), (std::vector<std::string>{"WaitA", "WaitB"}));
  // It holds its room on the node meanwhile.
  EXPECT_TRUE(c.s().cache().IsAssumed("default/p"));
  EXPECT_EQ(c.s().cache().NodeOf("default/p"), "n1");
  EXPECT_FALSE(c.Bound("p"));

  waiting->Allow("WaitA");
  waiting->Allow("NotWaiting");  // a plugin that never asked changes nothing
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_FALSE(c.Bound("p"));
  EXPECT_EQ(waiting->GetPendingPlugins(), std::vector<std::string>{"WaitB"});

  waiting->Allow("WaitB");
  ASSERT_TRUE(Eventually([&] { return c.Bound("p"); }));
  EXPECT_EQ(c.s().handle().GetWaitingPod("u-p"), nullptr);
  EXPECT_TRUE(waiting->settled());
  EXPECT_EQ(c.record->unreserved.load(), 0);
}

TEST(Permit, ARejectionFailsTheBindingWithItsMessage) {
  PermitCluster c({{"WaitA", seconds(60)}});
  c.s().OnPodAdd(PermitPod("p", "wait"));
  ASSERT_TRUE(c.cluster.WaitIdle());
  c.s().handle().GetWaitingPod("u-p")->Reject("WaitA", "the gang is incomplete");
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/p").empty(); }));
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_EQ(c.cluster.FailureOf("default/p"), "Unschedulable: the gang is incomplete");
  EXPECT_FALSE(c.Bound("p"));
  EXPECT_EQ(c.record->unreserved.load(), 1);         // Unreserve ran (once per plugin)
  EXPECT_EQ(c.s().cache().NodeOf("default/p"), "");  // forgotten: its room is free
  // Requeued as unschedulable, waiting for a cluster event.
  EXPECT_EQ(c.s().queue().counts().unschedulable, 1u);
  EXPECT_EQ(c.s().handle().GetWaitingPod("u-p"), nullptr);
}

TEST(Permit, EachPluginTimesOutOnItsOwnClockInKubesWords) {
  api::FakeClock clock;
  SchedulerOptions options;
  options.clock = &clock;
  PermitCluster c({{"Short", seconds(5)}, {"Long", seconds(20)}}, options);
  c.s().OnPodAdd(PermitPod("p", "wait"));
  ASSERT_TRUE(c.cluster.WaitIdle());
  c.s().handle().GetWaitingPod("u-p")->Allow("Short");
  clock.Step(seconds(10));  // Short's timer was stopped by its Allow
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_NE(c.s().handle().GetWaitingPod("u-p"), nullptr);
  EXPECT_EQ(c.cluster.FailureOf("default/p"), "");

  clock.Step(seconds(10));
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/p").empty(); }));
  EXPECT_EQ(c.cluster.FailureOf("default/p"),
            "Unschedulable: rejected due to timeout after waiting 20s at plugin Long");
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_EQ(c.s().cache().NodeOf("default/p"), "");
  // kube's permit wait metric, on the scheduler's clock: 20 seconds.
  const std::string metrics = c.s().RenderMetrics();
  for (const char* line : {R"(scheduler_permit_wait_duration_seconds_count{result="Unschedulable"} 1)",
                           R"(scheduler_permit_wait_duration_seconds_sum{result="Unschedulable"} 20)"}) {
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
  }
}

TEST(Permit, AWaitIsCutToFifteenMinutes) {
  api::FakeClock clock;
  SchedulerOptions options;
  options.clock = &clock;
  PermitCluster c({{"Forever", std::chrono::hours(2)}}, options);
  c.s().OnPodAdd(PermitPod("p", "wait"));
  ASSERT_TRUE(c.cluster.WaitIdle());
  clock.Step(minutes(15) - seconds(1));
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_EQ(c.cluster.FailureOf("default/p"), "");
  clock.Step(seconds(1));
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/p").empty(); }));
  EXPECT_EQ(c.cluster.FailureOf("default/p"),
            "Unschedulable: rejected due to timeout after waiting 15m0s at plugin Forever");
}

TEST(Permit, WaitingPodsHoldNoBindingThread) {
  SchedulerOptions options;
  options.binding_workers = 1;
  PermitCluster c({{"WaitA", seconds(60)}}, options);
  for (int i = 0; i < 5; ++i) c.s().OnPodAdd(PermitPod("w" + std::to_string(i), "wait"));
  c.s().OnPodAdd(PermitPod("free"));
  ASSERT_TRUE(Eventually([&] { return c.Bound("free"); }));
  ASSERT_TRUE(c.cluster.WaitIdle());
  size_t waiting = 0;
  c.s().handle().IterateOverWaitingPods([&](WaitingPod& pod) {
    waiting++;
    pod.Allow("WaitA");  // allowing from inside the iteration is allowed
  });
  EXPECT_EQ(waiting, 5u);
  ASSERT_TRUE(Eventually([&] { return c.cluster.Placements().size() == 6; }));
}

TEST(Permit, ARejectionInTheCycleUnreservesAndReportsIt) {
  PermitCluster c({{"WaitA", seconds(60)}});
  c.s().OnPodAdd(PermitPod("r", "reject"));
  c.s().OnPodAdd(PermitPod("e", "error"));
  // The error is retried with backoff; the first attempt's report is enough.
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/e").empty(); }));
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/r").empty(); }));
  EXPECT_EQ(c.cluster.FailureOf("default/r"),
            "Unschedulable: 0/1 nodes are available: 1 rejected by WaitA.");
  EXPECT_EQ(c.cluster.FailureOf("default/e"),
            "SchedulerError: running Permit plugin \"WaitA\": boom");
  EXPECT_GE(c.record->unreserved.load(), 2);
  EXPECT_EQ(c.s().queue().counts().unschedulable, 1u);  // r waits for a cluster event
  EXPECT_TRUE(c.cluster.Placements().empty());
  EXPECT_EQ(c.s().cache().NodeOf("default/r"), "");
  EXPECT_EQ(c.s().cache().NodeOf("default/e"), "");
}

TEST(Permit, ADeletedWaitingPodIsRejectedAndNotRequeued) {
  PermitCluster c({{"WaitA", seconds(60)}});
  api::ObjectPtr pod = PermitPod("p", "wait");
  c.s().OnPodAdd(pod);
  ASSERT_TRUE(c.cluster.WaitIdle());
  ASSERT_NE(c.s().handle().GetWaitingPod("u-p"), nullptr);
  c.s().OnPodDelete(pod);
  ASSERT_TRUE(Eventually([&] { return c.record->unreserved.load() == 1; }));
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_EQ(c.s().handle().GetWaitingPod("u-p"), nullptr);
  EXPECT_EQ(c.s().queue().size(), 0u);
  EXPECT_FALSE(c.Bound("p"));
}

// An update of a pod already assumed (here waiting at Permit) is older than
// the cycle that placed it: a nomination it carries must not come back, or
// the pod would count twice on its node (kube skips such updates).
TEST(Permit, AnUpdateOfAnAssumedPodBringsBackNoNomination) {
  PermitCluster c({{"WaitA", seconds(60)}});
  api::ObjectPtr pod = PermitPod("p", "wait");
  c.s().OnPodAdd(pod);
  ASSERT_TRUE(c.cluster.WaitIdle());
  ASSERT_NE(c.s().handle().GetWaitingPod("u-p"), nullptr);
  const size_t queued = c.s().queue().size();
  auto late = pod->Edit([](boost::json::object& o) { o["status"] = {{"nominatedNodeName", "n1"}}; });
  ASSERT_TRUE(late.ok());
  c.s().OnPodUpdate(late.value());
  EXPECT_TRUE(c.s().handle().NominatedPodsForNode("n1").empty());
  EXPECT_EQ(c.s().queue().size(), queued);
  c.s().handle().GetWaitingPod("u-p")->Allow("WaitA");
  ASSERT_TRUE(Eventually([&] { return c.Bound("p"); }));
}

TEST(Permit, RejectWaitingPodByUid) {
  PermitCluster c({{"WaitA", seconds(60)}});
  c.s().OnPodAdd(PermitPod("p", "wait"));
  ASSERT_TRUE(c.cluster.WaitIdle());
  EXPECT_FALSE(c.s().handle().RejectWaitingPod("no-such-uid"));
  EXPECT_TRUE(c.s().handle().RejectWaitingPod("u-p"));
  ASSERT_TRUE(Eventually([&] { return !c.cluster.FailureOf("default/p").empty(); }));
  EXPECT_EQ(c.cluster.FailureOf("default/p"), "Unschedulable: removed");
}

TEST(Permit, StopRejectsWaitingPodsWithoutReportingThem) {
  PermitCluster c({{"WaitA", minutes(10)}});
  for (int i = 0; i < 3; ++i) c.s().OnPodAdd(PermitPod("w" + std::to_string(i), "wait"));
  ASSERT_TRUE(c.cluster.WaitIdle());
  ASSERT_TRUE(Eventually([&] {
    size_t n = 0;
    c.s().handle().IterateOverWaitingPods([&](WaitingPod&) { n++; });
    return n == 3;
  }));
  auto start = std::chrono::steady_clock::now();
  c.s().Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  EXPECT_EQ(c.record->unreserved.load(), 3);
  for (int i = 0; i < 3; ++i) {
    const std::string key = "default/w" + std::to_string(i);
    EXPECT_EQ(c.cluster.FailureOf(key), "") << key;  // left Pending for the next scheduler
    EXPECT_EQ(c.s().cache().NodeOf(key), "") << key;
  }
  EXPECT_EQ(c.s().handle().GetWaitingPod("u-w0"), nullptr);
}

TEST(WaitingPods, AnAllowBeforeTheBindingParksIsCollectedAtPark) {
  api::FakeClock clock;
  WaitingPods pods(clock);
  PodInfoPtr pod = testing::Pod("p");
  auto waiting = pods.Add(pod, {{"A", seconds(1)}});
  waiting->Allow("A");
  EXPECT_EQ(pods.size(), 1u);  // settled, its outcome not collected yet
  bool resumed = false;
  std::optional<PluginStatus> outcome =
      pods.Park(pod->uid(), [&](PluginStatus) { resumed = true; });
  ASSERT_TRUE(outcome.has_value());
  EXPECT_TRUE(outcome->ok());
  EXPECT_EQ(pods.size(), 0u);
  clock.Step(seconds(2));  // the stopped timer does nothing
  EXPECT_FALSE(resumed);
  // A pod that never waited passes.
  auto none = pods.Park("other", [](PluginStatus) {});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->ok());
}

TEST(WaitingPods, ANewerWaitOfTheSamePodSettlesTheOlderOne) {
  api::FakeClock clock;
  WaitingPods pods(clock);
  PodInfoPtr pod = testing::Pod("p");
  pods.Add(pod, {{"A", seconds(1)}});
  std::vector<PluginStatus> outcomes;
  EXPECT_FALSE(pods.Park(pod->uid(), [&](PluginStatus s) { outcomes.push_back(std::move(s)); }).has_value());
  auto newer = pods.Add(pod, {{"A", seconds(1)}});
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].Message(), "replaced by a newer wait of the same pod");
  EXPECT_EQ(pods.Get(pod->uid()), newer);  // the older one left without taking the newer along
}

TEST(WaitingPods, AParkedPodResumesOnceOnTheSettlingThread) {
  api::FakeClock clock;
  WaitingPods pods(clock);
  PodInfoPtr pod = testing::Pod("p");
  pods.Add(pod, {{"A", seconds(3)}, {"B", milliseconds(1500)}});
  std::vector<PluginStatus> outcomes;
  EXPECT_FALSE(
      pods.Park(pod->uid(), [&](PluginStatus s) { outcomes.push_back(std::move(s)); }).has_value());
  clock.Step(seconds(1));
  EXPECT_TRUE(outcomes.empty());
  clock.Step(seconds(1));  // B's 1.5s passed, inside Step
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].code(), Code::kUnschedulable);
  EXPECT_EQ(outcomes[0].plugin(), "B");
  EXPECT_EQ(outcomes[0].Message(), "rejected due to timeout after waiting 1.5s at plugin B");
  clock.Step(seconds(5));
  pods.Get(pod->uid());
  EXPECT_EQ(outcomes.size(), 1u);  // settled once
  EXPECT_EQ(pods.size(), 0u);
}

}  // namespace
}  // namespace berth::scheduler
