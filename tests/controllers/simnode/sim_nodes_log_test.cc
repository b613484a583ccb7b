// What pods/log answers for a simulated pod (apiserver/subresources/log.h): output
// made up from the pod's container statuses and its sim.berth.dev/log
// annotation, and kube's errors.

#include "apiserver/subresources/log.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// No other objects: the environment is the pod's own.
const api::container::Sources kNoObjects{
    .get = [](api::Kind, std::string_view, std::string_view) -> api::ObjectPtr { return nullptr; },
    .list = [](api::Kind, std::string_view) { return std::vector<api::ObjectPtr>{}; }};

api::ObjectPtr PodOf(std::string_view text) {
  auto pod = api::Object::Decode(std::string(text));
  EXPECT_TRUE(pod.ok()) << pod.status().message();
  return pod.ok() ? pod.value() : nullptr;
}

constexpr std::string_view kRestarted = R"({"kind":"Pod","apiVersion":"v1",
  "metadata":{"name":"p","namespace":"default","annotations":{"sim.berth.dev/log":"one\ntwo"}},
  "spec":{"nodeName":"sim-0","containers":[{"name":"c","image":"app:2"}]},
  "status":{"phase":"Running","containerStatuses":[{"name":"c","image":"app:2","restartCount":1,
    "state":{"running":{"startedAt":"2026-01-01T00:00:10Z"}},
    "lastState":{"terminated":{"exitCode":7,"reason":"Error","startedAt":"2026-01-01T00:00:00Z",
                                "finishedAt":"2026-01-01T00:00:05Z"}}}]}})";

TEST(SimPodLog, CurrentInstancePrintsItsStartAndTheAnnotatedLines) {
  auto text = RenderPodLog(*PodOf(kRestarted), {}, kNoObjects);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text.value(), "berth-sim: started container c (image app:2)\none\ntwo\n");
}

TEST(SimPodLog, PreviousInstanceEndsWithItsExitCode) {
  PodLogQuery q;
  q.previous = true;
  auto text = RenderPodLog(*PodOf(kRestarted), q, kNoObjects);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text.value(), "berth-sim: started container c\none\ntwo\nberth-sim: container c exited with code 7\n");
}

TEST(SimPodLog, TimestampsTailAndLimit) {
  PodLogQuery q;
  q.previous = true;
  q.timestamps = true;
  q.tail_lines = 1;
  auto text = RenderPodLog(*PodOf(kRestarted), q, kNoObjects);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "2026-01-01T00:00:05.000000000Z berth-sim: container c exited with code 7\n");
  PodLogQuery limited;
  limited.limit_bytes = 9;
  EXPECT_EQ(RenderPodLog(*PodOf(kRestarted), limited, kNoObjects).value(), "berth-sim");
}

TEST(SimPodLog, KubesErrors) {
  auto no_previous = PodOf(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"q","namespace":"default"},
    "spec":{"nodeName":"sim-0","initContainers":[{"name":"i","image":"x"}],
            "containers":[{"name":"a","image":"x"},{"name":"b","image":"x"}]},
    "status":{"containerStatuses":[{"name":"a","state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}},
                                   {"name":"b","state":{"waiting":{"reason":"ContainerCreating"}}}]}})");
  auto status_of = [&](PodLogQuery q) { return RenderPodLog(*no_previous, q, kNoObjects).status(); };
  EXPECT_EQ(status_of({}).message(), "a container name must be specified for pod q, choose one of: [i a b]");
  EXPECT_EQ(status_of({.container = "zz"}).message(), "container zz is not valid for pod q");
  EXPECT_EQ(status_of({.container = "a", .previous = true}).message(),
            "previous terminated container \"a\" in pod \"q\" not found");
  EXPECT_EQ(status_of({.container = "b"}).message(),
            "container \"b\" in pod \"q\" is waiting to start: ContainerCreating");
  EXPECT_EQ(status_of({.container = "b"}).code(), StatusCode::kBadRequest);
  EXPECT_EQ(status_of({.container = "i"}).message(), "container \"i\" in pod \"q\" is not available");
  EXPECT_TRUE(RenderPodLog(*no_previous, {.container = "a"}, kNoObjects).ok());
}

TEST(SimPodLog, APodOnNoNodeHasNoOutputYet) {
  auto pending = PodOf(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"r","namespace":"default"},
    "spec":{"containers":[{"name":"a","image":"x"}]}})");
  auto text = RenderPodLog(*pending, {}, kNoObjects);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text.value(), "");
}

// The e2e suites' way of reading a variable: a container runs `env` and its
// log is searched for NAME=value.
TEST(SimPodLog, ACommandsOutputFollowsItsStartInTheEnvironmentTheKubeletGives) {
  auto secret = PodOf(R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"default"},
    "data":{"data-1":"dmFsdWUtMQ=="}})");
  const api::container::Sources sources{
      .get = [&](api::Kind kind, std::string_view, std::string_view name) -> api::ObjectPtr {
        return kind == api::Kind::kSecret && name == "s" ? secret : nullptr;
      },
      .list = [](api::Kind, std::string_view) { return std::vector<api::ObjectPtr>{}; }};
  auto pod = PodOf(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"e","namespace":"default"},
    "spec":{"nodeName":"sim-0","containers":[{"name":"c","image":"busybox","command":["sh","-c","env"],
      "env":[{"name":"SECRET_DATA","valueFrom":{"secretKeyRef":{"name":"s","key":"data-1"}}}]}]},
    "status":{"containerStatuses":[{"name":"c","image":"busybox",
      "state":{"terminated":{"exitCode":0,"startedAt":"2026-01-01T00:00:00Z","finishedAt":"2026-01-01T00:00:00Z"}}}]}})");
  auto text = RenderPodLog(*pod, {}, sources);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text.value(),
            "berth-sim: started container c (image busybox)\nHOSTNAME=e\nSECRET_DATA=value-1\n"
            "berth-sim: container c exited with code 0\n");
  // Without the Secret, the variable is not there (the kubelet would not have started the container).
  EXPECT_EQ(RenderPodLog(*pod, {}, kNoObjects).value(),
            "berth-sim: started container c (image busybox)\nHOSTNAME=e\n"
            "berth-sim: container c exited with code 0\n");
}

}  // namespace
}  // namespace berth::apiserver
