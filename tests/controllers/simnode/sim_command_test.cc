// What the simulated kubelet knows of a container's command (sim_command.h):
// the commands kube's e2e tests run, and those it must not guess at.

#include "controllers/simnode/sim_command.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::controllers {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

std::optional<SimRun> RunOf(std::string_view container) {
  return CommandRun(json::parse(container).as_object());
}

void ExpectRun(std::string_view container, std::optional<milliseconds> duration, int exit_code) {
  auto run = RunOf(container);
  ASSERT_TRUE(run) << container;
  EXPECT_EQ(run->duration, duration) << container;
  EXPECT_EQ(run->exit_code, exit_code) << container;
}

TEST(SimCommand, SleepRunsForItsOperandsAndExitsZero) {
  ExpectRun(R"({"command":["sleep","10"]})", milliseconds(10'000), 0);
  ExpectRun(R"({"command":["/bin/sleep"],"args":["1.5"]})", milliseconds(1'500), 0);
  ExpectRun(R"({"command":["sleep","2m","30"]})", milliseconds(150'000), 0);
  ExpectRun(R"({"command":["sleep","infinity"]})", std::nullopt, 0);
  ExpectRun(R"({"command":["sleep","1e308"]})", std::nullopt, 0);  // longer than anything runs
}

TEST(SimCommand, TrueAndFalseEndAtOnce) {
  ExpectRun(R"({"command":["/bin/true"]})", milliseconds(0), 0);
  ExpectRun(R"({"command":["/bin/false"]})", milliseconds(0), 1);
  ExpectRun(R"({"command":["false"]})", milliseconds(0), 1);
}

TEST(SimCommand, ShellScriptsEndWithTheirLastStatus) {
  ExpectRun(R"({"command":["/bin/sh","-c","exit 3"]})", milliseconds(0), 3);
  ExpectRun(R"({"command":["sh","-c","sleep 5; exit 1"]})", milliseconds(5'000), 1);
  ExpectRun(R"({"command":["sh"],"args":["-c","sleep 2 && false"]})", milliseconds(2'000), 1);
  ExpectRun(R"({"command":["bash","-c","false || sleep 1"]})", milliseconds(1'000), 0);
  ExpectRun(R"({"command":["sh","-c","false && sleep 9"]})", milliseconds(0), 1);
  ExpectRun(R"({"command":["sh","-c","echo hello; exit 0; sleep 100"]})", milliseconds(0), 0);
  ExpectRun(R"({"command":["sh","-c","sleep infinity; exit 2"]})", std::nullopt, 0);
  // kube's exit status is the code modulo 256.
  ExpectRun(R"({"command":["sh","-c","exit 257"]})", milliseconds(0), 1);
}

TEST(SimCommand, WhatItCannotKnowIsLeftToThePodsRun) {
  EXPECT_FALSE(RunOf(R"({"name":"c","image":"nginx"})"));  // the image's entrypoint
  EXPECT_FALSE(RunOf(R"({"args":["sleep","10"]})"));       // args to an unknown entrypoint
  EXPECT_FALSE(RunOf(R"({"command":["nginx","-g","daemon off;"]})"));
  EXPECT_FALSE(RunOf(R"({"command":["sh","-c","while true; do sleep 1; done"]})"));
  EXPECT_FALSE(RunOf(R"({"command":["sh","-c","cat /etc/hosts | grep x"]})"));
  EXPECT_FALSE(RunOf(R"({"command":["sh","-c","sleep $DELAY"]})"));
  EXPECT_FALSE(RunOf(R"({"command":["sleep","soon"]})"));
  EXPECT_FALSE(RunOf(R"({"command":["sh","script.sh"]})"));
}

}  // namespace
}  // namespace berth::controllers
