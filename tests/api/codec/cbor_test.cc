#include "api/codec/cbor.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>
#include <string>

namespace berth::api {
namespace {

namespace json = boost::json;

// Bytes from a hex string ("d9 d9 f7" or "d9d9f7").
std::string Hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    if (c == ' ') continue;
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

TEST(CborTest, RoundTripsEveryJsonType) {
  const char* cases[] = {
      "null",
      "true",
      "false",
      "0",
      "23",
      "24",
      "255",
      "256",
      "65536",
      "4294967296",
      "9223372036854775807",
      "-1",
      "-24",
      "-25",
      "-9223372036854775808",
      "1.5",
      "-0.0",
      "0.1",
      "100000.5",
      "1e300",
      "5.960464477539063e-08",
      "\"\"",
      "\"héllo ✓ 𝄞\"",
      "[]",
      "[1,[2,[3]],{\"a\":null}]",
      "{}",
      R"({"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"replicas":3,"paused":false,"ratio":0.25}})"};
  for (const char* text : cases) {
    json::value in = json::parse(text);
    std::string bytes = EncodeCbor(in);
    ASSERT_TRUE(bytes.starts_with(kSelfDescribedCbor)) << text;
    auto out = DecodeCbor(bytes);
    ASSERT_TRUE(out.ok()) << text << ": " << out.status().message();
    EXPECT_EQ(out.value(), in) << text << " came back as " << json::serialize(out.value());
  }
}

TEST(CborTest, WritesASmallPodAsKubeDoes) {
  // Keys sorted by their encoding (shorter first), strings and keys as byte
  // strings (major type 2), everything inside tag 55799.
  json::value pod = json::parse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"default"},)"
      R"("spec":{"containers":[{"name":"c","image":"nginx"}],"priority":-5}})");
  std::string expected =
      Hex("d9d9f7"
          "a4"                                       // map of 4
          "44 6b696e64 43 506f64"                    // "kind": "Pod"
          "44 73706563"                              // "spec":
          "a2"                                       //   map of 2
          "48 7072696f72697479 24"                   //   "priority": -5
          "4a 636f6e7461696e657273 81"               //   "containers": [
          "a2 44 6e616d65 41 63"                     //     {"name":"c",
          "45 696d616765 45 6e67696e78"              //      "image":"nginx"}]
          "48 6d65746164617461"                      // "metadata":
          "a2 44 6e616d65 41 61"                     //   {"name":"a",
          "49 6e616d657370616365 47 64656661756c74"  // "namespace":"default"}
          "4a 61706956657273696f6e 42 7631");        // "apiVersion": "v1"
  EXPECT_EQ(ToHex(EncodeCbor(pod)), ToHex(expected));
}

TEST(CborTest, WritesTheShortestHeadsAndFloats) {
  struct Case {
    const char* json;
    const char* hex;  // without the tag
  } cases[] = {
      {"0", "00"},
      {"23", "17"},
      {"24", "1818"},
      {"256", "190100"},
      {"-1", "20"},
      {"-500", "3901f3"},
      {"1.5", "f93e00"},
      {"-0.0", "f98000"},
      {"65504.0", "f97bff"},
      {"5.960464477539063e-08", "f90001"},
      {"100000.5", "fa47c35040"},
      {"0.1", "fb3fb999999999999a"},
      {"true", "f5"},
      {"null", "f6"},
      {"\"a\"", "4161"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ToHex(EncodeCbor(json::parse(c.json))), "d9d9f7" + std::string(c.hex)) << c.json;
  }
}

TEST(CborTest, ReadsWhatOtherEncodersWrite) {
  struct Case {
    const char* name;
    const char* hex;
    const char* json;
  } cases[] = {
      {"untagged text keys", "a1 61 61 01", R"({"a":1})"},
      {"nested self-described tag", "d9d9f7 a1 61 61 d9d9f7 02", R"({"a":2})"},
      {"indefinite text string", "7f 61 61 62 62 63 ff", R"("abc")"},
      {"indefinite array and map", "9f 01 bf 61 61 f6 ff ff", R"([1,{"a":null}])"},
      {"float32", "fa 3fc00000", "1.5"},
      {"unknown tag is transparent", "d8 64 01", "1"},
      {"tag 22 byte string is base64", "d6 43 010203", R"("AQID")"},
      {"tag 21 byte string is base64url", "d5 42 fbff", R"("-_8")"},
      {"tag 23 byte string is base16", "d7 42 0aff", R"("0aff")"},
      {"tag 22 reaches nested byte strings", "d6 81 41 00", R"(["AA=="])"},
      {"tag 0 text", "c0 74 323032362d30312d30325430333a30343a30355a", R"("2026-01-02T03:04:05Z")"},
      {"tag 1 epoch seconds", "c1 1a 5a5b2a80", R"("2018-01-14T10:01:36Z")"},
      {"tag 1 fractional epoch", "c1 fb 41d696ca a0200000", R"("2018-01-14T10:01:36.5Z")"},
  };
  for (const auto& c : cases) {
    auto out = DecodeCbor(Hex(c.hex));
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status().message();
    EXPECT_EQ(out.value(), json::parse(c.json)) << c.name << ": " << json::serialize(out.value());
  }
}

