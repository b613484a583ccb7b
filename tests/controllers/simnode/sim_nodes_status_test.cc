// The simulated kubelet's pod status over time (sim_pod_status.h): exit
// codes, restart policies, kube's crash-loop backoff, image changes, init
// containers, conditions and readiness gates. Time is given, not read: each
// step says what the kubelet shows at that moment.

#include "controllers/simnode/sim_pod_status.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::minutes;
using std::chrono::seconds;
using TimePoint = std::chrono::system_clock::time_point;

const TimePoint kStart = *api::ParseRfc3339("2026-01-01T00:00:00Z");

json::object MakePod(std::string_view restart_policy, json::object annotations, std::string_view extra_spec = "{}") {
  json::object spec = json::parse(extra_spec).as_object();
  spec["nodeName"] = "sim-0";
  if (!restart_policy.empty()) spec["restartPolicy"] = restart_policy;
  spec["containers"] = json::array{json::object{{"name", "c"}, {"image", "busybox"}}};
  return json::object{{"metadata", json::object{{"name", "p"},
                                                {"namespace", "default"},
                                                {"uid", "u-1"},
                                                {"annotations", std::move(annotations)}}},
                      {"spec", std::move(spec)}};
}

// A pod started at kStart and looked at again at chosen moments.
struct SimulatedPod {
  json::object pod;
  json::object status;
  CrashBackoffs backoffs;
  std::chrono::milliseconds default_run{2000};

  SimPodStep Start() { return StartPodStatus(pod, status, kStart, SimRunOf(pod, default_run), backoffs); }
  SimPodStep At(std::chrono::milliseconds since_start) {
    return AdvancePodStatus(pod, status, kStart + since_start, SimRunOf(pod, default_run), backoffs);
  }
  std::string Phase() const { return std::string(api::StringAt(status, "phase")); }
  const json::object& Container() const { return status.at("containerStatuses").as_array().at(0).as_object(); }
  const json::object* State(std::string_view which) const {
    return api::ObjectAt(api::ObjectAt(Container(), "state"), which);
  }
  const json::object* LastTerminated() const {
    return api::ObjectAt(api::ObjectAt(Container(), "lastState"), "terminated");
  }
  int64_t Restarts() const { return api::IntAt(&Container(), "restartCount"); }
  api::Condition Cond(std::string_view type) const {
    const json::object* c = api::FindCondition(&status, type);
    if (!c) return {};
    return {std::string(type), std::string(api::StringAt(c, "status")), std::string(api::StringAt(c, "reason")),
            std::string(api::StringAt(c, "message"))};
  }
};

std::string Stamp(std::chrono::milliseconds since_start) { return api::FormatRfc3339(kStart + since_start); }

bool HasEvent(const SimPodStep& step, std::string_view reason, std::string_view message) {
  for (const auto& e : step.events) {
    if (e.reason == reason && e.message == message) return true;
  }
  return false;
}

TEST(SimPodStatus, NeverPodWithNonZeroExitCodeFails) {
  SimulatedPod p{MakePod("Never", {{"sim.berth.dev/exit-code", "1"}, {"sim.berth.dev/run-duration", "5s"}})};
  SimPodStep started = p.Start();
  EXPECT_EQ(p.Phase(), "Running");
  ASSERT_TRUE(started.wake);
  EXPECT_EQ(*started.wake, kStart + seconds(5));
  EXPECT_TRUE(HasEvent(started, "Started", "Started container c"));
  EXPECT_EQ(p.Cond("Ready").status, "True");

  SimPodStep early = p.At(seconds(4));
  EXPECT_EQ(p.Phase(), "Running");
  ASSERT_NE(p.State("running"), nullptr);

  SimPodStep done = p.At(seconds(5));
  EXPECT_EQ(p.Phase(), "Failed");
  const json::object* t = p.State("terminated");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(api::IntAt(t, "exitCode"), 1);
  EXPECT_EQ(api::StringAt(t, "reason"), "Error");
  EXPECT_EQ(api::StringAt(t, "finishedAt"), Stamp(seconds(5)));
  EXPECT_EQ(p.Restarts(), 0);
  EXPECT_FALSE(api::BoolAt(&p.Container(), "ready"));
  EXPECT_FALSE(done.wake);
  EXPECT_EQ(p.Cond("Ready").reason, "PodFailed");
  EXPECT_EQ(p.Cond("ContainersReady").reason, "PodFailed");
  EXPECT_EQ(p.Cond("PodReadyToStartContainers").status, "False");

  // Terminal: nothing changes any more.
  json::object before = p.status;
  p.At(minutes(10));
  EXPECT_EQ(p.status, before);
}

