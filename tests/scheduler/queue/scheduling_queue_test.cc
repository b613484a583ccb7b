// The scheduling queue: priority order, backoff, the unschedulable pool and
// in-flight bookkeeping, on a fake clock.

#include "scheduler/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include "api/time/clock.h"
#include "scheduler/plugins/basic/basic_plugins.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

using testing::Pod;
using namespace std::chrono_literals;

// keyed: the queue orders by PrioritySort's key (as the scheduler sets it up),
// else by calling Less.
struct QueueFixture {
  explicit QueueFixture(bool keyed = false)
      : queue([this](const QueuedPodInfo& a, const QueuedPodInfo& b) { return sort.Less(a, b); },
              [this](const PodInfo& p) { return gates.PreEnqueue(p).ok(); }, Options(keyed)) {}
  SchedulingQueue::Options Options(bool keyed) {
    SchedulingQueue::Options o{1000ms, 10000ms, 300000ms, &clock};
    if (keyed) o.sort_key = [this](const QueuedPodInfo& p) { return sort.SortKey(p); };
    return o;
  }
  api::FakeClock clock{std::chrono::steady_clock::time_point() + 1000h};
  PrioritySort sort;
  SchedulingGates gates;
  SchedulingQueue queue;
  std::optional<QueuedPodInfo> PopNow() { return queue.Pop(clock.Now()); }
};

PodInfoPtr WithPriority(const std::string& name, int priority) {
  return Pod(name, R"({"priority":)" + std::to_string(priority) + R"(,"containers":[]})");
}

TEST(SchedulingQueue, PopsByPriorityThenArrival) {
  for (bool keyed : {false, true}) {
    SCOPED_TRACE(keyed ? "by sort key" : "by Less");
    QueueFixture f(keyed);
    f.queue.Add(WithPriority("low", 1));
    f.clock.Step(1ms);
    f.queue.Add(WithPriority("high", 10));
    f.clock.Step(1ms);
    f.queue.Add(WithPriority("low2", 1));
    f.clock.Step(1ms);
    f.queue.Add(WithPriority("negative", -5));
    f.queue.Add(WithPriority("high2", 10));
    EXPECT_EQ(f.PopNow()->pod->name(), "high");
    EXPECT_EQ(f.PopNow()->pod->name(), "high2");
    EXPECT_EQ(f.PopNow()->pod->name(), "low");
    EXPECT_EQ(f.PopNow()->pod->name(), "low2");
    EXPECT_EQ(f.PopNow()->pod->name(), "negative");
    EXPECT_FALSE(f.PopNow().has_value());
  }
}

TEST(SchedulingQueue, ErrorsBackOffExponentiallyUpToTheMaximum) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  for (int attempt = 1; attempt <= 6; ++attempt) {
    auto info = f.PopNow();
    ASSERT_TRUE(info.has_value()) << attempt;
    EXPECT_EQ(info->attempts, attempt);
    f.queue.Requeue(*info, /*unschedulable=*/false);
    auto backoff = std::min<std::chrono::milliseconds>(1000ms * (1 << (attempt - 1)), 10000ms);
    f.clock.Step(backoff - 1ms);
    EXPECT_FALSE(f.PopNow().has_value()) << "still backing off after attempt " << attempt;
    f.clock.Step(1ms);
  }
  EXPECT_TRUE(f.PopNow().has_value());
}

TEST(SchedulingQueue, UnschedulablePodsWaitForAnEventOrFiveMinutes) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  f.queue.Requeue(*f.PopNow(), /*unschedulable=*/true);
  f.clock.Step(20s);
  EXPECT_FALSE(f.PopNow().has_value());
  EXPECT_EQ(f.queue.counts().unschedulable, 1u);
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");
  auto info = f.PopNow();
  ASSERT_TRUE(info.has_value());
  f.queue.Requeue(*info, true);
  f.clock.Step(299s);
  EXPECT_FALSE(f.PopNow().has_value());
  f.clock.Step(2s);
  EXPECT_TRUE(f.PopNow().has_value());
}

TEST(SchedulingQueue, AnEventDuringTheAttemptSendsTheFailureToBackoff) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  auto info = f.PopNow();
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");  // e.g. a node was added meanwhile
  f.queue.Requeue(*info, true);
  EXPECT_EQ(f.queue.counts().unschedulable, 0u);
  EXPECT_EQ(f.queue.counts().backoff, 1u);
}

TEST(SchedulingQueue, InFlightPodsAreNeverHandedOutTwice) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  auto info = f.PopNow();
  ASSERT_TRUE(info.has_value());
  f.queue.Add(Pod("p"));  // an update while in flight
  EXPECT_FALSE(f.PopNow().has_value());
  f.queue.Done("default/p");
  EXPECT_FALSE(f.PopNow().has_value());
  EXPECT_EQ(f.queue.size(), 0u);
}

TEST(SchedulingQueue, DeletedPodsLeaveEveryPartOfTheQueue) {
  QueueFixture f;
  f.queue.Add(Pod("a"));
  f.queue.Add(Pod("b"));
  f.queue.Delete("default/a");
  EXPECT_EQ(f.PopNow()->pod->name(), "b");
  EXPECT_FALSE(f.PopNow().has_value());
  // Deleted while in flight: its failure does not bring it back.
  f.queue.Add(Pod("c"));
  auto c = f.PopNow();
  f.queue.Delete("default/c");
  f.queue.Requeue(*c, true);
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");
  f.clock.Step(1h);
  EXPECT_FALSE(f.PopNow().has_value());
  EXPECT_EQ(f.queue.size(), 1u);  // only b, in flight
}