TEST(CborTest, RefusesWhatKubeRefuses) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* message;  // a part of the error
  } cases[] = {
      {"duplicate map key", Hex("a2 41 61 01 61 61 02"), "duplicate map key \"a\""},
      {"integer map key", Hex("a1 01 02"), "is not a string"},
      {"array map key", Hex("a1 80 02"), "is not a string"},
      {"truncated map", Hex("d9d9f7 a2 41 61 01"), "unexpected end"},
      {"truncated string", Hex("45 6162"), "unexpected end"},
      {"huge string length", Hex("5b 7fffffffffffffff 00"), "unexpected end"},
      {"huge array length", Hex("9a 00000400 00"), "unexpected end"},
      {"too many array elements", Hex("9a 00000401 00"), "max number of elements 1024"},
      {"too many map pairs", Hex("ba 00000401 00"), "max number of key-value pairs 1024"},
      {"empty input", "", "unexpected end"},
      {"trailing bytes", Hex("01 02"), "extraneous data"},
      {"uint beyond int64", Hex("1b 8000000000000000"), "overflow"},
      {"negative beyond int64", Hex("3b 8000000000000000"), "overflow"},
      {"NaN", Hex("f9 7e00"), "NaN"},
      {"infinity", Hex("fa 7f800000"), "infinity"},
      {"undefined", Hex("f7"), "undefined"},
      {"other simple value", Hex("f0"), "simple value 16"},
      {"one-byte simple value", Hex("f8 20"), "simple value 32"},
      {"lone break", Hex("ff"), "unexpected break"},
      {"reserved additional info", Hex("1c"), "invalid additional information 28"},
      {"indefinite integer", Hex("1f"), "invalid additional information 31"},
      {"bignum", Hex("c2 41 01"), "bignum"},
      {"tag 0 on a number", Hex("c0 01"), "tag 0"},
      {"tag 1 on a string", Hex("c1 61 61"), "tag 1"},
      {"invalid UTF-8 text", Hex("62 c328"), "UTF-8"},
      {"wrong chunk in indefinite text", Hex("7f 41 61 ff"), "indefinite-length string"},
      {"unterminated indefinite array", Hex("9f 01 02"), "unexpected end"},
  };
  for (const auto& c : cases) {
    auto out = DecodeCbor(c.bytes);
    ASSERT_FALSE(out.ok()) << c.name;
    EXPECT_EQ(out.status().code(), StatusCode::kBadRequest) << c.name;
    EXPECT_NE(out.status().message().find(c.message), std::string::npos)
        << c.name << ": " << out.status().message();
  }
}

TEST(CborTest, LimitsNestingTo64Levels) {
  auto nested = [](int levels) { return std::string(levels, '\x81') + '\x01'; };
  EXPECT_TRUE(DecodeCbor(nested(64)).ok());
  auto deep = DecodeCbor(nested(65));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("max nested level 64"), std::string::npos);
  // Tags count as a level, as in kube's decoder.
  EXPECT_FALSE(DecodeCbor(std::string(64, '\x81') + Hex("d8 64 01")).ok());
  // A million levels fail fast rather than overflowing the stack.
  EXPECT_FALSE(DecodeCbor(std::string(1'000'000, '\x9f')).ok());
}

TEST(CborTest, TruncationsAndCorruptionsNeverCrash) {
  json::value pod = json::parse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"app":"web"}},)"
      R"("spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}],)"
      R"("terminationGracePeriodSeconds":30,"x":1.25,"y":0.1,"z":[true,false,null]}})");
  const std::string bytes = EncodeCbor(pod);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeCbor(std::string_view(bytes).substr(0, n)).ok())
        << "prefix of " << n << " bytes";
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string corrupt = bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f)
      corrupt[rng() % corrupt.size()] = static_cast<char>(rng() & 0xff);
    corrupt.resize(rng() % (corrupt.size() + 1));
    auto out = DecodeCbor(corrupt);  // any answer but a crash
    if (out.ok()) {
      EXPECT_TRUE(DecodeCbor(EncodeCbor(out.value())).ok());
    }
  }
}

}  // namespace
}  // namespace berth::api