TEST(SimPodStatus, NeverPodThatExitsZeroSucceeds) {
  SimulatedPod p{MakePod("Never", {{"sim.berth.dev/run-duration", "3s"}})};
  p.Start();
  p.At(seconds(3));
  EXPECT_EQ(p.Phase(), "Succeeded");
  EXPECT_EQ(api::StringAt(p.State("terminated"), "reason"), "Completed");
  EXPECT_EQ(api::IntAt(p.State("terminated"), "exitCode"), 0);
  EXPECT_EQ(p.Cond("Ready").reason, "PodCompleted");
  EXPECT_EQ(p.Cond("Initialized").reason, "PodCompleted");
  EXPECT_EQ(p.Cond("Initialized").status, "True");
}

TEST(SimPodStatus, OnFailureRestartsAFailedContainerWithKubesBackoff) {
  SimulatedPod p{MakePod("OnFailure", {{"sim.berth.dev/exit-code", "3"}, {"sim.berth.dev/run-duration", "1s"}})};
  p.Start();
  // The first restart is at once.
  SimPodStep first = p.At(seconds(1));
  EXPECT_EQ(p.Phase(), "Running");
  EXPECT_EQ(p.Restarts(), 1);
  ASSERT_NE(p.State("running"), nullptr);
  EXPECT_EQ(api::StringAt(p.State("running"), "startedAt"), Stamp(seconds(1)));
  ASSERT_NE(p.LastTerminated(), nullptr);
  EXPECT_EQ(api::IntAt(p.LastTerminated(), "exitCode"), 3);
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "reason"), "Error");
  EXPECT_EQ(api::StringAt(p.Container(), "containerID"), "sim://u-1/c/1");
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "containerID"), "sim://u-1/c/0");

  // The second waits 10s after the exit, in CrashLoopBackOff.
  SimPodStep second = p.At(seconds(2));
  EXPECT_EQ(p.Phase(), "Running");
  const json::object* waiting = p.State("waiting");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(api::StringAt(waiting, "reason"), "CrashLoopBackOff");
  EXPECT_EQ(api::StringAt(waiting, "message"), "back-off 10s restarting failed container=c pod=p_default(u-1)");
  EXPECT_EQ(p.Restarts(), 1);
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "finishedAt"), Stamp(seconds(2)));
  ASSERT_TRUE(second.wake);
  EXPECT_EQ(*second.wake, kStart + seconds(12));
  EXPECT_TRUE(HasEvent(second, "BackOff", "Back-off restarting failed container c in pod p_default(u-1)"));
  EXPECT_EQ(p.Cond("Ready").status, "False");
  EXPECT_EQ(p.Cond("ContainersReady").message, "containers with unready status: [c]");

  p.At(std::chrono::milliseconds(11999));
  EXPECT_NE(p.State("waiting"), nullptr);
  p.At(seconds(12));
  ASSERT_NE(p.State("running"), nullptr);
  EXPECT_EQ(p.Restarts(), 2);
  // Then 20s.
  p.At(seconds(13));
  EXPECT_EQ(api::StringAt(p.State("waiting"), "message"), "back-off 20s restarting failed container=c pod=p_default(u-1)");
}

TEST(SimPodStatus, OnFailurePodThatExitsZeroSucceeds) {
  SimulatedPod p{MakePod("OnFailure", {{"sim.berth.dev/run-duration", "1s"}})};
  p.Start();
  p.At(seconds(1));
  EXPECT_EQ(p.Phase(), "Succeeded");
  EXPECT_EQ(p.Restarts(), 0);
}