// A nomination going away frees room only for the pods that respected it:
// those of equal or lower priority move, the others stay.
TEST(SchedulingQueue, AMoveCanBeLimitedToPodsOfAPriorityOrLower) {
  QueueFixture f;
  for (auto [name, priority] : {std::pair{"low", 1}, {"equal", 5}, {"high", 9}}) {
    f.queue.Add(WithPriority(name, priority));
    auto popped = f.PopNow();
    ASSERT_TRUE(popped.has_value());
    f.queue.Requeue(*popped, /*unschedulable=*/true);
  }
  ASSERT_EQ(f.queue.counts().unschedulable, 3u);
  f.queue.MoveAllToActiveOrBackoff("UnscheduledPodDelete", {}, 5);
  EXPECT_EQ(f.queue.counts().unschedulable, 1u);
  f.clock.Step(2s);  // past the first backoff, short of the unschedulable pool's timeout
  std::vector<std::string> popped;
  while (auto p = f.PopNow()) popped.push_back(p->pod->name());
  EXPECT_EQ(popped, (std::vector<std::string>{"equal", "low"}));
}

TEST(SchedulingQueue, GatedPodsWaitForTheirGatesToBeRemoved) {
  QueueFixture f;
  f.queue.Add(Pod("p", R"({"schedulingGates":[{"name":"g"}],"containers":[]})"));
  EXPECT_EQ(f.queue.counts().gated, 1u);
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");
  EXPECT_FALSE(f.PopNow().has_value());
  f.queue.Update(Pod("p"));
  EXPECT_EQ(f.queue.counts().gated, 0u);
  EXPECT_TRUE(f.PopNow().has_value());
}

TEST(SchedulingQueue, StatusOnlyUpdatesDoNotRetryAnUnschedulablePod) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  f.queue.Requeue(*f.PopNow(), true);
  auto same_spec = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"uid-p"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]}})");
  ASSERT_TRUE(same_spec.ok());
  f.queue.Update(MakePodInfo(same_spec.value()));
  EXPECT_EQ(f.queue.counts().unschedulable, 1u);
  f.queue.Update(Pod("p", R"({"containers":[{"name":"c","image":"i2"}]})"));
  EXPECT_EQ(f.queue.counts().unschedulable, 0u);
}

TEST(SchedulingQueue, WithNothingActiveABackingOffPodIsTakenAtOnce) {
  // kube's SchedulerPopFromBackoffQ: an idle scheduler retries the pod whose
  // backoff ends first instead of waiting it out.
  QueueFixture f;
  f.queue.Add(Pod("first"));
  f.clock.Step(1ms);
  f.queue.Add(Pod("second"));
  auto first = f.PopNow();
  auto second = f.PopNow();
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");  // an event during both attempts: both go to backoff
  f.queue.Requeue(*second, /*unschedulable=*/true);
  f.clock.Step(1ms);
  f.queue.Requeue(*first, /*unschedulable=*/true);
  ASSERT_EQ(f.queue.counts().backoff, 2u);
  auto again = f.PopNow();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->pod->name(), "second");  // its backoff ends first
  EXPECT_EQ(again->attempts, 2);
  // An active pod still goes first.
  f.queue.Add(Pod("new"));
  EXPECT_EQ(f.PopNow()->pod->name(), "new");
  EXPECT_EQ(f.PopNow()->pod->name(), "first");
}

TEST(SchedulingQueue, PodsBackingOffAfterAnErrorWaitItOut) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  f.queue.Requeue(*f.PopNow(), /*unschedulable=*/false);
  EXPECT_FALSE(f.PopNow().has_value());
  f.clock.Step(1000ms);
  EXPECT_TRUE(f.PopNow().has_value());
}

TEST(SchedulingQueue, TheStrictBackoffWhenPopFromBackoffIsOff) {
  api::FakeClock clock{std::chrono::steady_clock::time_point() + 1000h};
  SchedulingQueue::Options o{1000ms, 10000ms, 300000ms, &clock};
  o.pop_from_backoff = false;
  PrioritySort sort;
  SchedulingQueue queue([&](const QueuedPodInfo& a, const QueuedPodInfo& b) { return sort.Less(a, b); },
                        [](const PodInfo&) { return true; }, o);
  queue.Add(Pod("p"));
  auto info = queue.Pop(clock.Now());
  queue.MoveAllToActiveOrBackoff("NodeAdd");
  queue.Requeue(*info, /*unschedulable=*/true);
  EXPECT_FALSE(queue.Pop(clock.Now()).has_value());
  clock.Step(1000ms);
  EXPECT_TRUE(queue.Pop(clock.Now()).has_value());
}

TEST(SchedulingQueue, AHeldPodWaitsForItsReleaseWhateverHappens) {
  QueueFixture f;
  f.queue.Add(Pod("p"));
  auto info = f.PopNow();
  f.queue.Hold("default/p");  // e.g. its preemption's victims are being evicted
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");
  f.queue.Requeue(*info, /*unschedulable=*/true);
  EXPECT_EQ(f.queue.counts().gated, 1u);
  f.queue.MoveAllToActiveOrBackoff("NodeAdd");
  f.queue.Update(Pod("p", R"({"containers":[],"nodeSelector":{"a":"b"}})"));
  f.clock.Step(10min);
  EXPECT_FALSE(f.PopNow().has_value());
  f.queue.Release("default/p");
  auto again = f.PopNow();  // backing off, and nothing else is active
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->pod->view->node_selector.size(), 1u);  // the update was kept
  // A release that comes during the attempt leaves the requeue as usual.
  f.queue.Hold("default/p");
  f.queue.Release("default/p");
  f.queue.Requeue(*again, /*unschedulable=*/true);
  EXPECT_EQ(f.queue.counts().unschedulable, 1u);
  f.queue.Release("default/unknown");  // no-op
}

}  // namespace
}  // namespace berth::scheduler
