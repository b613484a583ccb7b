// YAML → JSON as Kubernetes reads it (api/codec/yaml_json.h): go-yaml v2's
// resolution of plain scalars, quoted and tagged scalars as strings.

#include "api/codec/yaml_json.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>

namespace berth::api {
namespace {

namespace json = boost::json;

json::value Read(const std::string& yaml) { return YamlToJson(YAML::Load(yaml)); }

TEST(YamlToJson, ScalarsAsKubernetesReadsThem) {
  auto v = YamlToJson(YAML::Load("{a: 1, b: '1', c: true, d: 1.5, e: 100m, f: null, g: ''}"));
  const auto& o = v.as_object();
  EXPECT_TRUE(o.at("a").is_int64());
  EXPECT_TRUE(o.at("b").is_string());
  EXPECT_TRUE(o.at("c").is_bool());
  EXPECT_TRUE(o.at("d").is_double());
  EXPECT_EQ(o.at("e").as_string(), "100m");
  EXPECT_TRUE(o.at("f").is_null());
  EXPECT_TRUE(o.at("g").is_string());
}

TEST(YamlToJson, PlainScalarsResolveByGoYamlV2sTable) {
  EXPECT_EQ(Read("[yes, Yes, YES, on, On, y, Y, TRUE]"), json::parse("[true,true,true,true,true,true,true,true]"));
  EXPECT_EQ(Read("[no, No, off, OFF, n, N, False]"), json::parse("[false,false,false,false,false,false,false]"));
  EXPECT_EQ(Read("[0x10, 0o17, 017, 0b101, 1_000, -42, +7]"), json::parse("[16,15,15,5,1000,-42,7]"));
  EXPECT_EQ(Read("[1.5, .5, 1e3, -2.5E-1]"), json::parse("[1.5,0.5,1000.0,-0.25]"));
  EXPECT_EQ(Read("[~, null, Null, NULL]"), json::parse("[null,null,null,null]"));
  // Beyond int64: unsigned while it fits, then a float (YAML's float syntax).
  EXPECT_EQ(Read("18446744073709551615"), json::value(uint64_t{18446744073709551615u}));
  EXPECT_TRUE(Read("18446744073709551616").is_double());
  // JSON has no infinity: kept as written.
  EXPECT_EQ(Read(".inf"), json::value(".inf"));
}

TEST(YamlToJson, QuotedBlockAndStrTaggedScalarsAreStrings) {
  EXPECT_EQ(Read("['yes', \"1\", !!str 2, !!str true]"), json::parse(R"(["yes","1","2","true"])"));
  EXPECT_EQ(Read("a: |\n  10\n"), json::parse(R"({"a":"10\n"})"));
  // An explicit core tag resolves as if plain.
  EXPECT_EQ(Read("[!!int 10, !!bool yes]"), json::parse("[10,true]"));
}

TEST(YamlToJson, MapsKeepTheLastValueOfARepeatedKeyAndRefuseNonScalarKeys) {
  EXPECT_EQ(Read("{a: 1, a: 2}"), json::parse(R"({"a":2})"));
  EXPECT_EQ(Read("a:\n"), json::parse(R"({"a":null})"));
  EXPECT_THROW(Read("? [x]\n: 1\n"), YAML::Exception);
}

}  // namespace
}  // namespace berth::api