TEST(SimPodStatus, AlwaysRestartsWhateverTheCodeAndTheBackoffDoublesUpToFiveMinutes) {
  SimulatedPod p{MakePod("Always", {{"sim.berth.dev/run-duration", "1s"}})};
  SimPodStep step = p.Start();
  std::vector<std::string> backoffs;
  // Follow the kubelet's own wake-ups.
  for (int i = 0; i < 20 && step.wake; ++i) {
    step = p.At(std::chrono::duration_cast<std::chrono::milliseconds>(*step.wake - kStart));
    EXPECT_EQ(p.Phase(), "Running");
    if (const json::object* w = p.State("waiting")) {
      std::string m(api::StringAt(w, "message"));
      backoffs.push_back(m.substr(0, m.find(' ', 9)));
    }
  }
  ASSERT_GE(backoffs.size(), 7u);
  EXPECT_EQ(std::vector<std::string>(backoffs.begin(), backoffs.begin() + 7),
            (std::vector<std::string>{"back-off 10s", "back-off 20s", "back-off 40s", "back-off 1m20s",
                                      "back-off 2m40s", "back-off 5m0s", "back-off 5m0s"}));
  // Exit code 0 under Always: Completed, and restarted all the same.
  ASSERT_NE(p.LastTerminated(), nullptr);
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "reason"), "Completed");
  EXPECT_GT(p.Restarts(), 7);
}

TEST(SimPodStatus, ALateLookCatchesUpWithWhatHappenedMeanwhile) {
  SimulatedPod p{MakePod("Always", {{"sim.berth.dev/exit-code", "1"}, {"sim.berth.dev/run-duration", "1s"}})};
  p.Start();
  // Exits at 1, 2 (back-off 10s), 13 (20s), 34 (40s), 75 (1m20s): by 100s
  // restarted at 1, 12, 33 and 74, waiting until 155.
  SimPodStep step = p.At(seconds(100));
  EXPECT_EQ(p.Restarts(), 4);
  ASSERT_NE(p.State("waiting"), nullptr);
  EXPECT_EQ(api::StringAt(p.State("waiting"), "message"),
            "back-off 1m20s restarting failed container=c pod=p_default(u-1)");
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "finishedAt"), Stamp(seconds(75)));
  ASSERT_TRUE(step.wake);
  EXPECT_EQ(*step.wake, kStart + seconds(155));
}

TEST(SimPodStatus, BackoffIsForgottenAfterTenMinutesWithoutARestart) {
  SimulatedPod p{MakePod("Always", {{"sim.berth.dev/exit-code", "1"}, {"sim.berth.dev/run-duration", "11m"}})};
  p.Start();
  p.At(minutes(11));
  EXPECT_EQ(p.Restarts(), 1);
  ASSERT_NE(p.State("running"), nullptr);
  p.At(minutes(22));  // the last restart was 11 minutes ago: at once again
  EXPECT_EQ(p.Restarts(), 2);
  ASSERT_NE(p.State("running"), nullptr);
}

TEST(SimPodStatus, AlwaysPodWithoutRunDurationRunsForEver) {
  SimulatedPod p{MakePod("", {})};
  SimPodStep step = p.Start();
  EXPECT_FALSE(step.wake);
  p.At(minutes(600));
  EXPECT_EQ(p.Phase(), "Running");
  EXPECT_NE(p.State("running"), nullptr);
  EXPECT_EQ(p.Cond("Ready").status, "True");
}

