// The JSON field readers read what is there and nothing else; the editors
// make what is missing.

#include "api/json_fields.h"

#include <gtest/gtest.h>

#include <cmath>

#include <boost/json.hpp>

#include "api/object.h"

namespace berth::api {
namespace {

namespace json = boost::json;

const json::object kDoc = json::parse(R"({
  "meta": {"name": "a", "n": 3, "u": 18446744073709551615, "d": 2.9, "yes": true, "no": false},
  "list": [1, 2],
  "text": "hello",
  "num": 7,
  "nil": null
})")
                              .as_object();

TEST(JsonFields, ReadersReturnTheMemberOfTheRightTypeOrNothing) {
  ASSERT_NE(ObjectAt(kDoc, "meta"), nullptr);
  EXPECT_EQ(ObjectAt(kDoc, "text"), nullptr);  // wrong type
  EXPECT_EQ(ObjectAt(kDoc, "absent"), nullptr);
  EXPECT_EQ(ObjectAt(static_cast<const json::object*>(nullptr), "meta"), nullptr);
  ASSERT_NE(ArrayAt(kDoc, "list"), nullptr);
  EXPECT_EQ(ArrayAt(kDoc, "list")->size(), 2u);
  EXPECT_EQ(ArrayAt(kDoc, "meta"), nullptr);
  EXPECT_EQ(ArrayAt(static_cast<const json::object*>(nullptr), "list"), nullptr);
  EXPECT_EQ(StringAt(kDoc, "text"), "hello");
  EXPECT_EQ(StringAt(kDoc, "num"), "");
  EXPECT_EQ(StringAt(kDoc, "nil"), "");
  EXPECT_EQ(StringAt(static_cast<const json::object*>(nullptr), "text"), "");
  // Chained through absent parents without checks.
  EXPECT_EQ(StringAt(ObjectAt(ObjectAt(kDoc, "absent"), "deeper"), "name"), "");
  EXPECT_EQ(StringAt(ObjectAt(kDoc, "meta"), "name"), "a");
}

TEST(JsonFields, IntAtReadsEveryNumberAndFallsBackOtherwise) {
  const json::object* meta = ObjectAt(kDoc, "meta");
  EXPECT_EQ(IntAt(meta, "n"), 3);
  EXPECT_EQ(IntAt(meta, "d"), 2);   // truncated
  EXPECT_EQ(IntAt(meta, "u"), -1);  // uint64 cast, as before
  EXPECT_EQ(IntAt(meta, "name"), 0);
  EXPECT_EQ(IntAt(meta, "absent", 42), 42);
  EXPECT_EQ(IntAt(nullptr, "n", 5), 5);
  EXPECT_TRUE(BoolAt(meta, "yes"));
  EXPECT_FALSE(BoolAt(meta, "no"));
  EXPECT_FALSE(BoolAt(meta, "n"));
  EXPECT_FALSE(BoolAt(nullptr, "yes"));
}

TEST(JsonFields, ExactInt64TakesOnlyWholeNumbersWithinRange) {
  EXPECT_EQ(ExactInt64(3.0), 3);
  EXPECT_EQ(ExactInt64(-9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(ExactInt64(9223372036854774784.0), 9223372036854774784LL);  // the largest double below 2^63
  EXPECT_EQ(ExactInt64(9223372036854775808.0), std::nullopt);            // 2^63
  EXPECT_EQ(ExactInt64(6.66667e+92), std::nullopt);
  EXPECT_EQ(ExactInt64(-1e19), std::nullopt);
  EXPECT_EQ(ExactInt64(2.5), std::nullopt);
  EXPECT_EQ(ExactInt64(std::nan("")), std::nullopt);
  EXPECT_EQ(ExactInt64(INFINITY), std::nullopt);
}

TEST(JsonFields, IntAtFallsBackForNumbersOutsideInt64) {
  const json::object big = json::parse(R"({"big":6.66667e+92,"neg":-1e19,"half":-2.5})").as_object();
  EXPECT_EQ(IntAt(&big, "big", 7), 7);
  EXPECT_EQ(IntAt(&big, "neg", 7), 7);
  EXPECT_EQ(IntAt(&big, "half", 7), -2);  // truncated toward zero
}

TEST(JsonFields, EditorsCreateOrReplaceTheMember) {
  json::object o{{"spec", 5}, {"keep", json::object{{"x", 1}}}};
  MutableObject(o, "spec")["replicas"] = 2;  // a number replaced by an object
  EXPECT_EQ(o.at("spec"), (json::object{{"replicas", 2}}));
  MutableObject(o, "keep")["y"] = 2;  // an object kept
  EXPECT_EQ(o.at("keep"), (json::object{{"x", 1}, {"y", 2}}));
  MutableObject(MutableObject(o, "metadata"), "labels")["app"] = "web";
  EXPECT_EQ(StringAt(ObjectAt(ObjectAt(o, "metadata"), "labels"), "app"), "web");
  MutableArray(o, "items").push_back(1);
  MutableArray(o, "items").push_back(2);
  EXPECT_EQ(o.at("items"), (json::array{1, 2}));
  EraseIf(MutableArray(o, "items"), [](const json::value& v) { return v == json::value(1); });
  EXPECT_EQ(o.at("items"), (json::array{2}));
}

TEST(JsonFields, ReadsAnObjectsParts) {
  auto pod = Object::Decode(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"default","generation":4,"annotations":{"a":"b"}},
    "spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}})");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  const Object& p = *pod.value();
  EXPECT_EQ(StringAt(Metadata(p), "name"), "p");
  EXPECT_NE(Spec(p), nullptr);
  EXPECT_EQ(StringAt(StatusOf(p), "phase"), "Running");
  EXPECT_EQ(Generation(p), 4);
  EXPECT_EQ(Annotation(p, "a"), "b");
  EXPECT_EQ(Annotation(p, "missing"), "");
  EXPECT_FALSE(BeingDeleted(p));
  auto deleting = p.Edit([](json::object& o) {
    MutableObject(o, "metadata")["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  });
  ASSERT_TRUE(deleting.ok());
  EXPECT_TRUE(BeingDeleted(*deleting.value()));
}

}  // namespace
}  // namespace berth::api
