#include "log/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace berth::log {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
namespace json = boost::json;

// 2024-11-25T01:19:01.123456Z
const std::chrono::system_clock::time_point kTime =
    std::chrono::system_clock::time_point(std::chrono::microseconds(1732497541123456));

Record At(std::string_view msg, std::initializer_list<Field> fields) {
  return Record{.severity = Severity::kInfo,
                .verbosity = 2,
                .time = kTime,
                .pid = 4242,
                .file = "/src/berth/src/scheduler/schedule_one.cc",
                .line = 210,
                .msg = msg,
                .fields = fields};
}

TEST(LogTextTest, HasKlogsHeaderQuotedMessageAndKeyValues) {
  std::string node = "n1";
  std::string line =
      FormatText(At("Successfully bound pod to node",
                    {{"pod", KObj("default", "web-1")}, {"node", node}, {"evaluatedNodes", 3}, {"feasibleNodes", 2u}}));
  // klog: Lmmdd hh:mm:ss.uuuuuu, the pid right-aligned in 7, file:line]; the
  // hour depends on the local time zone, the rest does not.
  EXPECT_THAT(line, MatchesRegex(R"(I11(24|25) [0-9][0-9]:[0-9][0-9]:01\.123456    4242 schedule_one\.cc:210\] .*)"));
  EXPECT_THAT(line, HasSubstr(R"(] "Successfully bound pod to node" pod="default/web-1" node="n1" )"
                              R"(evaluatedNodes=3 feasibleNodes=2)"));
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(LogTextTest, EscapesStringsAsGoQuotes) {
  std::string line = FormatText(At("say \"hi\"\n", {{"path", "C:\\dir\tx\x01"}, {"name", "zürich"}}));
  EXPECT_THAT(line, HasSubstr(R"("say \"hi\"\n" path="C:\\dir\tx\x01" name="zürich")"));
}

TEST(LogTextTest, OtherValueTypes) {
  std::string line = FormatText(At("m", {{"ok", true}, {"ratio", 0.25}, {"node", KObj("", "n1")}, {"neg", -7}}));
  EXPECT_THAT(line, HasSubstr(R"("m" ok=true ratio=0.25 node="n1" neg=-7)"));
}

TEST(LogTextTest, ErrorLinesCarryTheErrorFirst) {
  // A named list keeps its elements alive as long as the record.
  std::initializer_list<Field> fields = {{"key", "ns/a"}};
  Record r = At("Error syncing", fields);
  r.severity = Severity::kError;
  r.err = "etcd down";
  std::string line = FormatText(r);
  EXPECT_EQ(line[0], 'E');
  EXPECT_THAT(line, HasSubstr(R"(] "Error syncing" err="etcd down" key="ns/a")"));
  r.severity = Severity::kWarning;
  EXPECT_EQ(FormatText(r)[0], 'W');
}

TEST(LogJsonTest, KubesSchema) {
  std::string line =
      FormatJson(At("Successfully bound pod to node", {{"pod", KObj("default", "web-1")}, {"node", "n1"}, {"n", 3}}));
  json::object o = json::parse(line).as_object();
  EXPECT_NEAR(o.at("ts").as_double(), 1732497541.123456, 1e-6);
  EXPECT_EQ(o.at("v").as_int64(), 2);
  EXPECT_EQ(o.at("msg").as_string(), "Successfully bound pod to node");
  EXPECT_EQ(o.at("caller").as_string(), "schedule_one.cc:210");
  EXPECT_EQ(o.at("pod").at("name").as_string(), "web-1");
  EXPECT_EQ(o.at("pod").at("namespace").as_string(), "default");
  EXPECT_EQ(o.at("node").as_string(), "n1");
  EXPECT_EQ(o.at("n").as_int64(), 3);
  EXPECT_FALSE(o.contains("err"));
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(LogJsonTest, ErrorsHaveErrAndNoV) {
  Record r = At("Error syncing", {});
  r.severity = Severity::kError;
  r.err = "boom";
  json::object o = json::parse(FormatJson(r)).as_object();
  EXPECT_EQ(o.at("err").as_string(), "boom");
  EXPECT_FALSE(o.contains("v"));
}

TEST(LogJsonTest, EscapesEverythingJsonNeeds) {
  const std::string nasty = "q\"b\\n\nt\tc\x01\x1f é";
  std::string line = FormatJson(At(nasty, {{nasty, nasty}, {"ok", false}, {"x", 1.5}}));
  json::object o = json::parse(line).as_object();
  EXPECT_EQ(o.at("msg").as_string(), nasty);
  EXPECT_EQ(o.at(nasty).as_string(), nasty);
  EXPECT_EQ(o.at("ok").as_bool(), false);
  EXPECT_EQ(o.at("x").as_double(), 1.5);
}

TEST(LogJsonTest, NonFiniteNumbersStayValidJson) {
  std::string line = FormatJson(At("m", {{"nan", std::numeric_limits<double>::quiet_NaN()}}));
  EXPECT_EQ(json::parse(line).at("nan").as_string(), "NaN");
}

class LogLevelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = CurrentOptions();
    SetSinkForTesting([this](std::string_view line) { lines_.emplace_back(line); });
  }
  void TearDown() override {
    SetSinkForTesting(nullptr);
    Configure(saved_);
  }
  Options saved_;
  std::vector<std::string> lines_;
};

TEST_F(LogLevelsTest, WritesOnlyLevelsAtOrBelowTheVerbosity) {
  Configure({.verbosity = 2, .format = Format::kText});
  BERTH_VLOG(2, "two");
  BERTH_VLOG(3, "three");
  BERTH_LOG("zero", {"k", 1});
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_THAT(lines_[0], HasSubstr("] \"two\""));
  EXPECT_THAT(lines_[1], HasSubstr("] \"zero\" k=1"));
}

TEST_F(LogLevelsTest, DisabledLevelsDoNotEvaluateTheirArguments) {
  Configure({.verbosity = 1, .format = Format::kText});
  int evaluated = 0;
  auto expensive = [&] {
    ++evaluated;
    return std::string("x");
  };
  BERTH_VLOG(4, "hidden", {"v", expensive()});
  EXPECT_EQ(evaluated, 0);
  EXPECT_TRUE(lines_.empty());
  BERTH_VLOG(1, "shown", {"v", expensive()});
  EXPECT_EQ(evaluated, 1);
  EXPECT_EQ(lines_.size(), 1u);
}

TEST_F(LogLevelsTest, ErrorsAndWarningsAreWrittenAtEveryVerbosity) {
  Configure({.verbosity = 0, .format = Format::kJson});
  BERTH_LOG_ERROR("boom", "Error syncing", {"controller", "deployment"});
  BERTH_LOG_WARNING("careful");
  ASSERT_EQ(lines_.size(), 2u);
  json::object e = json::parse(lines_[0]).as_object();
  EXPECT_EQ(e.at("err").as_string(), "boom");
  EXPECT_EQ(e.at("controller").as_string(), "deployment");
  EXPECT_EQ(json::parse(lines_[1]).at("msg").as_string(), "careful");
}

TEST(LogFormatTest, ParsesKubesFormatNames) {
  EXPECT_EQ(ParseFormat("text"), Format::kText);
  EXPECT_EQ(ParseFormat("json"), Format::kJson);
  EXPECT_EQ(ParseFormat("xml"), std::nullopt);
  EXPECT_EQ(ParseFormat("JSON"), std::nullopt);
}

}  // namespace
}  // namespace berth::log