TEST(SimPodStatus, NeverAndOnFailurePodsWithoutRunDurationRunTheDefault) {
  EXPECT_EQ(SimRunOf(MakePod("Never", {}), seconds(2)).duration, std::chrono::milliseconds(2000));
  EXPECT_EQ(SimRunOf(MakePod("OnFailure", {}), seconds(7)).duration, std::chrono::milliseconds(7000));
  EXPECT_FALSE(SimRunOf(MakePod("Always", {}), seconds(2)).duration);
  EXPECT_FALSE(SimRunOf(MakePod("", {}), seconds(2)).duration);
  EXPECT_EQ(SimRunOf(MakePod("Always", {{"sim.berth.dev/run-duration", "1m"}}), seconds(2)).duration,
            std::chrono::milliseconds(60000));
  EXPECT_EQ(SimRunOf(MakePod("Never", {{"sim.berth.dev/exit-code", "42"}}), seconds(2)).exit_code, 42);
  EXPECT_EQ(SimRunOf(MakePod("Never", {{"sim.berth.dev/exit-code", "x"}}), seconds(2)).exit_code, 0);

  SimulatedPod p{MakePod("Never", {})};
  p.default_run = seconds(2);
  p.Start();
  p.At(std::chrono::milliseconds(1999));
  EXPECT_EQ(p.Phase(), "Running");
  p.At(seconds(2));
  EXPECT_EQ(p.Phase(), "Succeeded");
}

TEST(SimPodStatus, AChangedImageRestartsTheContainerWithIt) {
  SimulatedPod p{MakePod("Never", {}, R"({"restartPolicy":"Never"})")};
  p.default_run = minutes(60);
  p.Start();
  EXPECT_EQ(api::StringAt(p.Container(), "image"), "busybox");
  EXPECT_EQ(api::StringAt(p.Container(), "imageID"), "sim://busybox");
  p.pod["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "busybox:1.36";
  SimPodStep step = p.At(seconds(30));
  EXPECT_EQ(p.Phase(), "Running");
  EXPECT_EQ(api::StringAt(p.Container(), "image"), "busybox:1.36");
  EXPECT_EQ(api::StringAt(p.Container(), "imageID"), "sim://busybox:1.36");
  EXPECT_EQ(api::StringAt(p.Container(), "containerID"), "sim://u-1/c/1");
  EXPECT_EQ(p.Restarts(), 1);
  ASSERT_NE(p.State("running"), nullptr);
  EXPECT_EQ(api::StringAt(p.State("running"), "startedAt"), Stamp(seconds(30)));
  ASSERT_NE(p.LastTerminated(), nullptr);
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "containerID"), "sim://u-1/c/0");
  EXPECT_EQ(api::StringAt(p.LastTerminated(), "finishedAt"), Stamp(seconds(30)));
  EXPECT_TRUE(HasEvent(step, "Killing", "Container c definition changed, will be restarted"));
  EXPECT_TRUE(HasEvent(step, "Pulled", "Container image \"busybox:1.36\" already present on machine"));
  // The new instance runs its full duration from its own start.
  p.At(minutes(60));
  EXPECT_EQ(p.Phase(), "Running");
  p.At(minutes(60) + seconds(30));
  EXPECT_EQ(p.Phase(), "Succeeded");
}

TEST(SimPodStatus, AnImageChangedWhileInBackoffStartsAtOnce) {
  SimulatedPod p{MakePod("Always", {{"sim.berth.dev/exit-code", "1"}, {"sim.berth.dev/run-duration", "1s"}})};
  p.Start();
  p.At(seconds(2));
  ASSERT_NE(p.State("waiting"), nullptr);
  p.pod["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "fixed";
  p.At(seconds(3));
  ASSERT_NE(p.State("running"), nullptr);
  EXPECT_EQ(api::StringAt(p.Container(), "image"), "fixed");
  EXPECT_EQ(p.Restarts(), 2);
}

TEST(SimPodStatus, InitContainersCompleteInOrderFirst) {
  SimulatedPod p{MakePod("Always", {}, R"({"initContainers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]})")};
  SimPodStep step = p.Start();
  // The kubelet's events: a, then b, then the containers.
  std::vector<std::string> started;
  for (const auto& e : step.events) {
    if (e.reason == "Started") started.push_back(e.message);
  }
  EXPECT_EQ(started, (std::vector<std::string>{"Started container a", "Started container b", "Started container c"}));
  const json::array& inits = p.status.at("initContainerStatuses").as_array();
  ASSERT_EQ(inits.size(), 2u);
  EXPECT_EQ(api::StringAt(inits[0].as_object(), "name"), "a");
  EXPECT_EQ(api::StringAt(inits[1].as_object(), "name"), "b");
  for (const auto& s : inits) {
    const json::object* t = api::ObjectAt(api::ObjectAt(s.as_object(), "state"), "terminated");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(api::StringAt(t, "reason"), "Completed");
    EXPECT_TRUE(api::BoolAt(&s.as_object(), "ready"));
    EXPECT_FALSE(api::BoolAt(&s.as_object(), "started"));
  }
  EXPECT_EQ(p.Cond("Initialized").status, "True");
  EXPECT_NE(p.State("running"), nullptr);
}

