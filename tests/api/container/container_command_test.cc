// What is known of a container's command (api/container/command.h): the
// commands kube's e2e tests run, what they print, and those that must not be
// guessed at.

#include "api/container/command.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::api::container {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

std::optional<CommandRun> RunOf(std::string_view container, const EnvVars& env = {}) {
  return RunCommand(json::parse(container).as_object(), env);
}

void ExpectRun(std::string_view container, std::optional<milliseconds> duration, int exit_code) {
  auto run = RunOf(container);
  ASSERT_TRUE(run) << container;
  EXPECT_EQ(run->duration, duration) << container;
  EXPECT_EQ(run->exit_code, exit_code) << container;
}

std::string OutputOf(std::string_view container, const EnvVars& env = {}) {
  auto run = RunOf(container, env);
  EXPECT_TRUE(run) << container;
  return run ? run->output : "(not known)";
}

TEST(ContainerCommand, SleepRunsForItsOperandsAndExitsZero) {
  ExpectRun(R"j({"command":["sleep","10"]})j", milliseconds(10'000), 0);
  ExpectRun(R"j({"command":["/bin/sleep"],"args":["1.5"]})j", milliseconds(1'500), 0);
  ExpectRun(R"j({"command":["sleep","2m","30"]})j", milliseconds(150'000), 0);
  ExpectRun(R"j({"command":["sleep","infinity"]})j", std::nullopt, 0);
  ExpectRun(R"j({"command":["sleep","1e308"]})j", std::nullopt, 0);  // longer than anything runs
}

TEST(ContainerCommand, TrueAndFalseEndAtOnce) {
  ExpectRun(R"j({"command":["/bin/true"]})j", milliseconds(0), 0);
  ExpectRun(R"j({"command":["/bin/false"]})j", milliseconds(0), 1);
  ExpectRun(R"j({"command":["false"]})j", milliseconds(0), 1);
}

TEST(ContainerCommand, ShellScriptsEndWithTheirLastStatus) {
  ExpectRun(R"j({"command":["/bin/sh","-c","exit 3"]})j", milliseconds(0), 3);
  ExpectRun(R"j({"command":["sh","-c","sleep 5; exit 1"]})j", milliseconds(5'000), 1);
  ExpectRun(R"j({"command":["sh"],"args":["-c","sleep 2 && false"]})j", milliseconds(2'000), 1);
  ExpectRun(R"j({"command":["bash","-c","false || sleep 1"]})j", milliseconds(1'000), 0);
  ExpectRun(R"j({"command":["sh","-c","false && sleep 9"]})j", milliseconds(0), 1);
  ExpectRun(R"j({"command":["sh","-c","echo hello; exit 0; sleep 100"]})j", milliseconds(0), 0);
  ExpectRun(R"j({"command":["sh","-c","sleep infinity; exit 2"]})j", std::nullopt, 0);
  ExpectRun(R"j({"command":["sh","-c","false;"]})j", milliseconds(0), 1);  // an empty statement keeps the status
  // kube's exit status is the code modulo 256.
  ExpectRun(R"j({"command":["sh","-c","exit 257"]})j", milliseconds(0), 1);
}

TEST(ContainerCommand, EchoPrintsItsWordsQuotedOrNot) {
  EXPECT_EQ(OutputOf(R"j({"command":["echo","a","b"]})j"), "a b\n");
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","echo 'one  two' \"three\"; echo -n x"]})j"), "one  two three\nx");
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","echo a && false || echo b"]})j"), "a\nb\n");
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","echo \"a;b\""]})j"), "a;b\n");
}

TEST(ContainerCommand, EnvAndPrintenvPrintTheEnvironment) {
  const EnvVars env{{"FOO", "foo-value"}, {"BAR", "bar"}};
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","env"]})j", env), "FOO=foo-value\nBAR=bar\n");
  EXPECT_EQ(OutputOf(R"j({"command":["/usr/bin/env"]})j", env), "FOO=foo-value\nBAR=bar\n");
  // An assignment before a command is that command's own.
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","FOO=other env; printenv FOO"]})j", env),
            "FOO=other\nBAR=bar\nfoo-value\n");
  auto missing = RunOf(R"j({"command":["printenv","BAR","NONE"]})j", env);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->output, "bar\n");
  EXPECT_EQ(missing->exit_code, 1);
}

// kube's e2e "Variable Expansion" specs: the kubelet expands $(NAME) in the
// command and args before the shell sees them.
TEST(ContainerCommand, TheKubeletExpandsReferencesInCommandAndArgs) {
  const EnvVars env{{"TEST_VAR", "test-value"}};
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c","TEST_VAR=wrong echo \"$(TEST_VAR)\""]})j", env), "test-value\n");
  EXPECT_EQ(OutputOf(R"j({"command":["sh","-c"],"args":["TEST_VAR=wrong echo \"$(TEST_VAR)\""]})j", env),
            "test-value\n");
  EXPECT_FALSE(RunOf(R"j({"command":["sleep","$(NAP)"]})j", env));  // left unexpanded: not known
}

TEST(ContainerCommand, ExpansionFollowsKube) {
  const EnvVars env{{"A", "1"}, {"B", "2"}, {"A", "3"}};
  EXPECT_EQ(ExpandReferences("$(A);;$(B)", env), "3;;2");
  EXPECT_EQ(ExpandReferences("$(NONE)", env), "$(NONE)");
  EXPECT_EQ(ExpandReferences("$$(A)", env), "$(A)");  // escaped
  EXPECT_EQ(ExpandReferences("$(A", env), "$(A");
  EXPECT_EQ(ExpandReferences("x$", env), "x$");
  EXPECT_EQ(ExpandReferences("$A", env), "$A");
}

TEST(ContainerCommand, WhatItCannotKnowIsLeftToThePodsRun) {
  EXPECT_FALSE(RunOf(R"j({"name":"c","image":"nginx"})j"));  // the image's entrypoint
  EXPECT_FALSE(RunOf(R"j({"args":["sleep","10"]})j"));       // args to an unknown entrypoint
  EXPECT_FALSE(RunOf(R"j({"command":["nginx","-g","daemon off;"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","while true; do sleep 1; done"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","cat /etc/hosts | grep x"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","sleep $DELAY"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","echo \"$HOME\""]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","echo 'open"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","-c","env > /tmp/x"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["env","-i","sh"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sleep","soon"]})j"));
  EXPECT_FALSE(RunOf(R"j({"command":["sh","script.sh"]})j"));
}

}  // namespace
}  // namespace berth::api::container