TEST(SimPodStatus, ConditionsAreKubesAndIncludeReadinessGates) {
  SimulatedPod p{MakePod("Always", {}, R"({"readinessGates":[{"conditionType":"example.com/lb"}]})")};
  p.Start();
  EXPECT_EQ(p.Cond("PodReadyToStartContainers").status, "True");
  EXPECT_EQ(p.Cond("Initialized").status, "True");
  EXPECT_EQ(p.Cond("PodScheduled").status, "True");
  EXPECT_EQ(p.Cond("ContainersReady").status, "True");
  api::Condition ready = p.Cond("Ready");
  EXPECT_EQ(ready.status, "False");
  EXPECT_EQ(ready.reason, "ReadinessGatesNotReady");
  EXPECT_EQ(ready.message, "corresponding condition of pod readiness gate \"example.com/lb\" does not exist.");

  api::SetCondition(p.status, {"example.com/lb", "False", "", ""}, Stamp(seconds(1)));
  p.At(seconds(1));
  EXPECT_EQ(p.Cond("Ready").message,
            "the status of pod readiness gate \"example.com/lb\" is not \"True\", but False");

  api::SetCondition(p.status, {"example.com/lb", "True", "", ""}, Stamp(seconds(2)));
  p.At(seconds(2));
  EXPECT_EQ(p.Cond("Ready").status, "True");
  EXPECT_EQ(p.Cond("Ready").reason, "");
}

// The pod's containers as `containers` (a JSON array) instead of one plain container.
json::object WithContainers(json::object pod, std::string_view containers) {
  pod["spec"].as_object()["containers"] = json::parse(containers);
  return pod;
}

TEST(SimPodStatus, AContainerRunsAsItsKnownCommandWould) {
  SimulatedPod p{WithContainers(MakePod("Never", {}),
                                R"([{"name":"c","image":"busybox","command":["sh","-c","sleep 5; exit 3"]}])")};
  SimPodStep started = p.Start();
  ASSERT_TRUE(started.wake);
  EXPECT_EQ(*started.wake, kStart + seconds(5));  // not the default 2s
  p.At(seconds(5));
  EXPECT_EQ(p.Phase(), "Failed");
  EXPECT_EQ(api::IntAt(p.State("terminated"), "exitCode"), 3);
  EXPECT_EQ(api::StringAt(p.State("terminated"), "reason"), "Error");
}

TEST(SimPodStatus, FalseUnderAlwaysCrashLoops) {
  SimulatedPod p{WithContainers(MakePod("Always", {}), R"([{"name":"c","image":"busybox","command":["/bin/false"]}])")};
  p.Start();
  p.At(seconds(1));
  EXPECT_EQ(p.Phase(), "Running");
  EXPECT_GE(p.Restarts(), 1);
  EXPECT_EQ(api::IntAt(p.LastTerminated(), "exitCode"), 1);
  const json::object* waiting = p.State("waiting");
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(api::StringAt(waiting, "reason"), "CrashLoopBackOff");
}

TEST(SimPodStatus, EachContainerRunsItsOwnCommand) {
  SimulatedPod p{WithContainers(MakePod("Never", {}),
                                R"([{"name":"a","image":"busybox","command":["sleep","1"]},
                                    {"name":"b","image":"busybox","command":["sleep","10"]}])")};
  p.Start();
  p.At(seconds(5));
  EXPECT_EQ(p.Phase(), "Running");  // b still sleeps
  const json::array& cs = p.status.at("containerStatuses").as_array();
  EXPECT_NE(api::ObjectAt(api::ObjectAt(cs.at(0).as_object(), "state"), "terminated"), nullptr);
  EXPECT_NE(api::ObjectAt(api::ObjectAt(cs.at(1).as_object(), "state"), "running"), nullptr);
  p.At(seconds(10));
  EXPECT_EQ(p.Phase(), "Succeeded");
}

TEST(SimPodStatus, TheAnnotationsTakePrecedenceOverTheCommand) {
  SimulatedPod p{WithContainers(MakePod("Never", {{"sim.berth.dev/exit-code", "7"}}),
                                R"([{"name":"c","image":"busybox","command":["sleep","4"]}])")};
  p.Start();
  p.At(seconds(4));
  EXPECT_EQ(p.Phase(), "Failed");
  EXPECT_EQ(api::IntAt(p.State("terminated"), "exitCode"), 7);  // the command's duration, the annotation's code
  SimulatedPod q{WithContainers(MakePod("Never", {{"sim.berth.dev/run-duration", "20s"}}),
                                R"([{"name":"c","image":"busybox","command":["/bin/true"]}])")};
  q.Start();
  q.At(seconds(19));
  EXPECT_EQ(q.Phase(), "Running");
  q.At(seconds(20));
  EXPECT_EQ(q.Phase(), "Succeeded");
}

// kube's e2e suite makes rollouts stall with images that cannot exist.
TEST(SimPodStatus, ImagesThatCannotExistAreTheSuitesOwn) {
  EXPECT_TRUE(SimImageMissing("webserver:404"));
  EXPECT_TRUE(SimImageMissing("foo:non-existent"));
  EXPECT_TRUE(SimImageMissing("gcr.io/google_samples/gb-redisslave:nonexistent"));
  EXPECT_TRUE(SimImageMissing("invalid.com/invalid/alpine:3.1"));
  EXPECT_FALSE(SimImageMissing("httpd:2.4.38-alpine"));
  EXPECT_FALSE(SimImageMissing("registry:5000/app:1.404"));
  EXPECT_FALSE(SimImageMissing("localhost:404/app"));  // a port, not a tag
  EXPECT_FALSE(SimImageMissing("example.com/invalidator:1"));
}

TEST(SimPodStatus, AMissingImageWaitsInErrImagePullThenBackOffAndIsNeverReady) {
  SimulatedPod p{MakePod("Always", {})};
  p.pod["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "webserver:404";
  SimPodStep first = p.Start();
  EXPECT_EQ(p.Phase(), "Pending");
  ASSERT_NE(p.State("waiting"), nullptr);
  EXPECT_EQ(api::StringAt(p.State("waiting"), "reason"), "ErrImagePull");
  EXPECT_TRUE(HasEvent(first, "Failed", "Error: ErrImagePull"));
  EXPECT_FALSE(api::BoolAt(&p.Container(), "ready"));
  p.At(seconds(1));
  EXPECT_EQ(api::StringAt(p.State("waiting"), "reason"), "ImagePullBackOff");
  p.At(minutes(10));
  EXPECT_EQ(p.Phase(), "Pending");
  EXPECT_EQ(api::StringAt(p.State("waiting"), "reason"), "ImagePullBackOff");
  EXPECT_EQ(p.Cond("Ready").status, "False");
}

TEST(SimPodStatus, AnImageChangedToAMissingOneStopsTheContainer) {
  SimulatedPod p{MakePod("Always", {})};
  p.Start();
  ASSERT_NE(p.State("running"), nullptr);
  p.pod["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "foo:non-existent";
  p.At(seconds(5));
  ASSERT_NE(p.State("waiting"), nullptr);
  EXPECT_EQ(api::StringAt(p.State("waiting"), "reason"), "ErrImagePull");
  ASSERT_NE(p.LastTerminated(), nullptr);  // the instance that ran
  EXPECT_EQ(p.Cond("Ready").status, "False");
}

}  // namespace
}  // namespace berth::controllers
